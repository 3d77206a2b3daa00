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
