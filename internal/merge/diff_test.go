package merge

import (
	"math/rand"
	"testing"
)

// lcsLen is the textbook dynamic program, the reference for match.
func lcsLen(a, b []int) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			switch {
			case a[i-1] == b[j-1]:
				cur[j] = prev[j-1] + 1
			case prev[j] >= cur[j-1]:
				cur[j] = prev[j]
			default:
				cur[j] = cur[j-1]
			}
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

func checkMatch(t *testing.T, a, b []int) {
	t.Helper()
	m := match(a, b)
	n, last := 0, -1
	for i, j := range m {
		if j < 0 {
			continue
		}
		if j <= last || j >= len(b) || a[i] != b[j] {
			t.Fatalf("match(%v, %v) = %v: not an increasing matching of equal elements", a, b, m)
		}
		last = j
		n++
	}
	if want := lcsLen(a, b); n != want {
		t.Fatalf("match(%v, %v) = %v: %d matched, longest common subsequence is %d", a, b, m, n, want)
	}
}

func TestMatchIsALongestCommonSubsequence(t *testing.T) {
	for _, c := range [][2][]int{
		{nil, nil},
		{{1}, nil},
		{nil, {1}},
		{{1, 2, 3}, {1, 2, 3}},
		{{1, 2, 3}, {4, 5, 6}},
		{{1}, {2, 3, 4, 5, 1}},
		{{1, 2, 3, 4, 5}, {5}},
		{{1, 2}, {2, 1}},
		{{0, 1, 2, 0, 1, 1, 0}, {2, 1, 0, 1, 0, 2}},
	} {
		checkMatch(t, c[0], c[1])
	}
	r := rand.New(rand.NewSource(1))
	for range 20000 {
		alphabet := 1 + r.Intn(5)
		a := make([]int, r.Intn(14))
		b := make([]int, r.Intn(14))
		for i := range a {
			a[i] = r.Intn(alphabet)
		}
		for i := range b {
			b[i] = r.Intn(alphabet)
		}
		checkMatch(t, a, b)
	}
}

func TestHunks(t *testing.T) {
	// base 0 1 2 3 4; side: 0 X 2 3 Y 4 Z
	m := []int{0, -1, 2, 3, 5}
	got := hunks(m, 7)
	want := []hunk{{1, 2, 1, 2}, {4, 4, 4, 5}, {5, 5, 6, 7}}
	if len(got) != len(want) {
		t.Fatalf("hunks = %v, want %v", got, want)
	}
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("hunks = %v, want %v", got, want)
		}
	}
}
