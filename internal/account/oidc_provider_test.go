package account_test

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"
)

// fakeIdP is an OpenID Connect provider in the test process: discovery,
// keys, an authorization endpoint that signs the person in at once and
// redirects back with a code, and a token endpoint that checks the client
// secret and the PKCE verifier and answers an RS256 ID token.
type fakeIdP struct {
	*httptest.Server
	clientID, secret string
	key, stranger    *rsa.PrivateKey

	mu     sync.Mutex
	person map[string]any               // claims of who signs in next
	tweak  func(claims map[string]any)  // changes the next ID tokens' claims
	badSig bool                         // sign with a key the JWKS does not hold
	codes  map[string]map[string]string // code → what /authorize received
	seen   []url.Values                 // /authorize queries
}

func newFakeIdP(t *testing.T, clientID, secret string) *fakeIdP {
	t.Helper()
	f := &fakeIdP{clientID: clientID, secret: secret, codes: map[string]map[string]string{}}
	var err error
	if f.key, err = rsa.GenerateKey(rand.Reader, 2048); err != nil {
		t.Fatal(err)
	}
	if f.stranger, err = rsa.GenerateKey(rand.Reader, 2048); err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /.well-known/openid-configuration", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, map[string]any{
			"issuer":                                f.URL,
			"authorization_endpoint":                f.URL + "/authorize",
			"token_endpoint":                        f.URL + "/token",
			"jwks_uri":                              f.URL + "/jwks",
			"response_types_supported":              []string{"code"},
			"subject_types_supported":               []string{"public"},
			"id_token_signing_alg_values_supported": []string{"RS256"},
			"code_challenge_methods_supported":      []string{"S256"},
		})
	})
	mux.HandleFunc("GET /jwks", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, jose.JSONWebKeySet{Keys: []jose.JSONWebKey{{Key: &f.key.PublicKey, KeyID: "k1", Algorithm: "RS256", Use: "sig"}}})
	})
	mux.HandleFunc("GET /authorize", func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		f.mu.Lock()
		f.seen = append(f.seen, q)
		code := randomString()
		f.codes[code] = map[string]string{"nonce": q.Get("nonce"), "challenge": q.Get("code_challenge"),
			"method": q.Get("code_challenge_method"), "client": q.Get("client_id"), "redirect": q.Get("redirect_uri")}
		f.mu.Unlock()
		if q.Get("response_type") != "code" || q.Get("client_id") != f.clientID {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		back, _ := url.Parse(q.Get("redirect_uri"))
		v := url.Values{"code": {code}, "state": {q.Get("state")}}
		back.RawQuery = v.Encode()
		http.Redirect(w, r, back.String(), http.StatusFound)
	})
	mux.HandleFunc("POST /token", func(w http.ResponseWriter, r *http.Request) {
		id, secret, ok := r.BasicAuth()
		if !ok {
			id, secret = r.PostFormValue("client_id"), r.PostFormValue("client_secret")
		} else {
			id, _ = url.QueryUnescape(id)
			secret, _ = url.QueryUnescape(secret)
		}
		f.mu.Lock()
		c, found := f.codes[r.PostFormValue("code")]
		delete(f.codes, r.PostFormValue("code"))
		person, tweak, badSig := f.person, f.tweak, f.badSig
		f.mu.Unlock()
		sum := sha256.Sum256([]byte(r.PostFormValue("code_verifier")))
		switch {
		case id != f.clientID || secret != f.secret:
			writeStatus(w, http.StatusUnauthorized, map[string]string{"error": "invalid_client"})
			return
		case !found || r.PostFormValue("grant_type") != "authorization_code" || c["redirect"] != r.PostFormValue("redirect_uri") ||
			c["method"] != "S256" || base64.RawURLEncoding.EncodeToString(sum[:]) != c["challenge"]:
			writeStatus(w, http.StatusBadRequest, map[string]string{"error": "invalid_grant"})
			return
		}
		now := time.Now()
		claims := map[string]any{"iss": f.URL, "aud": f.clientID, "iat": now.Unix(), "exp": now.Add(5 * time.Minute).Unix(),
			"nonce": c["nonce"]}
		for k, v := range person {
			claims[k] = v
		}
		if tweak != nil {
			tweak(claims)
		}
		key := f.key
		if badSig {
			key = f.stranger
		}
		// A "tamper" claim is put in after signing: the token's payload
		// changed on the way, its signature left as it was.
		tamper, _ := claims["tamper"].(string)
		delete(claims, "tamper")
		raw := sign(t, key, claims)
		if tamper != "" {
			claims["email"] = tamper
			payload, _ := json.Marshal(claims)
			parts := strings.Split(raw, ".")
			raw = parts[0] + "." + base64.RawURLEncoding.EncodeToString(payload) + "." + parts[2]
		}
		writeJSON(w, map[string]any{"access_token": "at-" + randomString(), "token_type": "Bearer", "expires_in": 300,
			"id_token": raw})
	})
	f.Server = httptest.NewServer(mux)
	t.Cleanup(f.Close)
	return f
}

// as sets who signs in next (sub, email, email_verified and the rest),
// and clears any tweak.
func (f *fakeIdP) as(claims map[string]any) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.person, f.tweak, f.badSig = claims, nil, false
}

func (f *fakeIdP) set(tweak func(map[string]any), badSig bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.tweak, f.badSig = tweak, badSig
}

func (f *fakeIdP) lastAuthorize() url.Values {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.seen[len(f.seen)-1]
}

func sign(t *testing.T, key *rsa.PrivateKey, claims map[string]any) string {
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.RS256, Key: jose.JSONWebKey{Key: key, KeyID: "k1"}},
		(&jose.SignerOptions{}).WithType("JWT"))
	if err != nil {
		t.Error(err)
		return ""
	}
	payload, _ := json.Marshal(claims)
	obj, err := signer.Sign(payload)
	if err != nil {
		t.Error(err)
		return ""
	}
	raw, _ := obj.CompactSerialize()
	return raw
}

func writeJSON(w http.ResponseWriter, v any) { writeStatus(w, http.StatusOK, v) }

func writeStatus(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func randomString() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return base64.RawURLEncoding.EncodeToString(b[:])
}
