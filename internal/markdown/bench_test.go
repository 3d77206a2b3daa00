package markdown

import (
	"strings"
	"testing"
)

// bigPage is a long page of ordinary content.
var bigPage = strings.Repeat("# Heading\n\nSome *text* with a [link](../a.md#b) and `code`.\n\n- item\n- [x] task\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n```go\nx := 1\n```\n\n", 200)

func BenchmarkToDocument(b *testing.B) {
	for b.Loop() {
		ToDocument(bigPage)
	}
}

func BenchmarkSections(b *testing.B) {
	for b.Loop() {
		Sections(bigPage)
	}
}

func TestDeepNestingIsFast(t *testing.T) {
	// Pathological nesting must stay cheap (keys hash each block's text, so
	// depth costs depth x size).
	for _, src := range []string{strings.Repeat(">", 2000) + " x", strings.Repeat("- ", 2000) + "x", strings.Repeat("*", 5000) + "x" + strings.Repeat("*", 5000)} {
		doc := ToDocument(src)
		if len(doc.Nodes) == 0 {
			t.Errorf("no blocks for %.10q...", src)
		}
		Sections(src)
		Links(src)
	}
}
