package markdown

import (
	"strings"
	"unicode/utf8"

	"gopkg.in/yaml.v3"
)

// Meta is what a page's markdown says about the page.
type Meta struct {
	Title       string // frontmatter `title`, else the first heading (any level, the first one in the document), else ""
	Description string // frontmatter `description`
	Emoji       string // frontmatter `emoji` (or `icon` when it is a single emoji)
	Hidden      bool   // frontmatter `hidden: true`
	Body        string // the markdown without its frontmatter block (the leading heading stays)
}

// Parse reads a page's frontmatter and title. It never fails: frontmatter that
// is not a YAML mapping (a syntax error, a scalar, a list) is not frontmatter,
// and stays in Body as markdown.
//
// Frontmatter is a first line "---", YAML, and a closing line "---" or "...".
// Body is the rest with line endings normalised to LF and leading blank lines
// removed. Scalar values of any YAML type are read as their text (title: 2024
// is "2024"); values that are not scalars are ignored.
func Parse(src string) Meta {
	m := Fields(src)
	if m.Title == "" {
		m.Title = firstHeading(m.Body)
	}
	return m
}

// Fields is Parse without the first heading: Title is the frontmatter's
// alone. Finding the first heading parses the whole body, which a caller
// that has its title already (an import: the archive's) need not pay for.
func Fields(src string) Meta {
	fm := splitFrontmatter(normalize(src))
	m := Meta{Body: fm.body}
	if fm.yaml != nil {
		for i := 0; i+1 < len(fm.yaml.Content); i += 2 {
			k, v := fm.yaml.Content[i], fm.yaml.Content[i+1]
			if v.Kind != yaml.ScalarNode || v.Tag == "!!null" {
				continue
			}
			val := strings.TrimSpace(v.Value)
			switch strings.ToLower(k.Value) {
			case "title":
				m.Title = val
			case "description":
				m.Description = val
			case "emoji":
				m.Emoji = val
			case "icon":
				if m.Emoji == "" && isSingleEmoji(val) {
					m.Emoji = val
				}
			case "hidden":
				var b bool
				if v.Decode(&b) == nil {
					m.Hidden = b
				}
			}
		}
	}
	return m
}

// frontmatter is a normalised text split into its frontmatter and body.
type frontmatter struct {
	yaml     *yaml.Node // the mapping; nil when there is no frontmatter
	body     string
	bodyLine int // 1-based line of the normalised text where body starts
}

// splitFrontmatter finds a leading YAML frontmatter block in a normalised text.
func splitFrontmatter(s string) frontmatter {
	none := frontmatter{body: s, bodyLine: 1}
	first, rest, ok := strings.Cut(s, "\n")
	if !ok || strings.TrimRight(first, " \t") != "---" {
		return none
	}
	// Find the closing line.
	off, line := 0, 2
	end := -1
	for off <= len(rest) {
		l, _, _ := strings.Cut(rest[off:], "\n")
		if t := strings.TrimRight(l, " \t"); t == "---" || t == "..." {
			end = off
			break
		}
		off += len(l) + 1
		line++
	}
	if end < 0 {
		return none
	}
	raw := rest[:end]
	doc, ok := readYAML(raw)
	if !ok {
		return none
	}
	fm := frontmatter{yaml: &yaml.Node{Kind: yaml.MappingNode}}
	if doc.Kind == yaml.DocumentNode && len(doc.Content) == 1 {
		if doc.Content[0].Kind != yaml.MappingNode {
			return none
		}
		fm.yaml = doc.Content[0]
	} else if doc.Kind != 0 {
		return none
	}
	// Skip the closing line, then leading blank lines of the body.
	body := ""
	if _, after, ok := strings.Cut(rest[end:], "\n"); ok {
		body = after
	}
	line++
	for {
		l, after, ok := strings.Cut(body, "\n")
		if !ok || strings.TrimSpace(l) != "" {
			break
		}
		body = after
		line++
	}
	if strings.TrimSpace(body) == "" {
		body = ""
	}
	fm.body, fm.bodyLine = body, line
	return fm
}

// readYAML parses YAML, reporting failure (a panic included, should the
// YAML library have one left) as not ok.
func readYAML(raw string) (doc yaml.Node, ok bool) {
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	return doc, yaml.Unmarshal([]byte(raw), &doc) == nil
}

// firstHeading is the plain text of the first heading of a markdown body.
func firstHeading(body string) string {
	title := ""
	p := parseText(body)
	walkLeaves(p, func(l leaf) bool {
		if l.heading != nil {
			title = l.text
			return false
		}
		return true
	})
	return title
}

// isSingleEmoji reports whether s is one emoji, possibly a sequence joined
// with ZWJ, with variation selectors, skin tones, keycaps or tags, or a flag.
// It is an approximation of a grapheme-cluster check, good for telling an
// emoji from an icon name.
func isSingleEmoji(s string) bool {
	if s == "" || len(s) > 64 || !utf8.ValidString(s) {
		return false
	}
	bases, regional := 0, 0
	joined := false
	prevKeycapBase := false
	for _, r := range s {
		switch {
		case r == 0x200D: // zero-width joiner
			joined = true
			continue
		case r == 0xFE0F || r == 0xFE0E, r >= 0x1F3FB && r <= 0x1F3FF, r >= 0xE0020 && r <= 0xE007F:
			// variation selectors, skin tones, tag characters: modify the previous base
			if bases == 0 && regional == 0 && !prevKeycapBase {
				return false
			}
		case r == 0x20E3: // combining keycap
			if !prevKeycapBase {
				return false
			}
			bases++
			prevKeycapBase = false
		case r >= 0x1F1E6 && r <= 0x1F1FF: // regional indicators pair into flags
			regional++
			if regional > 2 || bases > 0 {
				return false
			}
		case (r >= '0' && r <= '9') || r == '#' || r == '*':
			if bases > 0 || prevKeycapBase {
				return false
			}
			prevKeycapBase = true
		case isPictographic(r):
			if (bases > 0 || regional > 0) && !joined {
				return false
			}
			bases++
		default:
			return false
		}
		joined = false
	}
	if prevKeycapBase {
		return false
	}
	return (bases > 0 && regional == 0) || (bases == 0 && regional == 2)
}

// isPictographic approximates Unicode's Extended_Pictographic property.
func isPictographic(r rune) bool {
	switch {
	case r == 0x00A9 || r == 0x00AE || r == 0x203C || r == 0x2049 || r == 0x2122 || r == 0x2139:
		return true
	case r >= 0x2194 && r <= 0x21AA, r >= 0x231A && r <= 0x23FF, r >= 0x24C2 && r <= 0x24C2,
		r >= 0x25AA && r <= 0x25FE, r >= 0x2600 && r <= 0x27BF, r >= 0x2934 && r <= 0x2935,
		r >= 0x2B05 && r <= 0x2B55, r == 0x3030, r == 0x303D, r == 0x3297, r == 0x3299:
		return true
	case r >= 0x1F000 && r <= 0x1FAFF:
		return !(r >= 0x1F1E6 && r <= 0x1F1FF) && !(r >= 0x1F3FB && r <= 0x1F3FF)
	}
	return false
}
