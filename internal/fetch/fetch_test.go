package fetch

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestFetchGuardsAndLimits(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/big":
			w.Write([]byte(strings.Repeat("x", 2048)))
		case "/loop":
			http.Redirect(w, r, "/loop", http.StatusFound)
		case "/missing":
			http.NotFound(w, r)
		default:
			w.Header().Set("Content-Type", "text/plain")
			w.Write([]byte("hello"))
		}
	}))
	defer srv.Close()
	ctx := context.Background()

	if _, err := (Fetcher{}).Get(ctx, srv.URL+"/ok"); !errors.Is(err, ErrPrivateAddress) {
		t.Fatalf("loopback fetched without permission: %v", err)
	}
	open := Fetcher{AllowPrivate: true, MaxBytes: 1024, MaxRedirects: 3}
	r, err := open.Get(ctx, srv.URL+"/ok")
	if err != nil || string(r.Body) != "hello" || r.ContentType != "text/plain" {
		t.Fatalf("fetch: %v %+v", err, r)
	}
	if _, err := open.Get(ctx, srv.URL+"/big"); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("oversize: %v", err)
	}
	if _, err := open.Get(ctx, srv.URL+"/loop"); err == nil || !strings.Contains(err.Error(), "redirects") {
		t.Fatalf("redirect loop: %v", err)
	}
	if _, err := open.Get(ctx, srv.URL+"/missing"); err == nil {
		t.Fatal("404 accepted")
	}
	for _, bad := range []string{"ftp://example.com/x", "not a url", "/relative"} {
		if _, err := open.Get(ctx, bad); err == nil {
			t.Fatalf("%q accepted", bad)
		}
	}
}
