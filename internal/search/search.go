// Package search holds the full-text index of pages: its tables and the
// statements that fill and query it, for each database's own engine —
// PostgreSQL: a stored tsvector with a GIN index, queried with
// websearch_to_tsquery (which accepts any input); SQLite: an FTS5 table
// ranked by bm25. It builds SQL; callers run it in their transactions.
package search

import (
	"fmt"
	"strings"
	"unicode"

	"github.com/lib/pq"
)

// Dialects, as ent names them.
const (
	Postgres = "postgres"
	SQLite   = "sqlite3"
)

// MaxQuery is the longest query accepted, in characters.
const MaxQuery = 512

// Schema creates the index; it is idempotent and runs at every start.
func Schema(dialect string) []string {
	if dialect == Postgres {
		return []string{
			`CREATE TABLE IF NOT EXISTS search_pages (
				space_id text NOT NULL,
				page_id text NOT NULL,
				title text NOT NULL,
				body text NOT NULL,
				tsv tsvector GENERATED ALWAYS AS (
					setweight(to_tsvector('english', title), 'A') || setweight(to_tsvector('english', body), 'B')
				) STORED,
				PRIMARY KEY (space_id, page_id)
			)`,
			// New rows wait in a pending list of at most 64 kB (the least
			// PostgreSQL allows), which the writer that fills it merges into
			// the tree, one step per lexeme for all its rows. The default
			// list (4 MB) is read whole by every search and makes the
			// planner shun the index for a scan of the spaces' rows, so a
			// search would cost what was written lately, not what it finds;
			// without a list (fastupdate off) each row goes into the tree
			// one lexeme at a time: an import of 1,000 pages spent 3-4
			// times longer on its index rows (issue 31). The ALTER sets
			// both in indexes made before.
			`CREATE INDEX IF NOT EXISTS search_pages_tsv ON search_pages USING GIN (tsv) WITH (fastupdate = on, gin_pending_list_limit = 64)`,
			`ALTER INDEX search_pages_tsv SET (fastupdate = on, gin_pending_list_limit = 64)`,
		}
	}
	return []string{
		`CREATE VIRTUAL TABLE IF NOT EXISTS search_pages USING fts5(
			space_id UNINDEXED, page_id UNINDEXED, title, body, tokenize = 'porter unicode61')`,
		// FTS5 cannot index space_id and page_id: deleting a page's row by
		// them would scan the whole index. search_rows maps them to the
		// row's rowid (rid, also the source of new rowids), so a delete
		// costs what it deletes.
		`CREATE TABLE IF NOT EXISTS search_rows (rid INTEGER PRIMARY KEY, space_id TEXT NOT NULL, page_id TEXT NOT NULL)`,
		`CREATE UNIQUE INDEX IF NOT EXISTS search_rows_page ON search_rows (space_id, page_id)`,
		// Rows indexed before the map existed.
		`INSERT OR IGNORE INTO search_rows (rid, space_id, page_id) SELECT rowid, space_id, page_id FROM search_pages
			WHERE rowid NOT IN (SELECT rid FROM search_rows)`,
	}
}

// Statement is SQL with its arguments.
type Statement struct {
	SQL  string
	Args []any
}

// Delete removes pages of a space from the index (all of them when pageIDs
// is empty). On SQLite it finds the rows through search_rows.
func Delete(dialect, spaceID string, pageIDs []string) []Statement {
	if dialect == Postgres {
		if len(pageIDs) == 0 {
			return []Statement{{SQL: "DELETE FROM search_pages WHERE space_id = $1", Args: []any{spaceID}}}
		}
		return []Statement{{SQL: "DELETE FROM search_pages WHERE space_id = $1 AND page_id = ANY($2)", Args: []any{spaceID, pq.Array(pageIDs)}}}
	}
	where := "space_id = ?"
	args := []any{spaceID}
	if len(pageIDs) > 0 {
		marks := make([]string, len(pageIDs))
		for i, id := range pageIDs {
			args = append(args, id)
			marks[i] = "?"
		}
		where += " AND page_id IN (" + strings.Join(marks, ",") + ")"
	}
	return []Statement{
		{SQL: "DELETE FROM search_pages WHERE rowid IN (SELECT rid FROM search_rows WHERE " + where + ")", Args: args},
		{SQL: "DELETE FROM search_rows WHERE " + where, Args: args},
	}
}

// Doc is a page as indexed.
type Doc struct {
	SpaceID, PageID, Title, Body string
}

// Insert adds pages to the index, in statements of at most 200 pages.
func Insert(dialect string, docs []Doc) []Statement {
	var out []Statement
	for start := 0; start < len(docs); start += 200 {
		chunk := docs[start:min(len(docs), start+200)]
		var values []string
		var args []any
		for i, d := range chunk {
			n := i * 4
			values = append(values, fmt.Sprintf("(%s, %s, %s, %s)", ph(dialect, n+1), ph(dialect, n+2), ph(dialect, n+3), ph(dialect, n+4)))
			args = append(args, d.SpaceID, d.PageID, d.Title, d.Body)
		}
		if dialect == Postgres {
			out = append(out, Statement{
				SQL:  "INSERT INTO search_pages (space_id, page_id, title, body) VALUES " + strings.Join(values, ", "),
				Args: args,
			})
			continue
		}
		// SQLite: each page's rowid comes from search_rows (see Schema).
		var keys []string
		var keyArgs []any
		for _, d := range chunk {
			keys = append(keys, "(?, ?)")
			keyArgs = append(keyArgs, d.SpaceID, d.PageID)
		}
		out = append(out, Statement{
			SQL:  "INSERT INTO search_rows (space_id, page_id) VALUES " + strings.Join(keys, ", "),
			Args: keyArgs,
		}, Statement{
			SQL: "INSERT INTO search_pages (rowid, space_id, page_id, title, body) SELECT r.rid, r.space_id, r.page_id, v.column3, v.column4 " +
				"FROM (VALUES " + strings.Join(values, ", ") + ") v JOIN search_rows r ON r.space_id = v.column1 AND r.page_id = v.column2",
			Args: args,
		})
	}
	return out
}

// Query finds the pages of spaces matching text, best first: the rows are
// (space_id, page_id, rank). It takes at most limit matches in the index's
// own order (no ranking yet), then ranks only those: a term that matches
// many pages costs what limit pages cost, and a caller that gets limit rows
// back knows more may match (ask limit+1 to tell). Below the limit the
// ranking is that of every match.
func Query(dialect, text string, spaceIDs []string, limit int) (Statement, bool) {
	if dialect == Postgres {
		// The query is written where the planner sees it (not in FROM) so
		// that it folds it to a constant the GIN index is searched with.
		return Statement{
			SQL: `SELECT space_id, page_id, ts_rank(tsv, websearch_to_tsquery('english', $1)) AS rank
				FROM (SELECT space_id, page_id, tsv FROM search_pages
					WHERE tsv @@ websearch_to_tsquery('english', $1) AND space_id = ANY($2) LIMIT $3) m
				ORDER BY rank DESC, space_id, page_id`,
			Args: []any{text, pq.Array(spaceIDs), limit},
		}, true
	}
	match := ftsQuery(text)
	if match == "" {
		return Statement{}, false
	}
	args := []any{match}
	marks := make([]string, len(spaceIDs))
	for i, id := range spaceIDs {
		args = append(args, id)
		marks[i] = "?"
	}
	args = append(args, limit)
	return Statement{
		// The FTS5 table cannot index space_id: each match's space is read
		// from search_rows by its primary key (the match's rowid), not
		// from the FTS content row. CROSS JOIN keeps the match outermost,
		// one probe of search_rows per match, rather than one MATCH per
		// row of the spaces. MATERIALIZED keeps the LIMIT where it is:
		// flattened into the outer ORDER BY it would become a top-N sort
		// of every match, each scored. So bm25 is computed for the rows
		// kept only; it is lower for better matches, and titles weigh ten
		// times the body.
		SQL: `WITH m AS MATERIALIZED (
				SELECT r.space_id, r.page_id, -bm25(search_pages, 0, 0, 10.0, 1.0) AS rank
				FROM search_pages CROSS JOIN search_rows r ON r.rid = search_pages.rowid
				WHERE search_pages MATCH ? AND r.space_id IN (` + strings.Join(marks, ",") + `) LIMIT ?)
			SELECT space_id, page_id, rank FROM m ORDER BY rank DESC, space_id, page_id`,
		Args: args,
	}, true
}

// ftsQuery turns free text into an FTS5 query that cannot be a syntax
// error: "quoted phrases" stay phrases, every other word is a quoted term,
// all of them required. An empty result means nothing to search.
func ftsQuery(text string) string {
	var parts []string
	inQuote := false
	for i, chunk := range strings.Split(text, `"`) {
		inQuote = i%2 == 1
		words := Terms(chunk)
		if len(words) == 0 {
			continue
		}
		if inQuote {
			parts = append(parts, `"`+strings.Join(words, " ")+`"`)
			continue
		}
		for _, w := range words {
			parts = append(parts, `"`+w+`"`)
		}
	}
	return strings.Join(parts, " ")
}

// Terms splits text into lower-case words (letters and digits).
func Terms(text string) []string {
	return strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
}

func ph(dialect string, n int) string {
	if dialect == Postgres {
		return fmt.Sprintf("$%d", n)
	}
	return "?"
}
