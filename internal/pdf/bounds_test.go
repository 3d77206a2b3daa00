package pdf

import (
	"context"
	"errors"
	"runtime"
	"strings"
	"testing"

	"github.com/folio/folio/internal/markdown"
)

// paragraph is one paragraph of n characters: words of varied length.
func paragraph(n int) []Page {
	words := []string{"lorem", "ipsum", "dolor", "sit", "amet,", "consectetur", "adipiscing", "elit"}
	var b strings.Builder
	for i := 0; b.Len() < n; i++ {
		b.WriteString(words[i%len(words)])
		b.WriteByte(' ')
	}
	return []Page{{Title: "Long", Document: markdown.ToDocument(b.String()[:n])}}
}

// renderCost renders pages and answers the units laid out and the bytes
// allocated meanwhile (both counts, not times).
func renderCost(t *testing.T, pages []Page) (units int64, bytes uint64) {
	t.Helper()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	start := Work()
	if _, err := Render(context.Background(), "Doc", pages, nil); err != nil {
		t.Fatal(err)
	}
	units = Work() - start
	runtime.ReadMemStats(&after)
	return units, after.TotalAlloc - before.TotalAlloc
}

// TestRenderIsLinear: twice the text is at most 2.5 times the work, in
// lines laid out and in bytes allocated. fpdf's Write, which Render used,
// copied the whole paragraph into runes once per character: 40,000
// characters allocated 6 GB (four times 20,000's).
func TestRenderIsLinear(t *testing.T) {
	u20, b20 := renderCost(t, paragraph(20_000))
	u40, b40 := renderCost(t, paragraph(40_000))
	t.Logf("20k: %d units, %d bytes; 40k: %d units, %d bytes", u20, b20, u40, b40)
	if u20 < 100 || float64(u40) > 2.5*float64(u20) {
		t.Errorf("units: %d for 20k characters, %d for 40k", u20, u40)
	}
	if float64(b40) > 2.5*float64(b20) {
		t.Errorf("bytes allocated: %d for 20k characters, %d for 40k", b20, b40)
	}
}

// TestRenderWrapsIntact: a long paragraph, a word longer than a line and
// a long code line come back whole, wrapped over several lines.
func TestRenderWrapsIntact(t *testing.T) {
	long := strings.Repeat("x", 300)
	text := strings.Repeat("alpha beta gamma delta ", 40)
	pages := []Page{{Title: "Wrap", Document: markdown.ToDocument(text + "\n\n" + long + "\n\n```\n" + strings.Repeat("code ", 60) + "\n```\n")}}
	start := Work()
	data, err := Render(context.Background(), "Doc", pages, nil)
	if err != nil {
		t.Fatal(err)
	}
	if units := Work() - start; units < 10 {
		t.Errorf("%d units: the text was not wrapped", units)
	}
	_, got := TextOf(t, data)
	squash := func(s string) string { return strings.Join(strings.Fields(s), "") }
	for _, want := range []string{text, long, strings.Repeat("code ", 60)} {
		if !strings.Contains(squash(got), squash(want)) {
			t.Errorf("text lacks %.40q…:\n%s", want, got)
		}
	}
}

// TestRenderStopsWhenCancelled: once the context ends mid-paragraph,
// nothing more is laid out, and Render answers the context's cause.
func TestRenderStopsWhenCancelled(t *testing.T) {
	full, _ := renderCost(t, paragraph(40_000))
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	stop := errors.New("client left")
	start := Work()
	const at = 50
	defer AfterUnit(func(context.Context) {
		if Work()-start == at {
			cancel(stop)
		}
	})()
	_, err := Render(ctx, "Doc", paragraph(40_000), nil)
	if !errors.Is(err, stop) {
		t.Fatalf("err %v", err)
	}
	if done := Work() - start; done != at {
		t.Fatalf("%d units laid out, cancelled after %d (a whole render is %d)", done, at, full)
	}
}

// TestRenderPageCap: content past MaxPages answers ErrTooManyPages, having
// laid out no more than the pages allowed.
func TestRenderPageCap(t *testing.T) {
	pages := make([]Page, MaxPages+1)
	for i := range pages {
		pages[i] = Page{Title: "Page", Document: markdown.ToDocument("text")}
	}
	start := Work()
	_, err := Render(context.Background(), "Doc", pages, nil)
	if !errors.Is(err, ErrTooManyPages) {
		t.Fatalf("err %v", err)
	}
	// A page, its title and its paragraph: three units each.
	if done := Work() - start; done > 3*MaxPages+1 {
		t.Fatalf("%d units laid out", done)
	}
	// One long code block meets the cap too, between lines.
	start = Work()
	code := "```\n" + strings.Repeat("line\n", 80*MaxPages) + "```\n"
	if _, err := Render(context.Background(), "Doc", []Page{{Title: "Code", Document: markdown.ToDocument(code)}}, nil); !errors.Is(err, ErrTooManyPages) {
		t.Fatalf("long code: err %v", err)
	}
	if done := Work() - start; done > 80*(MaxPages+1) {
		t.Fatalf("long code: %d units laid out", done)
	}
}
