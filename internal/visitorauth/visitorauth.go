// Package visitorauth signs and verifies the tokens of a visitor-auth
// site's visitors: compact JWTs signed with HS256 under the site's private
// key (publishing/auth). Regenerating the key invalidates every token signed
// with the old one. The reader of published sites (/s/) verifies the token
// and hands its claims to the conditions of sections and site spaces.
package visitorauth

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"strings"
	"time"
)

// ErrInvalid is any token that does not verify: malformed, another
// algorithm, a wrong signature (another key) or expired.
var ErrInvalid = errors.New("visitor token is invalid")

var header = b64([]byte(`{"alg":"HS256","typ":"JWT"}`))

func b64(b []byte) string { return base64.RawURLEncoding.EncodeToString(b) }

func sign(key, input string) string {
	m := hmac.New(sha256.New, []byte(key))
	m.Write([]byte(input))
	return b64(m.Sum(nil))
}

// Sign makes a token of claims under key.
func Sign(key string, claims map[string]any) (string, error) {
	body, err := json.Marshal(claims)
	if err != nil {
		return "", err
	}
	input := header + "." + b64(body)
	return input + "." + sign(key, input), nil
}

// Verify checks token under key at now and answers its claims.
func Verify(key, token string, now time.Time) (map[string]any, error) {
	parts := strings.Split(token, ".")
	if len(parts) != 3 {
		return nil, ErrInvalid
	}
	h, err := base64.RawURLEncoding.DecodeString(parts[0])
	if err != nil {
		return nil, ErrInvalid
	}
	var hdr struct{ Alg string }
	if json.Unmarshal(h, &hdr) != nil || hdr.Alg != "HS256" {
		return nil, ErrInvalid
	}
	want := sign(key, parts[0]+"."+parts[1])
	if !hmac.Equal([]byte(want), []byte(parts[2])) {
		return nil, ErrInvalid
	}
	body, err := base64.RawURLEncoding.DecodeString(parts[1])
	if err != nil {
		return nil, ErrInvalid
	}
	var claims map[string]any
	if json.Unmarshal(body, &claims) != nil {
		return nil, ErrInvalid
	}
	if exp, ok := claims["exp"].(float64); ok && now.Unix() >= int64(exp) {
		return nil, ErrInvalid
	}
	return claims, nil
}
