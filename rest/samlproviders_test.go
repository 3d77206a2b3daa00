package rest_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/pem"
	"math/big"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/folio/folio/ent"
	"github.com/folio/folio/ent/samlprovider"
	"github.com/folio/folio/internal/access"
	"github.com/folio/folio/internal/testkit"
)

// selfSignedPEM makes a real self-signed certificate, as an identity
// provider hands out, and the PEM of its private key (a PEM that is not a
// certificate).
func selfSignedPEM(t testing.TB, cn string) (cert, key string) {
	t.Helper()
	priv, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(time.Now().UnixNano()),
		Subject:      pkix.Name{CommonName: cn},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(365 * 24 * time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &priv.PublicKey, priv)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalPKCS8PrivateKey(priv)
	if err != nil {
		t.Fatal(err)
	}
	return string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})),
		string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: keyDER}))
}

// samlFixture is an organization with an admin, a reader, a guest and a
// team, beside another organization with its own admin and team, and a
// stranger.
type samlFixture struct {
	alice, bob, carol, guest, dave testkit.User
	acme, bobs                     string
	acmeTeam, bobsTeam             *ent.Team
	cert, key                      string
}

func newSAMLFixture(t *testing.T, s *testkit.Server) samlFixture {
	t.Helper()
	ctx := context.Background()
	var f samlFixture
	f.alice, f.acme = s.NewUser(t, "alice@acme.com", "Acme")
	f.bob, f.bobs = s.NewUser(t, "bob@bobs.io", "Bobs")
	f.carol, _ = s.NewUser(t, "carol@acme.com", "")
	f.guest, _ = s.NewUser(t, "guest@else.org", "")
	f.dave, _ = s.NewUser(t, "dave@nowhere.net", "")
	s.AddMember(t, f.acme, f.carol, testkit.RoleOf(access.Read))
	s.AddMember(t, f.acme, f.guest, nil)
	// Teams through ent: the team API is another area's.
	f.acmeTeam = s.Client().Team.Create().SetOrganizationID(f.acme).SetTitle("Engineering").SaveX(testkit.Fixture(ctx))
	f.bobsTeam = s.Client().Team.Create().SetOrganizationID(f.bobs).SetTitle("Bob's team").SaveX(testkit.Fixture(ctx))
	f.cert, f.key = selfSignedPEM(t, "idp.acme.com")
	return f
}

func TestSAMLProviderLifecycle(t *testing.T) {
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		ctx := context.Background()
		f := newSAMLFixture(t, s)
		base := "/v1/orgs/" + f.acme + "/saml"

		// Create, fully configured: active, with the default team embedded.
		resp := s.Call(t, "createOrganizationSAMLProvider", f.alice.Token, "POST", base, map[string]any{
			"label": "Okta", "ssoURL": "https://acme.okta.com/app/sso/saml", "entityID": "http://www.okta.com/exk1",
			"certificate": f.cert, "defaultTeam": f.acmeTeam.ID, "defaultRole": "edit", "unknownField": true,
		}, 201)
		p := resp.JSON(t)
		id, _ := p["id"].(string)
		if len(id) < 16 || p["object"] != "saml-provider" || p["label"] != "Okta" || p["status"] != "active" ||
			p["ssoURL"] != "https://acme.okta.com/app/sso/saml" || p["entityID"] != "http://www.okta.com/exk1" ||
			p["certificate"] != f.cert || p["defaultRole"] != "edit" {
			t.Fatalf("created: %v", p)
		}
		team := p["defaultTeam"].(map[string]any)
		if team["object"] != "team" || team["id"] != f.acmeTeam.ID || team["title"] != "Engineering" {
			t.Fatalf("defaultTeam: %v", team)
		}
		service := p["service"].(map[string]any)
		if service["acsURL"] != s.URL+"/sso/saml/"+id+"/acs" || service["startURL"] != s.URL+"/sso/saml/"+id+"/start" ||
			service["entityID"] != s.URL+"/sso/saml/"+id {
			t.Fatalf("service: %v", service)
		}
		location := s.URL + base + "/" + id
		if p["urls"].(map[string]any)["location"] != location || resp.Header.Get("Location") != location {
			t.Fatalf("urls %v, Location %q", p["urls"], resp.Header.Get("Location"))
		}
		stored := s.Client().SAMLProvider.GetX(ctx, id)
		if stored.OrganizationID != f.acme || stored.Label != "Okta" || *stored.SSOURL != "https://acme.okta.com/app/sso/saml" ||
			*stored.EntityID != "http://www.okta.com/exk1" || *stored.Certificate != f.cert ||
			*stored.DefaultTeamID != f.acmeTeam.ID || *stored.DefaultRole != access.Edit {
			t.Fatalf("stored: %+v", stored)
		}

		// Create with the label only: pending, unset strings are "",
		// defaultRole null, no defaultTeam.
		minimal := s.Call(t, "createOrganizationSAMLProvider", f.alice.Token, "POST", base, map[string]any{"label": "X"}, 201).JSON(t)
		minID := minimal["id"].(string)
		if minimal["status"] != "pending" || minimal["ssoURL"] != "" || minimal["entityID"] != "" || minimal["certificate"] != "" {
			t.Fatalf("minimal: %v", minimal)
		}
		if role, ok := minimal["defaultRole"]; !ok || role != nil {
			t.Fatalf("defaultRole should be null: %v", minimal)
		}
		if _, ok := minimal["defaultTeam"]; ok {
			t.Fatalf("defaultTeam should be absent: %v", minimal)
		}
		if m := s.Client().SAMLProvider.GetX(ctx, minID); m.SSOURL != nil || m.EntityID != nil || m.Certificate != nil || m.DefaultTeamID != nil || m.DefaultRole != nil {
			t.Fatalf("minimal stored: %+v", m)
		}
		// "" is none, as null is (a client echoing the object back sends "").
		echoed := s.Call(t, "createOrganizationSAMLProvider", f.alice.Token, "POST", base, map[string]any{
			"label": strings.Repeat("é", 30), "ssoURL": "", "entityID": "", "certificate": "", "defaultTeam": "", "defaultRole": nil,
		}, 201).JSON(t)
		if echoed["status"] != "pending" || echoed["label"] != strings.Repeat("é", 30) {
			t.Fatalf("echoed: %v", echoed)
		}
		if e := s.Client().SAMLProvider.GetX(ctx, echoed["id"].(string)); e.SSOURL != nil || e.EntityID != nil || e.Certificate != nil || e.DefaultTeamID != nil {
			t.Fatalf("echoed stored: %+v", e)
		}

		// Read and list.
		got := s.Call(t, "getOrganizationSAMLProviderById", f.alice.Token, "GET", base+"/"+id, nil, 200).JSON(t)
		if got["id"] != id || got["certificate"] != f.cert || got["defaultTeam"].(map[string]any)["id"] != f.acmeTeam.ID {
			t.Fatalf("get: %v", got)
		}
		var list struct {
			Items []map[string]any
			Count int
			Next  *struct{ Page string }
		}
		s.Call(t, "listSAMLProvidersInOrganizationById", f.alice.Token, "GET", base, nil, 200).Decode(t, &list)
		if list.Count != 3 || len(list.Items) != 3 || list.Next != nil || list.Items[2]["id"] != id {
			t.Fatalf("list: %+v", list)
		}

		// Update: absent fields stay, null and "" clear, values replace.
		upd := s.Call(t, "updateOrganizationSAMLProvider", f.alice.Token, "PATCH", base+"/"+id, map[string]any{
			"label": "Okta (prod)", "certificate": nil, "entityID": "", "defaultTeam": nil, "defaultRole": "read",
		}, 200).JSON(t)
		if upd["label"] != "Okta (prod)" || upd["status"] != "pending" || upd["certificate"] != "" || upd["entityID"] != "" ||
			upd["ssoURL"] != "https://acme.okta.com/app/sso/saml" || upd["defaultRole"] != "read" {
			t.Fatalf("updated: %v", upd)
		}
		if _, ok := upd["defaultTeam"]; ok {
			t.Fatalf("defaultTeam not cleared: %v", upd)
		}
		stored = s.Client().SAMLProvider.GetX(ctx, id)
		if stored.Label != "Okta (prod)" || stored.Certificate != nil || stored.EntityID != nil || stored.DefaultTeamID != nil ||
			*stored.SSOURL != "https://acme.okta.com/app/sso/saml" || *stored.DefaultRole != access.Read {
			t.Fatalf("stored after update: %+v", stored)
		}
		// Upper bounds are allowed; an empty body changes nothing.
		long := map[string]any{
			"ssoURL": "https://idp.acme.com/" + strings.Repeat("a", 2048-len("https://idp.acme.com/")), "entityID": strings.Repeat("e", 1024),
			"certificate": f.cert, "defaultTeam": f.acmeTeam.ID, "defaultRole": nil,
		}
		upd = s.Call(t, "updateOrganizationSAMLProvider", f.alice.Token, "PATCH", base+"/"+id, long, 200).JSON(t)
		if upd["status"] != "active" || upd["ssoURL"] != long["ssoURL"] || upd["defaultRole"] != nil || upd["label"] != "Okta (prod)" {
			t.Fatalf("updated to the bounds: %v", upd)
		}
		// A chain of certificates, with blank space around, is a certificate too.
		other, _ := selfSignedPEM(t, "intermediate.acme.com")
		chain := "\n" + f.cert + other + "\n\n"
		upd = s.Call(t, "updateOrganizationSAMLProvider", f.alice.Token, "PATCH", base+"/"+id, map[string]any{"certificate": chain}, 200).JSON(t)
		if upd["certificate"] != chain || *s.Client().SAMLProvider.GetX(ctx, id).Certificate != chain {
			t.Fatalf("chain: %v", upd["certificate"])
		}
		s.Call(t, "updateOrganizationSAMLProvider", f.alice.Token, "PATCH", base+"/"+id, map[string]any{}, 200)
		if stored = s.Client().SAMLProvider.GetX(ctx, id); stored.DefaultRole != nil || *stored.DefaultTeamID != f.acmeTeam.ID || *stored.EntityID != long["entityID"] {
			t.Fatalf("stored after bounds: %+v", stored)
		}

		// Delete: 204, gone, then 404.
		resp = s.Call(t, "deleteOrganizationSAMLProvider", f.alice.Token, "DELETE", base+"/"+minID, nil, 204)
		if len(resp.Body) != 0 {
			t.Fatalf("204 with a body: %s", resp.Body)
		}
		if n := s.Client().SAMLProvider.Query().Where(samlprovider.ID(minID)).CountX(ctx); n != 0 {
			t.Fatal("deleted provider still stored")
		}
		before := s.Snapshot(t)
		s.Fail(t, "getOrganizationSAMLProviderById", f.alice.Token, "GET", base+"/"+minID, nil, 404)
		s.Fail(t, "deleteOrganizationSAMLProvider", f.alice.Token, "DELETE", base+"/"+minID, nil, 404)
		s.Unchanged(t, before)

		// Deleting the default team leaves the provider without one.
		s.Client().Team.DeleteOneID(f.acmeTeam.ID).ExecX(testkit.Fixture(ctx))
		got = s.Call(t, "getOrganizationSAMLProviderById", f.alice.Token, "GET", base+"/"+id, nil, 200).JSON(t)
		if _, ok := got["defaultTeam"]; ok {
			t.Fatalf("a deleted team is still the default: %v", got)
		}
	})
}

func TestSAMLProviderBadInput(t *testing.T) {
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		f := newSAMLFixture(t, s)
		base := "/v1/orgs/" + f.acme + "/saml"
		id := s.Call(t, "createOrganizationSAMLProvider", f.alice.Token, "POST", base, map[string]any{"label": "Okta"}, 201).JSON(t)["id"].(string)

		notCert := "-----BEGIN CERTIFICATE-----\n" + base64.StdEncoding.EncodeToString([]byte("not a certificate at all")) + "\n-----END CERTIFICATE-----\n"
		cases := []struct {
			body  any
			field string
		}{
			{`{"label": "Okta"`, "malformed"},
			{`[1, 2]`, "object"},
			{``, "required"},
			{map[string]any{"label": 5}, "label"},
			{map[string]any{"label": strings.Repeat("é", 31)}, "label"},
			{map[string]any{"label": "Ok", "ssoURL": 5}, "ssoURL"},
			{map[string]any{"label": "Ok", "ssoURL": "not a uri"}, "ssoURL"},
			{map[string]any{"label": "Ok", "ssoURL": "/relative/path"}, "ssoURL"},
			{map[string]any{"label": "Ok", "ssoURL": "https://idp.acme.com/" + strings.Repeat("a", 2049-len("https://idp.acme.com/"))}, "ssoURL"},
			{map[string]any{"label": "Ok", "entityID": strings.Repeat("e", 1025)}, "entityID"},
			{map[string]any{"label": "Ok", "entityID": []string{"x"}}, "entityID"},
			{map[string]any{"label": "Ok", "certificate": strings.Repeat("c", 10001)}, "certificate"},
			{map[string]any{"label": "Ok", "certificate": f.cert + strings.Repeat("c", 10001-len(f.cert))}, "certificate"},
			{map[string]any{"label": "Ok", "certificate": "-----BEGIN CERTIFICATE-----\nnot base64 !!\n-----END CERTIFICATE-----"}, "certificate"},
			{map[string]any{"label": "Ok", "certificate": "MIIB just the base64"}, "certificate"},
			{map[string]any{"label": "Ok", "certificate": f.key}, "certificate"},
			{map[string]any{"label": "Ok", "certificate": notCert}, "certificate"},
			{map[string]any{"label": "Ok", "certificate": f.cert + "trailing text"}, "certificate"},
			{map[string]any{"label": "Ok", "certificate": f.cert + f.key}, "certificate"},
			{map[string]any{"label": "Ok", "defaultTeam": f.bobsTeam.ID}, "defaultTeam"},
			{map[string]any{"label": "Ok", "defaultTeam": "unknownteamid0000000"}, "defaultTeam"},
			{map[string]any{"label": "Ok", "defaultTeam": 7}, "defaultTeam"},
			{map[string]any{"label": "Ok", "defaultRole": "boss"}, "defaultRole"},
			{map[string]any{"label": "Ok", "defaultRole": 1}, "defaultRole"},
		}
		before := s.Snapshot(t)
		create := append([]struct {
			body  any
			field string
		}{
			{map[string]any{}, "label"},
			{map[string]any{"label": ""}, "label"},
			{map[string]any{"label": nil}, "label"},
		}, cases...)
		for _, c := range create {
			msg := s.Fail(t, "createOrganizationSAMLProvider", f.alice.Token, "POST", base, c.body, 400)
			if !strings.Contains(msg, c.field) {
				t.Errorf("create %v: message %q does not name %q", c.body, msg, c.field)
			}
		}
		update := append([]struct {
			body  any
			field string
		}{
			{map[string]any{"label": ""}, "label"},
			{map[string]any{"label": nil}, "label"},
			// A valid field beside a bad one changes nothing either.
			{map[string]any{"label": "Fine", "ssoURL": "nope"}, "ssoURL"},
		}, cases...)
		for _, c := range update {
			msg := s.Fail(t, "updateOrganizationSAMLProvider", f.alice.Token, "PATCH", base+"/"+id, c.body, 400)
			if !strings.Contains(msg, c.field) {
				t.Errorf("update %v: message %q does not name %q", c.body, msg, c.field)
			}
		}
		s.Unchanged(t, before)
	})
}

func TestSAMLProviderAccess(t *testing.T) {
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		f := newSAMLFixture(t, s)
		base := "/v1/orgs/" + f.acme + "/saml"
		id := s.Call(t, "createOrganizationSAMLProvider", f.alice.Token, "POST", base, map[string]any{"label": "Okta"}, 201).JSON(t)["id"].(string)
		bobsID := s.Call(t, "createOrganizationSAMLProvider", f.bob.Token, "POST", "/v1/orgs/"+f.bobs+"/saml", map[string]any{"label": "Bob's IdP"}, 201).JSON(t)["id"].(string)

		type op struct{ id, method, path string }
		ops := func(org, provider string) []op {
			b := "/v1/orgs/" + org + "/saml"
			return []op{
				{"listSAMLProvidersInOrganizationById", "GET", b},
				{"createOrganizationSAMLProvider", "POST", b},
				{"getOrganizationSAMLProviderById", "GET", b + "/" + provider},
				{"updateOrganizationSAMLProvider", "PATCH", b + "/" + provider},
				{"deleteOrganizationSAMLProvider", "DELETE", b + "/" + provider},
			}
		}
		body := func(method string) any {
			if method == "POST" || method == "PATCH" {
				return map[string]any{"label": "Mine"}
			}
			return nil
		}
		before := s.Snapshot(t)
		for _, o := range ops(f.acme, id) {
			// No token or an unknown one: 401.
			s.Fail(t, o.id, "", o.method, o.path, body(o.method), 401)
			s.Fail(t, o.id, "folio_unknown", o.method, o.path, body(o.method), 401)
			// Members who are not admins, guests included: 403.
			s.Fail(t, o.id, f.carol.Token, o.method, o.path, body(o.method), 403)
			s.Fail(t, o.id, f.guest.Token, o.method, o.path, body(o.method), 403)
			// Strangers, and admins of another organization: 404.
			s.Fail(t, o.id, f.dave.Token, o.method, o.path, body(o.method), 404)
			s.Fail(t, o.id, f.bob.Token, o.method, o.path, body(o.method), 404)
		}
		// A non-admin cannot tell a provider id exists: 403 either way.
		s.Fail(t, "getOrganizationSAMLProviderById", f.carol.Token, "GET", base+"/unknownprovider00000", nil, 403)
		// Unknown organization, unknown provider, another organization's
		// provider addressed under this one: 404.
		for _, o := range ops("unknownorg0000000000", id) {
			s.Fail(t, o.id, f.alice.Token, o.method, o.path, body(o.method), 404)
		}
		for _, o := range ops(f.acme, "unknownprovider00000")[2:] {
			s.Fail(t, o.id, f.alice.Token, o.method, o.path, body(o.method), 404)
		}
		for _, o := range ops(f.acme, bobsID)[2:] {
			s.Fail(t, o.id, f.alice.Token, o.method, o.path, body(o.method), 404)
		}
		for _, o := range ops(f.bobs, id)[2:] {
			s.Fail(t, o.id, f.bob.Token, o.method, o.path, body(o.method), 404)
		}
		s.Unchanged(t, before)
	})
}

func TestSSOProviderLogins(t *testing.T) {
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		f := newSAMLFixture(t, s)
		base := "/v1/orgs/" + f.acme + "/saml"
		sso := "/v1/orgs/" + f.acme + "/sso"
		active := func(label string) string {
			return s.Call(t, "createOrganizationSAMLProvider", f.alice.Token, "POST", base, map[string]any{
				"label": label, "ssoURL": "https://idp.acme.com/sso", "entityID": "urn:acme:" + label, "certificate": f.cert,
			}, 201).JSON(t)["id"].(string)
		}
		var out struct {
			Items []map[string]any `json:"items"`
		}
		// No provider yet: an empty list, not null.
		resp := s.Call(t, "listSSOProviderLoginsInOrganization", f.carol.Token, "GET", sso, nil, 200)
		if string(resp.Body) != "{\"items\":[]}\n" {
			t.Fatalf("empty login list: %s", resp.Body)
		}
		first := active("Okta")
		s.Call(t, "createOrganizationSAMLProvider", f.alice.Token, "POST", base, map[string]any{"label": "Half done", "ssoURL": "https://x.example/sso"}, 201)
		second := active("Azure AD")
		s.Call(t, "createOrganizationSAMLProvider", f.bob.Token, "POST", "/v1/orgs/"+f.bobs+"/saml", map[string]any{
			"label": "Bob's", "ssoURL": "https://idp.bobs.io/sso", "entityID": "urn:bobs", "certificate": f.cert,
		}, 201)

		// Every member sees the active providers, oldest first, and nothing
		// but what a login page needs.
		for _, u := range []testkit.User{f.alice, f.carol, f.guest} {
			s.Call(t, "listSSOProviderLoginsInOrganization", u.Token, "GET", sso, nil, 200).Decode(t, &out)
			if len(out.Items) != 2 || out.Items[0]["id"] != first || out.Items[1]["id"] != second {
				t.Fatalf("%s: logins %v", u.Email, out.Items)
			}
			it := out.Items[0]
			if len(it) != 3 || it["label"] != "Okta" || it["startURL"] != s.URL+"/sso/saml/"+first+"/start" {
				t.Fatalf("login item: %v", it)
			}
		}
		// A provider that loses its certificate leaves the list.
		s.Call(t, "updateOrganizationSAMLProvider", f.alice.Token, "PATCH", base+"/"+first, map[string]any{"certificate": nil}, 200)
		s.Call(t, "listSSOProviderLoginsInOrganization", f.guest.Token, "GET", sso, nil, 200).Decode(t, &out)
		if len(out.Items) != 1 || out.Items[0]["id"] != second {
			t.Fatalf("after clearing a certificate: %v", out.Items)
		}

		s.Fail(t, "listSSOProviderLoginsInOrganization", f.dave.Token, "GET", sso, nil, 404)
		s.Fail(t, "listSSOProviderLoginsInOrganization", f.bob.Token, "GET", sso, nil, 404)
		s.Fail(t, "listSSOProviderLoginsInOrganization", f.alice.Token, "GET", "/v1/orgs/unknownorg0000000000/sso", nil, 404)
		s.Fail(t, "listSSOProviderLoginsInOrganization", "", "GET", sso, nil, 401)
	})
}

func TestSAMLProvidersPaging(t *testing.T) {
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		f := newSAMLFixture(t, s)
		base := "/v1/orgs/" + f.acme + "/saml"
		for _, label := range []string{"P1", "P2", "P3", "P4", "P5"} {
			s.Call(t, "createOrganizationSAMLProvider", f.alice.Token, "POST", base, map[string]any{"label": label, "defaultTeam": f.acmeTeam.ID}, 201)
		}
		s.Call(t, "createOrganizationSAMLProvider", f.bob.Token, "POST", "/v1/orgs/"+f.bobs+"/saml", map[string]any{"label": "Not Acme's"}, 201)

		for _, order := range []string{"desc", "asc"} {
			var labels []string
			page, pages := "", 0
			for {
				q := url.Values{"limit": {"2"}, "order": {order}}
				if page != "" {
					q.Set("page", page)
				}
				var env struct {
					Items []map[string]any
					Count int
					Next  *struct{ Page string }
				}
				s.Call(t, "listSAMLProvidersInOrganizationById", f.alice.Token, "GET", base+"?"+q.Encode(), nil, 200).Decode(t, &env)
				pages++
				if env.Count != 5 {
					t.Fatalf("count %d, want 5", env.Count)
				}
				for _, it := range env.Items {
					labels = append(labels, it["label"].(string))
					if it["defaultTeam"].(map[string]any)["title"] != "Engineering" {
						t.Fatalf("defaultTeam of %v", it)
					}
				}
				if env.Next == nil {
					break
				}
				if len(env.Items) != 2 {
					t.Fatalf("page %d has %d items", pages, len(env.Items))
				}
				page = env.Next.Page
			}
			want := "P1 P2 P3 P4 P5"
			if order == "desc" {
				want = "P5 P4 P3 P2 P1"
			}
			if pages != 3 || strings.Join(labels, " ") != want {
				t.Fatalf("%s: %d pages, labels %v", order, pages, labels)
			}
		}
		for _, q := range []string{"limit=0", "limit=1001", "limit=two", "page=garbage!!", "order=sideways"} {
			field := strings.SplitN(q, "=", 2)[0]
			msg := s.Fail(t, "listSAMLProvidersInOrganizationById", f.alice.Token, "GET", base+"?"+q, nil, 400)
			if !strings.Contains(msg, field) {
				t.Fatalf("%s: message %q does not name %s", q, msg, field)
			}
		}
	})
}
