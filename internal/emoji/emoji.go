// Package emoji decides which strings Folio accepts as an emoji (comment
// reactions) and the one form each is stored in.
//
// The check is against Unicode's own emoji data: table.go is generated from
// emoji-test.txt of Unicode Emoji (see Version), committed in data/, by
// `go generate ./internal/emoji` (no network needed). An emoji is accepted
// in any form that file lists — fully-qualified, minimally-qualified or
// unqualified — given as its characters or as its code points in hex, and
// stored fully-qualified, so "❤", "❤️", "2764" and "2764-fe0f" are one
// reaction. Components alone (a skin tone, a hair style), a lone regional
// indicator, text-presentation sequences (U+FE0E) and anything else not in
// the file are refused.
package emoji

//go:generate go run ./gen -in data/emoji-test.txt -out table.go

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"
)

// MaxLen bounds the input in bytes before any parsing. The longest emoji of
// the data has 10 code points: 40 bytes as characters, 79 as "U+"-prefixed
// hex joined by "-".
const MaxLen = 128

// ErrInvalid matches (errors.Is) every error Normalize returns.
var ErrInvalid = errors.New("is not an emoji")

// invalidError's message is a predicate to put after the field's name
// ("addedReactions[0] is not an emoji of Unicode Emoji 17.0: \"abc\""), in
// the way of package textcheck.
type invalidError struct{ msg string }

func (e *invalidError) Error() string        { return e.msg }
func (e *invalidError) Is(target error) bool { return target == ErrInvalid }

// maxQuoted bounds the input echoed in a message: quoted, a tag sequence or
// control characters take up to ten bytes each.
const maxQuoted = 48

// quote is s quoted for a message, cut (with "…") past maxQuoted bytes.
func quote(s string) string {
	q := strconv.Quote(s)
	if len(q) <= maxQuoted {
		return q
	}
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(s); {
		_, size := utf8.DecodeRuneInString(s[i:])
		part := strconv.Quote(s[i : i+size])
		part = part[1 : len(part)-1]
		if b.Len()+len(part) > maxQuoted-len(`…"`) {
			break
		}
		b.WriteString(part)
		i += size
	}
	b.WriteString(`…"`)
	return b.String()
}

func invalid(format string, args ...any) error {
	return &invalidError{msg: fmt.Sprintf(format, args...)}
}

const (
	vs16 = '\uFE0F' // VARIATION SELECTOR-16: emoji presentation
	zwj  = '\u200D' // ZERO WIDTH JOINER
)

// Normalize returns the stored form of an emoji given as the character(s) or as code points in hex
// ("1f44d", sequences joined by "-" for skin tones, ZWJ sequences and flags), or an error if it is not
// an emoji of the pinned Unicode emoji data.
//
// The stored form is the fully-qualified sequence as UTF-8 characters. Hex
// is case-insensitive, each code point optionally prefixed "U+". U+FE0F is
// ignored for matching (a sequence with it missing or redundant still
// matches), but not first, doubled or after a joiner. The error message is a
// predicate to follow the field's name.
func Normalize(s string) (string, error) {
	if s == "" {
		return "", invalid("is empty: give an emoji as its character(s) or as code points in hex, such as 1f44d")
	}
	if len(s) > MaxLen {
		return "", invalid("is too long for an emoji (at most %d bytes)", MaxLen)
	}
	var cps []rune
	if isHexForm(s) {
		var err error
		if cps, err = parseHex(s); err != nil {
			return "", err
		}
	} else {
		if !utf8.ValidString(s) {
			return "", invalid("is not valid UTF-8")
		}
		cps = []rune(s)
	}
	key, ok := matchKey(cps)
	if ok {
		if stored, found := table()[key]; found {
			return stored, nil
		}
	}
	return "", invalid("is not an emoji of Unicode Emoji %s: %s (give the character(s) or code points in hex such as 1f44d or 1f1eb-1f1f7)", Version, quote(s))
}

// isHexForm tells code points in hex from characters: only ASCII hex digits,
// "-" and "U+" prefixes. No emoji is written with those characters alone
// (a digit alone is not an emoji; its keycap has U+20E3), so nothing is lost.
func isHexForm(s string) bool {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case '0' <= c && c <= '9', 'a' <= c && c <= 'f', 'A' <= c && c <= 'F', c == '-', c == 'u', c == 'U', c == '+':
		default:
			return false
		}
	}
	return true
}

func parseHex(s string) ([]rune, error) {
	parts := strings.Split(s, "-")
	cps := make([]rune, 0, len(parts))
	for _, p := range parts {
		digits := p
		if len(digits) >= 2 && (digits[0] == 'u' || digits[0] == 'U') && digits[1] == '+' {
			digits = digits[2:]
		}
		v, err := strconv.ParseUint(digits, 16, 32)
		if err != nil || len(digits) > 6 || !utf8.ValidRune(rune(v)) {
			return nil, invalid("is not code points in hex joined by \"-\": %s in %s", quote(p), quote(s))
		}
		cps = append(cps, rune(v))
	}
	return cps, nil
}

// matchKey is the sequence without U+FE0F, the key of table(); false when
// U+FE0F stands where no emoji has it (first, doubled, after a joiner).
func matchKey(cps []rune) (string, bool) {
	var b strings.Builder
	prev := rune(-1)
	for _, c := range cps {
		if c == vs16 {
			if prev == -1 || prev == vs16 || prev == zwj {
				return "", false
			}
		} else {
			b.WriteRune(c)
		}
		prev = c
	}
	return b.String(), b.Len() > 0
}

// table maps each emoji's sequence without U+FE0F to its fully-qualified
// form, built from fullyQualified on first use (about 4,000 entries).
var table = sync.OnceValue(func() map[string]string {
	lines := strings.Split(strings.TrimSpace(fullyQualified), "\n")
	m := make(map[string]string, len(lines))
	for _, line := range lines {
		var full []rune
		for _, f := range strings.Fields(line) {
			v, err := strconv.ParseUint(f, 16, 32)
			if err != nil {
				panic("emoji: bad generated table line " + strconv.Quote(line))
			}
			full = append(full, rune(v))
		}
		key, _ := matchKey(full)
		m[key] = string(full)
	}
	return m
})
