package events

import (
	"context"
	"fmt"
	"sync/atomic"

	"entgo.io/ent"

	gen "github.com/folio/folio/ent"
)

// Enforce makes Guard refuse a mutation made outside a write's scope (or
// outside its transaction), and the hook a write that changed rows but
// recorded no event. Off, Guard only counts.
var Enforce atomic.Bool

func init() { Enforce.Store(true) }

// Guard is the ent hook that keeps every write on the one path: a mutation
// must run in the transaction of a write scope (Begin), or under Exempt.
// It counts the scope's writes so the hook can tell a write that forgot to
// add its event. Events themselves, and the infrastructure rows of jobs,
// pass.
func Guard(next ent.Mutator) ent.Mutator {
	return ent.MutateFunc(func(ctx context.Context, m ent.Mutation) (ent.Value, error) {
		switch m.Type() {
		case gen.TypeEvent, gen.TypeJob, gen.TypeKeyCheck:
			return next.Mutate(ctx, m)
		}
		if IsExempt(ctx) {
			return next.Mutate(ctx, m)
		}
		s, _ := ctx.Value(scopeKey{}).(*Scope)
		if s == nil {
			if Enforce.Load() {
				return nil, fmt.Errorf("%s %s outside a write: writes go through graph.Resolver.write, which records their event", m.Op(), m.Type())
			}
			return next.Mutate(ctx, m)
		}
		if tx, ok := m.(interface{ Tx() (*gen.Tx, error) }); ok {
			if _, err := tx.Tx(); err != nil && Enforce.Load() {
				return nil, fmt.Errorf("%s %s outside its write's transaction: use the tx the write gives", m.Op(), m.Type())
			}
		}
		s.mu.Lock()
		s.writes++
		s.mu.Unlock()
		return next.Mutate(ctx, m)
	})
}
