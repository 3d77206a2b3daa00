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

// Fixture is the context of a test's own writes straight into the database
// (seeding, fixtures): they set the scene around the API and record no
// event, even with FOLIO_TEST_ENFORCE_EVENTS=1.
func Fixture() context.Context {
	return events.Exempt(context.Background(), events.ExemptFixture)
}
