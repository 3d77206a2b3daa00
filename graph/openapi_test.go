package graph_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/folio/folio/internal/access"
	"github.com/folio/folio/internal/testkit"
)

const openAPIList = `query($org: ID!) { organization(id: $org) { openAPISpecs(first: 50) { totalCount
	edges { node { id slug processingState visibility lastProcessedAt lastProcessErrorCode lastProcessedErrors { message line }
		lastVersion { id createdAt url urls { location } root files { path } }
		versions(first: 5) { totalCount edges { node { id createdAt } } }
		permissions { view edit } urls { location } organization { id } } } } } }`

func specText(i, rev int) string {
	return fmt.Sprintf("openapi: 3.0.3\ninfo: {title: Spec %d rev %d, version: '1'}\npaths: {}\n", i, rev)
}

// waitSpecsGraphQL polls until every spec of org is complete.
func waitSpecsGraphQL(t *testing.T, s *testkit.JobServer, token, org string, n int) []any {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		data := s.MustGraphQL(t, token, openAPIList, map[string]any{"org": org})
		edges := data["organization"].(map[string]any)["openAPISpecs"].(map[string]any)["edges"].([]any)
		done := 0
		for _, e := range edges {
			if e.(map[string]any)["node"].(map[string]any)["processingState"] == "complete" {
				done++
			}
		}
		if done == n && len(edges) == n {
			return edges
		}
		if time.Now().After(deadline) {
			t.Fatalf("not processed: %v", edges)
		}
	}
}

// listStatements is what the list of specs costs, the same on each of five
// runs with every processor busy (testkit.UnderLoad): the versions and last
// versions of every spec are read for the whole list at once, never as the
// dataloader batch wait happens to gather them.
func listStatements(t *testing.T, s *testkit.JobServer, token, org string) int64 {
	t.Helper()
	// A superseded generation's job may still be finding it has nothing
	// to do (each of its steps a write of its own): wait for it first.
	s.Idle(t)
	stop := testkit.UnderLoad(t)
	defer stop()
	var counts []int64
	for range 5 {
		before := s.Statements()
		s.MustGraphQL(t, token, openAPIList, map[string]any{"org": org})
		counts = append(counts, s.Statements()-before)
	}
	for _, c := range counts[1:] {
		if c != counts[0] {
			t.Fatalf("statements vary from run to run: %v", counts)
		}
	}
	return counts[0]
}

// TestOpenAPISpecsGraphQL: mutations, the organization's specs with their
// versions, node(id:), errors; and the list costs the same statements for
// 2 specs as for 20 (loaders).
func TestOpenAPISpecsGraphQL(t *testing.T) {
	for _, kind := range testkit.Databases(t) {
		t.Run(kind, func(t *testing.T) {
			s := testkit.StartJobs(t, kind, nil)
			counts := map[int]int64{}
			for _, n := range []int{2, 20} {
				admin, org := s.NewUser(t, fmt.Sprintf("admin%d@acme.com", n), fmt.Sprintf("Acme %d", n))
				for i := range n {
					s.MustGraphQL(t, admin.Token, `mutation($org: ID!, $slug: String!, $text: String!) {
						createOpenAPISpec(organizationId: $org, slug: $slug, source: {text: $text}) { id processingState } }`,
						map[string]any{"org": org, "slug": fmt.Sprintf("spec-%d", i), "text": specText(i, 1)})
				}
				waitSpecsGraphQL(t, s, admin.Token, org, n)
				// A second version of the first spec.
				put := s.MustGraphQL(t, admin.Token, `mutation($org: ID!, $text: String!) {
					putOpenAPISpec(organizationId: $org, slug: "spec-0", source: {text: $text}) { slug processingState } }`,
					map[string]any{"org": org, "text": specText(0, 2)})
				if put["putOpenAPISpec"].(map[string]any)["processingState"] != "pending" {
					t.Fatalf("put: %v", put)
				}
				edges := waitSpecsGraphQL(t, s, admin.Token, org, n)
				for _, e := range edges {
					node := e.(map[string]any)["node"].(map[string]any)
					versions := node["versions"].(map[string]any)
					want := 1.0
					if node["slug"] == "spec-0" {
						want = 2
					}
					if versions["totalCount"].(float64) != want || node["lastVersion"] == nil ||
						node["lastVersion"].(map[string]any)["id"] != versions["edges"].([]any)[0].(map[string]any)["node"].(map[string]any)["id"] {
						t.Fatalf("%v: versions %v", node["slug"], versions)
					}
				}
				counts[n] = listStatements(t, s, admin.Token, org)

				if n == 2 {
					id := edges[0].(map[string]any)["node"].(map[string]any)["id"].(string)
					got := s.MustGraphQL(t, admin.Token, `query($id: ID!) { node(id: $id) { ... on OpenAPISpec { slug } } }`, map[string]any{"id": id})
					if got["node"] == nil {
						t.Fatalf("node: %v", got)
					}
					_, errs := s.GraphQL(t, admin.Token, `mutation($org: ID!) { createOpenAPISpec(organizationId: $org, slug: "Bad Slug", source: {text: "x"}) { id } }`, map[string]any{"org": org})
					if len(errs) != 1 || errs[0].Extensions["code"] != "BAD_USER_INPUT" {
						t.Fatalf("bad slug: %v", errs)
					}
					_, errs = s.GraphQL(t, admin.Token, `mutation($org: ID!) { createOpenAPISpec(organizationId: $org, slug: "spec-0", source: {text: "x"}) { id } }`, map[string]any{"org": org})
					if len(errs) != 1 || errs[0].Extensions["code"] != "CONFLICT" {
						t.Fatalf("taken slug: %v", errs)
					}
					reader, _ := s.NewUser(t, "reader@acme.com", "")
					s.AddMember(t, org, reader, testkit.RoleOf(access.Read))
					_, errs = s.GraphQL(t, reader.Token, `mutation($org: ID!) { deleteOpenAPISpec(organizationId: $org, slug: "spec-0") }`, map[string]any{"org": org})
					if len(errs) != 1 || errs[0].Extensions["code"] != "FORBIDDEN" {
						t.Fatalf("reader delete: %v", errs)
					}
					stranger, _ := s.NewUser(t, "stranger@other.com", "Other")
					_, errs = s.GraphQL(t, stranger.Token, `query($id: ID!) { node(id: $id) { id } }`, map[string]any{"id": id})
					if len(errs) != 1 || errs[0].Extensions["code"] != "NOT_FOUND" {
						t.Fatalf("stranger node: %v", errs)
					}
					done := s.MustGraphQL(t, admin.Token, `mutation($org: ID!) { deleteOpenAPISpec(organizationId: $org, slug: "spec-1") }`, map[string]any{"org": org})
					if done["deleteOpenAPISpec"] != true {
						t.Fatalf("delete: %v", done)
					}
					// Recreate so the org keeps n specs processed.
					s.MustGraphQL(t, admin.Token, `mutation($org: ID!, $text: String!) { createOpenAPISpec(organizationId: $org, slug: "spec-1", source: {text: $text}) { id } }`,
						map[string]any{"org": org, "text": specText(1, 1)})
					waitSpecsGraphQL(t, s, admin.Token, org, n)
					counts[n] = listStatements(t, s, admin.Token, org)
				}
			}
			if counts[2] != counts[20] {
				t.Fatalf("statements: 2 specs %d, 20 specs %d", counts[2], counts[20])
			}
			t.Logf("statements for the list: %v", counts)
		})
	}
}
