package graph_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/folio/folio/internal/testkit"
)

// TestListPagesBreakTiesByID pages one item at a time through teams that
// were all created in the same millisecond: the id breaks the tie, so every
// team comes exactly once, in id order (reversed for desc).
func TestListPagesBreakTiesByID(t *testing.T) {
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		alice, org := s.NewUser(t, "alice@ties.test", "Ties")
		at := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
		var want []string
		for i := range 7 {
			tm, err := s.Client().Team.Create().SetOrganizationID(org).SetTitle(fmt.Sprintf("Team %d", i)).
				SetCreatedAt(at).Save(testkit.Fixture(context.Background()))
			if err != nil {
				t.Fatal(err)
			}
			want = append(want, tm.ID)
		}
		slices.Sort(want)
		for _, order := range []string{"asc", "desc"} {
			t.Run(order, func(t *testing.T) {
				var got []string
				var after any
				for range 10 {
					data := s.MustGraphQL(t, alice.Token, `query($org: ID!, $after: String, $order: Order) { organization(id: $org) {
						teams(first: 2, after: $after, order: $order) { totalCount pageInfo { hasNextPage } edges { cursor node { id } } } } }`,
						map[string]any{"org": org, "after": after, "order": order})
					conn := data["organization"].(map[string]any)["teams"].(map[string]any)
					if conn["totalCount"] != 7.0 {
						t.Fatalf("totalCount: %v", conn)
					}
					edges := conn["edges"].([]any)
					for _, e := range edges {
						got = append(got, e.(map[string]any)["node"].(map[string]any)["id"].(string))
						after = e.(map[string]any)["cursor"]
					}
					if conn["pageInfo"].(map[string]any)["hasNextPage"] != true {
						break
					}
				}
				expected := slices.Clone(want)
				if order == "desc" {
					slices.Reverse(expected)
				}
				if !slices.Equal(got, expected) {
					t.Fatalf("pages gave %v, want %v", got, expected)
				}
			})
		}
	})
}
