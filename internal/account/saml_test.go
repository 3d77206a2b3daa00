package account_test

import (
	"bytes"
	"compress/flate"
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/pem"
	"encoding/xml"
	"html"
	"io"
	"math/big"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/crewjam/saml"

	"github.com/folio/folio/ent/event"
	"github.com/folio/folio/ent/member"
	"github.com/folio/folio/ent/user"
	"github.com/folio/folio/graph"
	"github.com/folio/folio/internal/access"
	"github.com/folio/folio/internal/clock"
	"github.com/folio/folio/internal/testkit"
)

// testIdP is an identity provider in the test process: crewjam/saml's
// IdentityProvider over httptest, whose user is always signed in (its
// session hook returns a fixed session).
type testIdP struct {
	*saml.IdentityProvider
	srv     *httptest.Server
	sps     map[string]*saml.EntityDescriptor
	session *saml.Session
	certPEM string
}

func (i *testIdP) GetServiceProvider(_ *http.Request, id string) (*saml.EntityDescriptor, error) {
	if sp, ok := i.sps[id]; ok {
		return sp, nil
	}
	return nil, os.ErrNotExist
}

func (i *testIdP) GetSession(http.ResponseWriter, *http.Request, *saml.IdpAuthnRequest) *saml.Session {
	return i.session
}

// newKey is an RSA key and its self-signed certificate (DER and PEM).
func newKey(t *testing.T, cn string) (*rsa.PrivateKey, *x509.Certificate, string) {
	t.Helper()
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: cn},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour), KeyUsage: x509.KeyUsageDigitalSignature}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	return key, cert, string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}))
}

func newTestIdP(t *testing.T, email string) *testIdP {
	t.Helper()
	i := &testIdP{sps: map[string]*saml.EntityDescriptor{}}
	i.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/sso":
			i.ServeSSO(w, r)
		case "/init":
			i.ServeIDPInitiated(w, r, r.URL.Query().Get("sp"), r.URL.Query().Get("relay"))
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(i.srv.Close)
	key, cert, certPEM := newKey(t, "idp.example.com")
	base, _ := url.Parse(i.srv.URL)
	i.IdentityProvider = &saml.IdentityProvider{
		Key: key, Certificate: cert,
		MetadataURL:             *base.JoinPath("metadata"),
		SSOURL:                  *base.JoinPath("sso"),
		ServiceProviderProvider: i,
		SessionProvider:         i,
	}
	i.certPEM = certPEM
	i.session = &saml.Session{ID: "s1", NameID: email, NameIDFormat: string(saml.EmailAddressNameIDFormat),
		UserEmail: email, UserCommonName: "Erin Example", CreateTime: time.Now(), ExpireTime: time.Now().Add(time.Hour)}
	return i
}

// trust registers the SP metadata Folio serves for provider id.
func (i *testIdP) trust(t *testing.T, s *testkit.Server, id string) {
	t.Helper()
	a := send(t, s, "GET", "/sso/saml/"+id, "", "", "", "")
	if a.status != 200 || !strings.Contains(a.header.Get("Content-Type"), "xml") {
		t.Fatalf("metadata: %d %s", a.status, a.body)
	}
	var ed saml.EntityDescriptor
	if err := xml.Unmarshal([]byte(a.body), &ed); err != nil {
		t.Fatal(err)
	}
	i.sps[ed.EntityID] = &ed
}

// initiated is the base64 SAMLResponse of an IdP-initiated sign-in to
// the SP entityID, made by idp (perhaps with another key than i's), its
// clock moved by shift.
func (i *testIdP) initiated(t *testing.T, idp *saml.IdentityProvider, entityID, relay string, shift time.Duration) string {
	t.Helper()
	req, err := idp.NewIdpInitiatedRequest(httptest.NewRequest("GET", "/init", nil), entityID, relay)
	if err != nil {
		t.Fatal(err)
	}
	req.Now = req.Now.Add(shift)
	if err := (saml.DefaultAssertionMaker{}).MakeAssertion(req, i.session); err != nil {
		t.Fatal(err)
	}
	form, err := req.PostBinding()
	if err != nil {
		t.Fatal(err)
	}
	return form.SAMLResponse
}

var formField = regexp.MustCompile(`name="(SAMLResponse|RelayState)" value="([^"]*)"`)

// postForm reads the auto-posting form an IdP page holds.
func postForm(t *testing.T, page string) (samlResponse, relay string) {
	t.Helper()
	for _, m := range formField.FindAllStringSubmatch(page, -1) {
		if m[1] == "SAMLResponse" {
			samlResponse = html.UnescapeString(m[2])
		} else {
			relay = html.UnescapeString(m[2])
		}
	}
	if samlResponse == "" {
		t.Fatalf("no SAMLResponse in %s", page)
	}
	return samlResponse, relay
}

// acs posts a response to provider id's ACS as the IdP's page does: a
// cross-site form post, with the request cookie when requestCookie is set.
func acs(t *testing.T, s *testkit.Server, idp *testIdP, id, samlResponse, relay, requestCookie string) answer {
	t.Helper()
	req, _ := http.NewRequest("POST", s.URL+"/sso/saml/"+id+"/acs",
		strings.NewReader(form("SAMLResponse", samlResponse, "RelayState", relay)))
	req.Header.Set("Content-Type", formType)
	req.Header.Set("Origin", idp.srv.URL)
	req.Header.Set("Sec-Fetch-Site", "cross-site")
	req.Header.Set("User-Agent", "saml-test")
	if requestCookie != "" {
		req.AddCookie(&http.Cookie{Name: "folio_saml_request", Value: requestCookie})
	}
	resp, err := noRedirect.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	return answer{resp.StatusCode, resp.Header, string(raw)}
}

// createProvider makes a provider of orgID through the REST API.
func createProvider(t *testing.T, s *testkit.Server, token, orgID string, body map[string]any) string {
	t.Helper()
	p := s.Call(t, "createOrganizationSAMLProvider", token, "POST", "/v1/orgs/"+orgID+"/saml", body, 201).JSON(t)
	return p["id"].(string)
}

func requestCookie(t *testing.T, a answer) string {
	t.Helper()
	for _, c := range (&http.Response{Header: a.header}).Cookies() {
		if c.Name == "folio_saml_request" {
			if !c.HttpOnly || c.MaxAge <= 0 {
				t.Fatalf("request cookie: %+v", c)
			}
			return c.Value
		}
	}
	t.Fatalf("no request cookie: %v", a.header)
	return ""
}

// TestSAMLSignIn walks SP- and IdP-initiated sign-ins against an
// in-process identity provider, and the responses Folio refuses.
func TestSAMLSignIn(t *testing.T) {
	t.Cleanup(clock.Reset)
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		ctx := context.Background()
		admin, org := s.NewUser(t, "alice@acme.com", "Acme")
		other, otherOrg := s.NewUser(t, "bob@bobs.io", "Bobs")
		team := s.Client().Team.Create().SetOrganizationID(org).SetTitle("Engineering").SaveX(testkit.Fixture(ctx))
		idp := newTestIdP(t, "Erin@Example.com")

		// A pending provider (and an unknown id) has no SAML endpoints.
		pending := createProvider(t, s, admin.Token, org, map[string]any{"label": "Later"})
		for _, path := range []string{"/sso/saml/" + pending, "/sso/saml/" + pending + "/metadata", "/sso/saml/" + pending + "/start", "/sso/saml/nope"} {
			if a := send(t, s, "GET", path, "", "", "", ""); a.status != 404 {
				t.Fatalf("GET %s: %d %s", path, a.status, a.body)
			}
		}
		if a := acs(t, s, idp, pending, "eA==", "", ""); a.status != 404 {
			t.Fatalf("acs of pending: %d", a.status)
		}

		id := createProvider(t, s, admin.Token, org, map[string]any{"label": "Okta", "ssoURL": idp.SSOURL.String(),
			"entityID": idp.MetadataURL.String(), "certificate": idp.certPEM, "defaultRole": "edit", "defaultTeam": team.ID})
		idp.trust(t, s, id)
		entityID := s.URL + "/sso/saml/" + id
		sp := idp.sps[entityID]
		if sp == nil || len(sp.SPSSODescriptors) != 1 {
			t.Fatalf("metadata entity %v", idp.sps)
		}
		d := sp.SPSSODescriptors[0]
		if len(d.AssertionConsumerServices) != 1 || d.AssertionConsumerServices[0].Location != entityID+"/acs" ||
			d.AssertionConsumerServices[0].Binding != saml.HTTPPostBinding || *d.AuthnRequestsSigned || !*d.WantAssertionsSigned {
			t.Fatalf("metadata: %+v", d)
		}
		if a := send(t, s, "GET", "/sso/saml/"+id+"/metadata", "", "", "", ""); a.status != 200 || !strings.Contains(a.body, entityID+"/acs") ||
			strings.Contains(a.body, "validUntil") || !strings.Contains(a.body, string(saml.EmailAddressNameIDFormat)) {
			t.Fatalf("metadata alias: %d", a.status)
		}

		// SP-initiated: start → IdP → ACS → session, member, team.
		start := send(t, s, "GET", "/sso/saml/"+id+"/start?next=/account/tokens", "", "", "", "")
		if start.status != 303 || !strings.HasPrefix(start.header.Get("Location"), idp.SSOURL.String()+"?SAMLRequest=") ||
			!strings.Contains(start.header.Get("Location"), "RelayState=%2Faccount%2Ftokens") {
			t.Fatalf("start: %d %v", start.status, start.header)
		}
		cookie := requestCookie(t, start)
		loc, _ := url.Parse(start.header.Get("Location"))
		deflated, err := base64.StdEncoding.DecodeString(loc.Query().Get("SAMLRequest"))
		if err != nil {
			t.Fatal(err)
		}
		authn, _ := io.ReadAll(flate.NewReader(bytes.NewReader(deflated)))
		for _, want := range []string{`ID="` + cookie + `"`, `Destination="` + idp.SSOURL.String() + `"`,
			`AssertionConsumerServiceURL="` + entityID + `/acs"`, `>` + entityID + `</saml:Issuer>`, string(saml.EmailAddressNameIDFormat)} {
			if !strings.Contains(string(authn), want) {
				t.Fatalf("AuthnRequest has no %s: %s", want, authn)
			}
		}
		resp, err := noRedirect.Get(start.header.Get("Location"))
		if err != nil {
			t.Fatal(err)
		}
		page, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		samlResponse, relay := postForm(t, string(page))
		if relay != "/account/tokens" {
			t.Fatalf("relay %q", relay)
		}
		// Another sign-in's request id does not accept this response.
		before := s.Snapshot(t)
		if a := acs(t, s, idp, id, samlResponse, relay, "id-of-another-request"); a.status != 403 || !strings.Contains(a.body, "could not be verified") {
			t.Fatalf("wrong request id: %d %s", a.status, a.body)
		}
		s.Unchanged(t, before)

		done := acs(t, s, idp, id, samlResponse, relay, cookie)
		if done.status != 303 || done.header.Get("Location") != "/account/tokens" {
			t.Fatalf("acs: %d %v %s", done.status, done.header, done.body)
		}
		session := sessionCookie(t, done).Value
		if a := send(t, s, "GET", "/account", session, "", "", ""); a.status != 200 || !strings.Contains(a.body, "erin@example.com") {
			t.Fatalf("account: %d %s", a.status, a.body)
		}
		erin := s.Client().User.Query().Where(user.Email("erin@example.com")).OnlyX(ctx)
		if !erin.EmailVerified || erin.DisplayName != "Erin Example" {
			t.Fatalf("user: %+v", erin)
		}
		m := s.MemberOf(t, org, erin.ID)
		if m == nil || m.Role == nil || *m.Role != access.Edit || !m.SSO {
			t.Fatalf("member: %+v", m)
		}
		if s.TeamRoles(t, team.ID)[erin.ID] != "member" {
			t.Fatalf("team: %v", s.TeamRoles(t, team.ID))
		}
		if n := s.Client().Event.Query().Where(event.Action("saml.signed_in"), event.OrganizationID(org), event.TargetID(id)).CountX(ctx); n != 1 {
			t.Fatalf("saml.signed_in events: %d", n)
		}
		if n := s.Client().Event.Query().Where(event.Action("member.joined"), event.TargetID(erin.ID)).CountX(ctx); n != 1 {
			t.Fatalf("member.joined events: %d", n)
		}

		// Replay: the same response again is refused, nothing changes.
		before = s.Snapshot(t)
		if a := acs(t, s, idp, id, samlResponse, relay, cookie); a.status != 403 || !strings.Contains(a.body, "already used") {
			t.Fatalf("replay: %d %s", a.status, a.body)
		}
		s.Unchanged(t, before)

		// IdP-initiated: no request id; an outside RelayState lands on
		// /account. An existing member keeps their role.
		init := idp.initiated(t, idp.IdentityProvider, entityID, "https://evil.example/x", 0)
		a := acs(t, s, idp, id, init, "https://evil.example/x", "")
		if a.status != 303 || a.header.Get("Location") != "/account" {
			t.Fatalf("idp-initiated: %d %v %s", a.status, a.header, a.body)
		}
		sessionCookie(t, a)
		if n := s.Client().Member.Query().CountX(ctx); n != 3 { // alice, bob, erin
			t.Fatalf("members: %d", n)
		}
		// Through the IdP's own IdP-initiated page too.
		resp, err = noRedirect.Get(idp.srv.URL + "/init?sp=" + url.QueryEscape(entityID) + "&relay=%2Faccount")
		if err != nil {
			t.Fatal(err)
		}
		page, _ = io.ReadAll(resp.Body)
		resp.Body.Close()
		init, relay = postForm(t, string(page))
		if a := acs(t, s, idp, id, init, relay, ""); a.status != 303 || a.header.Get("Location") != "/account" {
			t.Fatalf("idp page: %d %s", a.status, a.body)
		}

		refused := func(what, samlResponse, want string) {
			t.Helper()
			before := s.Snapshot(t)
			a := acs(t, s, idp, id, samlResponse, "", "")
			if a.status != 403 || !strings.Contains(a.body, want) || strings.Contains(strings.Join(a.header.Values("Set-Cookie"), ";"), "folio_session=") {
				t.Fatalf("%s: %d %v %s", what, a.status, a.header, a.body)
			}
			s.Unchanged(t, before)
		}
		decode := func(b64 string) string {
			raw, err := base64.StdEncoding.DecodeString(b64)
			if err != nil {
				t.Fatal(err)
			}
			return string(raw)
		}
		encode := func(x string) string { return base64.StdEncoding.EncodeToString([]byte(x)) }

		// Tampered after signing: another email.
		good := decode(idp.initiated(t, idp.IdentityProvider, entityID, "", 0))
		if !strings.Contains(good, "Erin@Example.com") {
			t.Fatalf("no email in %s", good)
		}
		refused("tampered", encode(strings.ReplaceAll(good, "Erin@Example.com", "alice@acme.com")), "could not be verified")
		// Unsigned: the signatures taken out.
		unsigned := regexp.MustCompile(`(?s)<ds:Signature\b.*?</ds:Signature>`).ReplaceAllString(good, "")
		if unsigned == good {
			t.Fatal("no signature to take out")
		}
		refused("unsigned", encode(unsigned), "could not be verified")
		// Signed with another key than the provider's certificate.
		otherKey, otherCert, _ := newKey(t, "idp.example.com")
		forger := *idp.IdentityProvider
		forger.Key, forger.Certificate = otherKey, otherCert
		refused("other key", idp.initiated(t, &forger, entityID, "", 0), "could not be verified")
		// Expired: made two hours ago.
		refused("expired", idp.initiated(t, idp.IdentityProvider, entityID, "", -2*time.Hour), "could not be verified")
		// Another audience (an SP of the IdP whose ACS is Folio's).
		stranger := *sp
		stranger.EntityID = "https://other.example/sp"
		idp.sps[stranger.EntityID] = &stranger
		refused("wrong audience", idp.initiated(t, idp.IdentityProvider, stranger.EntityID, "", 0), "could not be verified")
		// Garbage.
		refused("garbage", "not base64!", "could not be verified")
		// Signed, but naming no email: a transient NameID and no mail.
		idp.session.NameIDFormat, idp.session.NameID, idp.session.UserEmail = string(saml.TransientNameIDFormat), "x-5f2a", ""
		refused("no email", idp.initiated(t, idp.IdentityProvider, entityID, "", 0), "did not send an email address")
		idp.session.NameIDFormat, idp.session.NameID, idp.session.UserEmail = string(saml.EmailAddressNameIDFormat), "Erin@Example.com", "Erin@Example.com"

		// Wrong tenant: Bobs configures the same IdP (entity ID and
		// certificate). A response meant for Acme's provider (its
		// audience and destination) does not get anyone into Bobs.
		bobsID := createProvider(t, s, other.Token, otherOrg, map[string]any{"label": "Same IdP", "ssoURL": idp.SSOURL.String(),
			"entityID": idp.MetadataURL.String(), "certificate": idp.certPEM})
		forAcme := idp.initiated(t, idp.IdentityProvider, entityID, "", 0)
		before = s.Snapshot(t)
		if a := acs(t, s, idp, bobsID, forAcme, "", ""); a.status != 403 {
			t.Fatalf("wrong tenant: %d %s", a.status, a.body)
		}
		s.Unchanged(t, before)
		if s.MemberOf(t, otherOrg, erin.ID) != nil {
			t.Fatal("erin joined Bobs")
		}
		// Through Bobs' own provider, erin (an account, not Bobs' member)
		// is refused: Bobs' IdP does not speak for Acme's people.
		idp.trust(t, s, bobsID)
		before = s.Snapshot(t)
		if a := acs(t, s, idp, bobsID, idp.initiated(t, idp.IdentityProvider, s.URL+"/sso/saml/"+bobsID, "", 0), "", ""); a.status != 403 ||
			!strings.Contains(a.body, "not a member of this organization") {
			t.Fatalf("existing account, other org: %d %s", a.status, a.body)
		}
		s.Unchanged(t, before)

		// A new person through Bobs' provider joins Bobs only, with the
		// lowest role (the provider has no default role) and no team.
		idp.session.NameID, idp.session.UserEmail = "frank@example.com", "frank@example.com"
		a = acs(t, s, idp, bobsID, idp.initiated(t, idp.IdentityProvider, s.URL+"/sso/saml/"+bobsID, "", 0), "", "")
		if a.status != 303 {
			t.Fatalf("frank: %d %s", a.status, a.body)
		}
		frank := s.Client().User.Query().Where(user.Email("frank@example.com")).OnlyX(ctx)
		if m := s.MemberOf(t, otherOrg, frank.ID); m == nil || m.Role == nil || *m.Role != access.Read {
			t.Fatalf("frank in Bobs: %+v", m)
		}
		if s.MemberOf(t, org, frank.ID) != nil || len(s.TeamRoles(t, team.ID)) != 1 {
			t.Fatal("frank got into Acme")
		}
		// A disabled member is refused.
		s.Client().Member.Update().Where(member.UserID(frank.ID)).SetDisabled(true).ExecX(testkit.Fixture(ctx))
		before = s.Snapshot(t)
		if a := acs(t, s, idp, bobsID, idp.initiated(t, idp.IdentityProvider, s.URL+"/sso/saml/"+bobsID, "", 0), "", ""); a.status != 403 ||
			!strings.Contains(a.body, "disabled") {
			t.Fatalf("disabled: %d %s", a.status, a.body)
		}
		s.Unchanged(t, before)

		// An existing member signs in through their organization's
		// provider: same user, role unchanged (admin stays admin).
		idp.session.NameID, idp.session.UserEmail = "alice@acme.com", "alice@acme.com"
		a = acs(t, s, idp, id, idp.initiated(t, idp.IdentityProvider, entityID, "/account", 0), "/account", "")
		if a.status != 303 {
			t.Fatalf("alice: %d %s", a.status, a.body)
		}
		if m := s.MemberOf(t, org, admin.ID); m.Role == nil || *m.Role != access.Admin {
			t.Fatalf("alice's role: %+v", m)
		}
		if n := s.Client().User.Query().Where(user.Email("alice@acme.com")).CountX(ctx); n != 1 {
			t.Fatalf("alice users: %d", n)
		}

		// The remembered assertion ids go once their assertions expire.
		if n := s.Client().SAMLAssertion.Query().CountX(ctx); n != 5 {
			t.Fatalf("remembered assertions: %d", n)
		}
		if err := s.App.Resolver.PurgeExpiredSAMLAssertions(ctx); err != nil || s.Client().SAMLAssertion.Query().CountX(ctx) != 5 {
			t.Fatalf("purged too soon: %v", err)
		}
		// (crewjam/saml goes by the real clock: Folio's is moved last.)
		clock.Advance(2 * time.Hour)
		defer clock.Reset()
		if err := s.App.Resolver.PurgeExpiredSAMLAssertions(ctx); err != nil || s.Client().SAMLAssertion.Query().CountX(ctx) != 0 {
			t.Fatalf("not purged: %v", err)
		}
	})
}

// TestSAMLRequestCookie: behind https the request cookie goes along with
// the IdP's cross-site POST (SameSite=None, Secure); it is kept to the
// provider's ACS.
func TestSAMLRequestCookie(t *testing.T) {
	for base, want := range map[string]http.SameSite{"https://docs.example.com": http.SameSiteNoneMode, "http://localhost:8080": 0} {
		r := &graph.Resolver{BaseURL: base}
		c := r.SAMLRequestCookie("p1", "id-1")
		if c.SameSite != want || c.Secure != (want == http.SameSiteNoneMode) || c.Path != "/sso/saml/p1/acs" || !c.HttpOnly ||
			c.MaxAge != int(graph.SAMLRequestLifetime/time.Second) || c.Value != "id-1" {
			t.Fatalf("%s: %+v", base, c)
		}
		if c := r.SAMLRequestCookie("p1", ""); c.MaxAge >= 0 {
			t.Fatalf("clearing: %+v", c)
		}
	}
}
