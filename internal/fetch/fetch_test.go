package fetch

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"syscall"
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

// A failed fetch names no address, port or resolver, and a closed port, a
// filtered one (the connection attempt times out), an unreachable network
// and an unknown name read the same: a fetch cannot map a network.
func TestFetchErrorsRevealNothing(t *testing.T) {
	ctx := context.Background()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := ln.Addr().String()
	ln.Close()
	_, port, _ := net.SplitHostPort(closed)

	dialErr := func(err error) func(context.Context, string, string) (net.Conn, error) {
		return func(_ context.Context, network, address string) (net.Conn, error) {
			return nil, &net.OpError{Op: "dial", Net: network, Addr: fakeAddr(address), Err: err}
		}
	}
	cases := []struct {
		name string
		f    Fetcher
		url  string
	}{
		{"closed port", Fetcher{AllowPrivate: true}, "http://" + closed + "/x.md"},
		{"filtered port", Fetcher{AllowPrivate: true, dial: dialErr(timeoutErr{})}, "http://192.0.2.1:8443/x.md"},
		{"unreachable network", Fetcher{AllowPrivate: true, dial: dialErr(os.NewSyscallError("connect", syscall.EHOSTUNREACH))}, "http://[2001:db8::1]:9000/x.md"},
		{"unknown name", Fetcher{AllowPrivate: true}, "http://folio-test.invalid:8080/x.md"},
		{"unknown name, resolver answering", Fetcher{AllowPrivate: true, dial: dialErr(&net.DNSError{Err: "no such host", Name: "a.invalid", Server: "10.0.0.53:53", IsNotFound: true})}, "http://a.invalid/x.md"},
	}
	var first string
	for _, c := range cases {
		_, err := c.f.Get(ctx, c.url)
		if err == nil {
			t.Fatalf("%s: fetched", c.name)
		}
		msg := err.Error()
		for _, leak := range []string{"127.0.0.1", port, "192.0.2.1", "8443", "2001:db8", "9000", "10.0.0.53", ":53", "invalid", "8080", "dial", "tcp", "refused", "timeout", "lookup"} {
			if strings.Contains(msg, leak) {
				t.Errorf("%s: %q reveals %q", c.name, msg, leak)
			}
		}
		if first == "" {
			first = msg
		} else if msg != first {
			t.Errorf("%s reads %q, the closed port %q", c.name, msg, first)
		}
	}
	// Refused destinations and bad answers name no address either.
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusTeapot)
		w.Write([]byte("at 10.1.2.3"))
	}))
	defer srv.Close()
	_, err = (Fetcher{}).Get(ctx, srv.URL)
	if !errors.Is(err, ErrPrivateAddress) || strings.Contains(err.Error(), "127.0.0.1") {
		t.Errorf("private: %v", err)
	}
	_, err = (Fetcher{AllowPrivate: true}).Get(ctx, srv.URL)
	if err == nil || err.Error() != "the server answered 418 I'm a teapot" {
		t.Errorf("status: %v", err)
	}
}

type fakeAddr string

func (a fakeAddr) Network() string { return "tcp" }
func (a fakeAddr) String() string  { return string(a) }

type timeoutErr struct{}

func (timeoutErr) Error() string   { return "i/o timeout" }
func (timeoutErr) Timeout() bool   { return true }
func (timeoutErr) Temporary() bool { return true }
