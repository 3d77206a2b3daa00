package db_test

import (
	"context"
	"testing"
	"time"

	"github.com/folio/folio/ent/revisionchunk"
	"github.com/folio/folio/graph/loader"
	"github.com/folio/folio/internal/db"
	"github.com/folio/folio/internal/testkit"
)

// A database from before chunks (page rows carrying their revision's id in
// pages.revision_id, no chunk maps, no bucket counts) opens with its pages
// moved into chunks: each old revision reads the same pages.
func TestMigratePagesToChunks(t *testing.T) {
	for _, kind := range testkit.Databases(t) {
		t.Run(kind, func(t *testing.T) {
			ctx := testkit.Fixture(context.Background())
			dir := t.TempDir()
			url := testkit.DatabaseURL(t, kind, dir)
			d, err := db.Open(ctx, url, dir)
			if err != nil {
				t.Fatal(err)
			}
			// Two revisions written as before chunks: rows whose owner is
			// the revision's id.
			now := time.Now().UTC().Truncate(time.Second)
			var revs []string
			for i, titles := range [][]string{{"A", "B"}, {"A", "B", "C"}} {
				rev := d.Client.Revision.Create().SetSpaceID("s").SetType("edits").SaveX(ctx)
				revs = append(revs, rev.ID)
				for j, title := range titles {
					d.Client.Page.Create().SetChunkID(rev.ID).SetPageID(title).SetPosition(j).SetTitle(title + string(rune('0'+i))).
						SetSlug(title).SetCreatedAt(now).SetUpdatedAt(now).ExecX(ctx)
				}
			}
			for _, stmt := range []string{
				"DROP TABLE revision_chunks",
				"ALTER TABLE pages RENAME COLUMN chunk_id TO revision_id",
				"ALTER TABLE revisions DROP COLUMN buckets",
				"ALTER TABLE revisions DROP COLUMN canonical",
				"ALTER TABLE revisions DROP COLUMN page_count",
			} {
				if _, err := d.SQL.ExecContext(ctx, stmt); err != nil {
					t.Fatalf("%s: %v", stmt, err)
				}
			}
			if kind == "sqlite" {
				// A search index from before its rowid map.
				for _, stmt := range []string{
					"DROP TABLE search_rows",
					"INSERT INTO search_pages (space_id, page_id, title, body) VALUES ('s', 'A', 'A', 'old body')",
				} {
					if _, err := d.SQL.ExecContext(ctx, stmt); err != nil {
						t.Fatalf("%s: %v", stmt, err)
					}
				}
			}
			d.Client.Close()

			d, err = db.Open(ctx, url, dir)
			if err != nil {
				t.Fatal(err)
			}
			defer d.Client.Close()
			pages, err := loader.RevisionPages(ctx, d.Client, revs)
			if err != nil {
				t.Fatal(err)
			}
			for i, want := range []string{"A0 B0", "A1 B1 C1"} {
				got := ""
				for _, p := range pages[revs[i]] {
					if got != "" {
						got += " "
					}
					got += p.Title
				}
				if got != want {
					t.Fatalf("revision %d after the migration: %q, want %q", i, got, want)
				}
				rev := d.Client.Revision.GetX(ctx, revs[i])
				if rev.Buckets != 1 || rev.Canonical || rev.PageCount != nil {
					t.Fatalf("migrated revision: buckets %d, canonical %v, page count %v", rev.Buckets, rev.Canonical, rev.PageCount)
				}
				if n := d.Client.RevisionChunk.Query().Where(revisionchunk.RevisionID(revs[i]), revisionchunk.ChunkID(revs[i])).CountX(ctx); n != 1 {
					t.Fatalf("migrated revision names %d chunks of its id, want 1", n)
				}
			}
			if kind == "sqlite" {
				var n int
				if err := d.SQL.QueryRowContext(ctx, "SELECT count(*) FROM search_rows r JOIN search_pages p ON p.rowid = r.rid "+
					"WHERE r.space_id = 's' AND r.page_id = 'A' AND p.page_id = 'A'").Scan(&n); err != nil || n != 1 {
					t.Fatalf("the old search row is mapped %d times (%v), want 1", n, err)
				}
			}
			// Opening again changes nothing, even after an older version
			// opened the database meanwhile (it adds its column back).
			if _, err := d.SQL.ExecContext(ctx, "ALTER TABLE pages ADD COLUMN revision_id TEXT"); err != nil {
				t.Fatal(err)
			}
			d.Client.Close()
			if d, err = db.Open(ctx, url, dir); err != nil {
				t.Fatal(err)
			}
			if pages, err := loader.RevisionPages(ctx, d.Client, revs); err != nil || len(pages[revs[1]]) != 3 {
				t.Fatalf("after a second start: %v, %v", pages, err)
			}
			if n := d.Client.RevisionChunk.Query().CountX(ctx); n != 2 {
				t.Fatalf("%d chunk map rows after a second start, want 2", n)
			}
		})
	}
}
