// Package clock is the one source of time for stored timestamps, so tests can
// move it (restore windows, purges) without sleeping.
package clock

import (
	"sync"
	"time"
)

var (
	mu     sync.RWMutex
	offset time.Duration
)

// Now returns the current time in UTC, truncated to milliseconds: timestamps
// are written as RFC 3339 with milliseconds, and keyset cursors compare stored
// values exactly, so both databases must hold the same precision.
func Now() time.Time {
	mu.RLock()
	d := offset
	mu.RUnlock()
	return time.Now().Add(d).UTC().Truncate(time.Millisecond)
}

// Advance moves the clock forward by d for the whole process. Tests only.
func Advance(d time.Duration) {
	mu.Lock()
	offset += d
	mu.Unlock()
}

// Reset puts the clock back to real time. Tests only.
func Reset() {
	mu.Lock()
	offset = 0
	mu.Unlock()
}
