package rest_test

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/folio/folio/internal/testkit"
)

// TestContributors: who edited a change request's content (batches) and
// who commented on it, with counts; the list's contributor filter keeps
// exactly the change requests they contributed to.
func TestContributors(t *testing.T) {
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		f := newContentFixture(t, s)
		cr := f.newCR(t, "Pages")
		f.edit(t, cr, insertPage("# One\n", nil))
		f.edit(t, cr, insertPage("# Two\n", nil))
		s.Call(t, "updateChangeRequestContent", f.admin.Token, "POST", f.crPath(cr)+"/content",
			map[string]any{"changes": []any{insertPage("# Three\n", nil)}}, 200)
		s.Client().Comment.Create().SetSpaceID(f.space).SetChangeRequestID(cr).SetPostedBy(f.reader.ID).SetBody("Nice").ExecX(testkit.Fixture(context.Background()))
		// The admin opens another change request and does nothing with it.
		s.Call(t, "createChangeRequest", f.admin.Token, "POST", "/v1/spaces/"+f.space+"/change-requests", map[string]any{"subject": "Empty"}, 201)

		body := s.Call(t, "getContributorsByChangeRequestId", f.reader.Token, "GET", f.crPath(cr)+"/contributors", nil, 200).JSON(t)
		var got []string
		for _, it := range body["items"].([]any) {
			c := it.(map[string]any)
			got = append(got, fmt.Sprintf("%s %s %v", c["user"].(map[string]any)["email"], c["actionType"], c["count"]))
		}
		sort.Strings(got)
		want := []string{"admin@acme.com edit 1", "editor@acme.com edit 2", "reader@acme.com comment 1"}
		if strings.Join(got, ",") != strings.Join(want, ",") || body["count"].(float64) != 3 {
			t.Fatalf("contributors %v, want %v", got, want)
		}
		empty := s.Call(t, "getContributorsByChangeRequestId", f.reader.Token, "GET", f.crPath("2")+"/contributors", nil, 200).JSON(t)
		if len(empty["items"].([]any)) != 0 {
			t.Fatalf("empty change request: %v", empty)
		}

		list := func(user string) []string {
			var out struct {
				Items []map[string]any
				Count int
			}
			s.Call(t, "listChangeRequestsForSpace", f.reader.Token, "GET", "/v1/spaces/"+f.space+"/change-requests?contributor="+user, nil, 200).Decode(t, &out)
			var ids []string
			for _, it := range out.Items {
				ids = append(ids, it["id"].(string))
			}
			if out.Count != len(ids) {
				t.Fatalf("count %d for %d items", out.Count, len(ids))
			}
			return ids
		}
		for _, u := range []string{f.editor.ID, f.admin.ID, f.reader.ID} {
			if got := list(u); len(got) != 1 || got[0] != cr {
				t.Fatalf("contributor %s: %v", u, got)
			}
		}
		if got := list(f.stranger.ID); len(got) != 0 {
			t.Fatalf("stranger contributed: %v", got)
		}

		s.Fail(t, "getContributorsByChangeRequestId", f.reader.Token, "GET", f.crPath("nope")+"/contributors", nil, 404)
		s.Fail(t, "getContributorsByChangeRequestId", f.stranger.Token, "GET", f.crPath(cr)+"/contributors", nil, 404)
		other := f.createSpace(t, map[string]any{"title": "Other"})["id"].(string)
		s.Fail(t, "getContributorsByChangeRequestId", f.admin.Token, "GET", "/v1/spaces/"+other+"/change-requests/"+cr+"/contributors", nil, 404)
	})
}

// TestPageBacklinksAndChangeRequestLinks: the pages linking to a page, in
// the space and in a change request, and every link of a change request
// with the space's statuses and stats.
func TestPageBacklinksAndChangeRequestLinks(t *testing.T) {
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		f := newContentFixture(t, s)
		sp := "/v1/spaces/" + f.space
		base := f.newCR(t, "Base")
		f.edit(t, base,
			insertPage("# Target\n\n## Part\n\nText.\n", nil),
			insertPage("# A\n\nSee [target](target) and [self](#a).\n", nil),
			insertPage("# Plain\n\nNo links.\n", nil),
		)
		f.merge(t, base, 200)
		ids := map[string]string{}
		for _, p := range f.tree(t, sp+"/content/pages") {
			ids[p.Title] = p.ID
		}
		cr := f.newCR(t, "More links")
		f.edit(t, cr,
			insertPage("# C\n\nBy id [t](/pages/"+ids["Target"]+"#part), a [gone](missing) one and [web](https://example.com).\n", nil),
		)
		backlinks := func(op, path string) []string {
			var out struct {
				Items []struct{ Page struct{ Title string } }
				Count int
			}
			s.Call(t, op, f.reader.Token, "GET", path, nil, 200).Decode(t, &out)
			var titles []string
			for _, it := range out.Items {
				titles = append(titles, it.Page.Title)
			}
			if want := map[bool]int{true: 2, false: len(titles)}[strings.Contains(path, "limit=1")]; out.Count != want {
				t.Fatalf("count %d for %v", out.Count, titles)
			}
			return titles
		}
		if got := backlinks("listSpacePageBacklinks", sp+"/content/page/"+ids["Target"]+"/backlinks"); fmt.Sprint(got) != "[A]" {
			t.Fatalf("space backlinks: %v", got)
		}
		if got := backlinks("listChangeRequestPageBacklinks", f.crPath(cr)+"/content/page/"+ids["Target"]+"/backlinks"); fmt.Sprint(got) != "[A C]" {
			t.Fatalf("change request backlinks: %v", got)
		}
		// A page's links to its own anchors are not backlinks.
		if got := backlinks("listSpacePageBacklinks", sp+"/content/page/"+ids["A"]+"/backlinks"); len(got) != 0 {
			t.Fatalf("self links counted: %v", got)
		}
		if got := backlinks("listChangeRequestPageBacklinks", f.crPath(cr)+"/content/page/"+ids["Target"]+"/backlinks?limit=1"); fmt.Sprint(got) != "[A]" {
			t.Fatalf("first page of backlinks: %v", got)
		}

		var links struct {
			Items []struct {
				Status          string
				TargetReference struct{ Kind, URL string }
			}
			Count int
			Stats struct {
				Total  int
				Broken struct{ Total, ChangeRequest int }
			}
		}
		s.Call(t, "listChangeRequestLinks", f.reader.Token, "GET", f.crPath(cr)+"/links", nil, 200).Decode(t, &links)
		if links.Stats.Total != 5 || links.Stats.Broken.Total != 1 || links.Stats.Broken.ChangeRequest != 1 || links.Count != 5 {
			t.Fatalf("change request links: %+v", links)
		}
		s.Call(t, "listChangeRequestLinks", f.reader.Token, "GET", f.crPath(cr)+"/links?status=broken&brokenContext=change-request", nil, 200).Decode(t, &links)
		if len(links.Items) != 1 || links.Items[0].TargetReference.URL != "missing" {
			t.Fatalf("broken links: %+v", links)
		}

		// Unknown page or change request, another space, a stranger: 404;
		// bad input names the field.
		s.Fail(t, "listSpacePageBacklinks", f.reader.Token, "GET", sp+"/content/page/nope/backlinks", nil, 404)
		s.Fail(t, "listSpacePageBacklinks", f.reader.Token, "GET", sp+"/content/page/"+f.crPageID(t, cr, "C")+"/backlinks", nil, 404)
		s.Fail(t, "listChangeRequestPageBacklinks", f.reader.Token, "GET", f.crPath("nope")+"/content/page/"+ids["Target"]+"/backlinks", nil, 404)
		s.Fail(t, "listChangeRequestLinks", f.reader.Token, "GET", f.crPath("nope")+"/links", nil, 404)
		other := f.createSpace(t, map[string]any{"title": "Other"})["id"].(string)
		s.Fail(t, "listSpacePageBacklinks", f.admin.Token, "GET", "/v1/spaces/"+other+"/content/page/"+ids["Target"]+"/backlinks", nil, 404)
		s.Fail(t, "listChangeRequestLinks", f.admin.Token, "GET", "/v1/spaces/"+other+"/change-requests/"+cr+"/links", nil, 404)
		for _, c := range []struct{ op, path, field string }{
			{"listSpacePageBacklinks", sp + "/content/page/" + ids["Target"] + "/backlinks?limit=0", "limit"},
			{"listChangeRequestPageBacklinks", f.crPath(cr) + "/content/page/" + ids["Target"] + "/backlinks?limit=x", "limit"},
			{"listChangeRequestLinks", f.crPath(cr) + "/links?status=fine", "status"},
			{"listChangeRequestLinks", f.crPath(cr) + "/links?brokenContext=elsewhere", "brokenContext"},
		} {
			if msg := s.Fail(t, c.op, f.reader.Token, "GET", c.path, nil, 400); !strings.Contains(msg, c.field) {
				t.Fatalf("%s: %s", c.path, msg)
			}
			s.Fail(t, c.op, f.stranger.Token, "GET", c.path, nil, 404)
		}
	})
}

// crPageID is the id of the change request's root page titled title.
func (f contentFixture) crPageID(t *testing.T, cr, title string) string {
	t.Helper()
	for _, p := range f.tree(t, f.crPath(cr)+"/content/pages") {
		if p.Title == title {
			return p.ID
		}
	}
	t.Fatalf("no page %q in change request %s", title, cr)
	return ""
}
