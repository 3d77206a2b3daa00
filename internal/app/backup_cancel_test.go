package app_test

import (
	"context"
	"errors"
	"math/rand"
	"testing"

	"github.com/folio/folio/internal/app"
	"github.com/folio/folio/internal/testkit"
)

// cancellingWriter cancels once more than at bytes have come, and counts
// the bytes that come after.
type cancellingWriter struct {
	at, written, after int
	cancel             func()
}

func (w *cancellingWriter) Write(p []byte) (int, error) {
	if w.written > w.at {
		w.after += len(p)
	} else if w.written += len(p); w.written > w.at {
		w.cancel()
	}
	return len(p), nil
}

// TestBackupStopsWhenCancelled: a backup cancelled while it copies the
// blobs copies no further blob (the one under way may end), and answers
// the context's error. Restore stops between entries likewise.
func TestBackupStopsWhenCancelled(t *testing.T) {
	s := testkit.Start(t, "sqlite") // backups copy SQLite: PostgreSQL has pg_dump
	ctx := context.Background()
	const blobs, size = 40, 64 << 10
	rnd := rand.New(rand.NewSource(1))
	for range blobs {
		data := make([]byte, size) // incompressible: the gzip output follows the copy
		rnd.Read(data)
		if _, err := s.App.Resolver.Blobs.Put(ctx, data, "application/octet-stream"); err != nil {
			t.Fatal(err)
		}
	}
	bctx, cancel := context.WithCancel(ctx)
	defer cancel()
	w := &cancellingWriter{at: 8 * size, cancel: cancel}
	sum, err := app.Backup(bctx, s.App.Config, w, app.BackupOptions{})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err %v, %+v", err, sum)
	}
	// What was under way when the cancel came: one blob, and what gzip and
	// tar held of the ones before.
	// (The blob directory holds a file of attributes beside each blob.)
	t.Logf("%d files of the blob directory copied, %d bytes written after the cancel", sum.Blobs, w.after)
	if sum.Blobs >= blobs || w.after > 2*size {
		t.Fatalf("%d files of the blob directory copied (%d blobs), %d bytes written after the cancel", sum.Blobs, blobs, w.after)
	}
}
