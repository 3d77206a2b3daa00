package clientkit_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/folio/folio/internal/skiplog"
	"github.com/folio/folio/internal/testkit"
)

// checks are the kit's checks (kit/main.mjs), each a subtest so a failure
// names the one that broke.
var checks = []struct{ name, asserts string }{
	{"apollo-cache", "Apollo Client's InMemoryCache: after all runs, cache.readQuery of each equals the server's answer"},
	{"urql-graphcache", "urql's Graphcache: after all runs, each run again with requestPolicy cache-only equals the server's answer"},
	{"relay-compiler", "the Relay compiler, with id fields outside Node validated too, compiles every operation and the refetchable fragments without a word about ids"},
	{"relay-store", "Relay's store (records keyed by id alone): each run read back equals the server's answer, and no id names records of two types"},
	{"apollo-persisted-queries", "Apollo's PersistedQueryLink over GET: an unknown hash gets PERSISTED_QUERY_NOT_FOUND, the retry registers it, another client's hash-only GET gets the data"},
	{"apollo-defer", "a @defer query through Apollo Client 4 (Defer20220824Handler) gets a multipart answer whose deferred part completes the data"},
	// Last: they change the seeded space.
	{"apollo-subscription", "Apollo Client 4 with GraphQLWsLink (graphql-ws) receives spaceContentUpdated for a merge made meanwhile, with the space as it is now, and its cache shows the new title"},
	{"urql-sse-subscription", "urql with Graphcache and a graphql-sse client receives spaceContentUpdated for a merge made meanwhile, and Graphcache shows the new title"},
}

// checkTimeout bounds one check (a Node process); the kit's checks take a
// few seconds each.
const checkTimeout = 2 * time.Minute

// TestClients seeds a server per database and runs every check of the Node
// kit against it.
func TestClients(t *testing.T) {
	node := nodeKit(t)
	testkit.ForEachDB(t, func(t *testing.T, s *testkit.Server) {
		// The subscription checks need the hub that hands events on
		// (a server runs it with its jobs).
		s.App.StartHub()
		t.Cleanup(func() { s.App.StopJobs(true) })
		raw, err := json.MarshalIndent(seed(t, s), "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(t.TempDir(), "fixture.json")
		if err := os.WriteFile(path, raw, 0o600); err != nil {
			t.Fatal(err)
		}
		for _, c := range checks {
			t.Run(c.name, func(t *testing.T) {
				out, err := runCheck(node, c.name, path)
				if err != nil {
					t.Fatalf("%s\nchecks that %s\n%s", err, c.asserts, out)
				}
				t.Log(out)
			})
		}
	})
}

// runCheck runs one check of the kit and returns its output.
func runCheck(node, name, fixture string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), checkTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, filepath.Join("kit", "main.mjs"), name, fixture)
	cmd.Env = append(os.Environ(), "NO_COLOR=1")
	out, err := cmd.CombinedOutput()
	if ctx.Err() != nil {
		return string(out), errors.New(name + ": no answer within " + checkTimeout.String())
	}
	if err != nil {
		return string(out), errors.New(name + " failed: " + err.Error())
	}
	return string(out), nil
}

// nodeKit is the node binary, once the kit's dependencies are installed.
// CI must have both (.ci/run installs them); elsewhere the test says how
// to get them and skips, as the browser tests do for Chromium.
func nodeKit(t *testing.T) string {
	t.Helper()
	var missing []string
	node, err := exec.LookPath("node")
	if err != nil {
		missing = append(missing, "node is not on PATH")
	}
	if _, err := os.Stat(filepath.Join("node_modules", ".package-lock.json")); err != nil {
		missing = append(missing, "internal/clientkit/node_modules is missing")
	}
	if len(missing) == 0 {
		return node
	}
	how := "needs Node and `npm ci` in internal/clientkit: " + strings.Join(missing, "; ")
	if os.Getenv("CI") != "" {
		t.Fatal("the client kit " + how + " (CI is set: .ci/run installs them)")
	}
	skiplog.Skip(t, "client kit tests", how)
	return ""
}
