package merge

import (
	"strings"
	"testing"
)

func TestLines(t *testing.T) {
	cases := []struct {
		name, base, ours, theirs, want string
		ok                             bool
	}{
		{"disjoint", "a\nb\nc\nd\n", "A\nb\nc\nd\n", "a\nb\nc\nD\n", "A\nb\nc\nD\n", true},
		{"same edit", "a\nb\n", "a\nB\n", "a\nB\n", "a\nB\n", true},
		{"same line", "a\nb\nc\n", "a\nX\nc\n", "a\nY\nc\n", "", false},
		{"adjacent lines", "a\nb\nc\n", "A\nb\nc\n", "a\nB\nc\n", "", false},
		{"inserts at one spot", "a\nb\n", "a\nx\nb\n", "a\ny\nb\n", "", false},
		{"one side only", "a\n", "a\n", "b\n", "b\n", true},
		{"empty base", "", "x\n", "x\n", "x\n", true},
		{"delete and keep", "a\nb\nc\nd\ne\n", "a\nc\nd\ne\n", "a\nb\nc\nd\nE\n", "a\nc\nd\nE\n", true},
		{"trailing newline", "a\nb", "a\nb\n", "A\nb", "A\nb\n", true},
	}
	for _, c := range cases {
		got, ok := Lines(c.base, c.ours, c.theirs)
		if ok != c.ok || (ok && got != c.want) {
			t.Errorf("%s: got %q %v, want %q %v", c.name, got, ok, c.want, c.ok)
		}
	}
}

func TestLinesLarge(t *testing.T) {
	var b strings.Builder
	for i := 0; i < 10000; i++ {
		b.WriteString("line ")
		b.WriteString(strings.Repeat("x", i%7))
		b.WriteString("\n")
	}
	base := b.String()
	lines := strings.SplitAfter(base, "\n")
	ours := strings.Join(append([]string{"top\n"}, lines...), "")
	theirs := strings.Join(append(append([]string{}, lines[:9000]...), append([]string{"near the end\n"}, lines[9000:]...)...), "")
	got, ok := Lines(base, ours, theirs)
	if !ok || !strings.HasPrefix(got, "top\n") || !strings.Contains(got, "near the end\n") {
		t.Fatalf("large merge failed: %v", ok)
	}
}

func FuzzLines(f *testing.F) {
	f.Add("a\nb\n", "a\nB\n", "A\nb\n")
	f.Fuzz(func(t *testing.T, base, ours, theirs string) {
		got, ok := Lines(base, ours, theirs)
		if ours == base && (!ok || got != theirs) {
			t.Fatalf("unchanged ours: %q %v", got, ok)
		}
	})
}

// lcsLen is the textbook dynamic-programming LCS length, to check match.
func lcsLen(a, b []int) int {
	dp := make([][]int, len(a)+1)
	for i := range dp {
		dp[i] = make([]int, len(b)+1)
	}
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			if a[i-1] == b[j-1] {
				dp[i][j] = dp[i-1][j-1] + 1
			} else {
				dp[i][j] = max(dp[i-1][j], dp[i][j-1])
			}
		}
	}
	return dp[len(a)][len(b)]
}

func FuzzMatch(f *testing.F) {
	f.Add([]byte{1, 2, 3}, []byte{2, 3, 4})
	f.Fuzz(func(t *testing.T, x, y []byte) {
		if len(x) > 60 || len(y) > 60 {
			return
		}
		a, b := make([]int, len(x)), make([]int, len(y))
		for i, v := range x {
			a[i] = int(v % 4)
		}
		for i, v := range y {
			b[i] = int(v % 4)
		}
		m := match(a, b)
		n, last := 0, -1
		for i, j := range m {
			if j < 0 {
				continue
			}
			if j <= last || a[i] != b[j] {
				t.Fatalf("bad match %v for %v %v", m, a, b)
			}
			last = j
			n++
		}
		if want := lcsLen(a, b); n != want {
			t.Fatalf("match of length %d, LCS is %d: %v %v", n, want, a, b)
		}
	})
}
