package merge

import "strings"

// Lines merges three versions of a text line by line (diff3). Non-overlapping
// changes from both sides are combined; identical changes on both sides are
// taken once; overlapping different changes are a conflict, and ok is false
// (merged is then "").
//
// Lines: the text is split at "\n". A "\r" before the "\n" stays part of the
// line, so CRLF texts merge as CRLF, and turning a line's CRLF into LF is a
// change to that line like any other.
//
// Trailing newline: whether the text ends with "\n" is merged as its own
// three-way property, apart from the lines: it takes the side that changed it
// (both sides can only have changed it the same way), so adding or removing
// the final newline never conflicts with an edit elsewhere, and appending a
// line to a text without a final newline does not touch the last line. An
// empty merge is "" whatever the property says.
//
// Adjacency: two changes are independent only when at least one base line
// that neither side touched lies between them. Changes to adjacent lines, an
// insertion right before or after a line the other side changed, and two
// insertions at the same place are one region; the region conflicts unless
// one side left it alone or both sides made it read the same.
func Lines(base, ours, theirs string) (merged string, ok bool) {
	switch {
	case ours == theirs, theirs == base:
		return ours, true
	case ours == base:
		return theirs, true
	}
	return mergeLines(base, ours, theirs)
}

// text is a text split into lines (without their "\n") and whether it ended
// with "\n".
type text struct {
	lines []string
	nl    bool
}

func split(s string) text {
	if s == "" {
		return text{}
	}
	lines := strings.Split(s, "\n")
	if lines[len(lines)-1] == "" {
		return text{lines: lines[:len(lines)-1], nl: true}
	}
	return text{lines: lines}
}

func (t text) String() string {
	if len(t.lines) == 0 {
		return ""
	}
	s := strings.Join(t.lines, "\n")
	if t.nl {
		s += "\n"
	}
	return s
}

// mergeLines is Lines without the shortcuts for unchanged sides (the fuzz
// test checks that the general path agrees with them).
func mergeLines(base, ours, theirs string) (string, bool) {
	b, o, t := split(base), split(ours), split(theirs)
	intern := make(map[string]int, len(b.lines)+len(o.lines)/8+len(t.lines)/8)
	ids := func(lines []string) []int {
		out := make([]int, len(lines))
		for i, l := range lines {
			id, seen := intern[l]
			if !seen {
				id = len(intern)
				intern[l] = id
			}
			out[i] = id
		}
		return out
	}
	bi, oi, ti := ids(b.lines), ids(o.lines), ids(t.lines)
	regions, ok := merge3(bi, oi, ti)
	if !ok {
		return "", false
	}
	out := text{lines: make([]string, 0, max(len(o.lines), len(t.lines)))}
	for _, r := range regions {
		switch r.from {
		case fromBase:
			out.lines = append(out.lines, b.lines[r.lo:r.hi]...)
		case fromOurs:
			out.lines = append(out.lines, o.lines[r.lo:r.hi]...)
		case fromTheirs:
			out.lines = append(out.lines, t.lines[r.lo:r.hi]...)
		}
	}
	out.nl = t.nl
	if o.nl != b.nl {
		out.nl = o.nl
	}
	return out.String(), true
}

const (
	fromBase = iota
	fromOurs
	fromTheirs
)

// span is a run of the merged sequence: side[lo:hi] of the side it comes from.
type span struct{ from, lo, hi int }

// merge3 is diff3 on interned sequences: it returns the merged sequence as
// spans of base, ours and theirs, or ok=false when some region was changed
// differently on both sides.
func merge3(base, ours, theirs []int) (spans []span, ok bool) {
	ho := hunks(match(base, ours), len(ours))
	ht := hunks(match(base, theirs), len(theirs))
	var (
		io, it   int // next hunk of each side
		dO, dT   int // side index minus base index after the hunks consumed so far
		baseNext int // first base element not yet emitted
	)
	for io < len(ho) || it < len(ht) {
		// The region starts at the earliest pending hunk and absorbs every
		// hunk of either side that overlaps or touches it.
		lo := -1
		if io < len(ho) {
			lo = ho[io].a0
		}
		if it < len(ht) && (lo < 0 || ht[it].a0 < lo) {
			lo = ht[it].a0
		}
		hi := lo
		oStart, tStart := lo+dO, lo+dT
		usedO, usedT := false, false
	absorb:
		for {
			switch {
			case io < len(ho) && ho[io].a0 <= hi:
				hi = max(hi, ho[io].a1)
				dO = ho[io].b1 - ho[io].a1
				usedO = true
				io++
			case it < len(ht) && ht[it].a0 <= hi:
				hi = max(hi, ht[it].a1)
				dT = ht[it].b1 - ht[it].a1
				usedT = true
				it++
			default:
				break absorb
			}
		}
		if baseNext < lo {
			spans = append(spans, span{fromBase, baseNext, lo})
		}
		baseNext = hi
		oEnd, tEnd := hi+dO, hi+dT
		switch {
		case !usedT:
			spans = append(spans, span{fromOurs, oStart, oEnd})
		case !usedO:
			spans = append(spans, span{fromTheirs, tStart, tEnd})
		case equalInts(ours[oStart:oEnd], theirs[tStart:tEnd]):
			spans = append(spans, span{fromOurs, oStart, oEnd})
		default:
			return nil, false
		}
	}
	if baseNext < len(base) {
		spans = append(spans, span{fromBase, baseNext, len(base)})
	}
	return spans, true
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
