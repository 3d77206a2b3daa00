// Package skiplog records the checks a test run skipped, for `make test`'s last
// line. It imports nothing of Folio, so any test package may use it.
package skiplog

import (
	"os"
	"strings"
	"testing"
)

// Env names the file `make test` collects skipped checks in: its
// last line names every check that did not run and why, so "passed" never
// hides a suite that was skipped (the reason used to show only under -v).
const Env = "FOLIO_SKIP_LOG"

// Note records that the check what did not run, and why, in the
// skip log (when make test set one). Tests that skip call Skip instead; a
// check that runs in part (the contract check without a reference) calls
// this and goes on.
func Note(what, why string) {
	path := os.Getenv(Env)
	if path == "" {
		return
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return
	}
	defer f.Close()
	// One short line per write: O_APPEND keeps lines of parallel test
	// binaries whole.
	line := strings.ReplaceAll(what+" ("+why+")", "\n", " ")
	_, _ = f.WriteString(line + "\n")
}

// Skip records what as skipped for why and skips t.
func Skip(t testing.TB, what, why string) {
	t.Helper()
	Note(what, why)
	t.Skip("SKIPPED: " + what + ": " + why)
}
