package graph_test

import (
	"context"
	"testing"
	"time"

	"github.com/folio/folio/ent/page"
	"github.com/folio/folio/ent/pagecontent"
	"github.com/folio/folio/ent/pagederived"
	"github.com/folio/folio/internal/markdown"
	"github.com/folio/folio/internal/testkit"
)

// TestPurgeRemovesOrphanedBodies: purging a space leaves the bodies only it
// held (and what was derived from them) behind; the purge of orphans
// removes those, keeps a body another space still holds, and removes
// derived rows of another converter version or of a body that is gone. A
// cancelled purge deletes nothing.
func TestPurgeRemovesOrphanedBodies(t *testing.T) {
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		ctx := testkit.Fixture(context.Background())
		c := s.Client()
		u, org := s.NewUser(t, "orphans@purge.test", "Orphans")
		space := func(title string, bodies ...string) *chunkFixture {
			sp := s.Call(t, "createSpace", u.Token, "POST", "/v1/orgs/"+org+"/spaces", map[string]any{"title": title}, 201).JSON(t)["id"].(string)
			f := &chunkFixture{s: s, token: u.Token, space: sp, snaps: map[string]string{}}
			var inserts []any
			for _, b := range bodies {
				inserts = append(inserts, map[string]any{"operation": "insert_page", "document": map[string]any{"markdown": b}})
			}
			cr := f.openCR(t)
			f.edit(t, cr, inserts)
			f.merge(t, cr)
			return f
		}
		gone := space("Gone", "# Only here\n\nA body no other space holds.\n", "# Shared\n\nThe same text twice.\n")
		kept := space("Kept", "# Shared\n\nThe same text twice.\n")
		hashOf := func(title string) string {
			return c.Page.Query().Where(page.Title(title)).FirstX(ctx).ContentHash
		}
		only, shared := hashOf("Only here"), hashOf("Shared")
		derivedRow := func(id, hash string, version int) {
			c.PageDerived.Create().SetID(id).SetContentHash(hash).SetVersion(version).
				SetDocument("{}").SetText("").SetLinks("[]").SetAnchors("[]").SetSections("[]").ExecX(testkit.Fixture(context.Background()))
		}
		derivedRow(only+".x", only, markdown.FormatVersion)         // of a body about to be orphaned
		derivedRow(shared+".old", shared, markdown.FormatVersion-1) // of another converter version
		derivedRow("nobody.x", "nobody", markdown.FormatVersion)    // of a body long gone

		s.Call(t, "deleteSpaceById", u.Token, "DELETE", "/v1/spaces/"+gone.space, nil, 205)
		c.Space.UpdateOneID(gone.space).SetDeletedAt(time.Now().Add(-365 * 24 * time.Hour)).ExecX(ctx)
		if _, err := s.App.Resolver.PurgeDeletedSpaces(ctx); err != nil {
			t.Fatal(err)
		}
		if !c.PageContent.Query().Where(pagecontent.ID(only)).ExistX(ctx) {
			t.Fatal("the space purge already removed the body: the orphan test proves nothing")
		}
		bodies, deriveds := c.PageContent.Query().CountX(ctx), c.PageDerived.Query().CountX(ctx)

		cancelled, cancel := context.WithCancel(ctx)
		cancel()
		if _, _, err := s.App.Resolver.PurgeOrphanedContents(cancelled); err == nil {
			t.Fatal("a cancelled purge answered no error")
		}
		if b, d := c.PageContent.Query().CountX(ctx), c.PageDerived.Query().CountX(ctx); b != bodies || d != deriveds {
			t.Fatalf("a cancelled purge deleted rows: bodies %d→%d, derived %d→%d", bodies, b, deriveds, d)
		}

		nb, nd, err := s.App.Resolver.PurgeOrphanedContents(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if nb != 1 || nd != 3 {
			t.Fatalf("purged %d bodies and %d derived rows, want 1 and 3", nb, nd)
		}
		if c.PageContent.Query().Where(pagecontent.ID(only)).ExistX(ctx) || !c.PageContent.Query().Where(pagecontent.ID(shared)).ExistX(ctx) {
			t.Fatal("wrong bodies purged")
		}
		if n := c.PageDerived.Query().Where(pagederived.IDIn(only+".x", shared+".old", "nobody.x")).CountX(ctx); n != 0 {
			t.Fatalf("%d derived rows left", n)
		}
		// The space that holds the shared body still reads it.
		rev := c.Space.GetX(ctx, kept.space).RevisionID
		ids := idsByTitle(kept.pages(t, rev))
		body := s.Call(t, "getPageById", u.Token, "GET", "/v1/spaces/"+kept.space+"/content/page/"+ids["Shared"]+"?format=markdown", nil, 200).JSON(t)
		if body["markdown"] == nil {
			t.Fatalf("the kept page lost its body: %v", body)
		}
		// A second run finds nothing more.
		if nb, nd, err := s.App.Resolver.PurgeOrphanedContents(ctx); err != nil || nb+nd != 0 {
			t.Fatalf("second purge: %d %d %v", nb, nd, err)
		}
	})
}
