package markdown

import (
	"regexp"
	"strings"

	"github.com/microcosm-cc/bluemonday"
)

// Everything RenderHTML writes goes through one bluemonday policy: the
// elements and attributes the renderer emits, and nothing else. Authors'
// raw HTML meets the same policy, so it can use what the renderer uses
// (plain formatting, classes, ids) and no more:
//
//   - no <script>, <style>, <iframe>, <object>, <embed>, <form>, <svg>,
//     <math> or other active content; no style attributes; no event
//     handlers (on...) or any attribute not listed here;
//   - links (a href) only http, https, mailto or relative URLs (so no
//     javascript: or data:, however entity-encoded);
//   - images (img src) only http, https or relative URLs;
//   - class names and ids of letters, digits, '-', '_' (and ':' '.' in ids
//     for footnotes); roles from a short list; inputs only as radio buttons
//     (tabs) and disabled check boxes (task lists).
var policy = newPolicy()

var (
	classRE = regexp.MustCompile(`^[A-Za-z0-9_ -]{1,200}$`)
	idRE    = regexp.MustCompile(`^[A-Za-z0-9_:.-]{1,200}$`)
	roleRE  = regexp.MustCompile(`^(note|doc-noteref|doc-endnotes|doc-backlink|group|region)$`)
	typeRE  = regexp.MustCompile(`^(radio|checkbox)$`)
	alignRE = regexp.MustCompile(`^(left|center|right)$`)
	numRE   = regexp.MustCompile(`^[0-9]{1,9}$`)
	zeroRE  = regexp.MustCompile(`^0$`)
	emptyRE = regexp.MustCompile(`^(|checked|disabled|open)$`)
	taskRE  = regexp.MustCompile(`^(Done|Not done)$`)
)

func newPolicy() *bluemonday.Policy {
	p := bluemonday.NewPolicy()
	p.AllowStandardURLs() // http, https, mailto; relative; parseable
	p.AllowURLSchemes("http", "https", "mailto")
	p.AllowRelativeURLs(true)
	p.RequireNoFollowOnLinks(false) // AllowStandardURLs sets it; links between docs pages must stay followable

	p.AllowElements("p", "br", "hr", "h1", "h2", "h3", "h4", "h5", "h6", "blockquote", "pre", "code",
		"em", "strong", "b", "i", "u", "del", "s", "ins", "sub", "sup", "kbd", "mark", "small", "abbr",
		"ul", "ol", "li", "dl", "dt", "dd", "table", "thead", "tbody", "tfoot", "tr", "th", "td", "caption",
		"div", "span", "section", "aside", "details", "summary", "figure", "figcaption", "label", "input", "a", "img")
	p.AllowAttrs("href", "title").OnElements("a")
	p.AllowAttrs("src", "alt", "title").OnElements("img")
	p.AllowAttrs("width", "height").Matching(numRE).OnElements("img")
	p.AllowAttrs("title").OnElements("abbr")
	p.AllowAttrs("class").Matching(classRE).Globally()
	p.AllowAttrs("id").Matching(idRE).Globally()
	p.AllowAttrs("role").Matching(roleRE).Globally()
	p.AllowAttrs("type").Matching(typeRE).OnElements("input")
	p.AllowAttrs("name").Matching(idRE).OnElements("input")
	p.AllowAttrs("checked", "disabled").Matching(emptyRE).OnElements("input")
	p.AllowAttrs("aria-label").Matching(taskRE).OnElements("input")
	p.AllowAttrs("for").Matching(idRE).OnElements("label")
	p.AllowAttrs("align").Matching(alignRE).OnElements("th", "td")
	p.AllowAttrs("start").Matching(numRE).OnElements("ol")
	p.AllowAttrs("open").Matching(emptyRE).OnElements("details")
	p.AllowAttrs("tabindex").Matching(zeroRE).OnElements("pre")
	return p
}

// Sanitize cleans an HTML fragment with RenderHTML's policy (above), for
// callers that build HTML of their own from what authors wrote.
func Sanitize(h string) string { return booleanAttrs.Replace(policy.Sanitize(h)) }

// booleanAttrs writes the boolean attributes the policy lets through
// without the empty value bluemonday gives them (checked="" is valid, but
// validators of HTML5 style flag it). Quotes in text and attribute values
// leave the sanitizer escaped, so these strings only match attributes.
var booleanAttrs = strings.NewReplacer(` checked=""`, ` checked`, ` disabled=""`, ` disabled`, ` open=""`, ` open`)
