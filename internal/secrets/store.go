package secrets

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/folio/folio/internal/db"
)

// The key check is one row of key_checks (ent/schema/keycheck.go): a known
// text sealed with the key of the database's secrets. A start with another
// key fails to open it and stops before anything is read or written.
const (
	checkID   = "secrets"
	checkArea = "key_checks.sealed"
	checkText = "folio secrets key check"
)

// ErrNoCheck: the database has no key check yet (a new database, or one
// from before secrets were sealed).
var ErrNoCheck = errors.New("no key check in the database")

// CheckKey opens the database's key check with s: nil when s is the key of
// the database's secrets, ErrNoCheck when there is no check yet, an error
// wrapping ErrWrongKey or ErrCorrupt otherwise.
func CheckKey(ctx context.Context, raw *sql.DB, dialect string, s *Sealer) error {
	var sealed string
	err := raw.QueryRowContext(ctx, db.Numbered(dialect, "SELECT sealed FROM key_checks WHERE id = ?"), checkID).Scan(&sealed)
	if errors.Is(err, sql.ErrNoRows) {
		return ErrNoCheck
	}
	if err != nil {
		return err
	}
	if plain, err := s.Open(checkArea, sealed); err != nil {
		return err
	} else if plain != checkText {
		return ErrCorrupt
	}
	return nil
}

// HasCheck tells whether the database has a key check: whether secrets
// were sealed in it (with some key).
func HasCheck(ctx context.Context, raw *sql.DB, dialect string) (bool, error) {
	var n int
	err := raw.QueryRowContext(ctx, db.Numbered(dialect, "SELECT count(*) FROM key_checks WHERE id = ?"), checkID).Scan(&n)
	return n > 0, err
}

// Prepare makes the database's secrets sealed with s, in one transaction:
// it writes the key check when there is none and seals every value of
// Columns still stored in clear (with its lookup hash). The caller has
// checked the key (CheckKey) and holds the start's lock; a second run
// changes nothing. It returns how many values it sealed.
func Prepare(ctx context.Context, raw *sql.DB, dialect string, s *Sealer) (int, error) {
	tx, err := raw.BeginTx(ctx, nil)
	if err != nil {
		return 0, err
	}
	defer tx.Rollback()
	now := time.Now().UTC()
	if _, err := tx.ExecContext(ctx, db.Numbered(dialect, "INSERT INTO key_checks (id, sealed, created_at, updated_at) SELECT ?, ?, ?, ? WHERE NOT EXISTS (SELECT 1 FROM key_checks WHERE id = ?)"),
		checkID, s.Seal(checkArea, checkText), now, now, checkID); err != nil {
		return 0, fmt.Errorf("write the key check: %w", err)
	}
	n := 0
	for _, c := range Columns {
		where := c.Column + " NOT LIKE 'v1:%'"
		if c.Lookup != "" {
			where += " OR " + c.Lookup + " IS NULL"
		}
		m, err := reseal(ctx, tx, dialect, c, where, s, s)
		if err != nil {
			return n, err
		}
		n += m
	}
	return n, tx.Commit()
}

// Rotate re-seals every value of Columns and the key check, sealed with
// from, with to, in one transaction: every secret and the check change
// together or not at all. Servers must be stopped (they hold the old key).
func Rotate(ctx context.Context, raw *sql.DB, dialect string, from, to *Sealer) (int, error) {
	tx, err := raw.BeginTx(ctx, nil)
	if err != nil {
		return 0, err
	}
	defer tx.Rollback()
	res, err := tx.ExecContext(ctx, db.Numbered(dialect, "UPDATE key_checks SET sealed = ?, updated_at = ? WHERE id = ?"), to.Seal(checkArea, checkText), time.Now().UTC(), checkID)
	if err != nil {
		return 0, fmt.Errorf("write the key check: %w", err)
	}
	if k, _ := res.RowsAffected(); k != 1 {
		return 0, ErrNoCheck
	}
	n := 0
	for _, c := range Columns {
		m, err := reseal(ctx, tx, dialect, c, "1 = 1", from, to)
		if err != nil {
			return n, err
		}
		n += m
	}
	return n, tx.Commit()
}

// reseal rewrites the rows of c matching where: each value opened with from
// (or taken as it is, when stored in clear), sealed with to, and its lookup
// hash.
func reseal(ctx context.Context, tx *sql.Tx, dialect string, c Column, where string, from, to *Sealer) (int, error) {
	rows, err := tx.QueryContext(ctx, "SELECT id, "+c.Column+" FROM "+c.Table+" WHERE "+where)
	if err != nil {
		return 0, fmt.Errorf("read %s.%s: %w", c.Table, c.Column, err)
	}
	type row struct{ id, value string }
	var todo []row
	for rows.Next() {
		var r row
		if err := rows.Scan(&r.id, &r.value); err != nil {
			rows.Close()
			return 0, err
		}
		todo = append(todo, r)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return 0, err
	}
	set := c.Column + " = ?"
	if c.Lookup != "" {
		set += ", " + c.Lookup + " = ?"
	}
	update := db.Numbered(dialect, "UPDATE "+c.Table+" SET "+set+" WHERE id = ?")
	for _, r := range todo {
		v := r.value
		if IsSealed(v) {
			var err error
			if v, err = from.Open(c.Area, v); err != nil {
				return 0, fmt.Errorf("%s of row %s: %w", c.Area, r.id, err)
			}
		}
		args := []any{to.Seal(c.Area, v)}
		if c.Lookup != "" {
			args = append(args, to.Lookup(c.Area, v))
		}
		if _, err := tx.ExecContext(ctx, update, append(args, r.id)...); err != nil {
			return 0, fmt.Errorf("seal %s of row %s: %w", c.Area, r.id, err)
		}
	}
	return len(todo), nil
}
