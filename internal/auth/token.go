// Package auth makes and checks API tokens and carries the authenticated
// user through a request's context.
package auth

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"net/http"
	"strings"
)

// tokenPrefix makes Folio tokens recognisable in logs and secret scanners.
const tokenPrefix = "folio_"

// NewToken returns a random API token (256 bits) and the hash to store.
func NewToken() (token, hash string) {
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic("auth: no randomness: " + err.Error())
	}
	token = tokenPrefix + base64.RawURLEncoding.EncodeToString(b[:])
	return token, HashToken(token)
}

// HashToken is what the database stores and looks tokens up by. Tokens carry
// 256 random bits, so a plain SHA-256 is enough: there is nothing to guess.
func HashToken(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:])
}

// BearerToken reads "Authorization: Bearer <token>"; "" when absent.
func BearerToken(r *http.Request) string {
	h := r.Header.Get("Authorization")
	scheme, token, ok := strings.Cut(h, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return ""
	}
	return strings.TrimSpace(token)
}

type viewerKey struct{}

// WithViewer stores the authenticated user's id in ctx.
func WithViewer(ctx context.Context, userID string) context.Context {
	return context.WithValue(ctx, viewerKey{}, userID)
}

// ViewerID is the authenticated user's id, "" outside an authenticated request.
func ViewerID(ctx context.Context) string {
	id, _ := ctx.Value(viewerKey{}).(string)
	return id
}
