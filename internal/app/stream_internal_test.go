package app

import (
	"bufio"
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/folio/folio/graph/model"
)

// chain is h behind the App's middleware, in the order routes mounts it.
func chain(a *App, h http.Handler) http.Handler {
	mw := a.middleware(slog.New(slog.DiscardHandler), []string{"https://app.example.com"})
	for i := len(mw) - 1; i >= 0; i-- {
		h = mw[i](h)
	}
	return h
}

// TestMiddlewareFlushAndHijack walks the real middleware chain (and the
// GraphQL handler's tree-stream writer): the writer a handler gets is an
// http.Flusher whose Flush reaches the client while the handler still
// runs, and an http.Hijacker. gqlgen's streaming transports type-assert
// both, and answer 500 "streaming unsupported" without them.
func TestMiddlewareFlushAndHijack(t *testing.T) {
	a := lifecycleApp(t, Defaults())
	read := make(chan struct{})
	probe := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, st := model.WithTreeStream(r.Context())
		w = st.Writer(w)
		if r.URL.Query().Has("hijack") {
			hj, ok := w.(http.Hijacker)
			if !ok {
				http.Error(w, "no Hijacker", 500)
				return
			}
			conn, rw, err := hj.Hijack()
			if err != nil {
				http.Error(w, err.Error(), 500)
				return
			}
			defer conn.Close()
			_, _ = rw.WriteString("HTTP/1.1 200 OK\r\nContent-Length: 8\r\nConnection: close\r\n\r\nhijacked")
			_ = rw.Flush()
			return
		}
		f, ok := w.(http.Flusher)
		if !ok {
			http.Error(w, "no Flusher", 500)
			return
		}
		_, _ = io.WriteString(w, "first\n")
		f.Flush()
		select { // the client has read the first line: it was flushed
		case <-read:
		case <-r.Context().Done():
			return
		}
		_, _ = io.WriteString(w, "second\n")
	})
	srv := httptest.NewServer(chain(a, probe))
	defer srv.Close()

	res, err := http.Get(srv.URL + "/graphql")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	lines := bufio.NewReader(res.Body)
	first := make(chan string, 1)
	go func() { l, _ := lines.ReadString('\n'); first <- l }()
	select {
	case l := <-first:
		if l != "first\n" {
			t.Fatalf("%d first line %q", res.StatusCode, l)
		}
	case <-time.After(30 * time.Second): // a failure, not a measure: Flush never arrived
		t.Fatal("the flushed line did not reach the client")
	}
	close(read)
	if rest, _ := io.ReadAll(lines); string(rest) != "second\n" {
		t.Fatalf("rest %q", rest)
	}

	res, err = http.Get(srv.URL + "/graphql?hijack")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if string(body) != "hijacked" {
		t.Fatalf("hijack: %d %q", res.StatusCode, body)
	}
}

// TestStreamDeadline: a stream (Accept: multipart/mixed on /graphql) has no
// deadline as a whole, and outlives both FOLIO_REQUEST_TIMEOUT and the
// server's write timeout as long as each part comes within the timeout of
// the one before; a stream whose next part does not come is cut at the
// timeout. Any other request keeps its deadline.
func TestStreamDeadline(t *testing.T) {
	grace := writeGrace
	writeGrace = 100 * time.Millisecond
	defer func() { writeGrace = grace }()
	cfg := Defaults()
	cfg.RequestTimeout = time.Second
	a := lifecycleApp(t, cfg)

	causes := make(chan error, 1)
	probe := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx := r.Context()
		if _, has := ctx.Deadline(); has != !strings.Contains(r.Header.Get("Accept"), "multipart/mixed") {
			http.Error(w, "deadline as a whole: "+r.Header.Get("Accept"), 500)
			return
		}
		if r.URL.Query().Has("idle") {
			_, _ = io.WriteString(w, "part\n")
			w.(http.Flusher).Flush()
			<-ctx.Done()
			causes <- context.Cause(ctx)
			return
		}
		// Four parts 400 ms apart: 1.6 s in all, past the request timeout
		// (1 s) and the write timeout (1.1 s).
		for i := 0; i < 4; i++ {
			time.Sleep(400 * time.Millisecond)
			if ctx.Err() != nil {
				return
			}
			_, _ = io.WriteString(w, "part\n")
			w.(http.Flusher).Flush()
		}
	})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := newHTTPServer(cfg, slog.New(slog.DiscardHandler), chain(a, probe))
	go func() { _ = srv.Serve(ln) }()
	defer srv.Close()
	url := "http://" + ln.Addr().String() + "/graphql"
	get := func(path, accept string) (int, string, error) {
		req, _ := http.NewRequest("GET", url+path, nil)
		req.Header.Set("Accept", accept)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			return 0, "", err
		}
		defer res.Body.Close()
		b, err := io.ReadAll(res.Body)
		return res.StatusCode, string(b), err
	}

	status, body, err := get("", "multipart/mixed;deferSpec=20220824, application/json")
	if err != nil || status != 200 || body != strings.Repeat("part\n", 4) {
		t.Fatalf("stream: %d %q %v", status, body, err)
	}
	status, body, err = get("?idle", "multipart/mixed")
	if err != nil || status != 200 || body != "part\n" {
		t.Fatalf("idle stream: %d %q %v", status, body, err)
	}
	if cause := <-causes; !errors.Is(cause, context.DeadlineExceeded) || !strings.Contains(cause.Error(), "FOLIO_REQUEST_TIMEOUT") {
		t.Fatalf("idle stream cut by %v", cause)
	}
	// Not a stream: the request deadline cuts it after the second part.
	_, body, _ = get("", "application/json")
	if strings.Count(body, "part\n") > 2 {
		t.Fatalf("a plain request outlived its deadline: %q", body)
	}
}
