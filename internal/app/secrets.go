package app

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"

	"github.com/folio/folio/internal/db"
	"github.com/folio/folio/internal/secrets"
)

// The key of the database's secrets (README "Secrets at rest"): the
// FOLIO_SECRET_KEY setting, required with PostgreSQL, whose instances must
// all share it; with SQLite and no setting, the key file secret.key in the
// data directory, made on the first start.

// KeyFile is the path of the key file of cfg's data directory.
func (c Config) KeyFile() string { return filepath.Join(absolute(c.DataDir), secrets.KeyFileName) }

// secretKey is the key cfg names: FOLIO_SECRET_KEY, or the key file
// (found false when there is none yet). PostgreSQL without the setting is
// an error naming it.
func (c Config) secretKey() (k secrets.Key, found bool, err error) {
	if c.SecretKey != "" {
		k, err := secrets.ParseKey(c.SecretKey)
		if err != nil {
			return k, false, fmt.Errorf("FOLIO_SECRET_KEY is not valid: %w", err)
		}
		return k, true, nil
	}
	if db.IsPostgres(c.DatabaseURL) {
		return k, false, errors.New("FOLIO_SECRET_KEY is required with PostgreSQL: every instance must share the one key that seals the secrets stored in the database (32 bytes in base64 or hex: openssl rand -base64 32; see the README's \"Secrets at rest\")")
	}
	return secrets.ReadKeyFile(c.KeyFile())
}

// keySource names where the key came from, for error messages.
func (c Config) keySource() string {
	if c.SecretKey != "" || db.IsPostgres(c.DatabaseURL) {
		return "FOLIO_SECRET_KEY"
	}
	return "the key file " + c.KeyFile() + " (or FOLIO_SECRET_KEY)"
}

// openSecrets is the Sealer of the database's secrets. Under the start's
// lock it checks the key against the database's key check, makes the key
// file of a new SQLite installation, then writes the check on the first
// start and seals what older versions stored in clear (one transaction).
// A key that is not the database's stops the start, naming the setting.
// madeKeyFile is the key file's path when this start made it (the first
// start's banner names it), else "".
func openSecrets(ctx context.Context, cfg Config, d *db.DB, logger *slog.Logger) (sealer *secrets.Sealer, madeKeyFile string, err error) {
	key, found, err := cfg.secretKey()
	if err != nil {
		return nil, "", err
	}
	err = d.Exclusive(ctx, "secrets", func() error {
		if !found {
			// No key yet: only a database that has no sealed secret may get
			// a new one (otherwise the key was lost, or not restored).
			sealed, err := secrets.HasCheck(ctx, d.SQL, d.Dialect)
			if err != nil {
				return err
			}
			if sealed {
				return fmt.Errorf("the database's secrets are sealed but there is no key: restore the key file %s (folio backup --include-key keeps it) or set FOLIO_SECRET_KEY", cfg.KeyFile())
			}
			key = secrets.NewKey()
			if err := secrets.WriteKeyFile(cfg.KeyFile(), key); err != nil {
				return fmt.Errorf("write the key file: %w", err)
			}
			madeKeyFile = cfg.KeyFile()
		}
		sealer = secrets.New(key)
		if err := secrets.CheckKey(ctx, d.SQL, d.Dialect, sealer); err != nil && !errors.Is(err, secrets.ErrNoCheck) {
			return fmt.Errorf("%s is not the key of this database's secrets (its key check does not open: %v); set the key the database was sealed with", cfg.keySource(), err)
		}
		n, err := secrets.Prepare(ctx, d.SQL, d.Dialect, sealer)
		if err != nil {
			return fmt.Errorf("seal the database's secrets: %w", err)
		}
		if n > 0 {
			logger.Info("sealed secrets stored in clear", "count", n)
			return scrub(ctx, d)
		}
		return nil
	})
	return sealer, madeKeyFile, err
}

// RotateSecrets re-seals every secret of the database and its key check
// with newKey, in one transaction, after checking the current key. With
// the key file (SQLite, no FOLIO_SECRET_KEY), newKey (a new random key when
// nil) replaces the key file once the database holds it, and keyFile is
// its path; otherwise newKey is required and the caller sets
// FOLIO_SECRET_KEY to it afterwards, on every instance. Servers must be
// stopped: they keep the key they started with.
func RotateSecrets(ctx context.Context, cfg Config, d *db.DB, newKey *secrets.Key) (rotated int, keyFile string, err error) {
	old, found, err := cfg.secretKey()
	if err != nil {
		return 0, "", err
	}
	if !found {
		return 0, "", fmt.Errorf("no key to rotate: %s does not exist (start the server once first, or set FOLIO_SECRET_KEY)", cfg.KeyFile())
	}
	from := secrets.New(old)
	fileKept := cfg.SecretKey == "" && !db.IsPostgres(cfg.DatabaseURL)
	if newKey == nil {
		if !fileKept {
			return 0, "", errors.New("FOLIO_NEW_SECRET_KEY is required: the new key, which FOLIO_SECRET_KEY must be set to afterwards (openssl rand -base64 32)")
		}
		k := secrets.NewKey()
		newKey = &k
	}
	if fileKept {
		keyFile = cfg.KeyFile()
	}
	to := secrets.New(*newKey)
	if to.KeyID() == from.KeyID() {
		return 0, "", errors.New("the new key is the current key")
	}
	err = d.Exclusive(ctx, "secrets", func() error {
		if err := secrets.CheckKey(ctx, d.SQL, d.Dialect, from); errors.Is(err, secrets.ErrNoCheck) {
			return errors.New("the database's secrets are not sealed yet: start the server once (its first start seals them), then rotate")
		} else if err != nil {
			return fmt.Errorf("%s is not the key of this database's secrets: %w", cfg.keySource(), err)
		}
		// The new key is on disk before the database depends on it: should
		// the rename below not happen, the key is in secret.key.new.
		if keyFile != "" {
			if err := secrets.WriteKeyFile(keyFile+".new", *newKey); err != nil {
				return fmt.Errorf("write the new key file: %w", err)
			}
		}
		if rotated, err = secrets.Rotate(ctx, d.SQL, d.Dialect, from, to); err != nil {
			if keyFile != "" {
				os.Remove(keyFile + ".new")
			}
			return fmt.Errorf("rotate: %w (nothing changed)", err)
		}
		if keyFile != "" {
			if err := os.Rename(keyFile+".new", keyFile); err != nil {
				return fmt.Errorf("the database is sealed with the key in %s.new, but it could not replace %s: %w (rename it by hand)", keyFile, keyFile, err)
			}
		}
		return scrub(ctx, d)
	})
	return rotated, keyFile, err
}

// scrub rewrites an SQLite file after its secrets were sealed or re-sealed:
// SQLite leaves a changed row's old bytes in the file's free space and in
// the write-ahead log until they happen to be reused, so the values stored
// in clear (or under the old key) would stay readable in the file. VACUUM
// rebuilds the file from the live rows, and the checkpoint empties the log.
// PostgreSQL's old row versions are not in files a reader of the data
// directory gets; its VACUUM reclaims them in time.
func scrub(ctx context.Context, d *db.DB) error {
	if d.Dialect == "postgres" {
		return nil
	}
	for _, stmt := range []string{"VACUUM", "PRAGMA wal_checkpoint(TRUNCATE)"} {
		if _, err := d.SQL.ExecContext(ctx, stmt); err != nil {
			return fmt.Errorf("rewrite the database file without the old values (%s): %w", stmt, err)
		}
	}
	return nil
}
