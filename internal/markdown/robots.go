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
