package markdown

import (
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

// maxSlug is the longest slug Slug makes.
const maxSlug = 100

// foldSpecial spells letters that Unicode decomposition does not reduce to
// ASCII (ß, æ, ø, ł...) the way people transliterate them.
var foldSpecial = map[rune]string{
	'ß': "ss", 'ẞ': "ss", 'æ': "ae", 'Æ': "ae", 'œ': "oe", 'Œ': "oe",
	'ø': "o", 'Ø': "o", 'đ': "d", 'Đ': "d", 'ð': "d", 'Ð': "d",
	'þ': "th", 'Þ': "th", 'ł': "l", 'Ł': "l", 'ı': "i", 'ħ': "h", 'Ħ': "h",
	'ŀ': "l", 'Ŀ': "l", 'ŧ': "t", 'Ŧ': "t", 'ŋ': "ng", 'Ŋ': "ng",
}

// Slug makes a URL path segment from a title: lower-case, ASCII letters/digits and '-', accents folded
// (é->e), other runs of characters collapse to one '-', trimmed of '-', at most 100 characters; "" becomes "page".
//
// Compatibility decomposition (NFKD) does the folding, so ligatures and
// full-width or superscript forms become their ASCII letters and digits too
// (ﬁ -> fi, ² -> 2). Letters of other scripts are not transliterated: a title
// with no Latin letters or digits gives "page".
func Slug(title string) string {
	var b strings.Builder
	gap := false
	add := func(s string) {
		if gap && b.Len() > 0 {
			b.WriteByte('-')
		}
		gap = false
		b.WriteString(s)
	}
	for _, r := range norm.NFKD.String(title) {
		if b.Len() > maxSlug {
			break
		}
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9':
			add(string(r))
		case r >= 'A' && r <= 'Z':
			add(string(r + ('a' - 'A')))
		case unicode.Is(unicode.Mn, r):
			// a combining accent: dropped without breaking the word
		default:
			if s, ok := foldSpecial[r]; ok {
				add(s)
			} else {
				gap = true
			}
		}
	}
	s := b.String()
	if len(s) > maxSlug {
		s = s[:maxSlug]
	}
	s = strings.Trim(s, "-")
	if s == "" {
		return "page"
	}
	return s
}
