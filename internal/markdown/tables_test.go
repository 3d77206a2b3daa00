package markdown

import (
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/yuin/goldmark/ast"
	east "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/text"
)

// goldmarkCells counts the cells goldmark made in tables of two or more
// columns (one-column tables are not bounded: they make a cell a line).
func goldmarkCells(root ast.Node) int {
	cells := 0
	_ = ast.Walk(root, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if t, ok := n.(*east.Table); ok && entering && len(t.Alignments) >= 2 {
			for r := t.FirstChild(); r != nil; r = r.NextSibling() {
				cells += r.ChildCount()
			}
		}
		return ast.WalkContinue, nil
	})
	return cells
}

// TestTableBoundNeverUndercounts: whatever the text, goldmark makes no more
// table cells than the bound once boundTables has escaped the tables beyond
// it (the scan may count more cells than goldmark makes, never fewer), and
// a text within the bound is left as it is. Random texts of table rows behind
// container markers, with small bounds so they reach them.
func TestTableBoundNeverUndercounts(t *testing.T) {
	seed, iterations := uint64(1), 20_000
	if v := os.Getenv("BOUND_SEED"); v != "" { // a longer search: BOUND_SEED=n
		seed, _ = strconv.ParseUint(v, 10, 64)
		iterations = 500_000
	}
	prefixes := []string{"", "", "", "> ", ">", "- ", "* ", "1. ", "  ", "    ", "\t", "- > ", "-", ":"}
	cells := []string{"a", " a ", "", "-", "---", ":-:", " --: ", "`|`", "\\|", "- -", " "}
	r := rand.New(rand.NewPCG(seed, 3))
	row := func(cols int, delimiter bool) string {
		var b strings.Builder
		if r.IntN(3) > 0 {
			b.WriteString("|")
		}
		for i := range cols {
			if i > 0 {
				b.WriteString("|")
			}
			switch {
			case delimiter && r.IntN(8) > 0:
				b.WriteString([]string{"-", "---", ":-", "-:", " :-: "}[r.IntN(5)])
			default:
				b.WriteString(cells[r.IntN(len(cells))])
			}
		}
		if r.IntN(3) > 0 {
			b.WriteString("|")
		}
		return b.String()
	}
	for i := range iterations {
		var b strings.Builder
		for range 1 + r.IntN(12) {
			b.WriteString(prefixes[r.IntN(len(prefixes))])
			switch k := r.IntN(10); {
			case k < 2:
				cols := 1 + r.IntN(4)
				b.WriteString(row(cols, false) + "\n" + prefixes[r.IntN(len(prefixes))] + row(cols, true))
			case k < 6:
				b.WriteString(row(r.IntN(3), false))
			case k < 7:
				b.WriteString([]string{"x", "```", "# h", "<div>", "---", "| a |"}[r.IntN(6)])
			}
			b.WriteString("\n")
		}
		src := b.String()
		limit := 2 + r.IntN(12)
		out, over := boundTables(src, limit)
		if over.line == 0 && out != src {
			t.Fatalf("case %d: %q within the bound changed to %q", i, src, out)
		}
		if n := goldmarkCells(gfm.Parser().Parse(text.NewReader([]byte(out)))); n > limit {
			t.Fatalf("case %d: %q bound (%d) to %q makes %d cells", i, src, limit, out, n)
		}
	}
}

// BenchmarkToDocumentTableBomb: 8 KB of a 1,000-column header over 2,000
// one-pipe rows (two million cells before the bound; seconds).
func BenchmarkToDocumentTableBomb(b *testing.B) {
	src := tableBomb(1000, 2000)
	b.SetBytes(int64(len(src)))
	for b.Loop() {
		ToDocument(src)
	}
}

// BenchmarkToDocumentManyTables: 1 MB of tables of 224 columns by 224 rows,
// each 50,000 cells from 1.3 KB (35 million cells before the bound).
func BenchmarkToDocumentManyTables(b *testing.B) {
	src := strings.Repeat(tableBomb(224, 224)+"\n", MaxBytes/1350)
	b.SetBytes(int64(len(src)))
	for b.Loop() {
		ToDocument(src)
	}
}

// BenchmarkCheckTableBomb is the cost of refusing the table bomb at write
// time.
func BenchmarkCheckTableBomb(b *testing.B) {
	src := tableBomb(1000, 2000)
	b.SetBytes(int64(len(src)))
	for b.Loop() {
		if Check(src) == nil {
			b.Fatal("accepted")
		}
	}
}
