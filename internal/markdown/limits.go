package markdown

import (
	"fmt"
	"strings"
)

// Bounds of a page's markdown. goldmark spends, on every line, time
// proportional to the line's length for each container (list item, block
// quote) open on it, so a line of 100,000 nested "- " markers costs 10^10
// steps. Bounding the nesting makes that work depth x length: linear.
const (
	// MaxBytes is the largest page body accepted for storage.
	MaxBytes = 1 << 20
	// MaxNesting is the deepest nesting of list items and block quotes
	// accepted for storage; documents written by people stay under 10.
	MaxNesting = 32
)

// LimitError says why a markdown text may not be stored.
type LimitError struct {
	Line    int // 1-based line of the text as given; 0 for its size
	Message string
}

func (e *LimitError) Error() string { return e.Message }

// Check reports whether markdown is within MaxBytes, MaxNesting and
// MaxTableCells (a *LimitError when it is not). It reads the text a line at a
// time, without parsing it: call it before storing a body, where it is still
// cheap to refuse.
func Check(src string) error {
	if len(src) > MaxBytes {
		return &LimitError{Message: fmt.Sprintf("must be at most %d bytes (1 MB), not %d", MaxBytes, len(src))}
	}
	fm := splitFrontmatter(normalize(src))
	if _, depth, line := bound(fm.body, MaxNesting); line > 0 {
		line += fm.bodyLine - 1
		return &LimitError{Line: line, Message: fmt.Sprintf(
			"nests lists and block quotes %d levels deep at line %d; at most %d levels are allowed", depth, line, MaxNesting)}
	}
	if _, t := boundTables(fm.body, MaxTableCells); t.line > 0 {
		line := t.line + fm.bodyLine - 1
		return &LimitError{Line: line, Message: fmt.Sprintf(
			"has a table of %d columns by %d rows at line %d, bringing its tables to %d cells; at most %d table cells are allowed",
			t.columns, t.rows, line, t.cells, MaxTableCells)}
	}
	return nil
}

// container is a list item or block quote open while scanning.
type container struct {
	quote bool
	// List items: the columns from where the item's line started (after
	// its parents' markers) to its content. Relative, as goldmark counts:
	// a parent block quote's marker may sit at another column on the next
	// line.
	indent int
}

// bound scans a normalised body as CommonMark opens and continues its
// containers, closely enough never to count fewer than goldmark opens, and
// returns the body with the marker of every container beyond limit
// escaped (a backslash before it, so the rest of its line is text), the
// depth first found beyond the bound and its line (0 when within bounds).
// The escape adds no line, so line numbers keep their meaning. Linear: at
// most limit+1 containers are looked at per line.
func bound(src string, limit int) (out string, depth, firstLine int) {
	var (
		stack    []container
		para     bool // a paragraph is open (lines may continue it lazily)
		fence    byte // the open code fence's character, 0 when none
		fenceLen int
		fenceAt  int // containers the fence is inside
		// An open HTML block: code fences are not fences inside it.
		html      bool
		htmlEnd   string // what ends it (lower case); "" for a blank line
		htmlAt    int    // containers it is inside
		b         strings.Builder
		copied    int // bytes of src already in b
		lineStart int
	)
	escape := func(at int) {
		if b.Len() == 0 && copied == 0 {
			b.Grow(len(src) + 64)
		}
		b.WriteString(src[copied:at])
		b.WriteByte('\\')
		copied = at
	}
	for lineNo := 1; lineStart <= len(src); lineNo++ {
		end := strings.IndexByte(src[lineStart:], '\n')
		if end < 0 {
			end = len(src)
		} else {
			end += lineStart
		}
		line := src[lineStart:end]
		lineOff := lineStart
		lineStart = end + 1

		// Continue the open containers.
		pos, col := 0, 0
		matched := 0
		blank := strings.TrimLeft(line, " \t") == ""
		for _, c := range stack {
			if c.quote {
				p, cl := skipSpaces(line, pos, col, col+3)
				if p < len(line) && line[p] == '>' {
					pos, col = skipSpaces(line, p+1, cl+1, cl+2)
					matched++
					continue
				}
				break
			}
			if blank {
				matched++
				continue
			}
			p, cl := skipSpaces(line, pos, col, col+c.indent)
			if cl-col < c.indent {
				break
			}
			pos, col = p, cl
			matched++
		}
		if fence != 0 {
			if matched >= fenceAt {
				if isFenceClose(line[pos:], fence, fenceLen) {
					fence = 0
				}
				continue
			}
			fence = 0 // its container ended
		}
		if html && (matched < htmlAt || (htmlEnd == "" && blank)) {
			html = false
		}
		inHTML := html
		if html && htmlEnd != "" && strings.Contains(strings.ToLower(line), htmlEnd) {
			html = false
		}
		if matched < len(stack) {
			if para && !blank && !startsBlock(line, pos, col) {
				// A lazy continuation line: every container stays open. It
				// may instead start an HTML block, in which fences are no
				// fences: assume it does (fewer fences, more counting).
				if rest := strings.TrimLeft(line[pos:], " \t"); !html && strings.HasPrefix(rest, "<") {
					if end, ok := htmlStart(rest); ok {
						html, htmlEnd, htmlAt = true, end, matched
					}
				}
				continue
			}
			stack = stack[:matched]
		}
		if blank {
			para = false
			continue
		}
		// Open new containers.
		indented := false // the rest is indented code or continuation text
		inPara := para    // the line may continue a paragraph (until it opens a container)
		loose := false    // it opened an item that may be paragraph text instead
		for {
			start := col
			p, cl := skipSpaces(line, pos, col, 1<<30)
			if p >= len(line) {
				break
			}
			// Indented code, or text continuing a paragraph. Tabs are left
			// out: goldmark splits them in ways this scan does not follow,
			// and counting a container too many is the safe side.
			if cl-col >= 4 {
				indented = true // not a fence, whatever follows
				if !strings.Contains(line[pos:p], "\t") {
					break
				}
			}
			ch := line[p]
			var next, markAt int // position after the marker; where its escape goes
			switch {
			case ch == '>':
				next, markAt = p+1, p
			case ch == '-' || ch == '+' || ch == '*':
				if (ch == '-' || ch == '*') && isBreakLine(line[p:], ch) {
					next = -1
					break
				}
				next, markAt = p+1, p
			case ch >= '0' && ch <= '9':
				q := p
				for q < len(line) && q-p < 10 && line[q] >= '0' && line[q] <= '9' {
					q++
				}
				if q-p <= 9 && q < len(line) && (line[q] == '.' || line[q] == ')') {
					next, markAt = q+1, q
				} else {
					next = -1
				}
			default:
				next = -1
			}
			if next > 0 && ch != '>' && next < len(line) && line[next] != ' ' && line[next] != '\t' {
				next = -1 // "-x", "1.x": no list marker
			}
			if next < 0 {
				break
			}
			// Only a list starting at 1 interrupts a paragraph (CommonMark
			// 5.3). The scan opens the item anyway (one container too many
			// is the safe side), but what follows on the line may be
			// paragraph text: no fence is seen there.
			if inPara && ch >= '0' && ch <= '9' && strings.TrimLeft(line[p:markAt], "0") != "1" {
				loose = true
			}
			if len(stack) >= limit {
				if firstLine == 0 {
					depth, firstLine = len(stack)+1, lineNo
				}
				escape(lineOff + markAt)
				para = true
				break
			}
			inPara = false
			markCol := cl + (next - p)
			if ch == '>' {
				stack = append(stack, container{quote: true})
				pos, col = skipSpaces(line, next, markCol, markCol+1)
				continue
			}
			// The content of a list item starts after 1-4 spaces, or one
			// column after the marker when more follow or none.
			sp, scl := skipSpaces(line, next, markCol, 1<<30)
			indent := scl
			if sp >= len(line) || scl-markCol > 4 {
				indent = markCol + 1
				sp, scl = skipSpaces(line, next, markCol, markCol+1)
			}
			stack = append(stack, container{indent: indent - start})
			pos, col = sp, scl
		}
		rest := strings.TrimLeft(line[pos:], " \t")
		switch {
		case indented || inHTML || loose:
			// An indented "```", or one in HTML, is not a fence: the lines
			// after it are counted as usual.
		case rest == "":
			para = false
		case rest[0] == '<':
			if end, ok := htmlStart(rest); ok {
				html, htmlEnd, htmlAt = true, end, len(stack)
				if end != "" && strings.Contains(strings.ToLower(rest[1:]), end) {
					html = false
				}
			}
			para = true
		case isFenceOpen(rest):
			fence, fenceAt, para = rest[0], len(stack), false
			fenceLen = len(rest) - len(strings.TrimLeft(rest, rest[:1]))
		case rest[0] == '#':
			para = false
		default:
			para = true
		}
	}
	if copied == 0 {
		return src, depth, firstLine
	}
	b.WriteString(src[copied:])
	return b.String(), depth, firstLine
}

// skipSpaces advances over spaces and tabs from pos (at column col) until
// the column reaches limit; tabs stop at multiples of 4. Like goldmark, it
// may take part of a tab: col then lies inside the tab at pos, and the next
// call takes the rest.
func skipSpaces(line string, pos, col, limit int) (int, int) {
	for pos < len(line) && col < limit {
		switch line[pos] {
		case ' ':
			pos, col = pos+1, col+1
		case '\t':
			end := (col/4 + 1) * 4
			if end > limit {
				return pos, limit
			}
			pos, col = pos+1, end
		default:
			return pos, col
		}
	}
	return pos, col
}

// startsBlock reports whether the rest of a line from pos opens a block that
// ends a paragraph (so the line cannot continue one lazily).
func startsBlock(line string, pos, col int) bool {
	p, cl := skipSpaces(line, pos, col, 1<<30)
	if p >= len(line) || cl-col >= 4 {
		return false
	}
	rest := line[p:]
	switch c := rest[0]; {
	case c == '>' || c == '#':
		return true
	case c == '-' || c == '+' || c == '*':
		return len(rest) == 1 || rest[1] == ' ' || rest[1] == '\t' || isBreakLine(rest, c)
	case c == '_':
		return isBreakLine(rest, c)
	case c == '`' || c == '~':
		return isFenceOpen(rest)
	case c >= '0' && c <= '9':
		q := 0
		for q < len(rest) && rest[q] >= '0' && rest[q] <= '9' {
			q++
		}
		return q <= 9 && q < len(rest) && (rest[q] == '.' || rest[q] == ')') && (q+1 == len(rest) || rest[q+1] == ' ' || rest[q+1] == '\t')
	}
	return false
}

// isBreakLine reports whether s is a thematic break of character c: three or
// more of it, with spaces and tabs only between.
func isBreakLine(s string, c byte) bool {
	n := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case c:
			n++
		case ' ', '\t':
		default:
			return false
		}
	}
	return n >= 3
}

// isFenceClose reports whether a line closes a code fence of at least n
// characters c.
func isFenceClose(line string, c byte, n int) bool {
	s := strings.TrimLeft(line, " ")
	if len(line)-len(s) > 3 {
		return false
	}
	run := len(s) - len(strings.TrimLeft(s, string(c)))
	return run >= n && strings.TrimSpace(s[run:]) == ""
}

// isFenceOpen reports whether a line (without its indentation) opens a code
// fence: three or more backticks or tildes, and for backticks an info string
// without backticks (else the line is text with a code span).
func isFenceOpen(rest string) bool {
	if !strings.HasPrefix(rest, "```") && !strings.HasPrefix(rest, "~~~") {
		return false
	}
	return rest[0] == '~' || !strings.Contains(strings.TrimLeft(rest, "`"), "`")
}

// htmlStart reports whether a line (without its indentation) may start an
// HTML block, and what ends the block: its closing marker (lower case), or
// "" when a blank line does. It answers yes for more lines than CommonMark
// (any tag-like start): that only keeps fences from being seen, so the
// scan counts more containers, never fewer.
func htmlStart(rest string) (end string, ok bool) {
	if len(rest) < 2 {
		return "", false
	}
	lower := strings.ToLower(rest)
	for _, tag := range []string{"script", "pre", "style", "textarea"} {
		if strings.HasPrefix(lower[1:], tag) {
			if len(lower) == len(tag)+1 || strings.ContainsRune(" \t>", rune(lower[len(tag)+1])) {
				return "</" + tag + ">", true
			}
		}
	}
	switch c := lower[1]; {
	case strings.HasPrefix(lower, "<!--"):
		return "-->", true
	case c == '?':
		return "?>", true
	case strings.HasPrefix(lower, "<![cdata["):
		return "]]>", true
	case c == '!' && len(lower) > 2 && lower[2] >= 'a' && lower[2] <= 'z':
		return ">", true
	case c == '/' || (c >= 'a' && c <= 'z'):
		return "", true
	}
	return "", false
}

// maxLinkOpens bounds the inline links goldmark tries per stretch of text.
// For each "](" it reads the destination up to the next white space (or,
// for "<", up to the next ">" on the line), so a line of "[a](b[a](b..."
// costs links x length. Past this many in one stretch without white space
// (or "](<" on one line), the "(" is escaped and read as text.
const maxLinkOpens = 64

// boundLinks escapes the link openings beyond maxLinkOpens (see above),
// adding bytes but no line.
func boundLinks(src string) string {
	if strings.Count(src, "](") <= maxLinkOpens {
		return src
	}
	var b strings.Builder
	copied, run, angles := 0, 0, 0
	for i := 0; i+1 < len(src); i++ {
		switch src[i] {
		case '\n':
			run, angles = 0, 0
		case ' ', '\t':
			run = 0
		case ']':
			if src[i+1] != '(' {
				continue
			}
			run++
			angle := i+2 < len(src) && src[i+2] == '<'
			if angle {
				angles++
			}
			if run > maxLinkOpens || (angle && angles > maxLinkOpens) {
				if b.Len() == 0 {
					b.Grow(len(src) + len(src)/16)
				}
				b.WriteString(src[copied : i+1])
				b.WriteByte('\\')
				copied = i + 1
			}
		}
	}
	if copied == 0 {
		return src
	}
	b.WriteString(src[copied:])
	return b.String()
}
