package loader

import (
	"context"
	"reflect"
	"sync"
	"time"

	"github.com/graph-gophers/dataloader/v7"

	"github.com/folio/folio/internal/metrics"
)

// Stats records the batches a request's loaders ran, so tests can count the
// rounds a read waits on. Rounds follow cause, not the clock: a batch is in
// round 1 + the highest round delivered when its first key was queued. Keys
// queued together, before any is awaited, share a round; a key queued after
// awaiting a round-k result is in round k+1 or later. (A goroutine
// descheduled between two loads of one round can only make a round count
// twice, never hide one.)
type Stats struct {
	mu        sync.Mutex
	batches   int
	rounds    int
	delivered int
	hold      func(context.Context)
}

// HoldBatches has each later batch of the request call hold with the
// batch's context before it runs: a test holds a batch to end the request
// (its client leaving, its deadline) while the batch is queued.
func (s *Stats) HoldBatches(hold func(ctx context.Context)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.hold = hold
}

func (s *Stats) held(ctx context.Context) {
	s.mu.Lock()
	hold := s.hold
	s.mu.Unlock()
	if hold != nil {
		hold(ctx)
	}
}

// queued is the round a key queued now falls into.
func (s *Stats) queued() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.delivered + 1
}

func (s *Stats) done(round int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.batches++
	s.rounds = max(s.rounds, round)
	s.delivered = max(s.delivered, round)
}

// Batches is the number of batches run: one statement or more each.
func (s *Stats) Batches() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.batches
}

// Rounds is the number of rounds of loads the request waited on in
// sequence.
func (s *Stats) Rounds() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.rounds
}

// roundTracer notes the round of each key when it is queued (dataloader
// calls TraceLoad on every Load, before its batch exists).
type roundTracer[V any] struct {
	dataloader.NoopTracer[string, V]
	stats *Stats
	mu    sync.Mutex
	round map[string]int
}

func (t *roundTracer[V]) TraceLoad(ctx context.Context, key string) (context.Context, dataloader.TraceLoadFinishFunc[V]) {
	t.mu.Lock()
	if _, ok := t.round[key]; !ok {
		t.round[key] = t.stats.queued()
	}
	t.mu.Unlock()
	return ctx, func(dataloader.Thunk[V]) {}
}

// batchRound is the round of a batch of keys: that of its first key.
func (t *roundTracer[V]) batchRound(keys []string) int {
	t.mu.Lock()
	defer t.mu.Unlock()
	round := 0
	for _, k := range keys {
		if r, ok := t.round[k]; ok && (round == 0 || r < round) {
			round = r
		}
		delete(t.round, k)
	}
	return max(round, 1)
}

// batching is how a request's loaders batch: how long a batch waits for
// more keys, and where batches are recorded.
type batching struct {
	stats *Stats
	wait  time.Duration
}

// now is b without the wait, for loaders that other loaders' batches call.
func (b batching) now() batching { return batching{stats: b.stats} }

// batched builds a loader whose batches wait b.wait for more keys and are
// counted in b.stats. Every loader's batches go through here, so here is
// where a batch of a request that stopped while it waited is dropped.
func batched[V any](b batching, fn dataloader.BatchFunc[string, V]) *Loader[V] {
	return lazily(func() *dataloader.Loader[string, V] {
		tr := &roundTracer[V]{stats: b.stats, round: map[string]int{}}
		size := metrics.LoaderBatchSize.WithLabelValues(reflect.TypeFor[V]().String())
		return dataloader.NewBatchedLoader(func(ctx context.Context, keys []string) []*dataloader.Result[V] {
			round := tr.batchRound(keys)
			b.stats.held(ctx)
			if err := requestStopped(ctx); err != nil {
				// The request stopped (its deadline, its client gone, its
				// answer over the ceiling) while the batch waited: nobody
				// is left to read it, so it runs no SQL and counts as no
				// batch.
				return stopped[V](err, len(keys))
			}
			size.Observe(float64(len(keys)))
			results := fn(ctx, keys)
			b.stats.done(round)
			return results
		}, dataloader.WithWait[string, V](b.wait), dataloader.WithTracer[string, V](tr))
	})
}

// requestKey holds, in a detached context (Detach), the request's own.
type requestKey struct{}

// Detach is ctx for work that must run to its end whatever becomes of the
// request (ctx's cancellation does not reach it), except that loader
// batches still run no SQL once the request's context is done. A GraphQL
// stream runs under it: gqlgen drops a deferred part whose context ends
// while the transport waits for it, and the transport then waits forever
// (graph/transport.go).
func Detach(ctx context.Context) context.Context {
	return context.WithValue(context.WithoutCancel(ctx), requestKey{}, ctx)
}

// Request is the context of ctx's request: ctx itself, or, for a detached
// context, the request's, which ends with the request.
func Request(ctx context.Context) context.Context {
	if req, ok := ctx.Value(requestKey{}).(context.Context); ok {
		return req
	}
	return ctx
}

// requestStopped is why the request of ctx has ended (ctx's own end, or a
// detached context's request's); nil while it runs.
func requestStopped(ctx context.Context) error {
	if ctx.Err() != nil {
		return context.Cause(ctx)
	}
	if req := Request(ctx); req.Err() != nil {
		return context.Cause(req)
	}
	return nil
}

// stopped answers every key of a batch that did not run with the cause
// its request ended with.
func stopped[V any](err error, n int) []*dataloader.Result[V] {
	out := make([]*dataloader.Result[V], n)
	for i := range out {
		out[i] = &dataloader.Result[V]{Error: err}
	}
	return out
}

type observerKey struct{}

// Observe returns a context whose request, once authenticated, hands its
// loaders to seen: tests read their Stats after the answer.
func Observe(ctx context.Context, seen func(*Loaders)) context.Context {
	return context.WithValue(ctx, observerKey{}, seen)
}
