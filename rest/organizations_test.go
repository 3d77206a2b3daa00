package rest_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/folio/folio/ent/member"
	"github.com/folio/folio/ent/organization"
	"github.com/folio/folio/internal/access"
	"github.com/folio/folio/internal/testkit"
)

func TestAuthenticatedUser(t *testing.T) {
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		alice, _ := s.NewUser(t, "Alice@Acme.com", "Acme")
		u := s.Call(t, "getAuthenticatedUser", alice.Token, "GET", "/v1/user", nil, 200).JSON(t)
		if u["id"] != alice.ID || u["email"] != "alice@acme.com" || u["object"] != "user" || u["displayName"] != "alice" {
			t.Fatalf("user: %v", u)
		}
		if loc := u["urls"].(map[string]any)["location"]; loc != s.URL+"/v1/users/"+alice.ID {
			t.Fatalf("urls.location %v", loc)
		}
		s.Fail(t, "getAuthenticatedUser", "", "GET", "/v1/user", nil, 401)
		s.Fail(t, "getAuthenticatedUser", "folio_unknown", "GET", "/v1/user", nil, 401)
	})
}

func TestOrganizationReadAndUpdate(t *testing.T) {
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		ctx := context.Background()
		alice, acme := s.NewUser(t, "alice@acme.com", "Acme")
		bob, bobs := s.NewUser(t, "bob@bobs.io", "Bobs")
		carol, _ := s.NewUser(t, "carol@acme.com", "")
		s.AddMember(t, acme, carol, testkit.RoleOf(access.Read))
		path := "/v1/orgs/" + acme

		// Read: members see it with their own permissions, others get 404.
		o := s.Call(t, "getOrganizationById", alice.Token, "GET", path, nil, 200).JSON(t)
		if o["id"] != acme || o["title"] != "Acme" || o["object"] != "organization" {
			t.Fatalf("organization: %v", o)
		}
		perms := o["permissions"].(map[string]any)
		if perms["admin"] != true || perms["view"] != true || perms["createContent"] != true {
			t.Fatalf("admin permissions: %v", perms)
		}
		urls := o["urls"].(map[string]any)
		if urls["location"] != s.URL+path {
			t.Fatalf("urls.location %v", urls["location"])
		}
		perms = s.Call(t, "getOrganizationById", carol.Token, "GET", path, nil, 200).JSON(t)["permissions"].(map[string]any)
		if perms["admin"] != false || perms["view"] != true || perms["createContent"] != false || perms["listMembers"] != true {
			t.Fatalf("reader permissions: %v", perms)
		}
		s.Fail(t, "getOrganizationById", bob.Token, "GET", path, nil, 404)
		s.Fail(t, "getOrganizationById", alice.Token, "GET", "/v1/orgs/doesnotexist12345678", nil, 404)
		s.Fail(t, "getOrganizationById", "", "GET", path, nil, 401)
		s.Fail(t, "getOrganizationById", "folio_nope", "GET", path, nil, 401)

		// Update by an admin.
		upd := s.Call(t, "updateOrganizationById", alice.Token, "PATCH", path, map[string]any{
			"title": "Acme Docs", "hostname": "acme-docs", "emailDomains": []string{"Acme.com"},
			"defaultRole": "edit", "logo": "https://acme.com/logo.png", "ai": true, "unknownField": 1,
		}, 200).JSON(t)
		if upd["title"] != "Acme Docs" || upd["hostname"] != "acme-docs" || upd["defaultRole"] != "edit" || upd["ai"] != true {
			t.Fatalf("updated: %v", upd)
		}
		if d := upd["emailDomains"].([]any); len(d) != 1 || d[0] != "acme.com" {
			t.Fatalf("emailDomains: %v", d)
		}
		if upd["urls"].(map[string]any)["logo"] != "https://acme.com/logo.png" {
			t.Fatalf("urls.logo: %v", upd["urls"])
		}
		stored := s.Client().Organization.GetX(ctx, acme)
		if stored.Title != "Acme Docs" || *stored.Hostname != "acme-docs" || !stored.Ai || *stored.DefaultRole != access.Edit {
			t.Fatalf("stored: %+v", stored)
		}
		// Boundaries: 2 and 255 characters are titles; null clears what may be cleared.
		s.Call(t, "updateOrganizationById", alice.Token, "PATCH", path, map[string]any{"title": "Ac"}, 200)
		long := strings.Repeat("é", 255)
		if got := s.Call(t, "updateOrganizationById", alice.Token, "PATCH", path, map[string]any{"title": long}, 200).JSON(t)["title"]; got != long {
			t.Fatalf("255-character title: %v", got)
		}
		cleared := s.Call(t, "updateOrganizationById", alice.Token, "PATCH", path, map[string]any{"defaultRole": nil, "logo": nil}, 200).JSON(t)
		if _, ok := cleared["defaultRole"]; ok {
			t.Fatalf("defaultRole not cleared: %v", cleared)
		}
		if cleared["title"] != long || cleared["hostname"] != "acme-docs" {
			t.Fatalf("absent fields changed: %v", cleared)
		}

		// Bad input: 400 naming the field, nothing changed.
		before := s.Snapshot(t)
		for _, c := range []struct {
			body  any
			field string
		}{
			{`{"title": "Acme"`, "malformed"},
			{`[1, 2]`, "object"},
			{``, "required"},
			{map[string]any{"title": 42}, "title"},
			{map[string]any{"title": "x"}, "title"},
			{map[string]any{"title": strings.Repeat("a", 256)}, "title"},
			{map[string]any{"title": nil}, "title"},
			{map[string]any{"hostname": "ab"}, "hostname"},
			{map[string]any{"hostname": strings.Repeat("a", 33)}, "hostname"},
			{map[string]any{"hostname": "Not_A_Host"}, "hostname"},
			{map[string]any{"emailDomains": "acme.com"}, "emailDomains"},
			{map[string]any{"emailDomains": []string{"not a domain"}}, "emailDomains"},
			{map[string]any{"defaultRole": "boss"}, "defaultRole"},
			{map[string]any{"logo": "not a url"}, "logo"},
			{map[string]any{"sso": "yes"}, "sso"},
			{map[string]any{"defaultContent": map[string]any{"type": "space", "site": "x"}}, "defaultContent.type"},
			{map[string]any{"title": "Fine title", "hostname": "x"}, "hostname"},
		} {
			msg := s.Fail(t, "updateOrganizationById", alice.Token, "PATCH", path, c.body, 400)
			if !strings.Contains(msg, c.field) {
				t.Errorf("body %v: message %q does not name %q", c.body, msg, c.field)
			}
		}
		s.Unchanged(t, before)

		// Only admins; strangers cannot tell the organization exists.
		s.Fail(t, "updateOrganizationById", carol.Token, "PATCH", path, map[string]any{"title": "Mine"}, 403)
		s.Fail(t, "updateOrganizationById", bob.Token, "PATCH", path, map[string]any{"title": "Mine"}, 404)
		s.Fail(t, "updateOrganizationById", "", "PATCH", path, map[string]any{"title": "Mine"}, 401)
		// A hostname is one organization's.
		msg := s.Fail(t, "updateOrganizationById", bob.Token, "PATCH", "/v1/orgs/"+bobs, map[string]any{"hostname": "acme-docs"}, 409)
		if !strings.Contains(msg, "hostname") {
			t.Fatalf("conflict message %q", msg)
		}
		s.Unchanged(t, before)
	})
}

func TestPingOrganization(t *testing.T) {
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		ctx := context.Background()
		_, acme := s.NewUser(t, "alice@acme.com", "Acme")
		bob, _ := s.NewUser(t, "bob@bobs.io", "Bobs")
		guest, _ := s.NewUser(t, "guest@else.org", "")
		s.AddMember(t, acme, guest, nil)

		s.Call(t, "updateOrganizationMemberLastSeenAt", guest.Token, "POST", "/v1/orgs/"+acme+"/ping", nil, 200)
		m := s.Client().Member.Query().Where(member.OrganizationID(acme), member.UserID(guest.ID)).OnlyX(ctx)
		if m.LastSeenAt == nil {
			t.Fatal("ping did not record lastSeenAt")
		}
		before := s.Snapshot(t)
		s.Fail(t, "updateOrganizationMemberLastSeenAt", bob.Token, "POST", "/v1/orgs/"+acme+"/ping", nil, 404)
		s.Fail(t, "updateOrganizationMemberLastSeenAt", bob.Token, "POST", "/v1/orgs/unknown/ping", nil, 404)
		s.Fail(t, "updateOrganizationMemberLastSeenAt", "", "POST", "/v1/orgs/"+acme+"/ping", nil, 401)
		s.Unchanged(t, before)
	})
}

func TestOrganizationsForEmailDomain(t *testing.T) {
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		alice, acme := s.NewUser(t, "alice@acme.com", "Acme")
		bob, _ := s.NewUser(t, "bob@bobs.io", "Bobs")
		dave, _ := s.NewUser(t, "dave@acme.com", "")
		s.Call(t, "updateOrganizationById", alice.Token, "PATCH", "/v1/orgs/"+acme,
			map[string]any{"emailDomains": []string{"acme.com", "acme.org"}}, 200)

		// A user of the domain finds the organization without being a member.
		var out struct {
			Organizations []map[string]any `json:"organizations"`
		}
		s.Call(t, "getOrganizationsForEmailDomain", dave.Token, "GET", "/v1/email-domains/ACME.com/orgs", nil, 200).Decode(t, &out)
		if len(out.Organizations) != 1 || out.Organizations[0]["id"] != acme {
			t.Fatalf("organizations: %v", out.Organizations)
		}
		if out.Organizations[0]["permissions"].(map[string]any)["view"] != false {
			t.Fatalf("a non-member got view permission: %v", out.Organizations[0]["permissions"])
		}
		// Anyone else learns nothing.
		s.Call(t, "getOrganizationsForEmailDomain", bob.Token, "GET", "/v1/email-domains/acme.com/orgs", nil, 200).Decode(t, &out)
		if len(out.Organizations) != 0 {
			t.Fatalf("bob sees %v", out.Organizations)
		}
		s.Call(t, "getOrganizationsForEmailDomain", alice.Token, "GET", "/v1/email-domains/nothing.test/orgs", nil, 200).Decode(t, &out)
		if len(out.Organizations) != 0 {
			t.Fatalf("unknown domain: %v", out.Organizations)
		}
		s.Fail(t, "getOrganizationsForEmailDomain", "", "GET", "/v1/email-domains/acme.com/orgs", nil, 401)
	})
}

func TestCreateOrganization(t *testing.T) {
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		ctx := context.Background()
		bob, _ := s.NewUser(t, "bob@bobs.io", "")
		resp := s.Call(t, "createOrganization", bob.Token, "POST", "/v1/orgs", map[string]any{
			"title": "Bob's Docs", "emailDomains": []string{"bobs.io"}, "type": "community", "useCase": "productDocs",
		}, 201)
		o := resp.JSON(t)
		id := o["id"].(string)
		if len(id) < 16 || o["title"] != "Bob's Docs" || o["type"] != "community" || o["useCase"] != "productDocs" {
			t.Fatalf("created: %v", o)
		}
		if resp.Header.Get("Location") != s.URL+"/v1/orgs/"+id {
			t.Fatalf("Location %q", resp.Header.Get("Location"))
		}
		if o["permissions"].(map[string]any)["admin"] != true {
			t.Fatalf("creator is not admin: %v", o["permissions"])
		}
		m := s.Client().Member.Query().Where(member.OrganizationID(id), member.UserID(bob.ID)).OnlyX(ctx)
		if m.Role == nil || *m.Role != access.Admin {
			t.Fatalf("creator membership: %+v", m)
		}

		before := s.Snapshot(t)
		for _, c := range []struct {
			body  any
			field string
		}{
			{`{"title":`, "malformed"},
			{map[string]any{}, "title"},
			{map[string]any{"title": "B"}, "title"},
			{map[string]any{"title": strings.Repeat("b", 256)}, "title"},
			{map[string]any{"title": 7}, "title"},
			{map[string]any{"title": "Fine", "type": "government"}, "type"},
			{map[string]any{"title": "Fine", "useCase": "everything"}, "useCase"},
			{map[string]any{"title": "Fine", "emailDomains": []any{1}}, "emailDomains"},
		} {
			msg := s.Fail(t, "createOrganization", bob.Token, "POST", "/v1/orgs", c.body, 400)
			if !strings.Contains(msg, c.field) {
				t.Errorf("body %v: message %q does not name %q", c.body, msg, c.field)
			}
		}
		s.Fail(t, "createOrganization", "", "POST", "/v1/orgs", map[string]any{"title": "Nope"}, 401)
		s.Unchanged(t, before)
		if n := s.Client().Organization.Query().Where(organization.TitleEQ("Fine")).CountX(ctx); n != 0 {
			t.Fatalf("%d organizations created by failing requests", n)
		}
	})
}

func TestErrorShapeForRoutingAndLimits(t *testing.T) {
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		alice, acme := s.NewUser(t, "alice@acme.com", "Acme")
		for _, c := range []struct {
			method, path string
			body         any
			status       int
		}{
			{"GET", "/v1/no-such-thing", nil, 404},
			{"GET", "/nowhere", nil, 404},
			{"DELETE", "/v1/orgs/" + acme, nil, 405},
			{"PUT", "/v1/user", nil, 405},
			{"PATCH", "/v1/orgs/" + acme, `{"title":"` + strings.Repeat("a", 9<<20) + `"}`, 413},
		} {
			resp := s.Request(t, alice.Token, c.method, c.path, c.body)
			if resp.Status != c.status {
				t.Fatalf("%s %s: %d, want %d: %s", c.method, c.path, resp.Status, c.status, resp.Body)
			}
			e := resp.JSON(t)["error"].(map[string]any)
			if int(e["code"].(float64)) != c.status || e["message"] == "" {
				t.Fatalf("%s %s: error %v", c.method, c.path, e)
			}
			if resp.Header.Get("X-Request-Id") == "" {
				t.Fatalf("%s %s: no X-Request-Id", c.method, c.path)
			}
		}
		if r := s.Request(t, "", "GET", "/healthz", nil); r.Status != 200 {
			t.Fatalf("healthz %d", r.Status)
		}
		if r := s.Request(t, "", "GET", "/readyz", nil); r.Status != 200 {
			t.Fatalf("readyz %d", r.Status)
		}
		if r := s.Request(t, "", "GET", "/graphql", nil); r.Status != 200 || !strings.Contains(string(r.Body), "<html") {
			t.Fatalf("explorer: %d", r.Status)
		}
		if s.Client().Organization.GetX(context.Background(), acme).Title != "Acme" {
			t.Fatal("the oversized PATCH changed the title")
		}
		_ = http.MethodGet
	})
}
