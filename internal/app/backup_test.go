package app_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/folio/folio/internal/app"
	"github.com/folio/folio/internal/db"
	"github.com/folio/folio/internal/testkit"
)

// TestBackupUnderLoad: a backup taken while writers keep creating spaces
// restores into an empty data directory with every write acknowledged
// before it began, a database that passes SQLite's integrity and foreign
// key checks, and the blobs; the restored server answers for them.
func TestBackupUnderLoad(t *testing.T) {
	s := testkit.Start(t, "sqlite")
	ctx := context.Background()
	u, org := s.NewUser(t, "backup@example.com", "Backed Up")
	blobs := map[string][]byte{}
	for i := range 5 {
		data := []byte(fmt.Sprintf("blob %d of the backup test", i))
		key, err := s.App.Resolver.Blobs.Put(ctx, data, "text/plain")
		if err != nil {
			t.Fatal(err)
		}
		blobs[key] = data
	}

	var (
		mu    sync.Mutex
		acked []string
		stop  = make(chan struct{})
		wg    sync.WaitGroup
		first = make(chan struct{}, 1)
	)
	for w := range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				r := s.Request(t, u.Token, "POST", "/v1/orgs/"+org+"/spaces", map[string]any{"title": fmt.Sprintf("w%d-%d", w, i)})
				if r.Status != 201 {
					t.Errorf("create space under load: %d %s", r.Status, r.Body)
					return
				}
				mu.Lock()
				acked = append(acked, r.JSON(t)["id"].(string))
				if len(acked) == 20 {
					first <- struct{}{}
				}
				mu.Unlock()
			}
		}()
	}
	<-first // writes are under way
	mu.Lock()
	before := append([]string(nil), acked...)
	mu.Unlock()
	var backup bytes.Buffer
	sum, err := app.Backup(ctx, s.App.Config, &backup, app.BackupOptions{IncludeKey: true})
	close(stop)
	wg.Wait()
	if err != nil {
		t.Fatal(err)
	}
	if !sum.BlobsIncluded || sum.Blobs < len(blobs) {
		t.Fatalf("backup summary %+v, want the %d blobs", sum, len(blobs))
	}
	t.Logf("%d writes acknowledged before the backup, %d in all", len(before), len(acked))

	cfg := app.Defaults()
	cfg.DataDir = filepath.Join(t.TempDir(), "restored")
	restored, err := app.Restore(ctx, cfg, bytes.NewReader(backup.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	if restored.Blobs != sum.Blobs || restored.DatabaseBytes != sum.DatabaseBytes {
		t.Fatalf("restored %+v from a backup of %+v", restored, sum)
	}
	d, err := db.Open(ctx, "", cfg.DataDir)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Client.Close()
	for _, check := range []string{"PRAGMA integrity_check", "PRAGMA foreign_key_check"} {
		rows, err := d.SQL.Query(check)
		if err != nil {
			t.Fatal(err)
		}
		var problems []string
		for rows.Next() {
			cols, _ := rows.Columns()
			vals := make([]any, len(cols))
			ptrs := make([]any, len(cols))
			for i := range vals {
				ptrs[i] = &vals[i]
			}
			_ = rows.Scan(ptrs...)
			if line := fmt.Sprint(vals...); line != "ok" {
				problems = append(problems, line)
			}
		}
		rows.Close()
		if len(problems) > 0 {
			t.Fatalf("%s: %v", check, problems)
		}
	}
	a, err := app.New(cfg, d, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(a.Handler)
	defer srv.Close()
	restoredServer := &testkit.Server{Server: srv, App: a}
	for _, id := range before {
		if r := restoredServer.Request(t, u.Token, "GET", "/v1/spaces/"+id, nil); r.Status != 200 {
			t.Errorf("acknowledged space %s after the restore: %d %s", id, r.Status, r.Body)
		}
	}
	for key, data := range blobs {
		got, err := a.Resolver.Blobs.Get(ctx, key)
		if err != nil || !bytes.Equal(got, data) {
			t.Errorf("blob %s after the restore: %q, %v", key, got, err)
		}
	}

	// A second restore into the same directory is refused, changing nothing.
	if _, err := app.Restore(ctx, cfg, bytes.NewReader(backup.Bytes())); err == nil || !strings.Contains(err.Error(), "already") {
		t.Fatalf("restore over a database: %v", err)
	}
	// Bad input changes nothing: not a backup.
	empty := app.Defaults()
	empty.DataDir = t.TempDir()
	if _, err := app.Restore(ctx, empty, strings.NewReader("not a backup")); err == nil || !strings.Contains(err.Error(), "not a folio backup") {
		t.Fatalf("restore of junk: %v", err)
	}
	if _, err := app.Backup(ctx, app.Config{DatabaseURL: "postgres://h/db"}, &backup, app.BackupOptions{}); !errors.Is(err, app.ErrPostgresBackup) {
		t.Fatalf("backup of PostgreSQL: %v", err)
	}
}
