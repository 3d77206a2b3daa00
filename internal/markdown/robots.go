package markdown

import (
	"strings"

	"gopkg.in/yaml.v3"
)

// NoIndex tells whether a page's frontmatter asks search engines to leave it
// out: `noIndex: true` or `noRobotsIndex: true` (GitBook's two page
// settings; the published reader answers both with a robots noindex).
func NoIndex(src string) bool {
	if !strings.HasPrefix(src, "---") {
		return false // the common case costs nothing
	}
	fm := splitFrontmatter(normalize(src))
	if fm.yaml == nil {
		return false
	}
	for i := 0; i+1 < len(fm.yaml.Content); i += 2 {
		k, v := fm.yaml.Content[i], fm.yaml.Content[i+1]
		switch strings.ToLower(k.Value) {
		case "noindex", "norobotsindex":
			var b bool
			if v.Kind == yaml.ScalarNode && v.Decode(&b) == nil && b {
				return true
			}
		}
	}
	return false
}

// Robots reads a page's robots settings from its frontmatter: `noIndex` and
// `noRobotsIndex`, each nil when the frontmatter does not say (or says
// something that is not a boolean).
func Robots(src string) (noIndex, noRobotsIndex *bool) {
	if !strings.HasPrefix(src, "---") {
		return nil, nil
	}
	fm := splitFrontmatter(normalize(src))
	if fm.yaml == nil {
		return nil, nil
	}
	for i := 0; i+1 < len(fm.yaml.Content); i += 2 {
		k, v := fm.yaml.Content[i], fm.yaml.Content[i+1]
		var b bool
		if v.Kind != yaml.ScalarNode || v.Decode(&b) != nil {
			continue
		}
		switch strings.ToLower(k.Value) {
		case "noindex":
			noIndex = &b
		case "norobotsindex":
			noRobotsIndex = &b
		}
	}
	return noIndex, noRobotsIndex
}

// KeepRobots is the body to store for a page whose markdown body (without
// frontmatter: Parse's Body) has these robots settings. Pages have no
// column for them: the settings that are true stay in a frontmatter block
// of their own, which the reader, the sitemap and GraphQL's noIndex read
// (NoIndex), every renderer skips, and Parse reads back — so a page's
// markdown, read and written again, keeps them.
func KeepRobots(body string, noIndex, noRobotsIndex bool) string {
	if !noIndex && !noRobotsIndex {
		return body
	}
	var b strings.Builder
	b.WriteString("---\n")
	if noIndex {
		b.WriteString("noIndex: true\n")
	}
	if noRobotsIndex {
		b.WriteString("noRobotsIndex: true\n")
	}
	b.WriteString("---\n\n")
	b.WriteString(body)
	return b.String()
}
