package app

import (
	"runtime/debug"
	"sync"
)

// Build is what the binary says of itself, from the build information Go
// embeds (go build stamps the commit; go run and go test do not).
type Build struct {
	Version  string // module version, "(devel)" for a local build
	Commit   string // "" when unknown
	Modified bool   // built from a tree with uncommitted changes
}

// BuildInfo is this binary's Build.
var BuildInfo = sync.OnceValue(func() Build {
	b := Build{Version: "(unknown)"}
	if info, ok := debug.ReadBuildInfo(); ok {
		b.Version = info.Main.Version
		for _, s := range info.Settings {
			switch s.Key {
			case "vcs.revision":
				b.Commit = s.Value
			case "vcs.modified":
				b.Modified = s.Value == "true"
			}
		}
	}
	return b
})

// Version is the build in one word, as /healthz, the first log line and
// folio_build_info show it: the module version, then the commit's first 12
// digits, then "+dirty" when the tree had changes.
func Version() string {
	b := BuildInfo()
	v := b.Version
	if b.Commit != "" {
		v += "-" + b.Commit[:min(12, len(b.Commit))]
	}
	if b.Modified {
		v += "+dirty"
	}
	return v
}
