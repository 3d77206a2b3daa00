package rest_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/folio/folio/ent"

	"github.com/folio/folio/ent/job"
	"github.com/folio/folio/ent/openapispec"
	"github.com/folio/folio/internal/testkit"
)

// TestOpenAPIJobsOnTwoInstances: two servers on one PostgreSQL share a
// queue of 50 specs; each job completes exactly once (runs = 1, one
// version per spec) and both servers took part.
func TestOpenAPIJobsOnTwoInstances(t *testing.T) {
	for _, kind := range testkit.Databases(t) {
		if kind != "postgres" {
			continue // SQLite: one process runs the jobs
		}
		t.Run(kind, func(t *testing.T) {
			dbURL := testkit.DatabaseURL(t, kind, t.TempDir())
			a := testkit.StartJobsOn(t, kind, dbURL, nil)
			a.StopJobs() // queue everything first
			admin, org := a.NewUser(t, "admin@acme.com", "Acme")
			base := "/v1/orgs/" + org + "/openapi"
			for i := range 50 {
				a.Call(t, "createOpenAPISpec", admin.Token, "POST", base, map[string]any{"slug": fmt.Sprintf("spec-%d", i),
					"source": map[string]any{"text": fmt.Sprintf("openapi: 3.0.3\ninfo: {title: Spec %d, version: '1'}\npaths: {}\n", i)}}, 201)
			}
			ctx := context.Background()
			b := testkit.StartJobsOn(t, kind, dbURL, nil)
			a.Restart(t)
			for i := range 50 {
				got := waitProcessed(t, b, admin.Token, fmt.Sprintf("%s/spec-%d", base, i))
				if got["lastVersion"] == nil {
					t.Fatalf("spec-%d: %v", i, got)
				}
			}
			// The spec is complete a moment before its job is recorded done.
			var jobs []*ent.Job
			for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(10 * time.Millisecond) {
				var err error
				jobs, err = a.Client().Job.Query().Where(job.Kind("openapi")).All(ctx)
				if err != nil || len(jobs) != 50 {
					t.Fatalf("jobs: %d %v", len(jobs), err)
				}
				running := 0
				for _, j := range jobs {
					if j.State != job.StateDone {
						running++
					}
				}
				if running == 0 || time.Now().After(deadline) {
					break
				}
			}
			owners := map[string]int{}
			for _, j := range jobs {
				if j.State != job.StateDone || j.Runs != 1 || j.Attempts != 1 {
					t.Fatalf("job ran more than once or not at all: %+v", j)
				}
				owners[j.Owner]++
			}
			t.Logf("jobs run by each instance: %v", owners)
			versions, err := a.Client().OpenAPISpecVersion.Query().Count(ctx)
			if err != nil || versions != 50 {
				t.Fatalf("versions: %d %v", versions, err)
			}
			done, err := a.Client().OpenAPISpec.Query().Where(openapispec.ProcessingStateEQ(openapispec.ProcessingStateComplete)).Count(ctx)
			if err != nil || done != 50 {
				t.Fatalf("complete: %d %v", done, err)
			}
		})
	}
}
