package testkit

import (
	"context"
	"os"

	"github.com/folio/folio/internal/events"
)

// Test servers refuse a write that goes around the events hook
// (events.Enforce) when FOLIO_TEST_ENFORCE_EVENTS=1.
func init() {
	if os.Getenv("FOLIO_TEST_ENFORCE_EVENTS") == "1" {
		events.Enforce.Store(true)
	}
}

// Fixture is ctx for the rows a test sets up directly (members, bulk
// content): they stand for a state, not a change anyone made, so they pass
// the events guard and record nothing.
func Fixture(ctx context.Context) context.Context {
	return events.Exempt(ctx, events.Exemption("test fixture"))
}
