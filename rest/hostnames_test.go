package rest_test

import (
	"context"
	"net"
	"strings"
	"sync"
	"testing"

	"github.com/folio/folio/ent/customhostname"
	"github.com/folio/folio/ent/event"
	"github.com/folio/folio/internal/testkit"
)

// fakeDNS is an in-process graph.HostResolver: CNAMEs and addresses by
// name; a name it does not know has no records.
type fakeDNS struct {
	mu     sync.Mutex
	cnames map[string]string
	addrs  map[string][]string
}

func (f *fakeDNS) LookupCNAME(_ context.Context, host string) (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if c, ok := f.cnames[host]; ok {
		return c + ".", nil
	}
	if _, ok := f.addrs[host]; ok {
		return host + ".", nil
	}
	return "", &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
}

func (f *fakeDNS) LookupHost(ctx context.Context, host string) ([]string, error) {
	f.mu.Lock()
	c, ok := f.cnames[host]
	f.mu.Unlock()
	if ok {
		return f.LookupHost(ctx, c)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if a, ok := f.addrs[host]; ok {
		return a, nil
	}
	if net.ParseIP(host) != nil {
		return []string{host}, nil
	}
	return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
}

func (f *fakeDNS) set(cnames map[string]string, addrs map[string][]string) {
	f.mu.Lock()
	f.cnames, f.addrs = cnames, addrs
	f.mu.Unlock()
}

// TestCustomHostnames: a site's hostname set, replaced and removed through
// updateSiteById; getCustomHostname, dnsRevalidateCustomHostname (a fake
// DNS) and removeCustomHostname; their refusals; the events.
func TestCustomHostnames(t *testing.T) {
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		ctx := context.Background()
		w := newSiteWorld(t, s)
		dns := &fakeDNS{}
		s.App.Resolver.Hostnames.DNS = dns
		sites := "/v1/orgs/" + w.acme + "/sites"
		docs := s.Call(t, "createSite", w.alice.Token, "POST", sites, map[string]any{"title": "Docs", "spaces": []string{w.guides}}, 201).JSON(t)["id"].(string)
		other := s.Call(t, "createSite", w.alice.Token, "POST", sites, map[string]any{"title": "Other", "spaces": []string{w.api}}, 201).JSON(t)["id"].(string)
		bobsSite := s.Call(t, "createSite", w.bob.Token, "POST", "/v1/orgs/"+w.bobs+"/sites", map[string]any{"title": "Bobs", "spaces": []string{w.bobsSpace}}, 201).JSON(t)["id"].(string)
		site := sites + "/" + docs

		// Set: lower-cased, trailing dot dropped, answered on the site.
		got := s.Call(t, "updateSiteById", w.alice.Token, "PATCH", site, map[string]any{"hostname": "Docs.Acme.test."}, 200).JSON(t)
		if got["hostname"] != "docs.acme.test" {
			t.Fatalf("site after set: %v", got)
		}
		row := s.Client().CustomHostname.Query().Where(customhostname.SiteID(docs)).OnlyX(ctx)
		if row.Hostname != "docs.acme.test" || row.OrganizationID != w.acme || row.Status != nil {
			t.Fatalf("stored: %+v", row)
		}
		if s.Call(t, "getSiteById", w.carol.Token, "GET", site, nil, 200).JSON(t)["hostname"] != "docs.acme.test" {
			t.Error("getSiteById shows no hostname")
		}

		// Refusals of the setting: invalid (400 naming hostname, nothing
		// changed), taken (409), Folio's own host, wrong role, strangers.
		for _, bad := range []any{"localhost", "acme.test", "docs_acme.test", "-docs.acme.test", strings.Repeat("a", 64) + ".acme.test",
			strings.Repeat("abcdefghi.", 26) + "test", 42} {
			msg := s.Fail(t, "updateSiteById", w.alice.Token, "PATCH", site, map[string]any{"hostname": bad}, 400)
			if !strings.Contains(msg, "hostname") {
				t.Errorf("%v: %q does not name hostname", bad, msg)
			}
		}
		if msg := s.Fail(t, "updateSiteById", w.alice.Token, "PATCH", sites+"/"+other, map[string]any{"hostname": "docs.acme.test"}, 409); !strings.Contains(msg, "hostname") {
			t.Errorf("conflict %q", msg)
		}
		s.Fail(t, "updateSiteById", w.bob.Token, "PATCH", "/v1/orgs/"+w.bobs+"/sites/"+bobsSite, map[string]any{"hostname": "docs.acme.test"}, 409)
		s.Fail(t, "updateSiteById", w.erin.Token, "PATCH", site, map[string]any{"hostname": "erin.acme.test"}, 403)
		s.Fail(t, "updateSiteById", w.bob.Token, "PATCH", site, map[string]any{"hostname": "bob.acme.test"}, 404)
		if h := s.Client().CustomHostname.Query().Where(customhostname.SiteID(docs)).OnlyX(ctx).Hostname; h != "docs.acme.test" {
			t.Fatalf("refusals changed the hostname to %s", h)
		}

		// Get: the reference's shape; unchecked: no status.
		hn := "/v1/custom-hostnames/docs.acme.test"
		ch := s.Call(t, "getCustomHostname", w.alice.Token, "GET", hn, nil, 200).JSON(t)
		target, _ := ch["target"].(map[string]any)
		if ch["object"] != "custom-hostname" || ch["hostname"] != "docs.acme.test" || target["site"] != docs || target["type"] != "site" ||
			ch["isActive"] != false || ch["status"] != nil || ch["urls"].(map[string]any)["location"] != s.URL+hn {
			t.Fatalf("custom hostname: %v", ch)
		}
		s.Call(t, "publishSite", w.alice.Token, "POST", site+"/publish", nil, 200)
		if ch := s.Call(t, "getCustomHostname", w.alice.Token, "GET", hn, nil, 200).JSON(t); ch["isActive"] != true {
			t.Fatalf("published site's hostname inactive: %v", ch)
		}
		s.Fail(t, "getCustomHostname", w.carol.Token, "GET", hn, nil, 403)
		s.Fail(t, "getCustomHostname", w.bob.Token, "GET", hn, nil, 404)
		s.Fail(t, "getCustomHostname", w.alice.Token, "GET", "/v1/custom-hostnames/nothing.acme.test", nil, 404)

		// Revalidate: a CNAME to another name fails with the reason; a CNAME
		// to Folio's host passes, shown as ssl_unknown (Folio has no TLS).
		dns.set(map[string]string{"docs.acme.test": "elsewhere.example.net"}, map[string][]string{"elsewhere.example.net": {"192.0.2.7"}})
		s.Call(t, "dnsRevalidateCustomHostname", w.alice.Token, "PATCH", hn, nil, 204)
		ch = s.Call(t, "getCustomHostname", w.alice.Token, "GET", hn, nil, 200).JSON(t)
		if ch["status"] != "dns_wrong_cname" || !strings.Contains(ch["dnsError"].(string), "elsewhere.example.net") || ch["dnsCheckedAt"] == nil {
			t.Fatalf("after a wrong CNAME: %v", ch)
		}
		row = s.Client().CustomHostname.Query().Where(customhostname.SiteID(docs)).OnlyX(ctx)
		if row.Status == nil || *row.Status != customhostname.StatusDNSWrongCname || row.CheckedAt == nil || row.Error == nil {
			t.Fatalf("stored after a wrong CNAME: %+v", row)
		}
		dns.set(nil, nil)
		s.Call(t, "dnsRevalidateCustomHostname", w.alice.Token, "PATCH", hn, nil, 204)
		if ch := s.Call(t, "getCustomHostname", w.alice.Token, "GET", hn, nil, 200).JSON(t); ch["status"] != "dns_no_cname" {
			t.Fatalf("without records: %v", ch)
		}
		dns.set(map[string]string{"docs.acme.test": "127.0.0.1"}, nil)
		s.Call(t, "dnsRevalidateCustomHostname", w.alice.Token, "PATCH", hn, nil, 204)
		ch = s.Call(t, "getCustomHostname", w.alice.Token, "GET", hn, nil, 200).JSON(t)
		if ch["status"] != "ssl_unknown" || ch["dnsError"] != nil {
			t.Fatalf("after a right CNAME: %v", ch)
		}
		if st := s.Client().CustomHostname.Query().Where(customhostname.SiteID(docs)).OnlyX(ctx).Status; st == nil || *st != customhostname.StatusDNSPassed {
			t.Fatalf("stored status %v", st)
		}
		s.Fail(t, "dnsRevalidateCustomHostname", w.carol.Token, "PATCH", hn, nil, 403)
		s.Fail(t, "dnsRevalidateCustomHostname", w.bob.Token, "PATCH", hn, nil, 404)

		// Replace: the new name starts unchecked.
		s.Call(t, "updateSiteById", w.alice.Token, "PATCH", site, map[string]any{"hostname": "help.acme.test"}, 200)
		if row := s.Client().CustomHostname.Query().Where(customhostname.SiteID(docs)).OnlyX(ctx); row.Hostname != "help.acme.test" || row.Status != nil {
			t.Fatalf("replaced: %+v", row)
		}
		s.Fail(t, "getCustomHostname", w.alice.Token, "GET", hn, nil, 404)
		// Unset with null.
		got = s.Call(t, "updateSiteById", w.alice.Token, "PATCH", site, map[string]any{"hostname": nil}, 200).JSON(t)
		if _, has := got["hostname"]; has || s.Client().CustomHostname.Query().CountX(ctx) != 0 {
			t.Fatalf("unset: %v", got)
		}

		// Remove by name: admins only; then gone.
		s.Call(t, "updateSiteById", w.alice.Token, "PATCH", site, map[string]any{"hostname": "docs.acme.test"}, 200)
		s.Fail(t, "removeCustomHostname", w.carol.Token, "DELETE", hn, nil, 403)
		s.Fail(t, "removeCustomHostname", w.bob.Token, "DELETE", hn, nil, 404)
		s.Call(t, "removeCustomHostname", w.alice.Token, "DELETE", hn, nil, 204)
		if n := s.Client().CustomHostname.Query().CountX(ctx); n != 0 {
			t.Fatalf("%d hostnames after removal", n)
		}
		s.Fail(t, "removeCustomHostname", w.alice.Token, "DELETE", hn, nil, 404)

		// Deleting a site frees its hostname.
		s.Call(t, "updateSiteById", w.alice.Token, "PATCH", sites+"/"+other, map[string]any{"hostname": "other.acme.test"}, 200)
		s.Call(t, "deleteSiteById", w.alice.Token, "DELETE", sites+"/"+other, nil, 205)
		s.Call(t, "updateSiteById", w.alice.Token, "PATCH", site, map[string]any{"hostname": "other.acme.test"}, 200)

		var actions []string
		for _, e := range s.Client().Event.Query().Where(event.ActionHasPrefix("site.hostname_")).Order(event.ByOccurredAt(), event.ByID()).AllX(ctx) {
			actions = append(actions, e.Action)
		}
		for _, want := range []string{"site.hostname_set", "site.hostname_checked", "site.hostname_removed"} {
			if !strings.Contains(strings.Join(actions, " "), want) {
				t.Errorf("no %s event in %v", want, actions)
			}
		}
	})
}

// TestCustomHostnamesGraphQL: Site.hostname, the update input's hostname,
// customHostname, revalidateCustomHostname and removeCustomHostname.
func TestCustomHostnamesGraphQL(t *testing.T) {
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		w := newSiteWorld(t, s)
		s.App.Resolver.Hostnames.DNS = &fakeDNS{cnames: map[string]string{"gql.acme.test": "127.0.0.1"}}
		docs := s.Call(t, "createSite", w.alice.Token, "POST", "/v1/orgs/"+w.acme+"/sites", map[string]any{"title": "Docs", "spaces": []string{w.guides}}, 201).JSON(t)["id"].(string)
		data := s.MustGraphQL(t, w.alice.Token, `mutation($id: ID!) {
			updateSite(id: $id, input: {hostname: "gql.acme.test"}) { hostname }
		}`, map[string]any{"id": docs})
		if data["updateSite"].(map[string]any)["hostname"] != "gql.acme.test" {
			t.Fatalf("updateSite: %v", data)
		}
		data = s.MustGraphQL(t, w.alice.Token, `mutation {
			revalidateCustomHostname(hostname: "gql.acme.test") { hostname active dnsStatus checkedAt error site { id hostname } }
		}`, nil)
		r := data["revalidateCustomHostname"].(map[string]any)
		if r["dnsStatus"] != "dns_passed" || r["error"] != nil || r["checkedAt"] == nil || r["site"].(map[string]any)["id"] != docs {
			t.Fatalf("revalidate: %v", r)
		}
		if _, errs := s.GraphQL(t, w.carol.Token, `{ customHostname(hostname: "gql.acme.test") { hostname } }`, nil); len(errs) == 0 {
			t.Error("a reader read the custom hostname")
		}
		if _, errs := s.GraphQL(t, w.bob.Token, `mutation { removeCustomHostname(hostname: "gql.acme.test") }`, nil); len(errs) == 0 {
			t.Error("a stranger removed the custom hostname")
		}
		data = s.MustGraphQL(t, w.alice.Token, `mutation { removeCustomHostname(hostname: "gql.acme.test") }`, nil)
		if data["removeCustomHostname"] != true {
			t.Fatalf("remove: %v", data)
		}
		if data := s.MustGraphQL(t, w.alice.Token, `query($id: ID!) { node(id: $id) { ... on Site { hostname } } }`, map[string]any{"id": docs}); data["node"].(map[string]any)["hostname"] != nil {
			t.Fatalf("after removal: %v", data)
		}
	})
}
