package rest_test

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/folio/folio/internal/testkit"
)

// together sends the requests at once (as near as goroutines allow) and
// returns their answers in order.
func together(t *testing.T, s *testkit.Server, token string, reqs ...[3]any) []*testkit.Response {
	t.Helper()
	out := make([]*testkit.Response, len(reqs))
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i, r := range reqs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			out[i] = s.Request(t, token, r[0].(string), r[1].(string), r[2])
		}()
	}
	close(start)
	wg.Wait()
	return out
}

// checkTrees walks the parents of every collection and space in the
// database: each walk ends at a root, and every parent belongs to the same
// organization as its child.
func checkTrees(t *testing.T, s *testkit.Server) {
	t.Helper()
	ctx := context.Background()
	colls := s.Client().Collection.Query().AllX(ctx)
	type node struct {
		org    string
		parent *string
	}
	byID := map[string]node{}
	for _, c := range colls {
		byID[c.ID] = node{c.OrganizationID, c.ParentID}
	}
	walk := func(kind, id, org string, parent *string) {
		for steps := 0; parent != nil; steps++ {
			p, ok := byID[*parent]
			if !ok {
				t.Fatalf("%s %s: parent %s does not exist", kind, id, *parent)
			}
			if p.org != org {
				t.Fatalf("%s %s of organization %s: ancestor %s is in organization %s", kind, id, org, *parent, p.org)
			}
			if steps > len(byID) {
				t.Fatalf("%s %s: its parents make a cycle", kind, id)
			}
			parent = p.parent
		}
	}
	for _, c := range colls {
		walk("collection", c.ID, c.OrganizationID, c.ParentID)
	}
	for _, sp := range s.Client().Space.Query().AllX(ctx) {
		walk("space", sp.ID, sp.OrganizationID, sp.ParentID)
	}
}

// TestCrossingCollectionMoves moves two sibling collections into each
// other at the same time, 50 times: exactly one move wins each round, the
// other is refused with a 400 naming `parent`, and no cycle is ever made.
func TestCrossingCollectionMoves(t *testing.T) {
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		f := newSpaceFixture(t, s)
		for round := 0; round < 50; round++ {
			x := f.createCollection(t, map[string]any{"title": "X"})["id"].(string)
			y := f.createCollection(t, map[string]any{"title": "Y"})["id"].(string)
			res := together(t, s, f.admin.Token,
				[3]any{"POST", "/v1/collections/" + x + "/move", map[string]any{"parent": y}},
				[3]any{"POST", "/v1/collections/" + y + "/move", map[string]any{"parent": x}})
			won, refused := 0, 0
			for _, r := range res {
				switch {
				case r.Status == 200:
					won++
				case r.Status == 400 && strings.Contains(string(r.Body), "parent"):
					refused++
				default:
					t.Fatalf("round %d: status %d: %s", round, r.Status, r.Body)
				}
			}
			if won != 1 || refused != 1 {
				t.Fatalf("round %d: %d moves succeeded and %d were refused, want 1 and 1", round, won, refused)
			}
			checkTrees(t, s)
		}
	})
}

// TestTransferRacesMoves transfers a collection to another organization
// while a collection and a space are moved into it. Either a move comes
// first (and what it moved goes along with the transfer) or it is refused
// with a 400 naming `parent`; nothing is ever left with a parent in another
// organization.
func TestTransferRacesMoves(t *testing.T) {
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		ctx := context.Background()
		f := newSpaceFixture(t, s)
		_, other := s.NewUser(t, "admin@acme.com", "Acme Two")
		for round := 0; round < 20; round++ {
			x := f.createCollection(t, map[string]any{"title": "X"})["id"].(string)
			z := f.createCollection(t, map[string]any{"title": "Z"})["id"].(string)
			sp := f.createSpace(t, map[string]any{"title": "S"})["id"].(string)
			res := together(t, s, f.admin.Token,
				[3]any{"POST", "/v1/collections/" + x + "/transfer", map[string]any{"organization": other}},
				[3]any{"POST", "/v1/collections/" + z + "/move", map[string]any{"parent": x}},
				[3]any{"POST", "/v1/spaces/" + sp + "/move", map[string]any{"parent": x}})
			if res[0].Status != 200 {
				t.Fatalf("round %d: transfer: %d %s", round, res[0].Status, res[0].Body)
			}
			zRow, sRow := s.Client().Collection.GetX(ctx, z), s.Client().Space.GetX(ctx, sp)
			for i, got := range []struct {
				org    string
				parent *string
			}{{zRow.OrganizationID, zRow.ParentID}, {sRow.OrganizationID, sRow.ParentID}} {
				r := res[i+1]
				switch {
				case r.Status == 200:
					if got.org != other || got.parent == nil || *got.parent != x {
						t.Fatalf("round %d: moved item %d is in %s under %s, want %s under %s", round, i, got.org, deref(got.parent), other, x)
					}
				case r.Status == 400 && strings.Contains(string(r.Body), "parent"):
					if got.org != f.org || got.parent != nil {
						t.Fatalf("round %d: refused item %d is in %s under %s, want %s at the root", round, i, got.org, deref(got.parent), f.org)
					}
				default:
					t.Fatalf("round %d: move %d: %d %s", round, i, r.Status, r.Body)
				}
			}
			checkTrees(t, s)
		}
	})
}

func deref(p *string) string {
	if p == nil {
		return "(root)"
	}
	return *p
}
