package rest_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/folio/folio/internal/testkit"
)

// TestEmbedByURL: a page offering oEmbed discovery resolves to a rich
// embed whose HTML is one sandboxed iframe (the provider's script is
// dropped); the answer is kept in the database, so a second call fetches
// nothing; a page without discovery is a link with its title and icon;
// bad URLs are 400 naming url; private hosts are refused when private
// fetches are not allowed; strangers get 404.
func TestEmbedByURL(t *testing.T) {
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		var hits atomic.Int32
		var host *httptest.Server
		host = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			hits.Add(1)
			switch r.URL.Path {
			case "/video":
				w.Header().Set("Content-Type", "text/html")
				_, _ = w.Write([]byte(`<html><head><title>Ignored</title><link rel="icon" href="/favicon.ico">` +
					`<link rel="alternate" type="application/json+oembed" href="` + host.URL + `/oembed?url=x"></head><body>x</body></html>`))
			case "/oembed":
				w.Header().Set("Content-Type", "application/json")
				_, _ = w.Write([]byte(`{"type":"video","title":"A video","provider_name":"Tube",` +
					`"html":"<script>alert(1)</script><iframe src=\"https://tube.example/embed/1\" width=\"560\" height=\"315\" onload=\"alert(2)\"></iframe>"}`))
			case "/article":
				w.Header().Set("Content-Type", "text/html")
				_, _ = w.Write([]byte(`<html><head><title>An article</title><meta property="og:site_name" content="News"></head></html>`))
			default:
				http.NotFound(w, r)
			}
		}))
		defer host.Close()
		owner, org := s.NewUser(t, "embeds@example.com", "Embeds")
		stranger, _ := s.NewUser(t, "stranger@example.com", "Elsewhere")
		space := s.Call(t, "createSpace", owner.Token, "POST", "/v1/orgs/"+org+"/spaces", map[string]any{"title": "Guide"}, 201).JSON(t)["id"].(string)
		embed := func(token, u string, status int) map[string]any {
			return s.Call(t, "getEmbedByUrlInSpace", token, "GET", "/v1/spaces/"+space+"/embed?url="+url.QueryEscape(u), nil, status).JSON(t)
		}

		got := embed(owner.Token, host.URL+"/video", 200)
		want := jsonOf(map[string]any{"type": "rich", "title": "A video", "site": "Tube", "icon": host.URL + "/favicon.ico",
			"html": `<iframe src="https://tube.example/embed/1" width="560" height="315" sandbox="allow-scripts allow-popups allow-presentation" referrerpolicy="no-referrer" loading="lazy" allowfullscreen></iframe>`})
		if jsonOf(got) != want {
			t.Fatalf("embed %s\nwant %s", jsonOf(got), want)
		}
		if n := hits.Load(); n != 2 {
			t.Fatalf("first resolution made %d requests, want 2 (page, oEmbed)", n)
		}
		if again := embed(owner.Token, host.URL+"/video", 200); jsonOf(again) != want || hits.Load() != 2 {
			t.Fatalf("second call: %s after %d requests", jsonOf(again), hits.Load())
		}
		if n := s.Client().EmbedCache.Query().CountX(context.Background()); n != 1 {
			t.Fatalf("%d cached embeds, want 1", n)
		}

		article := embed(owner.Token, host.URL+"/article", 200)
		if jsonOf(article) != `{"site":"News","title":"An article","type":"link"}` {
			t.Fatalf("article: %s", jsonOf(article))
		}
		missing := embed(owner.Token, host.URL+"/gone", 200)
		if missing["type"] != "link" || missing["title"] != host.URL+"/gone" {
			t.Fatalf("unreadable page: %s", jsonOf(missing))
		}

		for _, bad := range []string{"/v1/spaces/" + space + "/embed", "/v1/spaces/" + space + "/embed?url=ftp%3A%2F%2Fx", "/v1/spaces/" + space + "/embed?url=notaurl",
			"/v1/spaces/" + space + "/embed?url=https%3A%2F%2Fx.example%2F" + strings.Repeat("a", 2100)} {
			before := s.Snapshot(t)
			if msg := s.Fail(t, "getEmbedByUrlInSpace", owner.Token, "GET", bad, nil, 400); !strings.Contains(msg, "url") {
				t.Errorf("%s: %q does not name url", bad, msg)
			}
			if s.Snapshot(t) != before {
				t.Errorf("%s changed the database", bad)
			}
		}
		s.Fail(t, "getEmbedByUrlInSpace", stranger.Token, "GET", "/v1/spaces/"+space+"/embed?url="+url.QueryEscape(host.URL+"/video"), nil, 404)
		s.Fail(t, "getEmbedByUrlInSpace", stranger.Token, "GET", "/v1/spaces/"+space+"/embed", nil, 404)

		// Without FOLIO_ALLOW_PRIVATE_FETCH, the loopback host is refused
		// (and nothing is fetched).
		s.App.Resolver.Fetcher.AllowPrivate = false
		defer func() { s.App.Resolver.Fetcher.AllowPrivate = true }()
		before := hits.Load()
		if msg := s.Fail(t, "getEmbedByUrlInSpace", owner.Token, "GET", "/v1/spaces/"+space+"/embed?url="+url.QueryEscape(host.URL+"/article2"), nil, 400); !strings.Contains(msg, "url") || !strings.Contains(msg, "private") {
			t.Errorf("private host: %q", msg)
		}
		if hits.Load() != before {
			t.Errorf("a private host was fetched")
		}
	})
}
