package reader

import (
	"html/template"
	"strings"
	"unicode"

	"golang.org/x/net/html"

	"github.com/folio/folio/internal/published"
)

// maxDescription bounds a page's meta description, in characters: about
// what search engines show under a result.
const maxDescription = 160

// describe is a page's meta description: its own description, else the
// first paragraph of its body, else the site's name for a page without
// text (a group of pages). Search engines show it under the result.
func describe(p *published.Page, body template.HTML, siteTitle string) string {
	if d := clip(p.Description); d != "" {
		return d
	}
	if d := clip(firstParagraph(string(body))); d != "" {
		return d
	}
	return clip(p.Title + ", in " + siteTitle + ".")
}

// firstParagraph is the text of the first <p> of a rendered body that
// holds words (a hint's or a tab's counts too: they are the page's text).
func firstParagraph(body string) string {
	z := html.NewTokenizer(strings.NewReader(body))
	depth := 0
	var b strings.Builder
	for {
		switch z.Next() {
		case html.ErrorToken:
			return ""
		case html.StartTagToken:
			if name, _ := z.TagName(); string(name) == "p" {
				depth++
			}
		case html.EndTagToken:
			if name, _ := z.TagName(); string(name) == "p" && depth > 0 {
				depth--
				if depth == 0 && strings.TrimSpace(b.String()) != "" {
					return b.String()
				}
			}
		case html.TextToken:
			if depth > 0 {
				b.Write(z.Text())
			}
		}
	}
}

// clip collapses white space and cuts s to maxDescription characters at
// a word boundary, with an ellipsis when it cut.
func clip(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	r := []rune(s)
	if len(r) <= maxDescription {
		return s
	}
	cut := maxDescription - 1
	for i := cut; i > maxDescription/2; i-- {
		if unicode.IsSpace(r[i]) {
			cut = i
			break
		}
	}
	return strings.TrimRightFunc(string(r[:cut]), func(c rune) bool { return unicode.IsSpace(c) || unicode.IsPunct(c) }) + "…"
}
