package graph_test

import (
	"context"
	"encoding/json"
	"github.com/folio/folio/ent/changerequestreview"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/folio/folio/ent/apitoken"
	"github.com/folio/folio/graph"
	"github.com/folio/folio/internal/testkit"
)

// nodeFixture is one object of every type that implements Node, made by
// alice in Acme, with the query by which its own area reads it (empty for
// Team, which only REST reads by id).
type nodeFixture struct {
	typename, id, own string
	vars              map[string]any
}

func newNodeFixtures(t *testing.T, s *testkit.Server, alice testkit.User, acme string) []nodeFixture {
	t.Helper()
	create := func(query string, vars map[string]any, field string) string {
		t.Helper()
		return s.MustGraphQL(t, alice.Token, query, vars)[field].(map[string]any)["id"].(string)
	}
	org := map[string]any{"org": acme}
	space := create(`mutation($org: ID!) { createSpace(organizationId: $org, input: {title: "Handbook"}) { id } }`, org, "createSpace")
	rev := s.SeedPages(t, space, 1)
	collection := create(`mutation($org: ID!) { createCollection(organizationId: $org, input: {title: "Guides"}) { id } }`, org, "createCollection")
	team := create(`mutation($org: ID!) { createTeam(organizationId: $org, title: "Writers") { id } }`, org, "createTeam")
	translation := create(`mutation($org: ID!) { createTranslation(organizationId: $org, input: {title: "Europe", languages: [fr]}) { id } }`, org, "createTranslation")
	field := create(`mutation($org: ID!) { createCustomField(organizationId: $org, input: {name: "status", type: text}) { id } }`, org, "createCustomField")
	saml := create(`mutation($org: ID!) { createSAMLProvider(organizationId: $org, input: {label: "Okta"}) { id } }`, org, "createSAMLProvider")
	spec := create(`mutation($org: ID!) { createOpenAPISpec(organizationId: $org, slug: "pets", source: {text: "openapi: 3.0.0"}) { id } }`, org, "createOpenAPISpec")
	inv := create(`mutation($org: ID!) { createOrganizationInvite(organizationId: $org, input: {role: read}) { id } }`, org, "createOrganizationInvite")
	cr := create(`mutation($s: ID!) { createChangeRequest(spaceId: $s) { id } }`, map[string]any{"s": space}, "createChangeRequest")
	cm := create(`mutation($s: ID!) { postComment(spaceId: $s, input: {markdown: "Hi"}) { id } }`, map[string]any{"s": space}, "postComment")
	// The author cannot review their own change request: a review by
	// another member is written as submitReview would.
	review := s.Client().ChangeRequestReview.Create().SetSpaceID(space).SetChangeRequestID(cr).SetReviewerID("a-reviewer").
		SetStatus(changerequestreview.StatusApproved).SetRevisionID(rev.ID).SetEdits(0).SaveX(testkit.Fixture(context.Background())).ID
	reply := create(`mutation($s: ID!, $c: ID!) { postCommentReply(spaceId: $s, commentId: $c, markdown: "Hello") { id } }`, map[string]any{"s": space, "c": cm}, "postCommentReply")
	// The event creating the change request recorded (only REST reads an
	// event by id: no own query).
	audit := s.MustGraphQL(t, alice.Token, `query($org: ID!, $cr: String) { organization(id: $org) { auditEvents(first: 1, target: $cr) { edges { node { id } } } } }`,
		map[string]any{"org": acme, "cr": cr})["organization"].(map[string]any)["auditEvents"].(map[string]any)["edges"].([]any)[0].(map[string]any)["node"].(map[string]any)["id"].(string)
	// A public address, so the servers' refusal of private ones does not
	// apply; these servers run no dispatcher, so nothing is sent.
	hook := dig(s.MustGraphQL(t, alice.Token, `mutation($org: ID!) { createWebhook(organizationId: $org, input: {url: "https://93.184.215.14/hook", events: ["*"]}) { webhook { id } } }`, org),
		"createWebhook", "webhook", "id").(string)
	// Deliveries come from the dispatcher, which these servers do not run:
	// one is written as the dispatcher would.
	delivery := s.Client().WebhookDelivery.Create().SetWebhookID(hook).SetOrganizationID(acme).SetEventID("event-of-the-fixture").
		SetAction("webhook.created").SaveX(testkit.Fixture(context.Background())).ID
	site := create(`mutation($org: ID!) { createSite(organization: $org, input: {title: "Docs"}) { id } }`, org, "createSite")
	section := create(`mutation($site: ID!, $s: ID!) { addSiteSection(site: $site, space: $s) { id } }`, map[string]any{"site": site, "s": space}, "addSiteSection")
	group := create(`mutation($site: ID!) { addSiteSectionGroup(site: $site, title: "All") { id } }`, map[string]any{"site": site}, "addSiteSectionGroup")
	siteSpace := create(`mutation($site: ID!, $s: ID!) { addSiteSpace(site: $site, space: $s) { id } }`, map[string]any{"site": site, "s": space}, "addSiteSpace")
	// A session of alice's, opened by signing in as the sign-in form does.
	if err := s.App.SetPassword(context.Background(), alice.Email, "node fixture password"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.App.Resolver.SignIn(context.Background(), graph.SignInAttempt{Email: alice.Email, Password: "node fixture password"}); err != nil {
		t.Fatal(err)
	}
	sess := s.Client().Session.Query().OnlyIDX(context.Background())
	tok := s.Client().APIToken.Query().Where(apitoken.UserID(alice.ID)).FirstIDX(context.Background())
	// A passkey of alice's (the ceremony that adds one is the account
	// page's: internal/account/passkeys_test.go).
	key := s.Client().Passkey.Create().SetUserID(alice.ID).SetCredentialID("node-fixture").SetPublicKey([]byte{1}).
		SetName("Laptop").SetCredential(json.RawMessage(`{}`)).SaveX(testkit.Fixture(context.Background())).ID
	return []nodeFixture{
		{"Passkey", key, "", nil},
		{"Session", sess, "", nil},
		{"APIToken", tok, "", nil},
		{"Organization", acme, `query($id: ID!) { organization(id: $id) { id } }`, map[string]any{"id": acme}},
		{"User", alice.ID, `{ viewer { user { id } } }`, nil},
		{"Space", space, `query($id: ID!) { space(id: $id) { id } }`, map[string]any{"id": space}},
		{"Revision", rev.ID, `query($s: ID!) { space(id: $s) { revision { id } } }`, map[string]any{"s": space}},
		{"Collection", collection, `query($id: ID!) { collection(id: $id) { id } }`, map[string]any{"id": collection}},
		{"Team", team, "", nil},
		{"TranslationSettings", translation, `query($org: ID!, $id: ID!) { translation(organizationId: $org, id: $id) { id } }`, map[string]any{"org": acme, "id": translation}},
		{"CustomField", field, `query($org: ID!) { customField(organizationId: $org, name: "status") { id } }`, org},
		{"SAMLProvider", saml, `query($org: ID!, $id: ID!) { samlProvider(organizationId: $org, id: $id) { id } }`, map[string]any{"org": acme, "id": saml}},
		{"OpenAPISpec", spec, `query($org: ID!) { openAPISpec(organizationId: $org, slug: "pets") { id } }`, org},
		{"Invite", inv, `query($org: ID!, $id: ID!) { organizationInviteLink(organizationId: $org, id: $id) { id } }`, map[string]any{"org": acme, "id": inv}},
		{"Site", site, `query($id: ID!) { site(id: $id) { id } }`, map[string]any{"id": site}},
		{"SiteSection", section, "", nil},
		{"SiteSectionGroup", group, "", nil},
		{"SiteSpace", siteSpace, "", nil},
		{"ChangeRequest", cr, `query($s: ID!, $id: String!) { space(id: $s) { changeRequest(id: $id) { id } } }`, map[string]any{"s": space, "id": cr}},
		{"ChangeRequestReview", review, "", nil}, // its own read goes through the change request
		{"Comment", cm, `query($s: ID!, $id: ID!) { space(id: $s) { comment(id: $id) { id } } }`, map[string]any{"s": space, "id": cm}},
		{"CommentReply", reply, "", nil},
		{"AuditEvent", audit, "", nil},
		{"Webhook", hook, `query($org: ID!, $id: ID!) { webhook(organizationId: $org, id: $id) { id } }`, map[string]any{"org": acme, "id": hook}},
		{"WebhookDelivery", delivery, "", nil},
	}
}

// TestNodeCoversEveryType: every type the schema says implements Node has
// a fixture here, so a new Node type without a registration (graph/node.go)
// fails the next test.
func TestNodeCoversEveryType(t *testing.T) {
	var implementers []string
	files, _ := filepath.Glob("../schema/*.graphql") // what gqlgen.yml serves
	for _, f := range files {
		body, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range regexp.MustCompile(`type (\w+) implements [^{]*\bNode\b`).FindAllSubmatch(body, -1) {
			implementers = append(implementers, string(m[1]))
		}
	}
	sort.Strings(implementers)
	want := strings.Join(implementers, " ")
	got := "APIToken AuditEvent ChangeRequest ChangeRequestReview Collection Comment CommentNodeTarget CommentPageTarget CommentReply CustomField File Invite Member OpenAPISpec OpenAPISpecVersion Organization Page Passkey PublishedPage Revision SAMLProvider SSOProviderLogin SearchSection Session Site SiteRedirect SiteSection SiteSectionGroup SiteShareLink SiteSpace Space Team TranslationSettings User Webhook WebhookDelivery"
	if want != got {
		t.Fatalf("types implementing Node: %s\nnode's tests cover: %s\n(register the type in graph/node.go and add a fixture to newNodeFixtures or compositeFixtures)", want, got)
	}
}

// TestNodeEveryType: node(id:) returns each Node type to a reader and
// nothing (null and NOT_FOUND, like an unknown id) to a stranger of
// another organization; finding an id's type costs one statement whatever
// the type, so node costs exactly one statement more than the type's own
// query.
func TestNodeEveryType(t *testing.T) {
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		alice, acme := s.NewUser(t, "alice@acme.com", "Acme")
		bob, _ := s.NewUser(t, "bob@bobs.io", "Bobs")
		fixtures := newNodeFixtures(t, s, alice, acme)
		const node = `query($id: ID!) { node(id: $id) { __typename id } }`
		// The fewest statements of three runs: a loader batch that a busy
		// machine splits in two is timing, not the query's cost.
		cost := func(token, query string, vars map[string]any) int64 {
			t.Helper()
			least := int64(-1)
			for range 3 {
				before := s.Statements()
				s.GraphQL(t, token, query, vars)
				if n := s.Statements() - before; least < 0 || n < least {
					least = n
				}
			}
			return least
		}
		hidden := func(token, id string) {
			t.Helper()
			data, errs := s.GraphQL(t, token, node, map[string]any{"id": id})
			if data["node"] != nil || len(errs) != 1 || errs[0].Extensions["code"] != "NOT_FOUND" {
				t.Errorf("node(%s) for a stranger: %v %+v", id, data, errs)
			}
		}

		for _, f := range fixtures {
			t.Run(f.typename, func(t *testing.T) {
				got := s.MustGraphQL(t, alice.Token, node, map[string]any{"id": f.id})["node"].(map[string]any)
				if got["__typename"] != f.typename || got["id"] != f.id {
					t.Fatalf("node(%s): %v", f.id, got)
				}
				hidden(bob.Token, f.id)
				if f.own == "" {
					return
				}
				own, viaNode := cost(alice.Token, f.own, f.vars), cost(alice.Token, node, map[string]any{"id": f.id})
				t.Logf("%s: own query %d statements, node %d", f.typename, own, viaNode)
				if viaNode != own+1 {
					t.Errorf("node(%s) cost %d statements, its own query %d: want one more", f.typename, viaNode, own)
				}
			})
		}
		t.Run("unknown id", func(t *testing.T) {
			hidden(alice.Token, "nothing-has-this-id")
			base := cost(alice.Token, `{ __typename }`, nil)
			if n := cost(alice.Token, node, map[string]any{"id": "nothing-has-this-id"}); n != base+1 {
				t.Errorf("an unknown id cost %d statements beyond authentication, want 1", n-base)
			}
		})
	})
}
