package graph_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"testing"
	"time"

	"github.com/folio/folio/ent/samlprovider"
	"github.com/folio/folio/internal/access"
	"github.com/folio/folio/internal/testkit"
)

func selfSignedCertificate(t testing.TB) string {
	t.Helper()
	priv, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1),
		Subject:      pkix.Name{CommonName: "idp.acme.com"},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(24 * time.Hour),
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &priv.PublicKey, priv)
	if err != nil {
		t.Fatal(err)
	}
	return string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}))
}

const samlConnection = `query($org: ID!, $first: Int, $after: String) {
  organization(id: $org) {
    samlProviders(first: $first, after: $after) {
      totalCount
      pageInfo { hasNextPage endCursor }
      edges { cursor node { id label status ssoURL entityID certificate defaultRole defaultTeam { title } service { acsURL startURL entityID } urls { location } organization { id } } }
    }
    ssoProviders { id label startURL }
  }
}`

func TestSAMLProvidersGraphQL(t *testing.T) {
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		ctx := context.Background()
		alice, acme := s.NewUser(t, "alice@acme.com", "Acme")
		_, bobs := s.NewUser(t, "bob@bobs.io", "Bobs")
		carol, _ := s.NewUser(t, "carol@acme.com", "")
		s.AddMember(t, acme, carol, testkit.RoleOf(access.Read))
		team := s.Client().Team.Create().SetOrganizationID(acme).SetTitle("Engineering").SaveX(testkit.Fixture(ctx))
		bobsTeam := s.Client().Team.Create().SetOrganizationID(bobs).SetTitle("Bob's").SaveX(testkit.Fixture(ctx))
		cert := selfSignedCertificate(t)

		create := `mutation($org: ID!, $in: CreateSAMLProviderInput!) { createSAMLProvider(organizationId: $org, input: $in) { id label status defaultTeam { title } defaultRole } }`
		data := s.MustGraphQL(t, alice.Token, create, map[string]any{"org": acme, "in": map[string]any{
			"label": "Okta", "ssoURL": "https://acme.okta.com/sso", "entityID": "urn:okta", "certificate": cert,
			"defaultTeam": team.ID, "defaultRole": "edit",
		}})
		created := data["createSAMLProvider"].(map[string]any)
		id := created["id"].(string)
		if created["status"] != "active" || created["defaultTeam"].(map[string]any)["title"] != "Engineering" || created["defaultRole"] != "edit" {
			t.Fatalf("created: %v", created)
		}
		pending := s.MustGraphQL(t, alice.Token, create, map[string]any{"org": acme, "in": map[string]any{"label": "Later"}})["createSAMLProvider"].(map[string]any)
		if pending["status"] != "pending" || pending["defaultTeam"] != nil || pending["defaultRole"] != nil {
			t.Fatalf("pending: %v", pending)
		}

		// The connection, with the default team through the loader, and the
		// login list.
		data = s.MustGraphQL(t, alice.Token, samlConnection, map[string]any{"org": acme, "first": 1})
		org := data["organization"].(map[string]any)
		conn := org["samlProviders"].(map[string]any)
		edges := conn["edges"].([]any)
		if conn["totalCount"].(float64) != 2 || len(edges) != 1 || conn["pageInfo"].(map[string]any)["hasNextPage"] != true {
			t.Fatalf("connection: %v", conn)
		}
		if n := edges[0].(map[string]any)["node"].(map[string]any); n["id"] != pending["id"] || n["ssoURL"] != nil || n["defaultTeam"] != nil {
			t.Fatalf("newest first: %v", n)
		}
		data = s.MustGraphQL(t, alice.Token, samlConnection, map[string]any{"org": acme, "first": 1, "after": conn["pageInfo"].(map[string]any)["endCursor"]})
		node := data["organization"].(map[string]any)["samlProviders"].(map[string]any)["edges"].([]any)[0].(map[string]any)["node"].(map[string]any)
		if node["id"] != id || node["defaultTeam"].(map[string]any)["title"] != "Engineering" || node["certificate"] != cert ||
			node["service"].(map[string]any)["acsURL"] != s.URL+"/sso/saml/"+id+"/acs" ||
			node["urls"].(map[string]any)["location"] != s.URL+"/v1/orgs/"+acme+"/saml/"+id ||
			node["organization"].(map[string]any)["id"] != acme {
			t.Fatalf("second page: %v", node)
		}
		logins := org["ssoProviders"].([]any)
		if len(logins) != 1 || logins[0].(map[string]any)["startURL"] != s.URL+"/sso/saml/"+id+"/start" {
			t.Fatalf("ssoProviders: %v", logins)
		}

		// Members without admin see the login list but not the providers.
		data = s.MustGraphQL(t, carol.Token, `query($org: ID!) { organization(id: $org) { ssoProviders { id label } } }`, map[string]any{"org": acme})
		if len(data["organization"].(map[string]any)["ssoProviders"].([]any)) != 1 {
			t.Fatalf("carol's login list: %v", data)
		}
		_, errs := s.GraphQL(t, carol.Token, `query($org: ID!) { organization(id: $org) { samlProviders { totalCount } } }`, map[string]any{"org": acme})
		if len(errs) != 1 || errs[0].Extensions["code"] != "FORBIDDEN" {
			t.Fatalf("carol lists providers: %+v", errs)
		}

		// Update: null clears, absent stays; then read it back by id.
		update := `mutation($org: ID!, $id: ID!, $in: UpdateSAMLProviderInput!) { updateSAMLProvider(organizationId: $org, id: $id, input: $in) { label status certificate defaultTeam { title } defaultRole } }`
		data = s.MustGraphQL(t, alice.Token, update, map[string]any{"org": acme, "id": id, "in": map[string]any{"label": "Okta 2", "certificate": nil, "defaultTeam": nil}})
		if u := data["updateSAMLProvider"].(map[string]any); u["label"] != "Okta 2" || u["status"] != "pending" || u["certificate"] != nil || u["defaultTeam"] != nil || u["defaultRole"] != "edit" {
			t.Fatalf("updated: %v", u)
		}
		if p := s.Client().SAMLProvider.GetX(ctx, id); p.Certificate != nil || p.DefaultTeamID != nil || *p.SSOURL != "https://acme.okta.com/sso" {
			t.Fatalf("stored: %+v", p)
		}

		// Errors carry extensions.code (and field for bad input) and change nothing.
		before := s.Snapshot(t)
		for _, c := range []struct {
			token, query string
			vars         map[string]any
			code, field  string
		}{
			{alice.Token, create, map[string]any{"org": acme, "in": map[string]any{"label": "X", "ssoURL": "not a uri"}}, "BAD_USER_INPUT", "ssoURL"},
			{alice.Token, create, map[string]any{"org": acme, "in": map[string]any{"label": "X", "certificate": "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----"}}, "BAD_USER_INPUT", "certificate"},
			{alice.Token, create, map[string]any{"org": acme, "in": map[string]any{"label": "X", "defaultTeam": bobsTeam.ID}}, "BAD_USER_INPUT", "defaultTeam"},
			{alice.Token, update, map[string]any{"org": acme, "id": id, "in": map[string]any{"label": nil}}, "BAD_USER_INPUT", "label"},
			{alice.Token, update, map[string]any{"org": acme, "id": id, "in": map[string]any{"entityID": fmt.Sprintf("%01025d", 0)}}, "BAD_USER_INPUT", "entityID"},
			{carol.Token, create, map[string]any{"org": acme, "in": map[string]any{"label": "Mine"}}, "FORBIDDEN", ""},
			{alice.Token, update, map[string]any{"org": bobs, "id": id, "in": map[string]any{"label": "Mine"}}, "NOT_FOUND", ""},
			{alice.Token, `mutation($org: ID!, $id: ID!) { deleteSAMLProvider(organizationId: $org, id: $id) }`, map[string]any{"org": acme, "id": "unknownprovider00000"}, "NOT_FOUND", ""},
		} {
			_, errs := s.GraphQL(t, c.token, c.query, c.vars)
			if len(errs) != 1 || errs[0].Extensions["code"] != c.code || (c.field != "" && errs[0].Extensions["field"] != c.field) {
				t.Fatalf("%v: %+v", c.vars, errs)
			}
		}
		s.Unchanged(t, before)

		// Delete, then the provider is gone for both APIs.
		data = s.MustGraphQL(t, alice.Token, `mutation($org: ID!, $id: ID!) { deleteSAMLProvider(organizationId: $org, id: $id) }`, map[string]any{"org": acme, "id": id})
		if data["deleteSAMLProvider"] != true || s.Client().SAMLProvider.Query().Where(samlprovider.ID(id)).CountX(ctx) != 0 {
			t.Fatalf("delete: %v", data)
		}
		_, errs = s.GraphQL(t, alice.Token, `query($org: ID!, $id: ID!) { samlProvider(organizationId: $org, id: $id) { id } }`, map[string]any{"org": acme, "id": id})
		if len(errs) != 1 || errs[0].Extensions["code"] != "NOT_FOUND" {
			t.Fatalf("deleted provider: %+v", errs)
		}
	})
}

// TestSAMLProvidersStatementCount holds the provider list with default
// teams (and their counts and permissions) to a fixed number of statements.
func TestSAMLProvidersStatementCount(t *testing.T) {
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		ctx := context.Background()
		const query = `query($org: ID!) { organization(id: $org) { samlProviders(first: 100) { edges { node { id defaultTeam { title members permissions { admin } } } } } } }`
		count := func(n int) int64 {
			u, org := s.NewUser(t, fmt.Sprintf("admin%d@example.com", n), fmt.Sprintf("Org %d", n))
			for i := 0; i < n; i++ {
				team := s.Client().Team.Create().SetOrganizationID(org).SetTitle(fmt.Sprintf("Team %d", i)).SaveX(testkit.Fixture(ctx))
				s.Client().SAMLProvider.Create().SetOrganizationID(org).SetLabel(fmt.Sprintf("P%d", i)).SetDefaultTeamID(team.ID).ExecX(testkit.Fixture(ctx))
			}
			before := s.Statements()
			data := s.MustGraphQL(t, u.Token, query, map[string]any{"org": org})
			if got := len(data["organization"].(map[string]any)["samlProviders"].(map[string]any)["edges"].([]any)); got != n {
				t.Fatalf("%d providers listed, want %d", got, n)
			}
			return s.Statements() - before
		}
		// The loaders batch within a 1 ms window and a busy machine may split
		// a batch of the team level (team, member count, team membership),
		// so the bound is "far from one query per provider" (which would add
		// 38 or more), not equality.
		few, many := count(2), count(40)
		if many-few >= 19 {
			t.Fatalf("statements grow with the number of providers: %d for 2, %d for 40", few, many)
		}
		t.Logf("%d statements for 2 providers, %d for 40", few, many)
	})
}
