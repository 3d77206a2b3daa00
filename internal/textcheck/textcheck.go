// Package textcheck decides which strings Folio accepts as text: valid
// UTF-8 without NUL characters. PostgreSQL refuses both in text columns
// (where SQLite would store them), and neither belongs in a title, a
// markdown body or an identifier, so both APIs refuse them at the boundary,
// naming the field, before any rule or query sees them.
package textcheck

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Problem says why s is not acceptable text ("contains a NUL character",
// "is not valid UTF-8"), or "" when it is.
func Problem(s string) string {
	if strings.IndexByte(s, 0) >= 0 {
		return "contains a NUL character"
	}
	if !utf8.ValidString(s) {
		return "is not valid UTF-8"
	}
	return ""
}

// Finding is the first unacceptable string of a JSON document: Path is its
// place in JSON-path spelling (`title`, `changes[0].document.markdown`,
// `values.tier.value`; empty for the document itself) and Problem says what
// is wrong with it.
type Finding struct {
	Path    string
	Problem string
}

// JSON finds the first string (value or key) of doc that is not acceptable
// text, looking at the raw bytes, since encoding/json silently turns both
// invalid UTF-8 and escaped lone UTF-16 surrogates ("\ud800") into U+FFFD.
// A lone surrogate counts as invalid UTF-8: it encodes no character, and
// accepting it would store a replacement character the client never sent.
// It returns nil for acceptable documents and for malformed ones whose
// syntax error the JSON decoder reports better (a raw NUL inside a string,
// which is a syntax error too, is still named by its path).
//
// The cost is one scan of doc; only documents holding a NUL, a byte that is
// not UTF-8 or a suspicious \u escape pay for a token walk, which is linear.
func JSON(doc []byte) *Finding {
	if !suspicious(doc) {
		return nil
	}
	return walk(doc)
}

// suspicious reports whether doc may hold an unacceptable string: a raw NUL
// or invalid UTF-8, or a \u escape of NUL or of a surrogate.
func suspicious(doc []byte) bool {
	if bytes.IndexByte(doc, 0) >= 0 || !utf8.Valid(doc) {
		return true
	}
	for i := bytes.Index(doc, []byte(`\u`)); i >= 0; {
		if hex := doc[i+2:]; len(hex) >= 4 {
			if string(hex[:4]) == "0000" || hex[0] == 'd' || hex[0] == 'D' {
				return true
			}
		}
		next := bytes.Index(doc[i+2:], []byte(`\u`))
		if next < 0 {
			break
		}
		i += 2 + next
	}
	return false
}

// frame is one open array or object of the walk.
type frame struct {
	array    bool
	index    int    // arrays: the index of the next element
	key      string // objects: the key whose value comes next
	valueDue bool   // objects: a key was read, its value comes next
}

func walk(doc []byte) *Finding {
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.UseNumber()
	var stack []frame
	// path spells the place of the value about to be read.
	path := func(withPending bool) string {
		var b strings.Builder
		for i, f := range stack {
			last := i == len(stack)-1
			switch {
			case f.array && (!last || withPending):
				b.WriteString("[" + strconv.Itoa(f.index) + "]")
			case !f.array && f.valueDue && (!last || withPending):
				if b.Len() > 0 {
					b.WriteByte('.')
				}
				b.WriteString(f.key)
			}
		}
		return b.String()
	}
	// advance moves past a value that was just read in full.
	advance := func() {
		if len(stack) == 0 {
			return
		}
		f := &stack[len(stack)-1]
		if f.array {
			f.index++
		} else {
			f.valueDue = false
		}
	}
	for {
		start := dec.InputOffset()
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			// A raw control character inside a string is a syntax
			// error; a raw NUL is worth naming by where it stands.
			var syn *json.SyntaxError
			if errors.As(err, &syn) && strings.Contains(syn.Error(), `'\x00'`) {
				return &Finding{Path: path(true), Problem: "contains a NUL character"}
			}
			return nil
		}
		raw := doc[start:dec.InputOffset()]
		switch t := tok.(type) {
		case json.Delim:
			switch t {
			case '{':
				stack = append(stack, frame{})
			case '[':
				stack = append(stack, frame{array: true})
			default:
				stack = stack[:len(stack)-1]
				advance()
			}
		case string:
			isKey := len(stack) > 0 && !stack[len(stack)-1].array && !stack[len(stack)-1].valueDue
			problem := stringProblem(t, raw)
			if isKey {
				if problem != "" {
					return &Finding{Path: path(false), Problem: "has a key that " + problem}
				}
				stack[len(stack)-1].key = t
				stack[len(stack)-1].valueDue = true
				continue
			}
			if problem != "" {
				return &Finding{Path: path(true), Problem: problem}
			}
			advance()
		default:
			advance()
		}
	}
}

// stringProblem judges one decoded string token by its text and by its raw
// bytes (which may carry separators before the quote: they are ASCII).
func stringProblem(s string, raw []byte) string {
	if strings.IndexByte(s, 0) >= 0 {
		return "contains a NUL character"
	}
	if !utf8.Valid(raw) {
		return "is not valid UTF-8"
	}
	if loneSurrogate(raw) {
		return "is not valid UTF-8: it escapes a lone UTF-16 surrogate"
	}
	return ""
}

// loneSurrogate reports whether the escapes of a raw JSON string hold a
// surrogate that is not half of a high-low pair.
func loneSurrogate(raw []byte) bool {
	for i := 0; i < len(raw); i++ {
		if raw[i] != '\\' {
			continue
		}
		i++ // the escaped character
		if i >= len(raw) || raw[i] != 'u' {
			continue
		}
		r, ok := hex4(raw, i+1)
		if !ok {
			continue
		}
		i += 4
		switch {
		case r >= 0xDC00 && r <= 0xDFFF:
			return true
		case r >= 0xD800 && r <= 0xDBFF:
			if i+6 < len(raw) && raw[i+1] == '\\' && raw[i+2] == 'u' {
				if lo, ok := hex4(raw, i+3); ok && lo >= 0xDC00 && lo <= 0xDFFF {
					i += 6
					continue
				}
			}
			return true
		}
	}
	return false
}

func hex4(b []byte, at int) (rune, bool) {
	if at+4 > len(b) {
		return 0, false
	}
	n, err := strconv.ParseUint(string(b[at:at+4]), 16, 16)
	return rune(n), err == nil
}
