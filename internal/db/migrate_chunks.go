package db

import (
	"context"
	"database/sql"
)

// Migrating to chunks. Before chunks a page row carried the id of its one
// revision (pages.revision_id). Such a revision's rows are exactly one
// chunk of one bucket, whose id is the revision's: the migration renames
// the column to chunk_id (before ent's migration, so no row is copied) and,
// after it, names for every such revision that chunk as its bucket 0
// (ent's migration gives old revisions buckets = 1, canonical = false and
// no page_count). A revision's first new revision re-buckets its pages
// (internal/db/chunks.go), and its first merge checks its shape whole.

// beforeChunks tells whether the database holds pages from before chunks,
// and if so renames their revision column to chunk_id. A database that an
// older version opened again after this one (both columns) gets the old
// rows' owner copied into chunk_id and the old column dropped.
func beforeChunks(ctx context.Context, raw *sql.DB, dialectName string) (bool, error) {
	has := func(column string) (bool, error) {
		q := "SELECT count(*) FROM pragma_table_info('pages') WHERE name = ?"
		if dialectName == dialectPostgres {
			q = "SELECT count(*) FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = 'pages' AND column_name = $1"
		}
		var n int
		err := raw.QueryRowContext(ctx, q, column).Scan(&n)
		return n > 0, err
	}
	old, err := has("revision_id")
	if err != nil || !old {
		return false, err
	}
	both, err := has("chunk_id")
	if err != nil {
		return false, err
	}
	stmts := []string{"ALTER TABLE pages RENAME COLUMN revision_id TO chunk_id"}
	if both {
		stmts = []string{
			"UPDATE pages SET chunk_id = revision_id WHERE chunk_id IS NULL OR chunk_id = ''",
			"DROP INDEX IF EXISTS page_revision_id_page_id",
			"ALTER TABLE pages DROP COLUMN revision_id",
		}
	}
	for _, stmt := range stmts {
		if _, err := raw.ExecContext(ctx, stmt); err != nil {
			return false, err
		}
	}
	return true, nil
}

// nameOldChunks gives every revision whose pages are a chunk of its own id
// (from before chunks) a map naming it.
func nameOldChunks(ctx context.Context, raw *sql.DB) error {
	_, err := raw.ExecContext(ctx, "INSERT INTO revision_chunks (revision_id, bucket, chunk_id) "+
		"SELECT DISTINCT p.chunk_id, 0, p.chunk_id FROM pages p WHERE NOT EXISTS "+
		"(SELECT 1 FROM revision_chunks m WHERE m.chunk_id = p.chunk_id)")
	return err
}
