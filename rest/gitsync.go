package rest

import (
	"context"
	"net/http"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/folio/folio/graph"
	"github.com/folio/folio/graph/model"
)

// Area `git`: a space's content imported from and exported to a Git
// repository. Both operations queue a job and answer 204; getSpaceGitInfo
// shows how they went.
func (a *API) gitSyncRoutes(r chi.Router) {
	r.Method("POST", "/spaces/{spaceId}/git/import", handler(a.importGitRepository))
	r.Method("POST", "/spaces/{spaceId}/git/export", handler(a.exportToGitRepository))
	r.Method("GET", "/spaces/{spaceId}/git/info", handler(a.getSpaceGitInfo))
}

// gitSyncBody is ImportGitRepository and ExportToGitRepository (repoCacheID
// is deprecated and ignored), with Folio's autoMerge.
type gitSyncBody struct {
	URL                  string     `json:"url"`
	Ref                  string     `json:"ref"`
	CommitMessage        string     `json:"commitMessage"`
	RepoTreeURL          string     `json:"repoTreeURL"`
	RepoCommitURL        string     `json:"repoCommitURL"`
	RepoProjectDirectory string     `json:"repoProjectDirectory"`
	Timestamp            *time.Time `json:"timestamp"`
	Force                bool       `json:"force"`
	Standalone           bool       `json:"standalone"`
	AutoMerge            bool       `json:"autoMerge"`
	GitInfo              *struct {
		Provider string `json:"provider"`
		URL      string `json:"url"`
	} `json:"gitInfo"`
}

func (b gitSyncBody) request() graph.GitSyncRequest {
	in := graph.GitSyncRequest{URL: b.URL, Ref: b.Ref, CommitMessage: b.CommitMessage, RepoTreeURL: b.RepoTreeURL,
		RepoCommitURL: b.RepoCommitURL, ProjectDirectory: b.RepoProjectDirectory, Timestamp: b.Timestamp,
		Force: b.Force, Standalone: b.Standalone, AutoMerge: b.AutoMerge}
	if b.GitInfo != nil {
		in.Provider, in.TreeURL = b.GitInfo.Provider, b.GitInfo.URL
	}
	return in
}

func (a *API) importGitRepository(w http.ResponseWriter, r *http.Request) error {
	var in gitSyncBody
	if err := decodeJSON(r, &in); err != nil {
		return err
	}
	if _, err := a.res.ImportGitRepository(r.Context(), chi.URLParam(r, "spaceId"), in.request()); err != nil {
		return err
	}
	return writeStatus(w, http.StatusNoContent)
}

func (a *API) exportToGitRepository(w http.ResponseWriter, r *http.Request) error {
	var in gitSyncBody
	if err := decodeJSON(r, &in); err != nil {
		return err
	}
	if _, err := a.res.ExportToGitRepository(r.Context(), chi.URLParam(r, "spaceId"), in.request()); err != nil {
		return err
	}
	return writeStatus(w, http.StatusNoContent)
}

func (a *API) getSpaceGitInfo(w http.ResponseWriter, r *http.Request) error {
	st, err := a.res.SpaceGitInfo(r.Context(), chi.URLParam(r, "spaceId"))
	return writeOne(w, r, http.StatusOK, st, err, a.presentGitSync, nil)
}

// gitSyncJSON is GitBook's GitSyncState with Folio's extensions (remoteUrl,
// ref, projectDirectory, commit, lastImport, lastExport, changeRequest).
type gitSyncJSON struct {
	RepoName             string            `json:"repoName"`
	InstallationStatus   string            `json:"installationStatus"`
	InstallationProvider string            `json:"installationProvider"`
	Integration          string            `json:"integration"`
	InstallationID       string            `json:"installationId"`
	URL                  *string           `json:"url,omitempty"`
	Operation            *gitOperationJSON `json:"operation,omitempty"`
	OperationTimeout     int               `json:"operationTimeout"`
	UpdatedAt            string            `json:"updatedAt"`
	RemoteURL            string            `json:"remoteUrl"`
	Ref                  string            `json:"ref"`
	ProjectDirectory     string            `json:"projectDirectory"`
	Commit               *string           `json:"commit,omitempty"`
	LastImport           *gitOperationJSON `json:"lastImport,omitempty"`
	LastExport           *gitOperationJSON `json:"lastExport,omitempty"`
	ChangeRequest        *string           `json:"changeRequest,omitempty"`
}

type gitOperationJSON struct {
	State         string            `json:"state"`
	Direction     string            `json:"direction"`
	StartedAt     string            `json:"startedAt"`
	EndedAt       *string           `json:"endedAt,omitempty"`
	Error         *string           `json:"error,omitempty"`
	Commit        *string           `json:"commit,omitempty"`
	RevisionID    *string           `json:"revisionId,omitempty"`
	Conflicts     []gitConflictJSON `json:"conflicts"`
	ConflictCount int               `json:"conflictCount"`
}

type gitConflictJSON struct {
	PageID string `json:"pageId"`
	Title  string `json:"title,omitempty"`
	Path   string `json:"path,omitempty"`
	Reason string `json:"reason"`
}

func (a *API) presentGitSync(_ context.Context, st *model.GitSyncState) (any, error) {
	out := gitSyncJSON{RepoName: st.RepoName, InstallationStatus: st.InstallationStatus,
		InstallationProvider: strings.ReplaceAll(st.InstallationProvider, "_", "-"), Integration: "folio-git",
		InstallationID: st.InstallationID, URL: st.URL, OperationTimeout: st.OperationTimeout, UpdatedAt: timestamp(st.UpdatedAt),
		RemoteURL: st.RemoteURL, Ref: st.Ref, ProjectDirectory: st.ProjectDirectory, Commit: st.Commit,
		Operation: presentGitOperation(st.Operation), LastImport: presentGitOperation(st.LastImport), LastExport: presentGitOperation(st.LastExport)}
	if st.ChangeRequestID != "" {
		out.ChangeRequest = &st.ChangeRequestID
	}
	return out, nil
}

func presentGitOperation(op *model.GitSyncOperation) *gitOperationJSON {
	if op == nil {
		return nil
	}
	out := &gitOperationJSON{State: op.State, Direction: op.Direction, StartedAt: timestamp(op.StartedAt), Error: op.Error,
		Commit: op.Commit, RevisionID: op.RevisionID, Conflicts: []gitConflictJSON{}, ConflictCount: op.ConflictCount}
	if op.EndedAt != nil {
		t := timestamp(*op.EndedAt)
		out.EndedAt = &t
	}
	for _, c := range op.Conflicts {
		out.Conflicts = append(out.Conflicts, gitConflictJSON{PageID: c.PageID, Title: c.Title, Path: c.Path, Reason: c.Reason})
	}
	return out
}
