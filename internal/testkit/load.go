package testkit

import (
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
)

// UnderLoad keeps every processor busy until the test (or the returned stop)
// ends: 2×GOMAXPROCS goroutines spin, so that a request's goroutines are
// descheduled at random points, as on a loaded machine. Tests that claim
// statement counts do not depend on timing measure inside it: a count that
// hangs on how a dataloader batch wait falls then varies from run to run.
// FOLIO_TEST_LOAD=1 runs every test's server this way.
func UnderLoad(t testing.TB) (stop func()) {
	t.Helper()
	var done atomic.Bool
	var wg sync.WaitGroup
	for range 2 * runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			x := 0
			for !done.Load() {
				for i := range 10000 {
					x ^= i * 31
				}
			}
			_ = x
		}()
	}
	var once sync.Once
	stop = func() { once.Do(func() { done.Store(true); wg.Wait() }) }
	t.Cleanup(stop)
	return stop
}
