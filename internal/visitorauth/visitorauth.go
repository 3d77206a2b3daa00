// Package visitorauth signs and verifies the tokens of a visitor-auth
// site's visitors: compact JWTs signed with HS256 under the site's private
// key (publishing/auth). Regenerating the key invalidates every token signed
// with the old one. The reader of published sites (/s/, through
// internal/visitor) verifies the token and hands its claims to the
// conditions of sections and site spaces.
//
// Verify is deliberately narrow: one algorithm (HS256; `none` and the
// asymmetric ones a key-confusion attack relies on are refused), `exp`
// required, `nbf` honoured, a minute of clock skew either way, no `crit`
// header, bounded size. There is no JWT library: the format Folio accepts
// is small enough that a dependency would add more surface than it saves.
package visitorauth

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"math"
	"strings"
	"time"
)

// ErrInvalid is any token that does not verify: malformed, another
// algorithm, a wrong signature (another key), without `exp`, expired or not
// yet valid. Callers learn nothing more, so a probe cannot tell which check
// failed.
var ErrInvalid = errors.New("visitor token is invalid")

const (
	// Leeway is the clock skew tolerated between the signer and this
	// server, on `exp` and `nbf`.
	Leeway = time.Minute
	// MaxTokenBytes bounds a token: it arrives in a URL or a cookie, and
	// a cookie holds about 4 KiB.
	MaxTokenBytes = 8 << 10
)

var header = b64([]byte(`{"alg":"HS256","typ":"JWT"}`))

func b64(b []byte) string { return base64.RawURLEncoding.EncodeToString(b) }

func mac(key, input string) []byte {
	m := hmac.New(sha256.New, []byte(key))
	m.Write([]byte(input))
	return m.Sum(nil)
}

// Sign makes a token of claims under key. Verify refuses a token without
// `exp`, so callers set one (a Unix time in seconds).
func Sign(key string, claims map[string]any) (string, error) {
	if key == "" {
		return "", errors.New("visitorauth: empty signing key")
	}
	body, err := json.Marshal(claims)
	if err != nil {
		return "", err
	}
	input := header + "." + b64(body)
	return input + "." + b64(mac(key, input)), nil
}

// Verify checks token under key at now and answers its claims. Numbers in
// the claims are float64, as encoding/json decodes them.
func Verify(key, token string, now time.Time) (map[string]any, error) {
	if key == "" || len(token) > MaxTokenBytes {
		return nil, ErrInvalid
	}
	parts := strings.Split(token, ".")
	if len(parts) != 3 {
		return nil, ErrInvalid
	}
	h, err := base64.RawURLEncoding.Strict().DecodeString(parts[0])
	if err != nil {
		return nil, ErrInvalid
	}
	// The header is read strictly: the algorithm must be HS256 exactly, and
	// a `crit` header (extensions the signer says must be understood) is
	// refused because Folio understands none.
	var hdr map[string]any
	if strictJSON(h, &hdr) != nil || hdr["alg"] != "HS256" {
		return nil, ErrInvalid
	}
	if _, ok := hdr["crit"]; ok {
		return nil, ErrInvalid
	}
	if typ, ok := hdr["typ"]; ok {
		if s, isStr := typ.(string); !isStr || !strings.EqualFold(s, "JWT") {
			return nil, ErrInvalid
		}
	}
	sig, err := base64.RawURLEncoding.Strict().DecodeString(parts[2])
	if err != nil || !hmac.Equal(mac(key, parts[0]+"."+parts[1]), sig) {
		return nil, ErrInvalid
	}
	body, err := base64.RawURLEncoding.Strict().DecodeString(parts[1])
	if err != nil {
		return nil, ErrInvalid
	}
	var claims map[string]any
	if strictJSON(body, &claims) != nil || claims == nil {
		return nil, ErrInvalid
	}
	exp, ok := unixTime(claims["exp"])
	if !ok || !now.Before(exp.Add(Leeway)) {
		return nil, ErrInvalid
	}
	if v, present := claims["nbf"]; present {
		nbf, ok := unixTime(v)
		if !ok || now.Add(Leeway).Before(nbf) {
			return nil, ErrInvalid
		}
	}
	return claims, nil
}

// strictJSON decodes exactly one JSON value (no trailing data).
func strictJSON(b []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	if err := dec.Decode(v); err != nil {
		return err
	}
	if dec.More() {
		return ErrInvalid
	}
	return nil
}

// unixTime reads a JWT NumericDate: seconds since the epoch, finite.
func unixTime(v any) (time.Time, bool) {
	f, ok := v.(float64)
	if !ok || math.IsNaN(f) || math.IsInf(f, 0) || f < 0 || f > 1<<40 {
		return time.Time{}, false
	}
	sec, frac := math.Modf(f)
	return time.Unix(int64(sec), int64(frac*1e9)), true
}
