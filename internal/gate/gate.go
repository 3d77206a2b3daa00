// Package gate bounds work that runs inside requests and holds much memory
// or processor while it runs (imports, PDFs): a fixed number of turns; a
// caller past them waits a little, then is turned away (503 with
// Retry-After), rather than every caller slowing every other.
package gate

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"time"
)

// Defaults of a Gate.
const (
	// DefaultInFlight callers hold a turn at once.
	DefaultInFlight = 2
	// DefaultWait is how long a caller past the bound waits for a turn.
	DefaultWait = 10 * time.Second
)

// ErrBusy reports a caller that found no turn within the wait.
var ErrBusy = errors.New("too many are running: retry later")

// Gate bounds the callers in flight. Set Max and Wait before the first
// Enter.
type Gate struct {
	Max  int           // turns at once; 0 means DefaultInFlight
	Wait time.Duration // a caller's wait for a turn; 0 means DefaultWait

	once    sync.Once
	slots   chan struct{}
	waiting atomic.Int64
}

// Enter waits for a turn: release ends it. It answers ErrBusy when no turn
// came within the wait, and the context's error when ctx ends first (the
// client left: nobody waits for an answer).
func (g *Gate) Enter(ctx context.Context) (release func(), err error) {
	g.init()
	release = func() { <-g.slots }
	select {
	case g.slots <- struct{}{}:
		return release, nil
	default:
	}
	g.waiting.Add(1)
	defer g.waiting.Add(-1)
	timer := time.NewTimer(g.wait())
	defer timer.Stop()
	select {
	case g.slots <- struct{}{}:
		return release, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-timer.C:
		return nil, ErrBusy
	}
}

func (g *Gate) init() {
	g.once.Do(func() {
		n := g.Max
		if n <= 0 {
			n = DefaultInFlight
		}
		g.slots = make(chan struct{}, n)
	})
}

func (g *Gate) wait() time.Duration {
	if g.Wait > 0 {
		return g.Wait
	}
	return DefaultWait
}

// RetryAfter is the wait to suggest to a caller turned away, in seconds.
func (g *Gate) RetryAfter() int { return int((g.wait() + time.Second - 1) / time.Second) }

// InFlight is the number of callers holding a turn.
func (g *Gate) InFlight() int {
	g.init()
	return len(g.slots)
}

// Waiting is the number of callers waiting for a turn.
func (g *Gate) Waiting() int { return int(g.waiting.Load()) }
