package app

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/folio/folio/internal/blob"
	"github.com/folio/folio/internal/db"
)

// A backup is a gzipped tar: backupManifest first, then the key of the
// database's secrets (secret.key) when asked for, then the SQLite database
// as one consistent file (folio.db), then the blob directory's files under
// blobs/ when the blobs are on a local disk.
const (
	backupManifest = "folio-backup.json"
	backupKey      = "secret.key"
	backupDatabase = "folio.db"
	backupBlobs    = "blobs/"
	backupFormat   = 1
)

type manifest struct {
	Format  int       `json:"format"`
	Version string    `json:"version"`
	Created time.Time `json:"created"`
	Blobs   bool      `json:"blobs"` // the blob directory is in the backup
	Key     bool      `json:"key"`   // the key of the database's secrets is
}

// BackupOptions are the choices of a backup.
type BackupOptions struct {
	// IncludeKey adds the key of the database's secrets (the key file, or
	// FOLIO_SECRET_KEY): without it, the backup's secrets stay sealed for
	// whoever reads the backup, and restoring needs the key kept apart.
	IncludeKey bool
}

// BackupSummary says what a backup or a restore copied.
type BackupSummary struct {
	DatabaseBytes int64
	Blobs         int  // files of the blob directory
	BlobsIncluded bool // false: the blobs are in a store the backup does not copy
	KeyIncluded   bool // the key of the database's secrets is in the backup
}

// ErrPostgresBackup refuses a backup of a PostgreSQL database: its own tools
// do it (README: pg_dump and pg_restore).
var ErrPostgresBackup = errors.New("the database is PostgreSQL: back it up with pg_dump and restore it with pg_restore (see the README's operator section); folio backup copies the embedded SQLite database")

// Backup writes a consistent copy of the SQLite database of cfg to out,
// with the blob directory when it is local, while servers keep using both.
// The database is copied first, by VACUUM INTO, which reads one snapshot
// (a write transaction is either wholly in it or not at all); the blobs
// after it. A blob is stored before the row that names it commits and is
// never changed afterwards (blobs are content-addressed), so every blob the
// copied database names is in the blob directory by then.
func Backup(ctx context.Context, cfg Config, out io.Writer, opts BackupOptions) (BackupSummary, error) {
	var sum BackupSummary
	if db.IsPostgres(cfg.DatabaseURL) {
		return sum, ErrPostgresBackup
	}
	var key []byte
	if opts.IncludeKey {
		k, found, err := cfg.secretKey()
		if err != nil {
			return sum, err
		}
		if !found {
			return sum, fmt.Errorf("no key to include: %s does not exist and FOLIO_SECRET_KEY is not set", cfg.KeyFile())
		}
		key, sum.KeyIncluded = []byte(k.String()+"\n"), true
	}
	src := db.SQLitePath(cfg.DatabaseURL, cfg.DataDir)
	if _, err := os.Stat(src); err != nil {
		return sum, fmt.Errorf("no database to back up at %s: %w", absolute(src), err)
	}
	tmp, err := os.MkdirTemp("", "folio-backup-")
	if err != nil {
		return sum, err
	}
	defer os.RemoveAll(tmp)
	snapshot := filepath.Join(tmp, backupDatabase)
	if err := vacuumInto(ctx, src, snapshot); err != nil {
		return sum, err
	}

	gz := gzip.NewWriter(out)
	tw := tar.NewWriter(gz)
	blobDir, local := blob.LocalDir(cfg.BlobURL, cfg.DataDir)
	sum.BlobsIncluded = local
	m, _ := json.Marshal(manifest{Format: backupFormat, Version: Version(), Created: time.Now().UTC(), Blobs: local, Key: key != nil})
	if err := writeEntry(tw, backupManifest, int64(len(m)), strings.NewReader(string(m))); err != nil {
		return sum, err
	}
	if key != nil {
		if err := writeEntry(tw, backupKey, int64(len(key)), bytes.NewReader(key)); err != nil {
			return sum, err
		}
	}
	if sum.DatabaseBytes, err = writeFile(tw, backupDatabase, snapshot); err != nil {
		return sum, err
	}
	if local {
		err := filepath.WalkDir(blobDir, func(p string, d fs.DirEntry, err error) error {
			// A cancelled backup (the operator's Ctrl-C) copies no further blob.
			if cerr := ctx.Err(); cerr != nil {
				return cerr
			}
			if errors.Is(err, fs.ErrNotExist) && p == blobDir {
				return fs.SkipDir // no blob yet
			}
			if err != nil || d.IsDir() || !d.Type().IsRegular() || strings.HasSuffix(p, ".tmp") {
				return err
			}
			rel, err := filepath.Rel(blobDir, p)
			if err != nil {
				return err
			}
			if _, err := writeFile(tw, backupBlobs+filepath.ToSlash(rel), p); err != nil {
				return err
			}
			sum.Blobs++
			return nil
		})
		if err != nil {
			return sum, fmt.Errorf("blob directory %s: %w", blobDir, err)
		}
	}
	if err := tw.Close(); err != nil {
		return sum, err
	}
	return sum, gz.Close()
}

// vacuumInto writes a consistent copy of the SQLite database src to dst.
func vacuumInto(ctx context.Context, src, dst string) error {
	raw, err := sql.Open("sqlite", "file:"+src+"?_pragma=busy_timeout(10000)")
	if err != nil {
		return err
	}
	defer raw.Close()
	if _, err := raw.ExecContext(ctx, "VACUUM INTO ?", dst); err != nil {
		return fmt.Errorf("copy the database %s: %w", absolute(src), err)
	}
	return nil
}

func writeFile(tw *tar.Writer, name, p string) (int64, error) {
	f, err := os.Open(p)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return 0, err
	}
	return info.Size(), writeEntry(tw, name, info.Size(), f)
}

func writeEntry(tw *tar.Writer, name string, size int64, r io.Reader) error {
	if err := tw.WriteHeader(&tar.Header{Name: name, Mode: 0o600, Size: size, ModTime: time.Now(), Typeflag: tar.TypeReg}); err != nil {
		return err
	}
	_, err := io.Copy(tw, io.LimitReader(r, size))
	return err
}

// Restore brings a backup back into the data directory of cfg (and the
// blob directory, when the backup has blobs and cfg's blobs are local).
// It refuses a data directory that has a database already, or a blob
// directory that is not empty, so that a restore never mixes two states;
// the database file appears only once the whole backup has been read.
func Restore(ctx context.Context, cfg Config, in io.Reader) (BackupSummary, error) {
	var sum BackupSummary
	if db.IsPostgres(cfg.DatabaseURL) {
		return sum, ErrPostgresBackup
	}
	dst := db.SQLitePath(cfg.DatabaseURL, cfg.DataDir)
	if _, err := os.Stat(dst); err == nil {
		return sum, fmt.Errorf("a database is already at %s: restore into an empty data directory", absolute(dst))
	}
	if _, err := os.Stat(cfg.KeyFile()); err == nil {
		return sum, fmt.Errorf("a key file is already at %s: restore into an empty data directory", cfg.KeyFile())
	}
	blobDir, local := blob.LocalDir(cfg.BlobURL, cfg.DataDir)
	if local {
		if entries, err := os.ReadDir(blobDir); err == nil && len(entries) > 0 {
			return sum, fmt.Errorf("the blob directory %s is not empty: restore into an empty data directory", blobDir)
		}
	}
	gz, err := gzip.NewReader(in)
	if err != nil {
		return sum, fmt.Errorf("not a folio backup (gzip): %w", err)
	}
	tr := tar.NewReader(gz)
	hdr, err := tr.Next()
	if err != nil || hdr.Name != backupManifest {
		return sum, errors.New("not a folio backup: it does not begin with " + backupManifest)
	}
	var m manifest
	if err := json.NewDecoder(io.LimitReader(tr, 1<<16)).Decode(&m); err != nil || m.Format != backupFormat {
		return sum, fmt.Errorf("not a folio backup of format %d (%v)", backupFormat, err)
	}
	if m.Blobs && !local {
		return sum, errors.New("the backup holds a blob directory but FOLIO_BLOB_URL is not a local directory: restore with FOLIO_BLOB_URL empty or file://")
	}
	sum.BlobsIncluded = m.Blobs
	if err := os.MkdirAll(filepath.Dir(dst), 0o700); err != nil {
		return sum, err
	}
	partial, partialKey := dst+".restoring", cfg.KeyFile()+".restoring"
	defer os.Remove(partial)
	defer os.Remove(partialKey)
	gotDB := false
	for {
		hdr, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return sum, fmt.Errorf("read the backup: %w", err)
		}
		if err := ctx.Err(); err != nil {
			return sum, err
		}
		switch name := hdr.Name; {
		case name == backupKey && m.Key:
			if err := os.MkdirAll(filepath.Dir(partialKey), 0o700); err != nil {
				return sum, err
			}
			if _, err := copyOut(tr, partialKey); err != nil {
				return sum, err
			}
			sum.KeyIncluded = true
		case name == backupDatabase:
			if sum.DatabaseBytes, err = copyOut(tr, partial); err != nil {
				return sum, err
			}
			gotDB = true
		case strings.HasPrefix(name, backupBlobs) && local:
			rel := path.Clean(strings.TrimPrefix(name, backupBlobs))
			if !fs.ValidPath(rel) || rel == "." {
				return sum, fmt.Errorf("the backup names a blob outside its directory: %q", name)
			}
			p := filepath.Join(blobDir, filepath.FromSlash(rel))
			if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
				return sum, err
			}
			if _, err := copyOut(tr, p); err != nil {
				return sum, err
			}
			sum.Blobs++
		default:
			return sum, fmt.Errorf("the backup holds an unexpected entry %q", name)
		}
	}
	if !gotDB {
		return sum, errors.New("the backup holds no database")
	}
	if m.Key != sum.KeyIncluded {
		return sum, errors.New("the backup's manifest names a key it does not hold")
	}
	if sum.KeyIncluded {
		if err := os.Rename(partialKey, cfg.KeyFile()); err != nil {
			return sum, err
		}
	}
	return sum, os.Rename(partial, dst)
}

func copyOut(r io.Reader, p string) (int64, error) {
	// Owner only, as the server makes them (README "Secrets at rest").
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return 0, err
	}
	n, err := io.Copy(f, r)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return n, err
}
