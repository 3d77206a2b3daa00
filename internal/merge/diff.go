package merge

// This file holds the sequence diff both merges are built on: Myers' O(ND)
// algorithm in its linear-space form (bisect at the middle snake, recurse on
// both halves), after stripping the common prefix and suffix. Sequences are
// slices of ints (lines and page IDs are interned first), so comparing two
// elements is one integer comparison.
//
// The search for the middle snake follows the well-tested shape of
// diff-match-patch's bisect: diagonals that run off the edit graph are
// dropped from the sweep, so no out-of-grid point is ever taken for an overlap.

// match computes a longest common subsequence of a and b and returns, for
// every index i of a, the index in b it is matched with, or -1. Matched
// indexes are strictly increasing.
//
// Elements must be non-negative (they are interned IDs). Elements that never
// occur in the other sequence cannot be part of any common subsequence; they
// are dropped before the diff, which keeps it fast when the two sides were
// largely rewritten.
func match(a, b []int) []int {
	m := make([]int, len(a))
	for i := range m {
		m[i] = -1
	}
	// Common prefix and suffix first: cheap, and usually most of a page.
	lo := 0
	for lo < len(a) && lo < len(b) && a[lo] == b[lo] {
		m[lo] = lo
		lo++
	}
	ahi, bhi := len(a), len(b)
	for ahi > lo && bhi > lo && a[ahi-1] == b[bhi-1] {
		ahi--
		bhi--
		m[ahi] = bhi
	}
	// Elements are small non-negative ints (interned), so sets are slices.
	top := 0
	for _, x := range a[lo:ahi] {
		top = max(top, x+1)
	}
	for _, x := range b[lo:bhi] {
		top = max(top, x+1)
	}
	inA, inB := make([]bool, top), make([]bool, top)
	for _, x := range a[lo:ahi] {
		inA[x] = true
	}
	for _, x := range b[lo:bhi] {
		inB[x] = true
	}
	var ai, bi []int // kept indexes
	var ak, bk []int // kept values
	for i := lo; i < ahi; i++ {
		if inB[a[i]] {
			ai, ak = append(ai, i), append(ak, a[i])
		}
	}
	for j := lo; j < bhi; j++ {
		if inA[b[j]] {
			bi, bk = append(bi, j), append(bk, b[j])
		}
	}
	km := make([]int, len(ak))
	for i := range km {
		km[i] = -1
	}
	d := differ{a: ak, b: bk, m: km}
	d.compare(0, len(ak), 0, len(bk))
	for i, j := range km {
		if j >= 0 {
			m[ai[i]] = bi[j]
		}
	}
	return m
}

type differ struct {
	a, b   []int
	m      []int
	vf, vb []int // scratch for bisect, grown as needed
}

func (d *differ) compare(aLo, aHi, bLo, bHi int) {
	for aLo < aHi && bLo < bHi && d.a[aLo] == d.b[bLo] {
		d.m[aLo] = bLo
		aLo++
		bLo++
	}
	for aLo < aHi && bLo < bHi && d.a[aHi-1] == d.b[bHi-1] {
		aHi--
		bHi--
		d.m[aHi] = bHi
	}
	if aLo == aHi || bLo == bHi {
		return
	}
	x, y, ok := d.bisect(aLo, aHi, bLo, bHi)
	if !ok || (x == aLo && y == bLo) || (x == aHi && y == bHi) {
		// Nothing in common: everything is a change. (A split at a corner
		// cannot happen for trimmed ranges; refusing it guarantees progress.)
		return
	}
	d.compare(aLo, x, bLo, y)
	d.compare(x, aHi, y, bHi)
}

// bisect finds a point (x, y) on an optimal edit path through the sub-grid,
// strictly inside it so both halves are smaller problems. ok is false when
// the two ranges have nothing in common.
func (d *differ) bisect(aLo, aHi, bLo, bHi int) (x, y int, ok bool) {
	n, m := aHi-aLo, bHi-bLo
	maxD := (n + m + 1) / 2
	vOff := maxD
	vLen := 2*maxD + 2
	if cap(d.vf) < vLen {
		d.vf = make([]int, vLen)
		d.vb = make([]int, vLen)
	}
	vf, vb := d.vf[:vLen], d.vb[:vLen]
	for i := range vf {
		vf[i] = -1
		vb[i] = -1
	}
	vf[vOff+1] = 0
	vb[vOff+1] = 0
	delta := n - m
	front := delta%2 != 0 // the forward sweep finds the overlap when delta is odd
	k1start, k1end, k2start, k2end := 0, 0, 0, 0
	a, b := d.a, d.b
	for step := 0; step < maxD; step++ {
		for k1 := -step + k1start; k1 <= step-k1end; k1 += 2 {
			k1Off := vOff + k1
			var x1 int
			if k1 == -step || (k1 != step && vf[k1Off-1] < vf[k1Off+1]) {
				x1 = vf[k1Off+1]
			} else {
				x1 = vf[k1Off-1] + 1
			}
			y1 := x1 - k1
			for x1 < n && y1 < m && a[aLo+x1] == b[bLo+y1] {
				x1++
				y1++
			}
			vf[k1Off] = x1
			switch {
			case x1 > n:
				k1end += 2
			case y1 > m:
				k1start += 2
			case front:
				k2Off := vOff + delta - k1
				if k2Off >= 0 && k2Off < vLen && vb[k2Off] != -1 {
					if x1 >= n-vb[k2Off] {
						return aLo + x1, bLo + y1, true
					}
				}
			}
		}
		for k2 := -step + k2start; k2 <= step-k2end; k2 += 2 {
			k2Off := vOff + k2
			var x2 int
			if k2 == -step || (k2 != step && vb[k2Off-1] < vb[k2Off+1]) {
				x2 = vb[k2Off+1]
			} else {
				x2 = vb[k2Off-1] + 1
			}
			y2 := x2 - k2
			for x2 < n && y2 < m && a[aHi-1-x2] == b[bHi-1-y2] {
				x2++
				y2++
			}
			vb[k2Off] = x2
			switch {
			case x2 > n:
				k2end += 2
			case y2 > m:
				k2start += 2
			case !front:
				k1Off := vOff + delta - k2
				if k1Off >= 0 && k1Off < vLen && vf[k1Off] != -1 {
					x1 := vf[k1Off]
					y1 := vOff + x1 - k1Off
					if x1 >= n-x2 {
						return aLo + x1, bLo + y1, true
					}
				}
			}
		}
	}
	return 0, 0, false
}

// hunk is one change between a base sequence and a side: base[a0:a1] became
// side[b0:b1]. Either range may be empty (insertion, deletion).
type hunk struct{ a0, a1, b0, b1 int }

// hunks turns a match (from match) into the list of changes, in order.
// Between two hunks of the same side there is always at least one matched
// element.
func hunks(m []int, nb int) []hunk {
	var out []hunk
	pi, pj := 0, 0
	for i := 0; i <= len(m); i++ {
		var j int
		if i == len(m) {
			j = nb
		} else if m[i] < 0 {
			continue
		} else {
			j = m[i]
		}
		if i > pi || j > pj {
			out = append(out, hunk{pi, i, pj, j})
		}
		pi, pj = i+1, j+1
	}
	return out
}
