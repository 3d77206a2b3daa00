package rest_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/folio/folio/ent/event"
	"github.com/folio/folio/ent/openapispec"
	"github.com/folio/folio/internal/access"
	"github.com/folio/folio/internal/testkit"
)

// TestOpenAPIVisibilityAndRaw: PATCH sets a spec's visibility (stored, with
// its event), and it matters: a private spec's public content URL answers
// 404 and it has no urls.published; public, both answer. The latest
// version's raw text reads back exactly as submitted, with its format.
// Bad visibility is 400 naming it; a reader is 403; strangers 404.
func TestOpenAPIVisibilityAndRaw(t *testing.T) {
	for _, kind := range testkit.Databases(t) {
		t.Run(kind, func(t *testing.T) {
			s := testkit.StartJobs(t, kind, nil)
			admin, org := s.NewUser(t, "admin@acme.com", "Acme")
			reader, _ := s.NewUser(t, "reader@acme.com", "")
			s.AddMember(t, org, reader, testkit.RoleOf(access.Read))
			stranger, _ := s.NewUser(t, "stranger@example.com", "Elsewhere")
			base := "/v1/orgs/" + org + "/openapi"
			spec := base + "/pets"
			text := "openapi: 3.0.3\ninfo: {title: Pets, version: '1'}\npaths: {}\n"
			s.Call(t, "createOpenAPISpec", admin.Token, "POST", base, map[string]any{"slug": "pets", "source": map[string]any{"text": text}}, 201)
			waitProcessed(t, s, admin.Token, spec)

			raw := s.Call(t, "getLatestOpenAPISpecVersionContentRaw", admin.Token, "GET", spec+"/versions/latest/content/raw", nil, 200).JSON(t)
			if raw["text"] != text || raw["format"] != "yaml" {
				t.Fatalf("raw: %v", raw)
			}
			s.Call(t, "getLatestOpenAPISpecVersionContentRaw", reader.Token, "GET", spec+"/versions/latest/content/raw", nil, 200)
			s.Fail(t, "getLatestOpenAPISpecVersionContentRaw", stranger.Token, "GET", spec+"/versions/latest/content/raw", nil, 404)
			s.Fail(t, "getLatestOpenAPISpecVersionContentRaw", admin.Token, "GET", base+"/nope/versions/latest/content/raw", nil, 404)

			publicURL := s.Call(t, "getLatestOpenAPISpecVersionContent", admin.Token, "GET", spec+"/versions/latest/content", nil, 200).JSON(t)["url"].(string)
			status := func() int {
				resp, err := http.Get(publicURL)
				if err != nil {
					t.Fatal(err)
				}
				resp.Body.Close()
				return resp.StatusCode
			}
			got := s.Call(t, "getOpenAPISpecBySlug", admin.Token, "GET", spec, nil, 200).JSON(t)
			if got["visibility"] != "private" || got["urls"].(map[string]any)["published"] != nil || status() != 404 {
				t.Fatalf("private: %v, content URL %d", got, status())
			}

			got = s.Call(t, "updateOpenAPISpecBySlug", admin.Token, "PATCH", spec, map[string]any{"visibility": "public"}, 200).JSON(t)
			if got["visibility"] != "public" || got["urls"].(map[string]any)["published"] != publicURL || status() != 200 {
				t.Fatalf("public: %v, content URL %d", got, status())
			}
			stored := s.Client().OpenAPISpec.Query().Where(openapispec.Slug("pets")).OnlyX(context.Background())
			if stored.Visibility != openapispec.VisibilityPublic {
				t.Fatalf("stored visibility %s", stored.Visibility)
			}
			evs := s.Client().Event.Query().Where(event.TargetID(stored.ID), event.Action("openapi_spec.updated")).AllX(context.Background())
			if len(evs) != 1 || !strings.Contains(jsonOf(evs[0].Payload), `"visibility"`) {
				t.Fatalf("events: %v", evs)
			}

			for _, body := range []map[string]any{{}, {"visibility": "secret"}, {"visibility": 3}} {
				before := s.Snapshot(t)
				if msg := s.Fail(t, "updateOpenAPISpecBySlug", admin.Token, "PATCH", spec, body, 400); !strings.Contains(msg, "visibility") {
					t.Errorf("%v: %q does not name visibility", body, msg)
				}
				if s.Snapshot(t) != before {
					t.Errorf("%v changed the database", body)
				}
			}
			s.Fail(t, "updateOpenAPISpecBySlug", reader.Token, "PATCH", spec, map[string]any{"visibility": "private"}, 403)
			s.Fail(t, "updateOpenAPISpecBySlug", stranger.Token, "PATCH", spec, map[string]any{"visibility": "private"}, 404)
			s.Fail(t, "updateOpenAPISpecBySlug", admin.Token, "PATCH", base+"/nope", map[string]any{"visibility": "private"}, 404)

			s.Call(t, "updateOpenAPISpecBySlug", admin.Token, "PATCH", spec, map[string]any{"visibility": "private"}, 200)
			if status() != 404 {
				t.Fatal("private again: the content URL still answers")
			}
		})
	}
}
