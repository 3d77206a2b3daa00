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
// and if so renames their revision column to chunk_id.
func beforeChunks(ctx context.Context, raw *sql.DB, dialectName string) (bool, error) {
	q := "SELECT count(*) FROM pragma_table_info('pages') WHERE name = 'revision_id'"
	if dialectName == dialectPostgres {
		q = "SELECT count(*) FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = 'pages' AND column_name = 'revision_id'"
	}
	var n int
	if err := raw.QueryRowContext(ctx, q).Scan(&n); err != nil {
		return false, err
	}
	if n == 0 {
		return false, nil
	}
	_, err := raw.ExecContext(ctx, "ALTER TABLE pages RENAME COLUMN revision_id TO chunk_id")
	return err == nil, err
}

// nameOldChunks gives every revision whose pages are a chunk of its own id
// (from before chunks) a map naming it.
func nameOldChunks(ctx context.Context, raw *sql.DB) error {
	_, err := raw.ExecContext(ctx, "INSERT INTO revision_chunks (revision_id, bucket, chunk_id) "+
		"SELECT DISTINCT p.chunk_id, 0, p.chunk_id FROM pages p WHERE NOT EXISTS "+
		"(SELECT 1 FROM revision_chunks m WHERE m.chunk_id = p.chunk_id)")
	return err
}
