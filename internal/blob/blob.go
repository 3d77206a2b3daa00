// Package blob keeps file bytes, content-addressed by their SHA-256, in a
// gocloud.dev bucket: a directory by default (file://), memory for tests
// (mem://), Amazon S3 or any S3-compatible store (s3://bucket?endpoint=…&
// use_path_style=true&region=…, credentials from the AWS environment) and
// Google Cloud Storage (gs://bucket, credentials from the Google
// environment), through gocloud's own drivers linked in here.
package blob

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"

	"gocloud.dev/blob"
	_ "gocloud.dev/blob/fileblob"
	_ "gocloud.dev/blob/gcsblob"
	_ "gocloud.dev/blob/memblob"
	_ "gocloud.dev/blob/s3blob"
	"gocloud.dev/gcerrors"
)

// Store is a bucket of content-addressed blobs.
type Store struct {
	bucket *blob.Bucket
	dir    string // the data directory's blob directory; "" for another store
}

// ErrNotFound is returned for a key the store does not hold.
var ErrNotFound = errors.New("blob not found")

// Open opens the bucket at rawURL, or a directory "blobs" under dataDir
// when rawURL is empty.
func Open(ctx context.Context, rawURL, dataDir string) (*Store, error) {
	if rawURL == "" {
		dir, err := filepath.Abs(filepath.Join(dataDir, "blobs"))
		if err != nil {
			return nil, err
		}
		// Owner only, as the rest of the data directory; blobs are
		// written next to their place (no_tmp_dir), not in the shared
		// temporary directory, and made 0600 (Put).
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return nil, fmt.Errorf("blob directory: %w", err)
		}
		if err := os.Chmod(dir, 0o700); err != nil {
			return nil, fmt.Errorf("blob directory: %w", err)
		}
		b, err := blob.OpenBucket(ctx, (&url.URL{Scheme: "file", Path: filepath.ToSlash(dir), RawQuery: "dir_file_mode=0700&no_tmp_dir=1"}).String())
		if err != nil {
			return nil, fmt.Errorf("blob directory %s: %w", dir, err)
		}
		return &Store{bucket: b, dir: dir}, nil
	}
	b, err := blob.OpenBucket(ctx, rawURL)
	if err != nil {
		return nil, fmt.Errorf("blob storage %s: %w", rawURL, err)
	}
	return &Store{bucket: b}, nil
}

// Key is the content address of data.
func Key(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// Put stores data under its key and returns the key. Storing the same bytes
// twice is harmless.
func (s *Store) Put(ctx context.Context, data []byte, contentType string) (string, error) {
	key := Key(data)
	if ok, err := s.bucket.Exists(ctx, key); err == nil && ok {
		return key, nil
	}
	err := s.bucket.WriteAll(ctx, key, data, &blob.WriterOptions{ContentType: contentType})
	if err == nil && s.dir != "" {
		// The file driver makes files 0666 less the umask (0644 mostly).
		for _, p := range []string{key, key + ".attrs"} {
			if cerr := os.Chmod(filepath.Join(s.dir, p), 0o600); cerr != nil && !errors.Is(cerr, fs.ErrNotExist) {
				err = cerr
			}
		}
	}
	return key, err
}

// Open reads the blob under key.
func (s *Store) Open(ctx context.Context, key string) (io.ReadCloser, error) {
	r, err := s.bucket.NewReader(ctx, key, nil)
	if gcerrors.Code(err) == gcerrors.NotFound {
		return nil, ErrNotFound
	}
	return r, err
}

// Get reads the whole blob under key.
func (s *Store) Get(ctx context.Context, key string) ([]byte, error) {
	r, err := s.Open(ctx, key)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	var buf bytes.Buffer
	_, err = io.Copy(&buf, r)
	return buf.Bytes(), err
}

// Close releases the bucket.
func (s *Store) Close() error { return s.bucket.Close() }

// LocalDir is the directory that holds the blobs of rawURL and dataDir when
// they are on a local disk (FOLIO_BLOB_URL empty or file://), for backups;
// ok is false for any other store.
func LocalDir(rawURL, dataDir string) (dir string, ok bool) {
	if rawURL == "" {
		dir, err := filepath.Abs(filepath.Join(dataDir, "blobs"))
		return dir, err == nil
	}
	u, err := url.Parse(rawURL)
	if err != nil || u.Scheme != "file" {
		return "", false
	}
	return filepath.FromSlash(u.Path), true
}
