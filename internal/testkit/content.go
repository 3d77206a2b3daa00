package testkit

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"testing"

	"github.com/folio/folio/ent"
	"github.com/folio/folio/internal/clock"
	"github.com/folio/folio/internal/ids"
)

// SeedPages gives spaceID a new revision of n pages straight through ent
// (fast, for statement counts and benchmarks): roots of ten pages each with
// nine children, bodies "Page i" plus a few lines. It returns the revision.
func (s *Server) SeedPages(t testing.TB, spaceID string, n int) *ent.Revision {
	t.Helper()
	return s.SeedPagesWith(t, spaceID, n, func(i int) string {
		return fmt.Sprintf("# Page %d\n\nLine one of page %d.\nLine two.\nLine three.\n", i, i)
	})
}

// SeedPagesWith is SeedPages with the bodies body gives.
func (s *Server) SeedPagesWith(t testing.TB, spaceID string, n int, body func(i int) string) *ent.Revision {
	t.Helper()
	ctx := Fixture(context.Background())
	c := s.Client()
	rev := c.Revision.Create().SetSpaceID(spaceID).SetType("edits").SaveX(ctx)
	var parent string
	var pages []*ent.PageCreate
	bodies := map[string]string{}
	now := clock.Now()
	for i := 0; i < n; i++ {
		id := ids.New()
		body := body(i)
		sum := sha256.Sum256([]byte(body))
		hash := hex.EncodeToString(sum[:])
		bodies[hash] = body
		p := c.Page.Create().SetChunkID(rev.ID).SetPageID(id).SetPosition(i % 10).
			SetTitle(fmt.Sprintf("Page %d", i)).SetSlug(fmt.Sprintf("page-%d", i)).SetContentHash(hash).
			SetCreatedAt(now).SetUpdatedAt(now)
		if i%10 == 0 {
			parent = id
		} else {
			p.SetParentPageID(parent)
		}
		pages = append(pages, p)
	}
	for start := 0; start < len(pages); start += 400 {
		c.Page.CreateBulk(pages[start:min(len(pages), start+400)]...).ExecX(ctx)
	}
	var contents []*ent.PageContentCreate
	for h, b := range bodies {
		contents = append(contents, c.PageContent.Create().SetID(h).SetMarkdown(b))
	}
	for start := 0; start < len(contents); start += 400 {
		// Bodies are shared by content: another seeding may have stored them.
		_ = c.PageContent.CreateBulk(contents[start:min(len(contents), start+400)]...).OnConflict().DoNothing().Exec(ctx)
	}
	OneChunk(ctx, c, rev.ID)
	c.Space.UpdateOneID(spaceID).SetRevisionID(rev.ID).ExecX(ctx)
	return rev
}
