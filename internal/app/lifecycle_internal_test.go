package app

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/folio/folio/internal/db"
)

// lifecycleApp is an App over a fresh SQLite database, its logs dropped.
func lifecycleApp(t *testing.T, cfg Config) *App {
	t.Helper()
	cfg.DataDir = t.TempDir()
	d, err := db.Open(context.Background(), "", cfg.DataDir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Client.Close() })
	a, err := New(cfg, d, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func get(t *testing.T, url string) (int, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// TestReadyWhileStarting: from the moment the port is bound, /healthz
// answers with the version, while /readyz and the API answer 503 until the
// database is open (migrated); then /readyz is 200.
func TestReadyWhileStarting(t *testing.T) {
	a := lifecycleApp(t, Defaults())
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	migrated := make(chan struct{})
	ctx, stop := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- Serve(ctx, a.Config, ln, nil, slog.New(slog.DiscardHandler), func(context.Context) (*App, error) {
			<-migrated // the migration, held until the test has looked
			return a, nil
		})
	}()
	url := "http://" + ln.Addr().String()
	status, body := get(t, url+"/healthz")
	var health struct{ Status, Version string }
	if status != 200 || json.Unmarshal([]byte(body), &health) != nil || health.Status != "ok" || health.Version != Version() || health.Version == "" {
		t.Fatalf("/healthz while starting: %d %s", status, body)
	}
	for _, path := range []string{"/readyz", "/v1/user", "/graphql"} {
		if status, body := get(t, url+path); status != 503 || !strings.Contains(body, "starting") {
			t.Errorf("%s while starting: %d %s", path, status, body)
		}
	}
	close(migrated)
	// Serve stores the App as soon as open returns; a request made after
	// that sees it. Wait for it by asking (no clock).
	for {
		status, body := get(t, url+"/readyz")
		if status == 200 {
			break
		}
		if !strings.Contains(body, "starting") {
			t.Fatalf("/readyz after the migration: %d %s", status, body)
		}
	}
	stop()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

// TestDrain: after the signal, during the drain delay, /readyz is 503 and
// other requests are still served; a request still running when the
// shutdown timeout runs out is cut with a 503 that reaches its client (its
// own request timeout is far longer), and Serve returns.
func TestDrain(t *testing.T) {
	cfg := Defaults()
	cfg.DrainDelay = 2 * time.Second
	cfg.ShutdownTimeout = 2 * time.Second
	cfg.RequestTimeout = time.Hour
	a := lifecycleApp(t, cfg)
	inner := a.Handler
	started := make(chan struct{})
	slow := a.deadline(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		close(started)
		<-r.Context().Done() // work that honours its context, cut by the drain
		w.WriteHeader(200)
	}))
	a.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/slow" {
			slow.ServeHTTP(w, r)
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
	go func() { done <- a.ServeListener(ctx, ln, slog.New(slog.DiscardHandler)) }()
	url := "http://" + ln.Addr().String()
	if status, body := get(t, url+"/readyz"); status != 200 {
		t.Fatalf("/readyz before the signal: %d %s", status, body)
	}
	type answer struct {
		status int
		body   string
	}
	slowAnswer := make(chan answer, 1)
	go func() {
		resp, err := http.Get(url + "/slow")
		if err != nil {
			slowAnswer <- answer{0, err.Error()}
			return
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		slowAnswer <- answer{resp.StatusCode, string(b)}
	}()
	<-started
	stop()
	for !a.life.draining.Load() {
		time.Sleep(time.Millisecond) // Serve sees ctx end on its own goroutine
	}
	if status, body := get(t, url+"/readyz"); status != 503 || !strings.Contains(body, "draining") {
		t.Errorf("/readyz while draining: %d %s", status, body)
	}
	if status, _ := get(t, url+"/healthz"); status != 200 {
		t.Errorf("/healthz while draining: %d", status)
	}
	got := <-slowAnswer
	if got.status != 503 || !strings.Contains(got.body, "shutting down") {
		t.Errorf("in-flight request past the shutdown timeout: %d %s", got.status, got.body)
	}
	if err := <-done; err != nil {
		t.Fatalf("Serve: %v", err)
	}
	if _, err := http.Get(url + "/healthz"); err == nil {
		t.Fatal("still accepting connections after the drain")
	}
}
