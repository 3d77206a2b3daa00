package rest_test

import (
	"context"
	"sync"
	"testing"

	"github.com/folio/folio/ent/sitesection"
	"github.com/folio/folio/internal/testkit"
)

// TestSiteSectionsAddedAtOnce: sections added to a site at once take turns
// (readSite locks the site), so exactly one becomes the default and their
// positions and paths do not repeat.
func TestSiteSectionsAddedAtOnce(t *testing.T) {
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		w := newSiteWorld(t, s)
		id := s.Call(t, "createSite", w.alice.Token, "POST", "/v1/orgs/"+w.acme+"/sites", map[string]any{"title": "Docs"}, 201).JSON(t)["id"].(string)
		base := "/v1/orgs/" + w.acme + "/sites/" + id
		var wg sync.WaitGroup
		for _, sp := range []string{w.guides, w.api, w.ops, w.guides} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				s.Call(t, "addSectionToSite", w.alice.Token, "POST", base+"/sections", map[string]any{"spaceId": sp}, 201)
			}()
		}
		wg.Wait()
		secs := s.Client().SiteSection.Query().Where(sitesection.SiteID(id)).AllX(context.Background())
		defaults, positions, paths := 0, map[int]bool{}, map[string]bool{}
		for _, sec := range secs {
			if sec.IsDefault {
				defaults++
			}
			positions[sec.Position] = true
			paths[sec.Path] = true
		}
		if len(secs) != 4 || defaults != 1 || len(positions) != 4 || len(paths) != 4 {
			t.Fatalf("%d sections, %d defaults, %d positions, %d paths", len(secs), defaults, len(positions), len(paths))
		}
	})
}
