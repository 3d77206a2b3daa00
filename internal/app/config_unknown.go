package app

import (
	"fmt"
	"sort"
	"strings"
)

// notSettings are FOLIO_ variables that are read outside the settings
// table: by the test harness, the benchmarks and the commands' own options
// (folio secrets rotate reads the new key from FOLIO_NEW_SECRET_KEY).
// They are known, so they draw no warning.
var notSettings = []string{
	"FOLIO_TEST_LOG", "FOLIO_TEST_MAIN", "FOLIO_TEST_LOAD", "FOLIO_TEST_STOP_THE_WORLD_GC",
	"FOLIO_REQUIRE_POSTGRES", "FOLIO_REQUIRE_REFERENCE", "FOLIO_REFERENCE_DIR",
	"FOLIO_SKIP_LOG", "FOLIO_READER_SCREENSHOT", "FOLIO_PERF_DIR",
	"FOLIO_NEW_SECRET_KEY", "FOLIO_TEST_ENFORCE_EVENTS",
}

// UnknownEnv answers one warning for each FOLIO_ variable of environ (as
// os.Environ gives it) that Folio does not read, naming the closest known
// setting: a misspelled FOLIO_REQUEST_TIMOUT would otherwise be ignored in
// silence, leaving the default in force.
func UnknownEnv(environ []string) []string {
	known := map[string]bool{}
	for _, s := range Settings {
		known[s.Env] = true
	}
	for _, name := range notSettings {
		known[name] = true
	}
	var out []string
	for _, kv := range environ {
		name, _, _ := strings.Cut(kv, "=")
		if !strings.HasPrefix(name, "FOLIO_") || known[name] {
			continue
		}
		best, dist := "", -1
		for _, s := range Settings {
			if d := editDistance(name, s.Env); dist < 0 || d < dist {
				best, dist = s.Env, d
			}
		}
		msg := fmt.Sprintf("%s is not a Folio setting and is ignored", name)
		if dist <= max(3, len(name)/4) {
			msg += fmt.Sprintf(": did you mean %s?", best)
		}
		out = append(out, msg)
	}
	sort.Strings(out)
	return out
}

// editDistance is the Levenshtein distance of a and b (ASCII names).
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
