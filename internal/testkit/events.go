package testkit

import (
	"context"
	"os"

	"github.com/folio/folio/internal/events"
)

// Servers refuse a write that goes around the events hook
// (events.Enforce), tests' servers too: the whole suite walks every write.
// FOLIO_TEST_ENFORCE_EVENTS=0 turns the guard off to tell its refusals
// from other failures.
func init() {
	if os.Getenv("FOLIO_TEST_ENFORCE_EVENTS") == "0" {
		events.Enforce.Store(false)
	}
}

// Fixture is ctx for the rows a test sets up directly (members, bulk
// content): they stand for a state, not a change anyone made, so they pass
// the events guard and record nothing.
func Fixture(ctx context.Context) context.Context {
	return events.Exempt(ctx, events.Exemption("test fixture"))
}
