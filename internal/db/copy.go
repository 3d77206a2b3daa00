package db

import (
	"fmt"
	"strings"

	"entgo.io/ent/dialect"
)

// pageColumns are the columns of a page row other than its id and revision.
const pageColumns = "page_id, parent_page_id, position, kind, title, emoji, slug, description, hidden, href, content_hash, created_at, updated_at"

// pageFields are the columns a merge compares: everything a page is, but
// not when it was created or changed.
var pageFields = []string{"parent_page_id", "position", "kind", "title", "emoji", "slug", "description", "hidden", "href", "content_hash"}

// ChangedPages is the query of the page ids whose rows differ between the
// chunks baseChunks and sideChunks (in any of pageFields) or that only one
// of them holds. Callers pass the chunks of two revisions that the other
// does not name: chunks both name hold the same rows in both (a chunk
// belongs to one bucket of one bucket count), so a merge compares the
// buckets a change touched, not the whole space.
func ChangedPages(dialectName string, baseChunks, sideChunks []string) (string, []any) {
	differs := make([]string, len(pageFields))
	for i, c := range pageFields {
		differs[i] = "b." + c + " <> s." + c
	}
	in := func(chunks []string) (string, []any) {
		if len(chunks) == 0 {
			chunks = []string{""} // no chunk has the empty id
		}
		args := make([]any, len(chunks))
		for i, c := range chunks {
			args[i] = c
		}
		return "(" + marks(len(chunks)) + ")", args
	}
	bIn, bArgs := in(baseChunks)
	sIn, sArgs := in(sideChunks)
	q := "SELECT s.page_id FROM pages s LEFT JOIN pages b ON b.chunk_id IN " + bIn + " AND b.page_id = s.page_id " +
		"WHERE s.chunk_id IN " + sIn + " AND (b.page_id IS NULL OR " + strings.Join(differs, " OR ") + ") " +
		"UNION ALL SELECT b.page_id FROM pages b WHERE b.chunk_id IN " + bIn + " AND NOT EXISTS " +
		"(SELECT 1 FROM pages s WHERE s.chunk_id IN " + sIn + " AND s.page_id = b.page_id)"
	args := append(append(append(append([]any{}, bArgs...), sArgs...), bArgs...), sArgs...)
	return Numbered(dialectName, q), args
}

// TreeShape is the query of one row: how many pages revision rev holds, and
// how many of its sibling groups are not in canonical form — positions
// 0..n-1 and slugs unique among siblings, the form a whole merge gives
// every group. It reads the whole revision: merges run it only for
// revisions that do not record their shape (made before it was recorded,
// or seeded).
func TreeShape(dialectName, rev string) (string, []any) {
	q := "SELECT coalesce(sum(n), 0), coalesce(sum(odd), 0) FROM (SELECT count(*) AS n, " +
		"CASE WHEN min(p.position) = 0 AND max(p.position) = count(*) - 1 AND count(DISTINCT p.position) = count(*) " +
		"AND count(DISTINCT p.slug) = count(*) THEN 0 ELSE 1 END AS odd " +
		"FROM revision_chunks m JOIN pages p ON p.chunk_id = m.chunk_id WHERE m.revision_id = ? GROUP BY p.parent_page_id) g"
	return Numbered(dialectName, q), []any{rev}
}

// Numbered writes PostgreSQL's $1, $2… for the ? of q.
func Numbered(dialectName, q string) string {
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
