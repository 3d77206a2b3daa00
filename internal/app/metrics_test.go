package app_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"

	"github.com/folio/folio/internal/testkit"
)

// sample is the value of the series written exactly as series (name and
// labels in the exposition's order), 0 when absent.
func sample(text, series string) float64 {
	v, _ := testkit.Sample(text, series)
	return v
}

// TestMetrics: after a workload of REST and GraphQL requests, a scrape
// shows requests by route pattern (never by raw path: no id appears),
// GraphQL operations by name with their cost and their errors by code,
// loader batches, the database pool of this server's dialect, jobs, the
// build, and Go's runtime and process series.
func TestMetrics(t *testing.T) {
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		before := s.Metrics(t)
		u, org := s.NewUser(t, "metrics@example.com", "Metrics Org")
		_, org2 := s.NewUser(t, "metrics2@example.com", "Second Org")
		for _, title := range []string{"One", "Two"} {
			s.Call(t, "createSpace", u.Token, "POST", "/v1/orgs/"+org+"/spaces", map[string]any{"title": title}, 201)
		}
		s.Call(t, "getOrganizationById", u.Token, "GET", "/v1/orgs/"+org, nil, 200)
		s.Fail(t, "getOrganizationById", u.Token, "GET", "/v1/orgs/"+org2, nil, 404)
		s.MustGraphQL(t, u.Token, `query OrgSpaces($org: ID!) { organization(id: $org) { spaces(first: 10) { edges { node { title revision { pages { title } } } } } } }`, map[string]any{"org": org})
		if _, errs := s.GraphQL(t, u.Token, `query Broken { nothingHere }`, nil); len(errs) == 0 {
			t.Fatal("an unknown field was accepted")
		}
		// Imports are jobs: one that reads its source and one that cannot.
		src := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/markdown")
			_, _ = io.WriteString(w, "# Imported\n\nText.\n")
		}))
		defer src.Close()
		space := s.Call(t, "createSpace", u.Token, "POST", "/v1/orgs/"+org+"/spaces", map[string]any{"title": "Imports"}, 201).JSON(t)["id"].(string)
		s.Call(t, "importContent", u.Token, "POST", "/v1/spaces/"+space+"/content/import", map[string]any{"url": src.URL + "/a.md", "source": "markdown"}, 201)
		s.Fail(t, "importContent", u.Token, "POST", "/v1/spaces/"+space+"/content/import", map[string]any{"url": src.URL + "/a.zip", "source": "zip"}, 400)
		after := s.Metrics(t)

		grew := func(series string, by float64) {
			t.Helper()
			if d := sample(after, series) - sample(before, series); d < by {
				t.Errorf("%s grew by %v, want at least %v", series, d, by)
			}
		}
		grew(`folio_http_request_duration_seconds_count{method="GET",route="/v1/orgs/{organizationId}",status="200"}`, 1)
		grew(`folio_http_request_duration_seconds_count{method="GET",route="/v1/orgs/{organizationId}",status="404"}`, 1)
		grew(`folio_http_request_duration_seconds_count{method="POST",route="/v1/orgs/{organizationId}/spaces",status="201"}`, 2)
		grew(`folio_http_request_duration_seconds_count{method="POST",route="/graphql",status="200"}`, 1)
		grew(`folio_graphql_operations_total{operation="OrgSpaces",outcome="ok",type="query"}`, 1)
		grew(`folio_graphql_operation_cost_count{operation="OrgSpaces"}`, 1)
		grew(`folio_graphql_operations_total{operation="Broken",outcome="error",type="query"}`, 1)
		grew(`folio_graphql_errors_total{code="GRAPHQL_VALIDATION_FAILED",operation="Broken"}`, 1)
		grew(`folio_job_runs_total{job="import",outcome="ok"}`, 1)
		grew(`folio_job_runs_total{job="import",outcome="failed"}`, 1)
		for _, id := range []string{org, org2, u.ID} {
			if strings.Contains(after, id) {
				t.Errorf("an id (%s) appears in the metrics: series by raw path", id)
			}
		}
		if !regexp.MustCompile(`(?m)^folio_loader_batch_size_count\{loader="[^"]+"\} [1-9]`).MatchString(after) {
			t.Error("no loader batch recorded")
		}
		for _, series := range []string{
			`folio_go_sql_max_open_connections{db_name="` + s.App.DB.Dialect + `"}`,
			`folio_jobs_running{job="import"}`, `folio_jobs_queued{job="import"}`, `folio_jobs_running{job="purge"}`,
			`folio_http_requests_in_flight`, `go_goroutines`, `process_resident_memory_bytes`,
		} {
			if !regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(series) + ` `).MatchString(after) {
				t.Errorf("no %s in the scrape", series)
			}
		}
		if !regexp.MustCompile(`(?m)^folio_build_info\{version="[^"]+"\} 1$`).MatchString(after) {
			t.Error("no folio_build_info")
		}
		if sample(after, `folio_go_sql_max_open_connections{db_name="`+s.App.DB.Dialect+`"}`) < 1 {
			t.Error("the pool's max open connections is not reported")
		}
	})
}

// TestMetricsNotOnPublicPort: /metrics is only on its own listener.
func TestMetricsNotOnPublicPort(t *testing.T) {
	s := testkit.Start(t, "sqlite")
	if r := s.Request(t, "", "GET", "/metrics", nil); r.Status != 404 {
		t.Fatalf("/metrics on the public port: %d", r.Status)
	}
}
