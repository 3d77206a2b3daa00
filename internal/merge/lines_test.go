package merge

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"
	"time"
)

// l joins lines, each followed by "\n".
func l(lines ...string) string {
	if len(lines) == 0 {
		return ""
	}
	return strings.Join(lines, "\n") + "\n"
}

func TestLines(t *testing.T) {
	base := l("a", "b", "c", "d", "e")
	conflict := "\x00conflict"
	for _, c := range []struct {
		name               string
		base, ours, theirs string
		want               string // conflict: must not merge
	}{
		{"nothing changed", base, base, base, base},
		{"ours only", base, l("a", "B", "c", "d", "e"), base, l("a", "B", "c", "d", "e")},
		{"theirs only", base, base, l("a", "b", "c", "D", "e"), l("a", "b", "c", "D", "e")},
		{"disjoint edits", base, l("A", "b", "c", "d", "e"), l("a", "b", "c", "d", "E"), l("A", "b", "c", "d", "E")},
		{"edits one stable line apart", base, l("a", "B", "c", "d", "e"), l("a", "b", "c", "D", "e"), l("a", "B", "c", "D", "e")},
		{"same edit on both", base, l("a", "X", "c", "d", "e"), l("a", "X", "c", "d", "e"), l("a", "X", "c", "d", "e")},
		{"same edit on both plus a disjoint one", base, l("A", "b", "X", "d", "e"), l("a", "b", "X", "d", "E"), l("A", "b", "X", "d", "E")},
		{"same edit on both, one side also changed the line next to it", base, l("A", "X", "c", "d", "e"), l("a", "X", "c", "d", "e"), conflict},
		{"overlapping different edits", base, l("a", "X", "c", "d", "e"), l("a", "Y", "c", "d", "e"), conflict},
		{"edit overlaps a wider edit", base, l("a", "X", "c", "d", "e"), l("a", "Y", "Z", "d", "e"), conflict},
		{"adjacent lines conflict", base, l("a", "B", "c", "d", "e"), l("a", "b", "C", "d", "e"), conflict},
		{"insertion right after an edited line conflicts", base, l("a", "B", "c", "d", "e"), l("a", "b", "new", "c", "d", "e"), conflict},
		{"insertion right before an edited line conflicts", base, l("a", "b", "C", "d", "e"), l("a", "b", "new", "c", "d", "e"), conflict},
		{"insertions at the same spot conflict", base, l("a", "b", "x", "c", "d", "e"), l("a", "b", "y", "c", "d", "e"), conflict},
		{"identical insertions at the same spot", base, l("a", "b", "x", "c", "d", "e"), l("a", "b", "x", "c", "d", "e"), l("a", "b", "x", "c", "d", "e")},
		{"insertion contained in the other's insertion conflicts", base, l("a", "b", "x", "c", "d", "e"), l("a", "b", "x", "y", "c", "d", "e"), conflict},
		{"insertions at different spots", base, l("top", "a", "b", "c", "d", "e"), l("a", "b", "c", "d", "e", "bottom"), l("top", "a", "b", "c", "d", "e", "bottom")},
		{"insertions one line apart", base, l("a", "x", "b", "c", "d", "e"), l("a", "b", "y", "c", "d", "e"), l("a", "x", "b", "y", "c", "d", "e")},
		{"deletion and edit elsewhere", base, l("a", "c", "d", "e"), l("a", "b", "c", "d", "E"), l("a", "c", "d", "E")},
		{"same deletion on both", base, l("a", "c", "d", "e"), l("a", "c", "d", "e"), l("a", "c", "d", "e")},
		{"deletion and edit of the same line conflict", base, l("a", "c", "d", "e"), l("a", "B", "c", "d", "e"), conflict},
		{"deletions of neighbouring lines conflict", base, l("a", "c", "d", "e"), l("a", "b", "d", "e"), conflict},
		{"deletions one line apart", base, l("a", "c", "d", "e"), l("a", "b", "c", "e"), l("a", "c", "e")},
		{"ours emptied, theirs unchanged", base, "", base, ""},
		{"ours emptied, theirs changed", base, "", l("a", "B", "c", "d", "e"), conflict},
		{"both emptied", base, "", "", ""},
		{"empty base, one side adds", "", l("x"), "", l("x")},
		{"empty base, both add the same", "", l("x", "y"), l("x", "y"), l("x", "y")},
		{"empty base, both add differently", "", l("x"), l("y"), conflict},
		{"CRLF kept", "a\r\nb\r\nc\r\nd\r\ne\r\n", "A\r\nb\r\nc\r\nd\r\ne\r\n", "a\r\nb\r\nc\r\nd\r\nE\r\n", "A\r\nb\r\nc\r\nd\r\nE\r\n"},
		{"CRLF to LF is a change of every line", "a\r\nb\r\nc\r\n", "a\nb\nc\n", "a\r\nB\r\nc\r\n", conflict},
		{"no trailing newline anywhere", "a\nb\nc\nd\ne", "A\nb\nc\nd\ne", "a\nb\nc\nd\nE", "A\nb\nc\nd\nE"},
		{"trailing newline added on one side", "a\nb\nc\nd\ne", "A\nb\nc\nd\ne", "a\nb\nc\nd\ne\n", "A\nb\nc\nd\ne\n"},
		{"trailing newline removed on one side", base, "A\nb\nc\nd\ne\n", "a\nb\nc\nd\ne", "A\nb\nc\nd\ne"},
		{"trailing newline removed while the other edits the last line", base, l("a", "b", "c", "d", "E"), "a\nb\nc\nd\ne", "a\nb\nc\nd\nE"},
		{"append to a text without final newline, other adds it", "a\nb", "a\nb\nc", "a\nb\n", "a\nb\nc\n"},
		{"blank lines are lines", l("a", "", "b", "", "c"), l("a", "", "B", "", "c"), l("A", "", "b", "", "c"), l("A", "", "B", "", "c")},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, ok := Lines(c.base, c.ours, c.theirs)
			if c.want == conflict {
				if ok {
					t.Fatalf("Lines merged to %q, want a conflict", got)
				}
				if got != "" {
					t.Fatalf("Lines conflicted but returned %q, want \"\"", got)
				}
			} else if !ok || got != c.want {
				t.Fatalf("Lines = %q, %v; want %q, true", got, ok, c.want)
			}
			// Symmetry, and the general path agrees with the shortcuts.
			got2, ok2 := Lines(c.base, c.theirs, c.ours)
			got3, ok3 := mergeLines(c.base, c.ours, c.theirs)
			if ok2 != ok || got2 != got || ok3 != ok || got3 != got {
				t.Fatalf("Lines(base, ours, theirs) = %q, %v; swapped: %q, %v; general path: %q, %v", got, ok, got2, ok2, got3, ok3)
			}
		})
	}
}

func TestSplitRoundTrips(t *testing.T) {
	for _, s := range []string{"", "\n", "\n\n", "a", "a\n", "a\n\n", "\na", "a\r\n", "a\nb", "a\nb\n"} {
		if got := split(s).String(); got != s {
			t.Errorf("split(%q).String() = %q", s, got)
		}
	}
}

// bigText is n distinct lines.
func bigText(n int) []string {
	lines := make([]string, n)
	for i := range lines {
		lines[i] = fmt.Sprintf("line %d: the quick brown fox jumps over the lazy dog", i)
	}
	return lines
}

func TestLinesLarge(t *testing.T) {
	base := bigText(10000)
	ours := append([]string(nil), base...)
	theirs := append([]string(nil), base...)
	want := append([]string(nil), base...)
	for _, i := range []int{10, 2500, 7000, 9999} {
		ours[i] = "ours " + ours[i]
		want[i] = ours[i]
	}
	for _, i := range []int{500, 5000, 8000} {
		theirs[i] = "theirs " + theirs[i]
		want[i] = theirs[i]
	}
	// A deletion and an insertion too.
	ours = append(ours[:3000], ours[3010:]...)
	want = append(want[:3000], want[3010:]...)
	theirs = append(theirs[:6000], append([]string{"inserted"}, theirs[6000:]...)...)
	want = append(want[:5990], append([]string{"inserted"}, want[5990:]...)...)

	start := time.Now()
	got, ok := mergeLines(l(base...), l(ours...), l(theirs...))
	if elapsed := time.Since(start); elapsed > 2*time.Second {
		t.Errorf("10k-line merge took %v", elapsed)
	}
	if !ok || got != l(want...) {
		t.Fatalf("large merge: ok=%v, equal=%v", ok, got == l(want...))
	}
}

func TestLinesLargeUnrelated(t *testing.T) {
	// Worst case for the diff: nothing in common. Must still finish.
	base := bigText(3000)
	ours := make([]string, 3000)
	theirs := make([]string, 3000)
	for i := range ours {
		ours[i] = fmt.Sprintf("ours %d", i)
		theirs[i] = fmt.Sprintf("theirs %d", i)
	}
	start := time.Now()
	if _, ok := Lines(l(base...), l(ours...), l(theirs...)); ok {
		t.Fatal("rewrites of everything on both sides merged")
	}
	if elapsed := time.Since(start); elapsed > 5*time.Second {
		t.Errorf("unrelated 3k-line merge took %v", elapsed)
	}
}

// TestLinesRandom checks properties of the merge on random small edits:
// symmetry, identities, and that disjoint edits (at least one untouched line
// apart) always merge to the text with both applied.
func TestLinesRandom(t *testing.T) {
	r := rand.New(rand.NewSource(2))
	for range 3000 {
		n := 4 + r.Intn(20)
		base := make([]string, n)
		for i := range base {
			base[i] = fmt.Sprint(r.Intn(4)) // many repeated lines
		}
		ours, theirs := mutate(r, base), mutate(r, base)
		b, o, th := l(base...), l(ours...), l(theirs...)
		m1, ok1 := mergeLines(b, o, th)
		m2, ok2 := mergeLines(b, th, o)
		if ok1 != ok2 || m1 != m2 {
			t.Fatalf("not symmetric: base %q ours %q theirs %q: %q,%v vs %q,%v", b, o, th, m1, ok1, m2, ok2)
		}
		for _, x := range []string{o, th} {
			if got, ok := mergeLines(b, b, x); !ok || got != x {
				t.Fatalf("mergeLines(b, b, x) = %q, %v; want %q", got, ok, x)
			}
			if got, ok := mergeLines(b, x, x); !ok || got != x {
				t.Fatalf("mergeLines(b, x, x) = %q, %v; want %q", got, ok, x)
			}
		}

		// Disjoint: ours edits a line in the first half, theirs one in the
		// second half, with an untouched line between.
		u := make([]string, n)
		for i := range u {
			u[i] = fmt.Sprintf("u%d", i)
		}
		i, j := r.Intn(n/2-1), n/2+r.Intn(n-n/2)
		o2, t2, want := clone(u), clone(u), clone(u)
		o2[i], want[i] = "O", "O"
		t2[j], want[j] = "T", "T"
		if got, ok := mergeLines(l(u...), l(o2...), l(t2...)); !ok || got != l(want...) {
			t.Fatalf("disjoint edits at %d and %d: %q, %v", i, j, got, ok)
		}
	}
}

func clone(s []string) []string { return append([]string(nil), s...) }

// mutate applies a few random line edits, insertions and deletions.
func mutate(r *rand.Rand, base []string) []string {
	out := clone(base)
	for range r.Intn(3) {
		switch k := r.Intn(3); {
		case k == 0 && len(out) > 0:
			out[r.Intn(len(out))] = fmt.Sprint("e", r.Intn(3))
		case k == 1:
			i := r.Intn(len(out) + 1)
			out = append(out[:i], append([]string{fmt.Sprint("i", r.Intn(3))}, out[i:]...)...)
		case len(out) > 0:
			i := r.Intn(len(out))
			out = append(out[:i], out[i+1:]...)
		}
	}
	return out
}

func FuzzLines(f *testing.F) {
	f.Add("a\nb\nc\n", "a\nB\nc\n", "a\nb\nC\n")
	f.Add("", "x", "y\n")
	f.Add("a\r\nb", "a\r\nb\r\n", "a\nb")
	f.Add("\n\n", "\n", "\n\n\n")
	f.Fuzz(func(t *testing.T, base, ours, theirs string) {
		merged, ok := mergeLines(base, ours, theirs)
		if !ok && merged != "" {
			t.Fatalf("conflict returned %q", merged)
		}
		if m, ok := mergeLines(base, base, theirs); !ok || m != theirs {
			t.Fatalf("ours == base: got %q, %v; want %q", m, ok, theirs)
		}
		if m, ok := mergeLines(base, ours, base); !ok || m != ours {
			t.Fatalf("theirs == base: got %q, %v; want %q", m, ok, ours)
		}
		if m, ok := mergeLines(base, ours, ours); !ok || m != ours {
			t.Fatalf("ours == theirs: got %q, %v; want %q", m, ok, ours)
		}
		m2, ok2 := mergeLines(base, theirs, ours)
		if ok2 != ok || m2 != merged {
			t.Fatalf("not symmetric: %q,%v vs %q,%v", merged, ok, m2, ok2)
		}
		if m, okL := Lines(base, ours, theirs); okL != ok || m != merged {
			t.Fatalf("Lines = %q,%v; general path %q,%v", m, okL, merged, ok)
		}
	})
}

func BenchmarkLines(b *testing.B) {
	base := bigText(2000)
	ours, theirs := clone(base), clone(base)
	for i := 0; i < 2000; i += 200 {
		ours[i] = "ours " + ours[i]
		theirs[i+100] = "theirs " + theirs[i+100]
	}
	bs, os, ts := l(base...), l(ours...), l(theirs...)
	b.SetBytes(int64(len(bs)))
	for b.Loop() {
		if _, ok := Lines(bs, os, ts); !ok {
			b.Fatal("conflict")
		}
	}
}
