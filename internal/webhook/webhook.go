// Package webhook signs and sends event messages the Standard Webhooks way
// (https://www.standardwebhooks.com): a JSON body and three headers,
// webhook-id, webhook-timestamp and webhook-signature, the last being
// "v1," + base64(HMAC-SHA256(key, id + "." + timestamp + "." + body)) where
// key is the base64-decoded part of the secret after "whsec_".
package webhook

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/folio/folio/internal/fetch"
)

// SecretPrefix starts every secret.
const SecretPrefix = "whsec_"

// NewSecret is a new signing secret: whsec_ and 32 random bytes in base64.
func NewSecret() string {
	var b [32]byte
	_, _ = rand.Read(b[:])
	return SecretPrefix + base64.StdEncoding.EncodeToString(b[:])
}

// key is the HMAC key of secret.
func key(secret string) ([]byte, error) {
	k, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, SecretPrefix))
	if err != nil || len(k) == 0 {
		return nil, errors.New("webhook secret is not whsec_ and base64")
	}
	return k, nil
}

// Sign is the webhook-signature header of a message.
func Sign(secret, id string, ts time.Time, body []byte) (string, error) {
	k, err := key(secret)
	if err != nil {
		return "", err
	}
	m := hmac.New(sha256.New, k)
	m.Write([]byte(id + "." + strconv.FormatInt(ts.Unix(), 10) + "."))
	m.Write(body)
	return "v1," + base64.StdEncoding.EncodeToString(m.Sum(nil)), nil
}

// Message is one signed sending.
type Message struct {
	ID   string // webhook-id: the event's id, the same for every attempt
	Time time.Time
	Body []byte
}

// Result is what one attempt got.
type Result struct {
	StatusCode int
	Err        error
	Duration   time.Duration
}

// OK tells whether the endpoint took the message (2xx).
func (r Result) OK() bool { return r.Err == nil && r.StatusCode >= 200 && r.StatusCode <= 299 }

// Send posts m to url through the guarded fetcher f (private addresses
// refused unless allowed, timeout), signed with secret.
func Send(ctx context.Context, f fetch.Fetcher, url, secret string, m Message) Result {
	sig, err := Sign(secret, m.ID, m.Time, m.Body)
	if err != nil {
		return Result{Err: err}
	}
	h := http.Header{}
	h.Set("Content-Type", "application/json")
	h.Set("webhook-id", m.ID)
	h.Set("webhook-timestamp", strconv.FormatInt(m.Time.Unix(), 10))
	h.Set("webhook-signature", sig)
	start := time.Now()
	code, err := f.Post(ctx, url, h, m.Body)
	return Result{StatusCode: code, Err: err, Duration: time.Since(start)}
}
