package importer_test

import (
	"archive/zip"
	"bytes"
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/folio/folio/internal/importer"
)

// countdown is a context that ends after its Err has been asked left
// times: a cancel at a known point of the work, whatever the clock.
type countdown struct {
	context.Context
	left int
}

func (c *countdown) Err() error {
	if c.left <= 0 {
		return context.Canceled
	}
	c.left--
	return nil
}

// TestZipStopsWhenCancelled: a zip import cancelled midway unpacks no
// entry after the cancel and answers the context's error.
func TestZipStopsWhenCancelled(t *testing.T) {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	const entries = 50
	for i := range entries {
		w, _ := zw.Create(fmt.Sprintf("page-%02d.md", i))
		fmt.Fprintf(w, "# Page %d\n\n%s\n", i, bytes.Repeat([]byte("text "), 1000))
	}
	zw.Close()

	start := importer.Unpacked()
	res, err := importer.Zip(context.Background(), buf.Bytes())
	if err != nil || len(res.Pages) != entries || importer.Unpacked()-start != entries {
		t.Fatalf("whole: %v, %d pages, %d unpacked", err, len(res.Pages), importer.Unpacked()-start)
	}
	const at = 10
	start = importer.Unpacked()
	_, err = importer.Zip(&countdown{Context: context.Background(), left: at}, buf.Bytes())
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled: %v", err)
	}
	if n := importer.Unpacked() - start; n != at {
		t.Fatalf("%d entries unpacked, cancelled after %d of %d", n, at, entries)
	}
}
