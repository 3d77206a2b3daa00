package reader

import (
	"html/template"

	"github.com/folio/folio/internal/markdown"
)

// renderMarkdown renders a page body with the markdown engine (sanitized
// HTML, highlighted code, GitBook blocks, API reference blocks through
// blocks), links and images rewritten.
func renderMarkdown(src string, rewrite func(dest string, image bool) string, blocks map[string]markdown.BlockRenderer) (template.HTML, []markdown.OutlineItem, error) {
	out, err := markdown.RenderHTML(src, markdown.HTMLOptions{
		Link:   func(href string) string { return rewrite(href, false) },
		Image:  func(src string) string { return rewrite(src, true) },
		Blocks: blocks,
	})
	return out.HTML, out.Outline, err
}
