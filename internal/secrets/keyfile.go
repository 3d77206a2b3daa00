package secrets

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// KeyFileName is the key file in the data directory, used with SQLite when
// FOLIO_SECRET_KEY is not set: the key in base64 on one line, mode 0600.
const KeyFileName = "secret.key"

// ReadKeyFile reads the key file at path; ok is false when there is none.
func ReadKeyFile(path string) (k Key, ok bool, err error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return k, false, nil
	}
	if err != nil {
		return k, false, err
	}
	if k, err = ParseKey(string(data)); err != nil {
		return k, false, fmt.Errorf("key file %s: %w", path, err)
	}
	return k, true, nil
}

// WriteKeyFile writes k to path, mode 0600, replacing what is there only
// once the new file is complete on disk (a temporary file renamed over it):
// a crash leaves the old key or the new one, never half of one.
func WriteKeyFile(path string, k Key) error {
	f, err := os.CreateTemp(filepath.Dir(path), ".secret-key-*")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name())
	// CreateTemp makes the file 0600 already; said again, as it matters.
	if err := f.Chmod(0o600); err != nil {
		f.Close()
		return err
	}
	_, err = f.WriteString(k.String() + "\n")
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	return os.Rename(f.Name(), path)
}
