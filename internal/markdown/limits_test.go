package markdown

import (
	"errors"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/text"
)

// staircase is a list nested by indentation, n levels deep.
func staircase(n int, between string) string {
	var b strings.Builder
	for i := range n {
		b.WriteString(strings.Repeat("  ", i) + "- step\n" + between)
	}
	return b.String()
}

func TestCheck(t *testing.T) {
	ok := map[string]string{
		"a long ordinary page":            bigPage,
		"32 block quotes":                 strings.Repeat(">", 32) + " x",
		"32 list items on a line":         strings.Repeat("- ", 32) + "x",
		"32 ordered items":                strings.Repeat("1. ", 32) + "x",
		"32 levels by indentation":        staircase(32, ""),
		"32 levels, lazy lines between":   staircase(32, "more\n"),
		"list markers in fenced code":     "- a\n  ```\n" + strings.Repeat("- ", 200) + "\n  ```\n",
		"list markers in indented code":   "text\n\n    " + strings.Repeat("- ", 200) + "\n",
		"a long dashed rule":              strings.Repeat("- ", 200) + "\n",
		"frontmatter is not markdown":     "---\ntitle: x\n---\n" + strings.Repeat("- ", 32) + "x",
		"dashes that are not list items":  strings.Repeat("-x ", 200),
		"quotes then a list, 32 in total": strings.Repeat("> ", 16) + strings.Repeat("* ", 16) + "x",
		"99,990 table cells":              wideTable(10, 9998),
		"two tables of 49,500 cells":      wideTable(99, 499) + "\n" + wideTable(99, 499),
		"a table of many empty rows":      "| a | b |\n|---|---|\n" + strings.Repeat("|   |   |\n", 20_000),
		"delimiter rows as body rows":     "| a | b |\n|---|---|\n" + strings.Repeat("| 1 | 2 |\n|---|---|\n", 20_000),
	}
	for name, src := range ok {
		if err := Check(src); err != nil {
			t.Errorf("%s: refused: %v", name, err)
		}
	}
	refused := []struct {
		name, src string
		line      int
	}{
		{"the issue's bomb", strings.Repeat("- ", 100_000) + "x", 1},
		{"33 block quotes", "# T\n\n" + strings.Repeat(">", 33) + " x", 3},
		{"33 ordered items", strings.Repeat("1) ", 33) + "x", 1},
		{"lists in quotes", strings.Repeat("- > ", 17) + "x", 1},
		{"33 levels by indentation", staircase(33, ""), 33},
		{"33 levels, lazy lines between", staircase(33, "more\n"), 65},
		{"33 levels, blank lines between", staircase(33, "\n"), 65},
		{"tabs for indentation", strings.ReplaceAll(staircase(40, ""), "    ", "\t"), 33},
		{"after frontmatter", "---\ntitle: x\n---\n\n" + strings.Repeat("+ ", 40) + "x", 5},
		{"after an indented fence, which is code", "text\n\n    ```\n" + strings.Repeat("- ", 40) + "x", 4},
		{"after a fence closes", "```\n- - -\n```\n" + strings.Repeat("- ", 40) + "x", 4},
	}
	for _, c := range refused {
		err := Check(c.src)
		var le *LimitError
		if !errors.As(err, &le) || le.Line != c.line || !strings.Contains(le.Message, "at most 32 levels") {
			t.Errorf("%s: %v (line %v), want a nesting error at line %d", c.name, err, le, c.line)
		}
	}
	tables := []struct {
		name, src string
		line      int
	}{
		{"the 8 KB table bomb", "# T\n\n" + tableBomb(1000, 2000), 3},
		{"in a list item", "- " + strings.ReplaceAll(tableBomb(1000, 2000), "\n", "\n  "), 1},
		{"in a block quote", "> " + strings.ReplaceAll(tableBomb(1000, 2000), "\n", "\n> "), 1},
		{"after frontmatter", "---\ntitle: x\n---\n" + tableBomb(300, 400), 4},
		{"tables together", wideTable(10, 6000) + "\n" + wideTable(10, 6000), 6004},
	}
	for _, c := range tables {
		err := Check(c.src)
		var le *LimitError
		if !errors.As(err, &le) || le.Line != c.line || !strings.Contains(le.Message, "at most 100000 table cells") {
			t.Errorf("%s: %v (line %v), want a table error at line %d", c.name, err, le, c.line)
		}
	}
	if err := Check(strings.Repeat("a", MaxBytes+1)); err == nil || !strings.Contains(err.Error(), "at most 1048576 bytes") {
		t.Errorf("size: %v", err)
	}
	if err := Check(strings.Repeat("a", MaxBytes)); err != nil {
		t.Errorf("1 MB: %v", err)
	}
}

// depth is the deepest block nesting of a document.
func depth(nodes []Node) int {
	d := 0
	for _, n := range nodes {
		if n.Object == "block" {
			d = max(d, 1+depth(n.Nodes))
		}
	}
	return d
}

// TestNestingBombParsesBounded: a body nested beyond the bound (stored
// before it existed) is parsed with its containers cut at MaxNesting, the
// rest of the line kept as text: goldmark's work per line is then at most
// MaxNesting times the line, linear in the input. Counted here as the
// document's depth, which on the unbounded parser equals the input's.
func TestNestingBombParsesBounded(t *testing.T) {
	for _, src := range []string{
		strings.Repeat("- ", 20_000) + "x",
		strings.Repeat("1. ", 20_000) + "x",
		strings.Repeat("> ", 20_000) + "x",
		strings.Repeat("- > ", 10_000) + "x",
		staircase(300, ""),
	} {
		doc := ToDocument(src)
		// A list level is two blocks (list and item) plus the innermost
		// paragraph.
		if d := depth(doc.Nodes); d > 2*MaxNesting+1 {
			t.Errorf("%.12q...: document %d blocks deep, want at most %d", src, d, 2*MaxNesting+1)
		}
		if !strings.HasSuffix(strings.TrimSpace(Text(src)), "x") && !strings.HasSuffix(strings.TrimSpace(Text(src)), "step") {
			t.Errorf("%.12q...: text lost: ...%q", src, Text(src)[max(0, len(Text(src))-20):])
		}
	}
	// The cut adds no line: links keep their line numbers.
	links := Links(strings.Repeat("- ", 1000) + "[a](one)\n\nsee [b](two)\n")
	if len(links) != 2 || links[0].Line != 1 || links[1].Line != 3 || links[0].Target != "one" {
		t.Errorf("links: %+v", links)
	}
	// Within the bound nothing changes.
	src := strings.Repeat("- ", MaxNesting) + "x"
	if out, _, line := bound(src, MaxNesting); out != src || line != 0 {
		t.Errorf("bound changed %q to %q", src, out)
	}
}

// tableBomb is a header of cols columns over rows rows of one pipe, each of
// which goldmark fills to the header's width: cols x rows cells from about
// 4 x cols + 2 x rows bytes.
func tableBomb(cols, rows int) string {
	return "|" + strings.Repeat("a|", cols) + "\n|" + strings.Repeat("-|", cols) + "\n" + strings.Repeat("|\n", rows)
}

// wideTable is a table of cols columns with every cell written, and rows body
// rows: cols x (rows+1) cells.
func wideTable(cols, rows int) string {
	return "|" + strings.Repeat(" h |", cols) + "\n|" + strings.Repeat("---|", cols) + "\n" +
		strings.Repeat("|"+strings.Repeat(" 1 |", cols)+"\n", rows)
}

// tableCells counts the cells of a document's tables (header cells and
// every row's, filled ones included), and the tables.
func tableCells(nodes []Node) (cells, tables int) {
	for _, n := range nodes {
		if n.Type == "table" {
			tables++
			cells += len(n.Data.Definition)
			for _, r := range n.Data.Records {
				cells += len(r.Values)
			}
		}
		c, t := tableCells(n.Nodes)
		cells, tables = cells+c, tables+t
	}
	return cells, tables
}

// TestTableBombParsesBounded: a body whose tables hold more than
// MaxTableCells (stored before the bound existed) is parsed with the tables
// beyond the bound read as paragraphs: goldmark makes at most MaxTableCells
// cells, where the unbounded parser makes header columns x rows for each
// table. Counted as the document's cells; the tables within the bound are
// kept whole.
func TestTableBombParsesBounded(t *testing.T) {
	for _, src := range []string{
		tableBomb(1000, 2000),
		"- " + strings.ReplaceAll(tableBomb(1000, 2000), "\n", "\n  "),
		"> " + strings.ReplaceAll(tableBomb(1000, 2000), "\n", "\n> "),
		strings.Repeat(tableBomb(224, 224)+"\n", 100), // each within a per-table bound
	} {
		if cells, _ := tableCells(ToDocument(src).Nodes); cells > MaxTableCells {
			t.Errorf("%.12q...: %d table cells, want at most %d", src, cells, MaxTableCells)
		}
		if !strings.Contains(Text(src), "|a|a|a|") {
			t.Errorf("%.12q...: the header's text is lost", src)
		}
	}
	// Tables are kept in order while the page's cells stay within the bound:
	// six of 15,100 cells, not the seventh.
	src := strings.Repeat(wideTable(100, 150)+"\n", 10)
	if cells, tables := tableCells(ToDocument(src).Nodes); tables != 6 || cells != 6*15_100 {
		t.Errorf("tables under the bound: %d tables of %d cells, want 6 of %d", tables, cells, 6*15_100)
	}
	// A small table before a bomb is kept; the cut adds no line.
	src = "| a | b |\n|---|---|\n| [x](one) | 2 |\n\n" + tableBomb(1000, 2000) + "\nsee [y](two)\n"
	if cells, tables := tableCells(ToDocument(src).Nodes); tables != 1 || cells != 4 {
		t.Errorf("small table and bomb: %d tables of %d cells, want 1 of 4", tables, cells)
	}
	if links := Links(src); len(links) != 2 || links[0].Line != 3 || links[1].Line != 2008 || links[1].Target != "two" {
		t.Errorf("links: %+v", links)
	}
	// Within the bound nothing changes.
	if out, over := boundTables(bigPage, MaxTableCells); out != bigPage || over.line != 0 {
		t.Errorf("boundTables changed a page within the bound: %+v", over)
	}
}

// TestLongParagraphLeaf: a paragraph of many lines is one leaf (built once,
// not by appending to a string line by line).
func TestLongParagraphLeaf(t *testing.T) {
	doc := ToDocument(strings.Repeat("word\n", 50_000))
	leaves := doc.Nodes[0].Nodes[0].Leaves
	if len(doc.Nodes) != 1 || len(leaves) != 1 || len(leaves[0].Text) != 50_000*5-1 {
		t.Fatalf("leaves: %d", len(leaves))
	}
}

// largePage is a long legitimate page: about 200 KB of headings, text,
// lists, tables and code.
var largePage = strings.Repeat(bigPage, 8)

func BenchmarkToDocumentLargePage(b *testing.B) {
	b.SetBytes(int64(len(largePage)))
	for b.Loop() {
		ToDocument(largePage)
	}
}

func BenchmarkCheckLargePage(b *testing.B) {
	b.SetBytes(int64(len(largePage)))
	for b.Loop() {
		if Check(largePage) != nil {
			b.Fatal("refused")
		}
	}
}

// bomb is the input: 200 KB of nested list items.
var bomb = strings.Repeat("- ", 100_000) + "x"

// BenchmarkCheckBomb is the cost of refusing the bomb at write time.
func BenchmarkCheckBomb(b *testing.B) {
	b.SetBytes(int64(len(bomb)))
	for b.Loop() {
		if Check(bomb) == nil {
			b.Fatal("accepted")
		}
	}
}

// BenchmarkToDocumentBomb is the cost of reading the bomb stored before the
// bound: linear (was ~40 s).
func BenchmarkToDocumentBomb(b *testing.B) {
	b.SetBytes(int64(len(bomb)))
	for b.Loop() {
		ToDocument(bomb)
	}
}

// TestManyHeadingsAlike: anchors of headings alike are handed out in one step
// each (the same anchors as before: slug, slug-1, slug-2..., skipping taken
// ones).
func TestManyHeadingsAlike(t *testing.T) {
	got := Anchors("# A\n# A-1\n# A\n# A\n# A-2\n# A\n")
	if strings.Join(got, " ") != "a a-1 a-2 a-3 a-2-1 a-4" {
		t.Fatalf("anchors: %v", got)
	}
	a := newAnchorer()
	for range 10_000 {
		a.next("Heading")
	}
	if a.suffix["heading"] != 10_000 {
		t.Fatalf("next suffix %d", a.suffix["heading"])
	}
}

func BenchmarkLinksHTMLBlock(b *testing.B) {
	src := "<div>\n" + strings.Repeat("<a href=\"x\">y</a>\n", 10_000) + "</div>\n"
	for b.Loop() {
		if n := len(Links(src)); n != 10_000 {
			b.Fatal(n)
		}
	}
}

// containerDepth is the most list items and block quotes goldmark nests.
func containerDepth(n ast.Node) int {
	d := 0
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		cd := containerDepth(c)
		if c.Kind() == ast.KindListItem || c.Kind() == ast.KindBlockquote {
			cd++
		}
		d = max(d, cd)
	}
	return d
}

// TestBoundNeverUndercounts: whatever the text, goldmark nests no deeper
// than the bound once bound has escaped what lies beyond it (the scan may
// count more containers than goldmark opens, never fewer). Random texts of
// markdown's container syntax, with a bound of 3 so they reach it.
func TestBoundNeverUndercounts(t *testing.T) {
	seed, iterations := uint64(1), 20_000
	if v := os.Getenv("BOUND_SEED"); v != "" { // a longer search: BOUND_SEED=n
		seed, _ = strconv.ParseUint(v, 10, 64)
		iterations = 500_000
	}
	tokens := []string{"- ", "* ", "+ ", "1. ", "2) ", "> ", ">", " ", "  ", "   ", "    ", "\t", "\n", "\n", "\n",
		"x", "text ", "```", "~~~", "---", "# h", "-", "<div>", "| a |", "|---|", "\\"}
	r := rand.New(rand.NewPCG(seed, 2))
	for i := range iterations {
		var b strings.Builder
		for range 1 + r.IntN(40) {
			b.WriteString(tokens[r.IntN(len(tokens))])
		}
		src := b.String()
		out, _, _ := bound(src, 3)
		root := gfm.Parser().Parse(text.NewReader([]byte(out)))
		if d := containerDepth(root); d > 3 {
			t.Fatalf("case %d: %q bound to %q nests %d deep", i, src, out, d)
		}
	}
}

// TestLinkOpeningsBounded: goldmark reads a link destination to the next
// white space, so a stretch of "[a](b" without any costs its length for each
// one. Past 64 in one stretch (or 64 "](<" on a line) the rest are text, so
// a body costs at most 64 reads of each byte; links separated by white
// space are untouched.
func TestLinkOpeningsBounded(t *testing.T) {
	if n := len(Links(strings.Repeat("[a](b) ", 500))); n != 500 {
		t.Errorf("links with spaces between: %d, want 500", n)
	}
	if n := len(Links(strings.Repeat("[a](b)", 500))); n != maxLinkOpens {
		t.Errorf("adjacent links: %d, want %d", n, maxLinkOpens)
	}
	if n := len(Links(strings.Repeat("[a](<b>) ", 500))); n != maxLinkOpens {
		t.Errorf("<> links on a line: %d, want %d", n, maxLinkOpens)
	}
	bomb := strings.Repeat("[a](b", 40_000)
	if out := boundLinks(bomb); strings.Count(out, `]\(`) != 40_000-maxLinkOpens || len(out) != len(bomb)+40_000-maxLinkOpens {
		t.Errorf("escaped %d openings, want %d", strings.Count(out, `]\(`), 40_000-maxLinkOpens)
	}
	if doc := ToDocument(bomb); len(doc.Nodes) != 1 || !strings.HasPrefix(Text(bomb), "[a](b[a](b") {
		t.Errorf("text lost: %d blocks", len(doc.Nodes))
	}
}

// BenchmarkToDocumentLinkBomb: 200 KB of "[a](b" (was ~13 s).
func BenchmarkToDocumentLinkBomb(b *testing.B) {
	src := strings.Repeat("[a](b", 40_000)
	b.SetBytes(int64(len(src)))
	for b.Loop() {
		ToDocument(src)
	}
}
