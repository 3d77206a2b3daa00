package reader

import (
	"strings"
	"testing"

	"github.com/folio/folio/internal/published"
)

// TestLLMsFullCap: llms-full.txt keeps whole pages up to its cap and says
// at the end how many did not fit.
func TestLLMsFullCap(t *testing.T) {
	s := &published.Site{Title: "Acme Docs"}
	page := func(n string) llmPage {
		return llmPage{title: "Page " + n, url: "p" + n + ".md", markdown: "# Page " + n + "\n\n" + strings.Repeat("x", 400) + "\n"}
	}
	groups := []llmGroup{{heading: "Guide", pages: []llmPage{page("1"), page("2"), page("3")}}}
	whole := llmsFull(s, groups, 1<<20)
	if strings.Contains(whole, "cut here") || !strings.Contains(whole, "# Page 3") {
		t.Fatalf("uncut: %s", whole)
	}
	cut := llmsFull(s, groups, 1000)
	if !strings.Contains(cut, "# Page 2") || strings.Contains(cut, "# Page 3") ||
		!strings.HasSuffix(cut, "holds at most 1000 bytes, and 1 of the site's 3 pages did not fit. llms.txt lists every page; each is at its address with .md.\n") {
		t.Fatalf("cut: %s", cut)
	}
}
