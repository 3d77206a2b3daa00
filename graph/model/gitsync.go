package model

import (
	"time"

	entschema "github.com/folio/folio/ent/schema"
)

// GitSyncState is a space's Git connection as both APIs show it
// (GitBook's GitSyncState, with Folio's extensions).
type GitSyncState struct {
	RepoName             string
	InstallationStatus   string
	InstallationProvider string
	InstallationID       string
	URL                  *string
	Operation            *GitSyncOperation
	OperationTimeout     int
	UpdatedAt            time.Time
	RemoteURL            string
	Ref                  string
	ProjectDirectory     string
	Commit               *string
	LastImport           *GitSyncOperation
	LastExport           *GitSyncOperation
	// ChangeRequestID is the change request imports arrive in ("" for
	// none); the changeRequest field loads it.
	ChangeRequestID string
	SpaceID         string
}

// GitSyncOperation is one import or export.
type GitSyncOperation struct {
	State         string
	Direction     string
	StartedAt     time.Time
	EndedAt       *time.Time
	Error         *string
	Commit        *string
	RevisionID    *string
	Conflicts     []*entschema.GitSyncConflict
	ConflictCount int
}
