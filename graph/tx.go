package graph

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/folio/folio/ent"
)

// withTx runs fn in one transaction: writes that touch several rows commit
// together or not at all, whichever API called them.
func (r *Resolver) withTx(ctx context.Context, fn func(tx *ent.Client) error) error {
	tx, err := r.Client.Tx(ctx)
	if err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	defer func() {
		if v := recover(); v != nil {
			_ = tx.Rollback()
			panic(v)
		}
	}()
	if err := fn(tx.Client()); err != nil {
		if rerr := tx.Rollback(); rerr != nil {
			return fmt.Errorf("%w (rollback: %v)", err, rerr)
		}
		return err
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	return nil
}

// isNoRows tells whether err only says an upsert that did nothing returned
// no row (ent reports it for ON CONFLICT DO NOTHING on some databases).
func isNoRows(err error) bool { return errors.Is(err, sql.ErrNoRows) }
