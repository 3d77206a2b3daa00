package testkit

import (
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
