package graph_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/folio/folio/internal/ids"
	"github.com/folio/folio/internal/testkit"
)

// seedHistory gives spaceID a main line of k revisions after its initial
// one, each with pages guide and guide/install (and a third, guide/install/
// deep), plus one revision off the line (as a change request's), straight
// through ent. It returns the line's revision ids, oldest first, and the
// side revision's.
func seedHistory(t testing.TB, s *testkit.Server, spaceID string, k int) (line []string, side string) {
	t.Helper()
	ctx := testkit.Fixture(context.Background())
	c := s.Client()
	prev := c.Space.GetX(ctx, spaceID).RevisionID
	line = append(line, prev)
	guide, install, deep := ids.New(), ids.New(), ids.New()
	at := c.Revision.GetX(ctx, prev).CreatedAt
	add := func(parent string) string {
		rev := c.Revision.Create().SetSpaceID(spaceID).SetType("edits").SetParents([]string{parent}).
			SetCreatedAt(at.Add(time.Duration(len(line)) * time.Second)).SaveX(ctx)
		c.Page.CreateBulk(
			c.Page.Create().SetChunkID(rev.ID).SetPageID(guide).SetTitle("Guide").SetSlug("guide").SetCreatedAt(at).SetUpdatedAt(at),
			c.Page.Create().SetChunkID(rev.ID).SetPageID(install).SetParentPageID(guide).SetTitle("Install").SetSlug("install").SetCreatedAt(at).SetUpdatedAt(at),
			c.Page.Create().SetChunkID(rev.ID).SetPageID(deep).SetParentPageID(install).SetTitle("Deep").SetSlug("deep").SetCreatedAt(at).SetUpdatedAt(at),
		).ExecX(ctx)
		testkit.OneChunk(ctx, c, rev.ID)
		return rev.ID
	}
	for i := 0; i < k; i++ {
		prev = add(prev)
		line = append(line, prev)
	}
	side = add(line[1])
	c.Space.UpdateOneID(spaceID).SetRevisionID(prev).ExecX(ctx)
	return line, side
}

// TestSpaceHistoryAndPaths: a space's main line newest first (a change
// request's revision is not on it), a revision by id (another space's is
// null), a page by path with its parent and ancestors; the statements do
// not grow with the number of spaces or revisions.
func TestSpaceHistoryAndPaths(t *testing.T) {
	const query = `query($org: ID!, $rev: ID!) { organization(id: $org) { spaces(first: 10) { edges { node { id
		revisions(first: 10) { totalCount edges { node { id } } }
		old: revision(id: $rev) { id pageByPath(path: "guide") { id } }
		page(path: "guide/install/deep/") { title path parent { title } ancestors { title path } }
		none: page(path: "guide/nothing") { id }
	} } } } }`
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		count := func(spaces, k int) int64 {
			u, org := s.NewUser(t, fmt.Sprintf("u%d-%d@example.com", spaces, k), "Org")
			lines := map[string][]string{}
			var firstRev string
			for i := 0; i < spaces; i++ {
				sp := s.Call(t, "createSpace", u.Token, "POST", "/v1/orgs/"+org+"/spaces", map[string]any{"title": fmt.Sprint("S", i)}, 201).JSON(t)["id"].(string)
				line, _ := seedHistory(t, s, sp, k)
				lines[sp] = line
				if i == 0 {
					firstRev = line[1]
				}
			}
			before := s.Statements()
			data := s.MustGraphQL(t, u.Token, query, map[string]any{"org": org, "rev": firstRev})
			n := s.Statements() - before
			edges := data["organization"].(map[string]any)["spaces"].(map[string]any)["edges"].([]any)
			if len(edges) != spaces {
				t.Fatalf("%d spaces, want %d", len(edges), spaces)
			}
			for _, e := range edges {
				sp := e.(map[string]any)["node"].(map[string]any)
				line := lines[sp["id"].(string)]
				revs := sp["revisions"].(map[string]any)
				got := revs["edges"].([]any)
				if int(revs["totalCount"].(float64)) != len(line) || len(got) != len(line) {
					t.Fatalf("history %v, want %d revisions", revs, len(line))
				}
				for i, g := range got { // newest first; the side revision is not on it
					if id := g.(map[string]any)["node"].(map[string]any)["id"]; id != line[len(line)-1-i] {
						t.Fatalf("revision %d is %v, want %s", i, id, line[len(line)-1-i])
					}
				}
				old := sp["old"]
				if line[1] == firstRev {
					o := old.(map[string]any)
					if o["id"] != firstRev || o["pageByPath"] == nil {
						t.Fatalf("revision by id: %v", o)
					}
				} else if old != nil {
					t.Fatalf("another space's revision answered: %v", old)
				}
				p := sp["page"].(map[string]any)
				if p["path"] != "guide/install/deep" || p["parent"].(map[string]any)["title"] != "Install" {
					t.Fatalf("page by path: %v", p)
				}
				anc := p["ancestors"].([]any)
				if len(anc) != 2 || anc[0].(map[string]any)["path"] != "guide" || anc[1].(map[string]any)["title"] != "Install" {
					t.Fatalf("ancestors: %v", anc)
				}
				if sp["none"] != nil {
					t.Fatalf("unknown path answered: %v", sp["none"])
				}
			}
			return n
		}
		small, large := count(2, 2), count(6, 5)
		if small != large {
			t.Fatalf("statements: %d for 2 spaces of 2 revisions, %d for 6 spaces of 5", small, large)
		}
		t.Logf("%d statements", small)
	})
}
