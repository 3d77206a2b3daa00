package app_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	entspace "github.com/folio/folio/ent/space"
	"github.com/folio/folio/internal/app"
	"github.com/folio/folio/internal/db"
	"github.com/folio/folio/internal/testkit"
)

// instance is one server of several sharing a database and a blob store,
// started as `folio serve` starts (bind, then open, migrate, bootstrap).
type instance struct {
	url    string
	banner bytes.Buffer // what its first start printed
	app    *app.App
}

// startInstances starts n servers at once over databaseURL and blobURL,
// each with its own data directory and port, and waits until each is
// ready. They stop when the test ends.
func startInstances(t *testing.T, n int, databaseURL, blobURL string) []*instance {
	t.Helper()
	out := make([]*instance, n)
	ctx, stop := context.WithCancel(context.Background())
	var served sync.WaitGroup
	t.Cleanup(func() {
		stop()
		served.Wait()
		for _, in := range out {
			if in.app != nil {
				in.app.DB.Client.Close()
			}
		}
	})
	var opened sync.WaitGroup
	errs := make(chan error, n)
	for i := range out {
		cfg := app.Defaults()
		cfg.DataDir, cfg.DatabaseURL, cfg.BlobURL = t.TempDir(), databaseURL, blobURL
		// Instances of one database share its key, as in production.
		cfg.SecretKey = testkit.SecretKey.String()
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		cfg.Addr = ln.Addr().String()
		in := &instance{url: "http://" + cfg.Addr}
		out[i] = in
		opened.Add(1)
		served.Add(1)
		go func() {
			defer served.Done()
			err := app.Serve(ctx, cfg, ln, nil, slog.New(slog.DiscardHandler), func(ctx context.Context) (*app.App, error) {
				defer opened.Done()
				d, err := db.Open(ctx, cfg.DatabaseURL, cfg.DataDir)
				if err != nil {
					return nil, err
				}
				a, err := app.New(cfg, d, slog.New(slog.DiscardHandler))
				if err != nil {
					d.Client.Close()
					return nil, err
				}
				in.app = a
				return a, a.Bootstrap(ctx, &in.banner)
			})
			if err != nil {
				errs <- err
			}
		}()
	}
	opened.Wait()
	select {
	case err := <-errs:
		t.Fatalf("an instance did not start: %v", err)
	default:
	}
	for _, in := range out {
		for { // Serve takes the App as soon as open returns: ask until then
			resp, err := http.Get(in.url + "/readyz")
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode == 200 {
				break
			}
		}
	}
	return out
}

// firstToken checks that exactly one of the instances made a first user
// (and printed its banner) and returns the banner's token and organization.
func firstToken(t *testing.T, all []*instance) (token, org string) {
	t.Helper()
	var banners string
	for _, in := range all {
		banners += in.banner.String()
	}
	if n := strings.Count(banners, "Folio is ready"); n != 1 {
		t.Fatalf("%d first-start banners:\n%s", n, banners)
	}
	if n := all[0].app.DB.Client.User.Query().CountX(context.Background()); n != 1 {
		t.Fatalf("%d users after %d first starts", n, len(all))
	}
	m := regexp.MustCompile(`Bearer (\S+)" \S+/v1/orgs/(\S+)`).FindStringSubmatch(banners)
	return m[1], m[2]
}

// call makes a request to an instance and decodes its JSON answer.
func (in *instance) call(t *testing.T, token, method, path string, body any) (int, map[string]any) {
	t.Helper()
	var r io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		r = bytes.NewReader(b)
	}
	req, _ := http.NewRequest(method, in.url+path, r)
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Error(err)
		return 0, nil
	}
	defer resp.Body.Close()
	var out map[string]any
	raw, _ := io.ReadAll(resp.Body)
	_ = json.Unmarshal(raw, &out)
	return resp.StatusCode, out
}

// TestTwoInstances: two servers started at once on one empty database and
// one blob store migrate it once between them and make exactly one first
// user; writes driven through both at once (change requests, whose numbers
// never repeat; edits; merges racing each other) leave one state, which
// both then read alike.
func TestTwoInstances(t *testing.T) {
	for _, kind := range testkit.Databases(t) {
		t.Run(kind, func(t *testing.T) {
			blobs := "file://" + t.TempDir()
			both := startInstances(t, 2, testkit.DatabaseURL(t, kind, t.TempDir()), blobs)
			b := both[1]

			token, org := firstToken(t, both)

			status, space := b.call(t, token, "POST", "/v1/orgs/"+org+"/spaces", map[string]any{"title": "Shared"})
			if status != 201 {
				t.Fatalf("create space through b: %d %v", status, space)
			}
			sp := space["id"].(string)

			// Change requests through both at once: numbers 1..n, none twice.
			const perInstance = 6
			crs := make(chan map[string]any, 2*perInstance)
			var wg sync.WaitGroup
			for _, in := range both {
				for i := range perInstance {
					wg.Add(1)
					go func() {
						defer wg.Done()
						status, cr := in.call(t, token, "POST", "/v1/spaces/"+sp+"/change-requests", map[string]any{"subject": fmt.Sprint("cr ", i)})
						if status != 201 {
							t.Errorf("create change request: %d %v", status, cr)
						}
						crs <- cr
					}()
				}
			}
			wg.Wait()
			close(crs)
			numbers := map[float64]bool{}
			var ids []string
			for cr := range crs {
				n, _ := cr["number"].(float64)
				if numbers[n] || n < 1 || n > 2*perInstance {
					t.Errorf("change request number %v given twice or out of 1..%d", cr["number"], 2*perInstance)
				}
				numbers[n] = true
				ids = append(ids, cr["id"].(string))
			}
			if t.Failed() {
				return
			}

			// Each of two change requests adds a page; their merges race,
			// one through each instance; a merge that loses the race on the
			// space's revision answers 409 and is retried.
			for i, cr := range ids[:2] {
				status, res := both[i].call(t, token, "POST", "/v1/spaces/"+sp+"/change-requests/"+cr+"/content", map[string]any{"changes": []any{
					map[string]any{"operation": "insert_page", "document": map[string]any{"markdown": fmt.Sprintf("# Page %d\n\nFrom instance %d.\n", i, i)}},
				}})
				if status != 200 {
					t.Fatalf("edit through instance %d: %d %v", i, status, res)
				}
			}
			for i, cr := range ids[:2] {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for {
						status, res := both[i].call(t, token, "POST", "/v1/spaces/"+sp+"/change-requests/"+cr+"/merge", nil)
						if status == 200 {
							return
						}
						if status != 409 {
							t.Errorf("merge through instance %d: %d %v", i, status, res)
							return
						}
					}
				}()
			}
			wg.Wait()

			// Both read the same state.
			var seen []string
			for _, in := range both {
				var view strings.Builder
				for _, path := range []string{"/v1/spaces/" + sp, "/v1/spaces/" + sp + "/content/pages", "/v1/spaces/" + sp + "/change-requests?limit=100",
					"/v1/spaces/" + sp + "/change-requests/" + ids[0], "/v1/spaces/" + sp + "/change-requests/" + ids[1]} {
					status, body := in.call(t, token, "GET", path, nil)
					if status != 200 {
						t.Fatalf("GET %s: %d %v", path, status, body)
					}
					raw, _ := json.Marshal(body)
					view.Write(raw)
				}
				// Each instance names itself in urls (its own base URL).
				seen = append(seen, strings.ReplaceAll(view.String(), in.url, "BASE"))
			}
			if seen[0] != seen[1] {
				t.Fatalf("the instances disagree:\n a: %s\n b: %s", seen[0], seen[1])
			}
			for _, want := range []string{`"title":"Page 0"`, `"title":"Page 1"`, `"changeRequestsOpen":10`} {
				if !strings.Contains(seen[0], want) {
					t.Errorf("no %s in the merged state: %s", want, seen[0])
				}
			}
			if n := strings.Count(seen[0], `"status":"merged"`); n != 2 {
				t.Errorf("%d merged change requests, want 2", n)
			}

			// A space deleted past its restore window is purged by both
			// instances at once: once, without an error on either.
			if status, body := b.call(t, token, "DELETE", "/v1/spaces/"+sp, nil); status != 205 {
				t.Fatalf("delete space: %d %v", status, body)
			}
			ctx := testkit.Fixture(context.Background())
			both[0].app.DB.Client.Space.UpdateOneID(sp).SetDeletedAt(time.Now().Add(-30 * 24 * time.Hour)).ExecX(ctx)
			purged := make(chan int, 2)
			for _, in := range both {
				wg.Add(1)
				go func() {
					defer wg.Done()
					n, err := in.app.Resolver.PurgeDeletedSpaces(ctx)
					if err != nil {
						t.Errorf("purge: %v", err)
					}
					purged <- n
				}()
			}
			wg.Wait()
			if n := <-purged + <-purged; n != 1 {
				t.Errorf("the space was purged %d times", n)
			}
			if both[1].app.DB.Client.Space.Query().Where(entspace.ID(sp)).ExistX(ctx) {
				t.Error("the space is still there after the purge")
			}
		})
	}
}
