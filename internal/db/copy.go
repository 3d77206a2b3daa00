package db

import (
	"fmt"
	"strings"

	"entgo.io/ent/dialect"
	"github.com/lib/pq"
)

// pageColumns are the columns of a page row other than its id and revision.
const pageColumns = "page_id, parent_page_id, position, kind, title, emoji, slug, description, hidden, href, content_hash, created_at, updated_at"

// CopyPages is the statement that copies the page rows of revision from
// into revision to inside the database, leaving out the pages exclude
// lists: a new revision that keeps most of its source's pages is written
// without sending them through the application. Copies get fresh random
// row ids (20 hex digits).
func CopyPages(dialectName, to, from string, exclude []string) (string, []any) {
	if dialectName == dialect.Postgres {
		q := "INSERT INTO pages (id, revision_id, " + pageColumns + ") SELECT substr(md5(random()::text || clock_timestamp()::text || page_id), 1, 20), $1, " +
			pageColumns + " FROM pages WHERE revision_id = $2"
		args := []any{to, from}
		if len(exclude) > 0 {
			q += " AND page_id <> ALL($3)"
			args = append(args, pq.Array(exclude))
		}
		return q, args
	}
	q := "INSERT INTO pages (id, revision_id, " + pageColumns + ") SELECT lower(hex(randomblob(10))), ?, " +
		pageColumns + " FROM pages WHERE revision_id = ?"
	args := []any{to, from}
	if len(exclude) > 0 {
		q += fmt.Sprintf(" AND page_id NOT IN (%s)", strings.TrimSuffix(strings.Repeat("?,", len(exclude)), ","))
		for _, id := range exclude {
			args = append(args, id)
		}
	}
	return q, args
}

// pageFields are the columns a merge compares: everything a page is, but
// not when it was created or changed.
var pageFields = []string{"parent_page_id", "position", "kind", "title", "emoji", "slug", "description", "hidden", "href", "content_hash"}

// ChangedPages is the query of the page ids whose rows differ between
// revisions base and side (in any of pageFields) or that only one of them
// holds. The comparison runs inside the database over the revisions'
// (revision_id, page_id) index: a merge reads the rows of what changed, not
// of the whole space.
func ChangedPages(dialectName, base, side string) (string, []any) {
	differs := make([]string, len(pageFields))
	for i, c := range pageFields {
		differs[i] = "b." + c + " <> s." + c
	}
	q := "SELECT s.page_id FROM pages s LEFT JOIN pages b ON b.revision_id = ? AND b.page_id = s.page_id " +
		"WHERE s.revision_id = ? AND (b.page_id IS NULL OR " + strings.Join(differs, " OR ") + ") " +
		"UNION ALL SELECT b.page_id FROM pages b WHERE b.revision_id = ? AND NOT EXISTS " +
		"(SELECT 1 FROM pages s WHERE s.revision_id = ? AND s.page_id = b.page_id)"
	return numbered(dialectName, q), []any{base, side, base, side}
}

// TreeShape is the query of one row: how many pages revision rev holds, and
// how many of its sibling groups are not in canonical form — positions
// 0..n-1 and slugs unique among siblings, the form a whole merge gives
// every group.
func TreeShape(dialectName, rev string) (string, []any) {
	q := "SELECT coalesce(sum(n), 0), coalesce(sum(odd), 0) FROM (SELECT count(*) AS n, " +
		"CASE WHEN min(position) = 0 AND max(position) = count(*) - 1 AND count(DISTINCT position) = count(*) " +
		"AND count(DISTINCT slug) = count(*) THEN 0 ELSE 1 END AS odd " +
		"FROM pages WHERE revision_id = ? GROUP BY parent_page_id) g"
	return numbered(dialectName, q), []any{rev}
}

// numbered writes PostgreSQL's $1, $2… for the ? of q.
func numbered(dialectName, q string) string {
	if dialectName != dialect.Postgres {
		return q
	}
	var b strings.Builder
	n := 0
	for _, r := range q {
		if r == '?' {
			n++
			fmt.Fprintf(&b, "$%d", n)
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}
