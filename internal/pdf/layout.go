package pdf

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"unicode/utf8"
)

// Bounds of one Render. Layout is linear in the text (each character is
// measured once; fpdf's Write re-decodes the whole string for each
// character, which made a 400 KB paragraph take minutes), and it stops
// between lines: once its context ends (the client left, the request's
// FOLIO_REQUEST_TIMEOUT ran out) or once it passes MaxPages.
const MaxPages = 500

// ErrTooManyPages is Render's answer for content that would print past
// MaxPages: nothing is printed.
var ErrTooManyPages = fmt.Errorf("the PDF would pass %d pages: print one page with its subpages, or a page alone", MaxPages)

// work counts the units Render has laid out in this process: lines of text
// (a wrapped paragraph counts one per printed line), table rows, pictures,
// dividers. Tests read it through Work to assert how much was done, not
// how long it took.
var work atomic.Int64

// Work is the number of units laid out by every Render so far.
func Work() int64 { return work.Load() }

// AfterUnit makes fn run (tests only) after each unit is counted, with the
// render's context: a test stops a render at a known unit with it. Restore
// puts back the hook before.
func AfterUnit(fn func(ctx context.Context)) (restore func()) {
	prev := afterUnit.Swap(&fn)
	return func() { afterUnit.Store(prev) }
}

var afterUnit atomic.Pointer[func(ctx context.Context)]

// next reports whether the next unit may be laid out, and counts it. Once
// the context ends or the pages pass MaxPages it answers false for good,
// and Render answers r.err.
func (r *renderer) next() bool {
	if r.err != nil {
		return false
	}
	if r.ctx.Err() != nil {
		r.err = context.Cause(r.ctx)
		return false
	}
	if r.doc.PageNo() > MaxPages {
		r.err = ErrTooManyPages
		return false
	}
	work.Add(1)
	if fn := afterUnit.Load(); fn != nil {
		(*fn)(r.ctx)
	}
	return true
}

// segment is text of one line in one font: src[from:to], w wide.
type segment struct {
	src      string
	from, to int
	cjk      bool
	w        float64
}

// flow lays text out from the current position, wrapping at the right
// margin (before a word that does not fit, anywhere in a word longer than
// a line, after any CJK character), switching fonts per run of script; it
// ends the line. Fill paints the lines' background (code).
func (r *renderer) flow(s string, bold, mono bool, size, h float64, fill bool) {
	s = r.tr(strings.ReplaceAll(s, "\r", ""))
	pageW, _ := r.doc.GetPageSize()
	left, _, right, _ := r.doc.GetMargins()
	edge := pageW - right - 2*r.doc.GetCellMargin()
	x := r.doc.GetX()
	var line []segment
	emit := func() {
		defer func() { line, x = line[:0], left }()
		if !r.next() {
			return
		}
		// Spaces at the end of a wrapped line are not printed.
		if n := len(line); n > 0 {
			last := &line[n-1]
			if t := strings.TrimRight(last.src[last.from:last.to], " "); len(t) < last.to-last.from {
				r.setFont(bold, mono, last.cjk, size)
				last.to, last.w = last.from+len(t), r.doc.GetStringWidth(t)
			}
		}
		for _, seg := range line {
			r.setFont(bold, mono, seg.cjk, size)
			r.doc.CellFormat(seg.w, h, seg.src[seg.from:seg.to], "", 0, "L", fill, 0, "")
		}
		if rest := pageW - right - r.doc.GetX(); fill && rest > 0 {
			r.doc.CellFormat(rest, h, "", "", 0, "", true, 0, "")
		}
		r.doc.Ln(h)
	}
	// add puts src[from:to] on the line, extending the line's last segment
	// when it is the text just before in the same font.
	add := func(src string, from, to int, cjk bool, w float64) {
		if n := len(line); n > 0 && line[n-1].src == src && line[n-1].to == from && line[n-1].cjk == cjk {
			line[n-1].to = to
			line[n-1].w += w
		} else {
			line = append(line, segment{src, from, to, cjk, w})
		}
		x += w
	}
	script := []run{{s, false}}
	if r.utf8 {
		script = runs(s)
	}
	for _, ru := range script {
		text, cjk := ru.text, ru.cjk
		r.setFont(bold, mono, cjk, size)
		tokens(text, r.utf8, func(from, to int) {
			if r.err != nil {
				return
			}
			if text[from:to] == "\n" {
				emit()
				return
			}
			word := strings.TrimRight(text[from:to], " ")
			ww := r.doc.GetStringWidth(word)
			if x+ww > edge && len(line) > 0 {
				emit()
				r.setFont(bold, mono, cjk, size)
				if word == "" {
					return // spaces at a break
				}
			}
			if x+ww <= edge {
				add(text, from, to, cjk, r.doc.GetStringWidth(text[from:to]))
				return
			}
			// A word longer than a line: break it where it reaches the edge.
			start, w := from, 0.0
			for i := from; i < to; {
				_, n := decode(text[i:], r.utf8)
				cw := r.doc.GetStringWidth(text[i : i+n])
				if x+w+cw > edge && i > start {
					add(text, start, i, cjk, w)
					emit()
					if r.err != nil {
						return
					}
					r.setFont(bold, mono, cjk, size)
					start, w = i, 0
				}
				w += cw
				i += n
			}
			add(text, start, to, cjk, w)
		})
	}
	if r.err == nil {
		emit()
	}
}

// tokens cuts s into the units lines break between, s[from:to] each: a
// word with the spaces after it, a single CJK character (lines may break
// after any), or "\n". It reads s once.
func tokens(s string, utf8Text bool, fn func(from, to int)) {
	start, inSpace := 0, false
	for i := 0; i < len(s); {
		c, n := decode(s[i:], utf8Text)
		switch {
		case c == '\n', utf8Text && isCJK(c):
			if start < i {
				fn(start, i)
			}
			fn(i, i+n)
			start, inSpace = i+n, false
		case c == ' ':
			inSpace = true
		case inSpace:
			fn(start, i)
			start, inSpace = i, false
		}
		i += n
	}
	if start < len(s) {
		fn(start, len(s))
	}
}

// decode reads one character: a rune of UTF-8 text, else a byte (the core
// fonts' cp1252).
func decode(s string, utf8Text bool) (rune, int) {
	if !utf8Text {
		return rune(s[0]), 1
	}
	return utf8.DecodeRuneInString(s)
}
