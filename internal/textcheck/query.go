package textcheck

import (
	"net/url"
	"sort"
)

// Query finds the first parameter of a raw query string, in alphabetical
// order, whose name or value is not acceptable text: its name, the problem,
// and whether the name itself is at fault. problem is "" when all are
// acceptable. The APIs and the published reader refuse what it finds.
func Query(raw string) (name, problem string, inName bool) {
	if raw == "" {
		return "", "", false
	}
	values, _ := url.ParseQuery(raw)
	names := make([]string, 0, len(values))
	for n := range values {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if p := Problem(n); p != "" {
			return n, p, true
		}
		for _, v := range values[n] {
			if p := Problem(v); p != "" {
				return n, p, false
			}
		}
	}
	return "", "", false
}
