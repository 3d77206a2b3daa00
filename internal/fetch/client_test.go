package fetch

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestHTTPClient: the client libraries get keeps the guard (no private
// address unless allowed) and cuts bodies at MaxBytes.
func TestHTTPClient(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := 1024
		if r.URL.Path == "/big" {
			n = 1025
		}
		_, _ = io.WriteString(w, strings.Repeat("x", n))
	}))
	defer srv.Close()
	if _, err := (Fetcher{}).HTTPClient().Get(srv.URL + "/exact"); !errors.Is(err, ErrPrivateAddress) {
		t.Fatalf("loopback without AllowPrivate: %v", err)
	}
	c := (Fetcher{AllowPrivate: true, MaxBytes: 1024}).HTTPClient()
	for path, want := range map[string]error{"/exact": nil, "/big": ErrTooLarge} {
		resp, err := c.Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if !errors.Is(err, want) || (want == nil && len(body) != 1024) {
			t.Fatalf("%s: %d bytes, %v", path, len(body), err)
		}
	}
}
