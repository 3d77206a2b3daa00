package importer

import "github.com/folio/folio/internal/gate"

// Imports are bounded by a gate.Gate (PDFs by another): each import may
// hold its fetched source and up to MaxImportBytes of unpacked content
// until it is written, so the turns bound the memory imports take together.
type Gate = gate.Gate

// Defaults of the import gate.
const (
	DefaultInFlight = gate.DefaultInFlight
	DefaultWait     = gate.DefaultWait
)

// ErrBusy reports an import that found no turn within the wait.
var ErrBusy = gate.ErrBusy
