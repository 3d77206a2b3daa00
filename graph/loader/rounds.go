package loader

import (
	"context"
	"sort"
	"sync"
	"time"

	"github.com/graph-gophers/dataloader/v7"
)

// Stats records the batches a request's loaders ran, so tests can count the
// rounds a read waits on. A round is a stretch of time in which at least one
// batch is waiting or running: batches queued together (before any of them
// is awaited) overlap and make one round; a batch queued after another's
// result was awaited starts after it ended and makes the next. A batch's
// stretch starts when its wait began (its start minus the wait: a batch
// cannot start before its wait is over) and ends when its statements are
// done, so loads queued microseconds apart overlap even on a loaded machine.
type Stats struct {
	mu      sync.Mutex
	windows [][2]time.Time
}

func (s *Stats) record(from, to time.Time) {
	s.mu.Lock()
	s.windows = append(s.windows, [2]time.Time{from, to})
	s.mu.Unlock()
}

// Batches is the number of batches run: one statement or more each.
func (s *Stats) Batches() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.windows)
}

// Rounds is the number of rounds the batches fell into: how many times, in
// sequence, the request waited on its loaders.
func (s *Stats) Rounds() int {
	s.mu.Lock()
	w := append([][2]time.Time(nil), s.windows...)
	s.mu.Unlock()
	sort.Slice(w, func(i, j int) bool { return w[i][0].Before(w[j][0]) })
	rounds := 0
	var end time.Time
	for _, b := range w {
		if rounds == 0 || b[0].After(end) {
			rounds++
			end = b[1]
		} else if b[1].After(end) {
			end = b[1]
		}
	}
	return rounds
}

// batched builds a loader whose batches wait `wait` for more keys and are
// recorded in st.
func batched[V any](st *Stats, wait time.Duration, fn dataloader.BatchFunc[string, V]) *dataloader.Loader[string, V] {
	return dataloader.NewBatchedLoader(func(ctx context.Context, keys []string) []*dataloader.Result[V] {
		start := time.Now()
		results := fn(ctx, keys)
		st.record(start.Add(-wait), time.Now())
		return results
	}, dataloader.WithWait[string, V](wait))
}

type observerKey struct{}

// Observe returns a context whose request, once authenticated, hands its
// loaders to seen: tests read their Stats after the answer.
func Observe(ctx context.Context, seen func(*Loaders)) context.Context {
	return context.WithValue(ctx, observerKey{}, seen)
}
