package app_test

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/folio/folio/internal/app"
	"github.com/folio/folio/internal/db"
)

func newApp(t *testing.T) *app.App {
	t.Helper()
	cfg := app.Defaults()
	cfg.DataDir = t.TempDir()
	cfg.DatabaseURL = ""
	d, err := db.Open(context.Background(), "", cfg.DataDir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Client.Close() })
	a, err := app.New(cfg, d, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// TestGracefulShutdown: a request in flight when the server is told to stop
// still gets its answer, and the server then returns cleanly.
func TestGracefulShutdown(t *testing.T) {
	a := newApp(t)
	inner := a.Handler
	started := make(chan struct{})
	a.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/slow" {
			close(started)
			time.Sleep(300 * time.Millisecond)
			_, _ = w.Write([]byte("finished"))
			return
		}
		inner.ServeHTTP(w, r)
	})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, stop := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- a.ServeListener(ctx, ln, slog.New(slog.NewTextHandler(io.Discard, nil))) }()

	url := "http://" + ln.Addr().String()
	got := make(chan string, 1)
	go func() {
		resp, err := http.Get(url + "/slow")
		if err != nil {
			got <- "error: " + err.Error()
			return
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		got <- string(b)
	}()
	<-started
	stop()
	if body := <-got; body != "finished" {
		t.Fatalf("in-flight request got %q", body)
	}
	if err := <-done; err != nil {
		t.Fatalf("shutdown: %v", err)
	}
	if _, err := http.Get(url + "/healthz"); err == nil {
		t.Fatal("server still accepts connections after shutdown")
	}
}

// TestBootstrap: the first start makes a user, an organization and a token
// and prints a curl line that works; later starts print nothing.
func TestBootstrap(t *testing.T) {
	a := newApp(t)
	var out bytes.Buffer
	if err := a.Bootstrap(context.Background(), &out); err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`curl -s -H "Authorization: Bearer (\S+)" (\S+)/v1/orgs/(\S+)`).FindStringSubmatch(out.String())
	if m == nil {
		t.Fatalf("no curl line in:\n%s", out.String())
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: a.Handler}
	go srv.Serve(ln)
	defer srv.Close()
	req, _ := http.NewRequest("GET", "http://"+ln.Addr().String()+"/v1/orgs/"+m[3], nil)
	req.Header.Set("Authorization", "Bearer "+m[1])
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(body), `"title":"My Organization"`) {
		t.Fatalf("curl line answered %d: %s", resp.StatusCode, body)
	}
	out.Reset()
	if err := a.Bootstrap(context.Background(), &out); err != nil || out.Len() != 0 {
		t.Fatalf("second start printed %q (%v)", out.String(), err)
	}
}
