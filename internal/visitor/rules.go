package visitor

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strings"

	"github.com/folio/folio/internal/adaptive"
	"github.com/folio/folio/internal/visitorauth"
)

// The rules of who reads a published site, whatever the way in: the
// reader's gate (Admit: URL parameters and cookies) and GraphQL's
// publishedSite (arguments) both gather a visitor's Credentials and ask
// Decide, and both make the visitor's claims with VisitorOf. Nothing here
// knows HTTP.

// Credentials are what a visitor brings to a site.
type Credentials struct {
	// ShareKeyActive: the visitor brought the key of an active share link
	// of this site (asked of the sites area only for share-link sites).
	ShareKeyActive bool
	// Signed are the claims of a valid visitor token (VerifyToken); nil
	// without one.
	Signed map[string]any
	// Unsigned are the visitor's unsigned claims as the site's adaptive
	// schema kept them (adaptive.Schema.UnsignedClaims, UnsignedFrom); nil
	// without any.
	Unsigned map[string]any
}

// Decision is what the rules say of a visitor.
type Decision int

const (
	// Admitted visitors read the site.
	Admitted Decision = iota
	// Refused visitors are answered as if the site did not exist.
	Refused
	// NeedsToken: a visitor-auth site without a valid token. The reader
	// sends them to the site's fallback URL (or answers 401); GraphQL
	// answers as for Refused.
	NeedsToken
)

// Decide applies a published site's visibility: public and unlisted sites
// are open to anyone, share-link sites to whoever brings an active link's
// key, visitor-auth sites to whoever brings a valid token; any other
// visibility to nobody. (Whether the site is published is the caller's to
// check first: an unpublished site is nobody's.)
func Decide(visibility string, c Credentials) Decision {
	switch visibility {
	case "public", "unlisted":
		return Admitted
	case "share-link":
		if c.ShareKeyActive {
			return Admitted
		}
	case "visitor-auth":
		if c.Signed != nil {
			return Admitted
		}
		return NeedsToken
	}
	return Refused
}

// VerifyToken answers the claims of a visitor token signed with the site's
// key, or nil when it does not verify (visitorauth.Verify, at this
// package's clock).
func VerifyToken(key, token string) map[string]any {
	claims, err := visitorauth.Verify(key, token, now())
	if err != nil {
		return nil
	}
	return claims
}

// UnsignedFrom checks an object of unsigned claims (names as the schema's
// `unsigned` object declares them, nested objects for dotted names)
// against the site's schema: values that do not fit or are not declared
// are dropped, never an error.
func UnsignedFrom(schema *adaptive.Schema, obj map[string]any) map[string]any {
	if schema == nil || obj == nil {
		return nil
	}
	return schema.UnsignedClaims(func(path string) (any, bool) {
		v := find(obj, strings.Split(path, "."))
		return v, v != nil
	})
}

// VisitorOf is an admitted visitor of a site of this visibility: the
// token's claims, plus the unsigned ones under "unsigned" — over which the
// token's own `unsigned` object wins, since anyone can type a parameter and
// only the site's backend can sign.
func VisitorOf(visibility string, c Credentials) Visitor {
	claims := map[string]any{}
	for k, val := range c.Signed {
		claims[k] = val
	}
	if unsigned := c.Unsigned; unsigned != nil {
		if own, isMap := c.Signed["unsigned"].(map[string]any); isMap {
			merge(unsigned, own)
		}
		claims["unsigned"] = unsigned
	}
	grant := visibility
	if c.Signed != nil {
		grant += "+token"
	}
	return Visitor{Claims: claims, State: digest(grant, claims)}
}

// merge copies src over dst, recursing into objects present in both.
func merge(dst, src map[string]any) {
	for k, v := range src {
		sub, isMap := v.(map[string]any)
		have, haveMap := dst[k].(map[string]any)
		if isMap && haveMap {
			merge(have, sub)
			continue
		}
		dst[k] = v
	}
}

// digest summarizes the grant and the claims (encoding/json sorts map keys,
// so equal claims digest equally).
func digest(grant string, claims map[string]any) string {
	b, _ := json.Marshal(claims)
	h := sha256.New()
	h.Write([]byte(grant))
	h.Write([]byte{0})
	h.Write(b)
	return hex.EncodeToString(h.Sum(nil)[:12])
}
