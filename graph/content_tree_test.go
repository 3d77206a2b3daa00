package graph_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"runtime/metrics"
	"strings"
	"testing"
	"time"

	"github.com/folio/folio/ent"
	"github.com/folio/folio/ent/page"
	"github.com/folio/folio/internal/ids"
	"github.com/folio/folio/internal/testkit"
)

// seedTree gives spaceID a new revision of roots trees of ten pages on four
// levels (a root, three chapters, a section under each, a detail under each
// section), straight through ent. body(i) is page i's markdown ("" : no
// body). Every seventh page has an emoji, every fifth a description, every
// eleventh is a link, every thirteenth a hidden group.
func seedTree(t testing.TB, s *testkit.Server, spaceID string, roots int, body func(i int) string) {
	t.Helper()
	ctx := testkit.Fixture(context.Background())
	c := s.Client()
	rev := c.Revision.Create().SetSpaceID(spaceID).SetType("edits").SaveX(ctx)
	now := time.Date(2026, 1, 2, 3, 4, 5, 600, time.UTC)
	var pages []*ent.PageCreate
	bodies := map[string]string{}
	i := 0
	add := func(parent string, pos int) string {
		id := ids.New()
		p := c.Page.Create().SetChunkID(rev.ID).SetPageID(id).SetPosition(pos).
			SetTitle(fmt.Sprintf("Page \"%d\" <&>", i)).SetSlug(fmt.Sprintf("page-%d", i)).
			SetCreatedAt(now).SetUpdatedAt(now.Add(time.Duration(i) * time.Second)).SetParentPageID(parent)
		if b := body(i); b != "" {
			sum := sha256.Sum256([]byte(b))
			h := hex.EncodeToString(sum[:])
			bodies[h] = b
			p.SetContentHash(h)
		}
		switch {
		case i%11 == 3:
			p.SetKind(page.KindLink).SetHref(fmt.Sprintf("https://example.com/?a=%d&b=<c>", i))
		case i%13 == 4:
			p.SetKind(page.KindGroup).SetHidden(true)
		}
		if i%7 == 0 {
			p.SetEmoji("📘")
		}
		if i%5 == 0 {
			p.SetDescription(fmt.Sprintf("About\tpage %d\n\u2028", i))
		}
		pages = append(pages, p)
		i++
		return id
	}
	for r := 0; r < roots; r++ {
		root := add("", r)
		for ch := 0; ch < 3; ch++ {
			add(add(add(root, ch), 0), 0)
		}
	}
	for start := 0; start < len(pages); start += 400 {
		c.Page.CreateBulk(pages[start:min(len(pages), start+400)]...).ExecX(ctx)
	}
	var contents []*ent.PageContentCreate
	for h, b := range bodies {
		contents = append(contents, c.PageContent.Create().SetID(h).SetMarkdown(b))
	}
	for start := 0; start < len(contents); start += 400 {
		_ = c.PageContent.CreateBulk(contents[start:min(len(contents), start+400)]...).OnConflict().DoNothing().Exec(ctx)
	}
	testkit.OneChunk(ctx, c, rev.ID)
	c.Space.UpdateOneID(spaceID).SetRevisionID(rev.ID).ExecX(ctx)
}

// treeBody is a page body with what JSON escapes, HTML-like text and
// characters outside ASCII.
func treeBody(i int) string {
	if i%9 == 8 {
		return ""
	}
	return fmt.Sprintf("# Page %d\n\nA \"quote\", a back\\slash, a\ttab, <b>bold</b> & more: é, 漢, \u2028, \x01.\n\n- item %d\n\n```go\nfmt.Println(%d)\n```\n", i, i, i)
}

// pageSelection asks for every field of Page, with an alias, a fragment,
// __typename and directives, three levels deep.
const pageSelection = `...F t: title __typename
	pages { ...F ... on Page { deeper: pages { ...F pages { ...F urls { app } } } }
		pages @include(if: $yes) { id markdown } skipped: pages @skip(if: $yes) { id } }`

const pageFragment = `fragment F on Page { id title emoji type slug path description hidden href createdAt updatedAt
	markdown document urls { app __typename } }`

// TestPageTreeAnswersAsGqlgen: the tree's own marshaller (model.PageTree)
// writes each page exactly as gqlgen writes the same page read alone
// (revision.page(id:), which gqlgen marshals object by object).
func TestPageTreeAnswersAsGqlgen(t *testing.T) {
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		u, org := s.NewUser(t, "tree@example.com", "Org")
		sp := s.Call(t, "createSpace", u.Token, "POST", "/v1/orgs/"+org+"/spaces", map[string]any{"title": "Tree"}, 201).JSON(t)["id"].(string)
		seedTree(t, s, sp, 3, treeBody)
		query := `query($id: ID!, $yes: Boolean!) { space(id: $id) { revision { pages { ` + pageSelection + ` } } } } ` + pageFragment
		var tree struct {
			Data struct {
				Space struct {
					Revision struct{ Pages []json.RawMessage }
				}
			}
			Errors []any
		}
		s.Request(t, u.Token, "POST", "/graphql", map[string]any{"query": query, "variables": map[string]any{"id": sp, "yes": true}}).Decode(t, &tree)
		if len(tree.Errors) > 0 || len(tree.Data.Space.Revision.Pages) != 3 {
			t.Fatalf("tree: %d roots, errors %v", len(tree.Data.Space.Revision.Pages), tree.Errors)
		}
		for i, raw := range tree.Data.Space.Revision.Pages {
			var id struct{ ID string }
			if err := json.Unmarshal(raw, &id); err != nil {
				t.Fatal(err)
			}
			one := `query($id: ID!, $p: ID!, $yes: Boolean!) { space(id: $id) { revision { page(id: $p) { ` + pageSelection + ` } } } } ` + pageFragment
			var alone struct {
				Data struct {
					Space struct {
						Revision struct{ Page json.RawMessage }
					}
				}
			}
			s.Request(t, u.Token, "POST", "/graphql", map[string]any{"query": one, "variables": map[string]any{"id": sp, "p": id.ID, "yes": true}}).Decode(t, &alone)
			if string(raw) != string(alone.Data.Space.Revision.Page) {
				t.Fatalf("root %d differs:\ntree:  %s\nalone: %s", i, raw, alone.Data.Space.Revision.Page)
			}
			if !strings.Contains(string(raw), `"deeper":[{`) || !strings.Contains(string(raw), `\u003cb\u003e`) {
				t.Fatalf("root %d lacks what the test asks for: %s", i, raw)
			}
		}
	})
}

// orgTree asks for an organization's spaces with their page trees, four
// levels deep, with bodies and documents.
const orgTree = `query($org: ID!) { organization(id: $org) { id spaces(first: 100) { totalCount edges { node { id title
	revision { id pages { id title path markdown document pages { id title markdown pages { id markdown pages { id markdown document } } } } } } } } } }`

// treeOrg makes an organization of spaces spaces, each with a tree of
// roots*10 pages.
func treeOrg(t testing.TB, s *testkit.Server, email string, spaces, roots int, body func(int) string) (testkit.User, string) {
	u, org := s.NewUser(t, email, "Org")
	for i := 0; i < spaces; i++ {
		sp := s.Call(t, "createSpace", u.Token, "POST", "/v1/orgs/"+org+"/spaces", map[string]any{"title": fmt.Sprintf("S%d", i)}, 201).JSON(t)["id"].(string)
		seedTree(t, s, sp, roots, body)
	}
	return u, org
}

// TestTreeBodiesStatementCount: an organization's page trees with their
// bodies and documents cost the same statements over 10 spaces as over 20,
// run after run: the spaces' revisions, trees, bodies and documents are
// each read in one statement, whatever the batching of the moment. Trees
// are built every run (none kept across requests: TestTreeCache* covers
// those), so the level read of pages counts too.
func TestTreeBodiesStatementCount(t *testing.T) {
	t.Setenv("FOLIO_TREE_CACHE_PAGES", "0")
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		counts := map[int][]int64{}
		for _, n := range []int{10, 20} {
			u, org := treeOrg(t, s, fmt.Sprintf("s%d@example.com", n), n, 2, treeBody)
			s.MustGraphQL(t, u.Token, orgTree, map[string]any{"org": org}) // stores the documents
			for run := 0; run < 5; run++ {
				before := s.Statements()
				data := s.MustGraphQL(t, u.Token, orgTree, map[string]any{"org": org})
				counts[n] = append(counts[n], s.Statements()-before)
				edges := data["organization"].(map[string]any)["spaces"].(map[string]any)["edges"].([]any)
				if len(edges) != n {
					t.Fatalf("%d spaces, want %d", len(edges), n)
				}
				for _, e := range edges {
					roots := e.(map[string]any)["node"].(map[string]any)["revision"].(map[string]any)["pages"].([]any)
					md := roots[1].(map[string]any)["pages"].([]any)[0].(map[string]any)["markdown"].(string)
					if len(roots) != 2 || !strings.HasPrefix(md, "# Page 11\n") {
						t.Fatalf("tree: %d roots, markdown %q", len(roots), md)
					}
				}
			}
		}
		want := counts[10][0]
		for _, n := range []int{10, 20} {
			for _, c := range counts[n] {
				if c != want {
					t.Fatalf("statements over 10 spaces %v, over 20 spaces %v: want the same every run", counts[10], counts[20])
				}
			}
		}
		t.Logf("%d statements for a tree with bodies and documents over 10 spaces and over 20, every run", want)
	})
}

// folioOrgTree is the tree query of the comparison with PostGraphile
// (../shared/perf/q/folio_org_tree.graphql).
const folioOrgTree = `query($org: ID!) { organization(id: $org) { id title spaces(first: 100) { totalCount edges { node { id title
	revision { id pages { id title slug path pages { id title slug path pages { id title slug path pages { id title slug path } } } } } } } } } }`

// goroutinesCreated is how many goroutines the process has started.
func goroutinesCreated() uint64 {
	s := []metrics.Sample{{Name: "/sched/goroutines-created:goroutines"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// TestTreeGoroutines: serving a 4,000-page tree starts a bounded number of
// goroutines (gqlgen started three per page: 12,000), no more than a
// 1,000-page tree over as many spaces. The bound, 300, covers the request,
// gqlgen's goroutines per space and per dataloader batch.
func TestTreeGoroutines(t *testing.T) {
	const bound = 300
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		started := map[int]uint64{}
		for _, roots := range []int{25, 100} {
			u, org := treeOrg(t, s, fmt.Sprintf("g%d@example.com", roots), 4, roots, func(int) string { return "" })
			s.MustGraphQL(t, u.Token, folioOrgTree, map[string]any{"org": org})
			before := goroutinesCreated()
			data := s.MustGraphQL(t, u.Token, folioOrgTree, map[string]any{"org": org})
			started[roots*40] = goroutinesCreated() - before
			edges := data["organization"].(map[string]any)["spaces"].(map[string]any)["edges"].([]any)
			if n := len(edges[0].(map[string]any)["node"].(map[string]any)["revision"].(map[string]any)["pages"].([]any)); n != roots {
				t.Fatalf("%d roots, want %d", n, roots)
			}
		}
		if started[4000] > bound || started[4000] > started[1000]+50 {
			t.Fatalf("goroutines started: %d for 1,000 pages, %d for 4,000: want at most %d, and no more for more pages", started[1000], started[4000], bound)
		}
		t.Logf("goroutines started: %d for 1,000 pages, %d for 4,000", started[1000], started[4000])
	})
}

// TestResponseCeilingCountsStreamedTrees: a streamed tree counts towards
// FOLIO_MAX_RESPONSE_BYTES with its exact size: an answer of exactly the
// ceiling passes, one byte over is refused naming its size.
func TestResponseCeilingCountsStreamedTrees(t *testing.T) {
	tree := `query($s: ID!) { space(id: $s) { revision { pages { id title path pages { id title markdown } } } } }`
	answer := func(ceiling string) (string, []testkit.GraphQLError) {
		t.Setenv("FOLIO_MAX_RESPONSE_BYTES", ceiling)
		s := testkit.Start(t, "sqlite")
		u, org := s.NewUser(t, "ceiling@example.com", "Ceiling")
		sp := s.Call(t, "createSpace", u.Token, "POST", "/v1/orgs/"+org+"/spaces", map[string]any{"title": "Docs"}, 201).JSON(t)["id"].(string)
		s.SeedPages(t, sp, 100)
		body := s.Request(t, u.Token, "POST", "/graphql", map[string]any{"query": tree, "variables": map[string]any{"s": sp}}).Body
		var out struct{ Errors []testkit.GraphQLError }
		if err := json.Unmarshal(body, &out); err != nil {
			t.Fatal(err)
		}
		return string(body), out.Errors
	}
	body, errs := answer("67108864")
	if len(errs) > 0 {
		t.Fatalf("errors: %+v", errs)
	}
	size := len(body) - len(`{"data":}`) // the data, as the ceiling counts it (no HTML in these pages)
	if _, errs := answer(fmt.Sprint(size)); len(errs) > 0 {
		t.Fatalf("an answer of exactly the ceiling (%d bytes): %+v", size, errs)
	}
	_, errs = answer(fmt.Sprint(size - 1))
	want := fmt.Sprintf("the answer is %d bytes, more than the limit of %d", size, size-1)
	if len(errs) != 1 || errs[0].Extensions["code"] != "RESPONSE_TOO_LARGE" || !strings.HasPrefix(errs[0].Message, want) {
		t.Fatalf("errors %+v, want %q", errs, want)
	}
}
