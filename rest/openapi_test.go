package rest_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/folio/folio/ent/job"
	"github.com/folio/folio/ent/openapispecversion"
	"github.com/folio/folio/internal/access"
	"github.com/folio/folio/internal/app"
	"github.com/folio/folio/internal/testkit"
)

// specHost serves spec files a test can change, plus a slow path.
type specHost struct {
	*httptest.Server
	mu    sync.Mutex
	files map[string][2]string // path → text, content type
}

func newSpecHost(t *testing.T) *specHost {
	h := &specHost{files: map[string][2]string{}}
	h.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/slow.yaml" {
			select { // longer than the test's fetch timeout
			case <-r.Context().Done():
			case <-time.After(10 * time.Second):
			}
			return
		}
		h.mu.Lock()
		f, ok := h.files[r.URL.Path]
		h.mu.Unlock()
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", f[1])
		_, _ = io.WriteString(w, f[0])
	}))
	t.Cleanup(h.Close)
	return h
}

func (h *specHost) set(path, text, ctype string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.files[path] = [2]string{text, ctype}
}

const petsRoot = `openapi: 3.1.0
info: {title: Pets, version: "1"}
paths:
  /pets:
    get:
      operationId: listPets
      responses:
        "200":
          description: the pets
          content:
            application/json:
              schema:
                $ref: "schemas/pet.yaml"
`

const petSchema = "type: object\nproperties:\n  name: {type: string}\n"

// waitProcessed polls a spec until its processing is complete and returns
// it. Polling (every 10 ms) rather than sleeping keeps the test as fast as
// the jobs.
func waitProcessed(t *testing.T, s *testkit.JobServer, token, path string) map[string]any {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		resp := s.Request(t, token, "GET", path, nil)
		if resp.Status != 200 {
			t.Fatalf("GET %s: %d %s", path, resp.Status, resp.Body)
		}
		spec := resp.JSON(t)
		if spec["processingState"] == "complete" {
			return spec
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s not processed in time: %s", path, resp.Body)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func firstError(spec map[string]any) map[string]any {
	errs, _ := spec["lastProcessedErrors"].([]any)
	if len(errs) == 0 {
		return nil
	}
	return errs[0].(map[string]any)
}

func TestOpenAPISpecs(t *testing.T) {
	for _, kind := range testkit.Databases(t) {
		t.Run(kind, func(t *testing.T) {
			s := testkit.StartJobs(t, kind, func(c *app.Config) { c.OpenAPIFetchTimeout = 300 * time.Millisecond })
			host := newSpecHost(t)
			host.set("/api/openapi.yaml", petsRoot, "application/yaml")
			host.set("/api/schemas/pet.yaml", petSchema, "application/yaml")
			admin, org := s.NewUser(t, "admin@acme.com", "Acme")
			base := "/v1/orgs/" + org + "/openapi"
			spec := base + "/pets"
			var firstVersion string

			t.Run("create from a URL: 201 pending, then a version with both files", func(t *testing.T) {
				created := s.Call(t, "createOpenAPISpec", admin.Token, "POST", base,
					map[string]any{"slug": "pets", "source": map[string]any{"url": host.URL + "/api/openapi.yaml"}}, 201).JSON(t)
				if created["processingState"] != "pending" || created["visibility"] != "private" || created["sourceURL"] != host.URL+"/api/openapi.yaml" || created["object"] != "openapi-spec" {
					t.Fatalf("created: %v", created)
				}
				got := waitProcessed(t, s, admin.Token, spec)
				if got["lastVersion"] == nil || got["lastProcessErrorCode"] != nil || got["lastProcessedAt"] == nil {
					t.Fatalf("processed: %v", got)
				}
				firstVersion = got["lastVersion"].(string)
				s.Call(t, "getOpenAPISpecBySlug", admin.Token, "GET", spec, nil, 200)
				v := s.Call(t, "getLatestOpenAPISpecVersion", admin.Token, "GET", spec+"/versions/latest", nil, 200).JSON(t)
				if v["id"] != firstVersion || v["object"] != "openapi-spec-version" {
					t.Fatalf("latest: %v", v)
				}
				content := s.Call(t, "getLatestOpenAPISpecVersionContent", admin.Token, "GET", spec+"/versions/latest/content", nil, 200).JSON(t)
				fs := content["filesystem"].(map[string]any)
				if fs["openapi.yaml"] != petsRoot || fs["schemas/pet.yaml"] != petSchema || len(fs) != 2 {
					t.Fatalf("filesystem: %v", fs)
				}
				// A private spec's public content URL answers 404; public, it serves.
				if resp, err := http.Get(content["url"].(string)); err != nil || resp.StatusCode != 404 {
					t.Fatalf("private spec's content URL: %v %v", resp, err)
				}
				s.Call(t, "updateOpenAPISpecBySlug", admin.Token, "PATCH", spec, map[string]any{"visibility": "public"}, 200)
				resp, err := http.Get(content["url"].(string)) // public: no token
				if err != nil {
					t.Fatal(err)
				}
				body, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if resp.StatusCode != 200 || string(body) != petsRoot || !strings.HasPrefix(resp.Header.Get("Content-Type"), "application/yaml") ||
					resp.Header.Get("X-Content-Type-Options") != "nosniff" || !strings.Contains(resp.Header.Get("Content-Security-Policy"), "sandbox") ||
					!strings.HasPrefix(resp.Header.Get("Content-Disposition"), "attachment") {
					t.Fatalf("public content: %d %v %s", resp.StatusCode, resp.Header, body)
				}
			})

			t.Run("PUT the same source: no new version", func(t *testing.T) {
				put := s.Call(t, "createOrUpdateOpenAPISpecBySlug", admin.Token, "PUT", spec,
					map[string]any{"source": map[string]any{"url": host.URL + "/api/openapi.yaml"}}, 200).JSON(t)
				if put["processingState"] != "pending" {
					t.Fatalf("put: %v", put)
				}
				got := waitProcessed(t, s, admin.Token, spec)
				if got["lastVersion"] != firstVersion {
					t.Fatalf("same content made a new version: %v", got)
				}
				list := s.Call(t, "listOpenAPISpecVersions", admin.Token, "GET", spec+"/versions", nil, 200).JSON(t)
				if list["count"].(float64) != 1 {
					t.Fatalf("versions: %v", list)
				}
			})

			t.Run("a changed referenced file and PUT: a second version", func(t *testing.T) {
				host.set("/api/schemas/pet.yaml", petSchema+"  age: {type: integer}\n", "application/yaml")
				s.Call(t, "createOrUpdateOpenAPISpecBySlug", admin.Token, "PUT", spec,
					map[string]any{"source": map[string]any{"url": host.URL + "/api/openapi.yaml"}}, 200)
				got := waitProcessed(t, s, admin.Token, spec)
				if got["lastVersion"] == firstVersion || got["lastVersion"] == nil {
					t.Fatalf("no second version: %v", got)
				}
				list := s.Call(t, "listOpenAPISpecVersions", admin.Token, "GET", spec+"/versions", nil, 200).JSON(t)
				if list["count"].(float64) != 2 || list["items"].([]any)[0].(map[string]any)["id"] != got["lastVersion"] {
					t.Fatalf("versions: %v", list)
				}
				old := s.Call(t, "getOpenAPISpecVersionById", admin.Token, "GET", spec+"/versions/"+firstVersion, nil, 200).JSON(t)
				if old["id"] != firstVersion {
					t.Fatalf("first version: %v", old)
				}
				c := s.Call(t, "getOpenAPISpecVersionContentById", admin.Token, "GET", spec+"/versions/"+firstVersion+"/content", nil, 200).JSON(t)
				if c["filesystem"].(map[string]any)["schemas/pet.yaml"] != petSchema {
					t.Fatalf("first content: %v", c)
				}
			})

			t.Run("a failed fetch keeps the last version", func(t *testing.T) {
				before := waitProcessed(t, s, admin.Token, spec)["lastVersion"]
				s.Call(t, "createOrUpdateOpenAPISpecBySlug", admin.Token, "PUT", spec,
					map[string]any{"source": map[string]any{"url": host.URL + "/api/gone.yaml"}}, 200)
				got := waitProcessed(t, s, admin.Token, spec)
				if got["lastProcessErrorCode"] != "FETCH_ERROR" || got["lastVersion"] != before ||
					!strings.Contains(firstError(got)["message"].(string), "404") {
					t.Fatalf("failed fetch: %v", got)
				}
			})

			cases := []struct {
				slug   string
				source map[string]any
				code   string // "" for success
				want   string // in the first error's message
				format string
			}{
				{"swagger", map[string]any{"text": `{"swagger":"2.0","info":{"title":"Old","version":"1"},"paths":{"/a":{"get":{"responses":{"200":{"description":"ok"}}}}}}`}, "", "", "json"},
				{"text", map[string]any{"text": "openapi: 3.0.3\ninfo: {title: T, version: '1'}\npaths: {}\n"}, "", "", "yaml"},
				{"text-ref", map[string]any{"text": petsRoot}, "PARSE_ERROR", `openapi.yaml:13: $ref "schemas/pet.yaml" points to another file`, ""},
				{"broken", map[string]any{"text": "openapi: 3.0.3\ninfo: [\n  title: x\n"}, "PARSE_ERROR", "openapi.yaml:", ""},
				{"unreachable", map[string]any{"url": "http://127.0.0.1:1/openapi.yaml"}, "FETCH_ERROR", "could not be reached", ""},
				{"slow", map[string]any{"url": host.URL + "/slow.yaml"}, "FETCH_TIMEOUT", "longer than", ""},
				{"html", map[string]any{"url": host.URL + "/page.html"}, "", "", "yaml"},
			}
			host.set("/page.html", "openapi: 3.0.3\ninfo: {title: '<script>alert(1)</script>', version: '1'}\npaths: {}\n", "text/html")
			for _, c := range cases {
				t.Run(c.slug, func(t *testing.T) {
					s.Call(t, "createOpenAPISpec", admin.Token, "POST", base, map[string]any{"slug": c.slug, "source": c.source}, 201)
					got := waitProcessed(t, s, admin.Token, base+"/"+c.slug)
					if c.code == "" {
						if got["lastVersion"] == nil || got["lastProcessErrorCode"] != nil {
							t.Fatalf("%s: %v", c.slug, got)
						}
						content := s.Call(t, "getLatestOpenAPISpecVersionContent", admin.Token, "GET", base+"/"+c.slug+"/versions/latest/content", nil, 200).JSON(t)
						s.Call(t, "updateOpenAPISpecBySlug", admin.Token, "PATCH", base+"/"+c.slug, map[string]any{"visibility": "public"}, 200)
						resp, err := http.Get(content["url"].(string))
						if err != nil {
							t.Fatal(err)
						}
						resp.Body.Close()
						if !strings.HasPrefix(resp.Header.Get("Content-Type"), "application/"+c.format) || resp.Header.Get("X-Content-Type-Options") != "nosniff" ||
							!strings.HasPrefix(resp.Header.Get("Content-Disposition"), "attachment") {
							t.Fatalf("served: %v", resp.Header)
						}
						return
					}
					e := firstError(got)
					if got["lastProcessErrorCode"] != c.code || got["lastVersion"] != nil || e == nil || !strings.Contains(e["message"].(string), c.want) ||
						strings.Contains(e["message"].(string), "127.0.0.1") {
						t.Fatalf("%s: %v", c.slug, got)
					}
					if c.slug == "broken" && e["line"] == nil {
						t.Fatalf("broken: no line: %v", e)
					}
				})
			}

			t.Run("bad input changes nothing", func(t *testing.T) {
				waitProcessed(t, s, admin.Token, spec)
				s.Idle(t)
				before := s.Snapshot(t)
				for _, b := range []struct {
					body  any
					field string
				}{
					{map[string]any{"source": map[string]any{"text": "x"}}, "slug"},
					{map[string]any{"slug": "Bad Slug", "source": map[string]any{"text": "x"}}, "slug"},
					{map[string]any{"slug": strings.Repeat("a", 101), "source": map[string]any{"text": "x"}}, "slug"},
					{map[string]any{"slug": "ok"}, "source"},
					{map[string]any{"slug": "ok", "source": map[string]any{}}, "source"},
					{map[string]any{"slug": "ok", "source": map[string]any{"url": "ftp://x/y", "text": "x"}}, "source"},
					{map[string]any{"slug": "ok", "source": map[string]any{"url": "ftp://x/y"}}, "source.url"},
					{map[string]any{"slug": "ok", "source": map[string]any{"text": ""}}, "source.text"},
					{map[string]any{"slug": 5, "source": map[string]any{"text": "x"}}, "slug"},
					{`{"slug":`, ""},
				} {
					msg := s.Fail(t, "createOpenAPISpec", admin.Token, "POST", base, b.body, 400)
					if !strings.Contains(msg, b.field) {
						t.Errorf("%v: %q does not name %s", b.body, msg, b.field)
					}
				}
				s.Fail(t, "createOrUpdateOpenAPISpecBySlug", admin.Token, "PUT", spec, map[string]any{}, 400)
				s.Fail(t, "createOrUpdateOpenAPISpecBySlug", admin.Token, "PUT", base+"/Bad_Slug", map[string]any{"source": map[string]any{"text": "x"}}, 400)
				s.Fail(t, "createOpenAPISpec", admin.Token, "POST", base, map[string]any{"slug": "pets", "source": map[string]any{"text": "x"}}, 409)
				s.Fail(t, "listOpenAPISpecs", admin.Token, "GET", base+"?limit=0", nil, 400)
				s.Fail(t, "listOpenAPISpecVersions", admin.Token, "GET", spec+"/versions?limit=5000", nil, 400)
				s.Fail(t, "getOpenAPISpecVersionById", admin.Token, "GET", spec+"/versions/nope", nil, 404)
				s.Fail(t, "getOpenAPISpecVersionContentById", admin.Token, "GET", spec+"/versions/nope/content", nil, 404)
				s.Fail(t, "getOpenAPISpecBySlug", admin.Token, "GET", base+"/nope", nil, 404)
				s.Fail(t, "getLatestOpenAPISpecVersion", admin.Token, "GET", base+"/unreachable/versions/latest", nil, 404)
				s.Fail(t, "getLatestOpenAPISpecVersionContent", admin.Token, "GET", base+"/unreachable/versions/latest/content", nil, 404)
				s.Fail(t, "deleteOpenAPISpecBySlug", admin.Token, "DELETE", base+"/nope", nil, 404)
				if resp := s.Request(t, "", "GET", "/openapi-content/nope/openapi.yaml", nil); resp.Status != 404 {
					t.Fatalf("unknown public key: %d", resp.Status)
				}
				s.Unchanged(t, before)
			})

			t.Run("access: strangers 404, readers read, guests and readers may not write", func(t *testing.T) {
				stranger, _ := s.NewUser(t, "stranger@other.com", "Other")
				reader, _ := s.NewUser(t, "reader@acme.com", "")
				s.AddMember(t, org, reader, testkit.RoleOf(access.Read))
				guest, _ := s.NewUser(t, "guest@acme.com", "")
				s.AddMember(t, org, guest, nil)
				editor, _ := s.NewUser(t, "editor@acme.com", "")
				s.AddMember(t, org, editor, testkit.RoleOf(access.Edit))
				creator, _ := s.NewUser(t, "creator@acme.com", "")
				s.AddMember(t, org, creator, testkit.RoleOf(access.Create))
				before := s.Snapshot(t)
				body := map[string]any{"slug": "x", "source": map[string]any{"text": "x"}}
				ops := []struct{ op, method, path string }{
					{"listOpenAPISpecs", "GET", base},
					{"createOpenAPISpec", "POST", base},
					{"getOpenAPISpecBySlug", "GET", spec},
					{"createOrUpdateOpenAPISpecBySlug", "PUT", spec},
					{"deleteOpenAPISpecBySlug", "DELETE", spec},
					{"listOpenAPISpecVersions", "GET", spec + "/versions"},
					{"getLatestOpenAPISpecVersion", "GET", spec + "/versions/latest"},
					{"getLatestOpenAPISpecVersionContent", "GET", spec + "/versions/latest/content"},
					{"getOpenAPISpecVersionById", "GET", spec + "/versions/" + firstVersion},
					{"getOpenAPISpecVersionContentById", "GET", spec + "/versions/" + firstVersion + "/content"},
				}
				for _, o := range ops {
					var b any
					if o.method == "POST" || o.method == "PUT" {
						b = body
					}
					s.Fail(t, o.op, stranger.Token, o.method, o.path, b, 404)
					s.Fail(t, o.op, guest.Token, o.method, o.path, b, 403)
					if o.method == "GET" {
						s.Call(t, o.op, reader.Token, o.method, o.path, nil, 200)
					} else {
						s.Fail(t, o.op, reader.Token, o.method, o.path, b, 403)
						s.Fail(t, o.op, editor.Token, o.method, o.path, b, 403)
						// Authorization before validation: a bad body is still 403.
						s.Fail(t, o.op, reader.Token, o.method, o.path, `{"slug":`, 403)
					}
					if o.method != "DELETE" {
						s.Fail(t, o.op, "", o.method, o.path, b, 401)
					}
				}
				s.Unchanged(t, before)
				got := s.Call(t, "getOpenAPISpecBySlug", reader.Token, "GET", spec, nil, 200).JSON(t)
				if p := got["permissions"].(map[string]any); p["view"] != true || p["edit"] != false {
					t.Fatalf("reader permissions: %v", p)
				}
				s.Call(t, "createOpenAPISpec", creator.Token, "POST", base, map[string]any{"slug": "by-creator", "source": map[string]any{"text": "openapi: 3.0.0\ninfo: {title: c, version: '1'}\npaths: {}\n"}}, 201)
			})

			t.Run("list and delete", func(t *testing.T) {
				list := s.Call(t, "listOpenAPISpecs", admin.Token, "GET", base+"?limit=2", nil, 200).JSON(t)
				if list["count"].(float64) != 9 || len(list["items"].([]any)) != 2 || list["next"] == nil {
					t.Fatalf("list: %v", list)
				}
				id := s.Call(t, "getOpenAPISpecBySlug", admin.Token, "GET", spec, nil, 200).JSON(t)["id"].(string)
				resp := s.Call(t, "deleteOpenAPISpecBySlug", admin.Token, "DELETE", spec, nil, 205)
				if len(resp.Body) != 0 {
					t.Fatalf("205 with a body: %s", resp.Body)
				}
				s.Fail(t, "getOpenAPISpecBySlug", admin.Token, "GET", spec, nil, 404)
				n, err := s.Client().OpenAPISpecVersion.Query().Where(openapispecversion.SpecID(id)).Count(context.Background())
				if err != nil || n != 0 {
					t.Fatalf("versions left: %d %v", n, err)
				}
			})
		})
	}
}

// TestOpenAPIPrivateAddress: with FOLIO_ALLOW_PRIVATE_FETCH off, a source
// on a loopback address is refused (FETCH_ERROR), and not retried.
func TestOpenAPIPrivateAddress(t *testing.T) {
	for _, kind := range testkit.Databases(t) {
		t.Run(kind, func(t *testing.T) {
			s := testkit.StartJobs(t, kind, func(c *app.Config) { c.AllowPrivateFetch = false })
			host := newSpecHost(t)
			host.set("/openapi.yaml", "openapi: 3.0.3\ninfo: {title: T, version: '1'}\npaths: {}\n", "application/yaml")
			admin, org := s.NewUser(t, "admin@acme.com", "Acme")
			base := "/v1/orgs/" + org + "/openapi"
			s.Call(t, "createOpenAPISpec", admin.Token, "POST", base, map[string]any{"slug": "local", "source": map[string]any{"url": host.URL + "/openapi.yaml"}}, 201)
			got := waitProcessed(t, s, admin.Token, base+"/local")
			if got["lastProcessErrorCode"] != "FETCH_ERROR" || !strings.Contains(firstError(got)["message"].(string), "FOLIO_ALLOW_PRIVATE_FETCH") {
				t.Fatalf("private address: %v", got)
			}
			j, err := s.Client().Job.Query().Where(job.Kind("openapi")).Only(context.Background())
			if err != nil || j.Attempts != 1 {
				t.Fatalf("a refused address was retried: %+v %v", j, err)
			}
		})
	}
}

// TestOpenAPIJobSurvivesRestart: jobs queued (and one under way) when the
// server stops run after it starts again on the same database.
func TestOpenAPIJobSurvivesRestart(t *testing.T) {
	for _, kind := range testkit.Databases(t) {
		t.Run(kind, func(t *testing.T) {
			s := testkit.StartJobs(t, kind, func(c *app.Config) { c.JobLease = 300 * time.Millisecond })
			admin, org := s.NewUser(t, "admin@acme.com", "Acme")
			base := "/v1/orgs/" + org + "/openapi"
			// Each source's first fetch hangs until the restart cuts it: the
			// runner's workers are all stuck in one, the other jobs wait in
			// the queue, and the stuck ones are left running under leases
			// that then run out.
			hang := make(chan struct{})
			var mu sync.Mutex
			seen := map[string]bool{}
			restarted := false
			started := make(chan struct{}, 10)
			src := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				mu.Lock()
				first := !seen[r.URL.Path] && !restarted
				seen[r.URL.Path] = true
				mu.Unlock()
				if first {
					started <- struct{}{}
					select {
					case <-hang:
					case <-r.Context().Done():
					}
					return
				}
				_, _ = io.WriteString(w, "openapi: 3.0.3\ninfo: {title: "+strings.Trim(r.URL.Path, "/")+", version: '1'}\npaths: {}\n")
			}))
			defer src.Close()
			defer close(hang)
			for _, slug := range []string{"a", "b", "c", "d"} {
				s.Call(t, "createOpenAPISpec", admin.Token, "POST", base, map[string]any{"slug": slug, "source": map[string]any{"url": src.URL + "/" + slug + ".yaml"}}, 201)
			}
			<-started
			<-started // both workers hang; two jobs are queued
			queued, err := s.Client().Job.Query().Where(job.Kind("openapi"), job.StateEQ(job.StateQueued)).Count(context.Background())
			if err != nil || queued != 2 {
				t.Fatalf("queued before the restart: %d %v", queued, err)
			}
			mu.Lock()
			restarted = true
			mu.Unlock()
			s.Restart(t)
			for _, slug := range []string{"a", "b", "c", "d"} {
				got := waitProcessed(t, s, admin.Token, base+"/"+slug)
				if got["lastVersion"] == nil {
					t.Fatalf("%s after restart: %v", slug, got)
				}
			}
		})
	}
}
