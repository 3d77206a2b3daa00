package graph

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sort"
	"strings"

	"github.com/folio/folio/ent"
	"github.com/folio/folio/ent/changerequest"
	entgitsync "github.com/folio/folio/ent/gitsync"
	"github.com/folio/folio/ent/gitsyncoperation"
	"github.com/folio/folio/ent/revision"
	entschema "github.com/folio/folio/ent/schema"
	"github.com/folio/folio/ent/space"
	"github.com/folio/folio/ent/user"
	"github.com/folio/folio/graph/loader"
	"github.com/folio/folio/internal/apperr"
	"github.com/folio/folio/internal/clock"
	"github.com/folio/folio/internal/events"
	gs "github.com/folio/folio/internal/gitsync"
	"github.com/folio/folio/internal/jobs"
	"github.com/folio/folio/internal/secrets"
)

// The job of a Git import or export. It runs as the user who asked (their
// role is checked again: a caller who lost it meanwhile fails the
// operation), once across instances (the job runner's claim), and is
// retried only when the repository could not be reached. Every end is
// recorded: the operation's state, the connection's sync point, an event.

// gitOutcome is what an operation made, written with its end.
type gitOutcome struct {
	commit, revisionID, changeRequestID, note string
	conflicts                                 []entschema.GitSyncConflict
	conflictCount                             int
}

// RunGitSync is the job of one operation (payload: its id).
func (r *Resolver) RunGitSync(ctx context.Context, j jobs.Job) error {
	op, err := r.Client.GitSyncOperation.Get(ctx, j.Payload)
	if ent.IsNotFound(err) {
		return nil // its space was purged meanwhile
	}
	if err != nil {
		return err
	}
	if op.State != gitsyncoperation.StateQueued && op.State != gitsyncoperation.StateRunning {
		return nil // ended already (a job run twice after a lost lease)
	}
	if stale, err := r.superseded(ctx, op); err != nil || stale {
		if err != nil {
			return err
		}
		return r.endGitSync(ctx, op, gitsyncoperation.StateFailure, gitOutcome{}, showable{errors.New("a newer operation (by timestamp) already ran")})
	}
	u, err := r.Client.User.Query().Where(user.ID(op.CreatedBy)).Modify(loader.WithViewerMemberships).Only(ctx)
	if ent.IsNotFound(err) {
		return r.endGitSync(ctx, op, gitsyncoperation.StateFailure, gitOutcome{}, showable{errors.New("the user who asked for it no longer exists")})
	}
	if err != nil {
		return err
	}
	uctx, err := r.userContext(ctx, u, events.SourceWorkflow, "")
	if err != nil {
		return err
	}
	now := clock.Now()
	progress := events.Exempt(ctx, events.ExemptGitSync)
	if err := r.Client.GitSyncOperation.UpdateOneID(op.ID).SetState(gitsyncoperation.StateRunning).SetStartedAt(now).Exec(progress); err != nil {
		return err
	}
	runCtx, cancel := context.WithTimeout(uctx, r.gitTimeout())
	defer cancel()
	var out gitOutcome
	if op.Direction == gitsyncoperation.DirectionImport {
		out, err = r.runGitImport(runCtx, op)
	} else {
		out, err = r.runGitExport(runCtx, op, u)
	}
	var netErr *gs.NetworkError
	switch {
	case err == nil:
		return r.endGitSync(uctx, op, gitsyncoperation.StateSuccess, out, nil)
	case ctx.Err() != nil:
		return ctx.Err() // the server is stopping: the job runs again
	case errors.Is(runCtx.Err(), context.DeadlineExceeded):
		return r.endGitSync(uctx, op, gitsyncoperation.StateTimeout, out, showable{fmt.Errorf("the operation ran longer than %s", r.gitTimeout())})
	case errors.As(err, &netErr) && !j.Last:
		// Only a network failure is worth another attempt; the operation
		// stays queued meanwhile.
		if err := r.Client.GitSyncOperation.UpdateOneID(op.ID).SetState(gitsyncoperation.StateQueued).SetError(err.Error()).Exec(progress); err != nil {
			return err
		}
		return jobs.Retry(err)
	}
	return r.endGitSync(uctx, op, gitsyncoperation.StateFailure, out, err)
}

// superseded tells whether an operation of the same direction with a
// later timestamp already ran (GitBook orders syncs by the timestamps of
// the events that caused them).
func (r *Resolver) superseded(ctx context.Context, op *ent.GitSyncOperation) (bool, error) {
	if op.Timestamp == nil {
		return false, nil
	}
	return r.Client.GitSyncOperation.Query().Where(gitsyncoperation.SpaceID(op.SpaceID),
		gitsyncoperation.DirectionEQ(op.Direction), gitsyncoperation.StateEQ(gitsyncoperation.StateSuccess),
		gitsyncoperation.TimestampGT(*op.Timestamp)).Exist(ctx)
}

// endGitSync writes an operation's end and records its event. Failures
// keep their words for people: errors of Folio's own vocabulary as they
// are, anything else as an internal error (logged, not shown).
func (r *Resolver) endGitSync(ctx context.Context, op *ent.GitSyncOperation, state gitsyncoperation.State, out gitOutcome, cause error) error {
	msg := out.note
	if cause != nil {
		msg = gitErrorText(ctx, cause)
	}
	end := func(ctx context.Context, tx *ent.Client) (bool, error) {
		n, err := tx.GitSyncOperation.Update().Where(gitsyncoperation.ID(op.ID), gitsyncoperation.StateIn(gitsyncoperation.StateQueued, gitsyncoperation.StateRunning)).
			SetState(state).SetEndedAt(clock.Now()).SetError(msg).SetCommit(out.commit).SetRevisionID(out.revisionID).
			SetChangeRequestID(out.changeRequestID).SetConflicts(out.conflicts).SetConflictCount(out.conflictCount).Save(ctx)
		return n > 0, err
	}
	if state == gitsyncoperation.StateSuccess {
		// The work's own write recorded its event.
		_, err := end(events.Exempt(ctx, events.ExemptGitSync), r.Client)
		return err
	}
	return r.write(ctx, func(ctx context.Context, tx *ent.Client) error {
		if ended, err := end(ctx, tx); err != nil || !ended {
			return err
		}
		if errors.Is(cause, gs.ErrAuth) {
			if err := tx.GitSync.Update().Where(entgitsync.SpaceID(op.SpaceID)).SetUnauthenticated(true).Exec(ctx); err != nil {
				return err
			}
		}
		s, err := tx.Space.Get(ctx, op.SpaceID)
		if err != nil {
			return err
		}
		action := events.GitImportFailed
		payload := map[string]any{"operationId": op.ID, "ref": op.Ref, "error": msg}
		if op.Direction == gitsyncoperation.DirectionExport {
			action = events.GitExportFailed
		} else if out.conflictCount > 0 {
			payload["conflicts"] = out.conflictCount
		}
		record(ctx, spaceEvent(action, s, payload))
		return nil
	})
}

func gitErrorText(ctx context.Context, err error) string {
	var ae *apperr.Error
	var se showable
	switch {
	case errors.As(err, &se):
		return se.Error()
	case errors.As(err, &ae) && ae.Kind != apperr.Internal:
		return ae.Message
	}
	slog.ErrorContext(ctx, "git sync failed", "error", err.Error())
	return "an internal error ended the operation"
}

// showable marks an error whose words are Folio's and free of credentials
// and addresses: internal/gitsync's (the transport's own wording stays
// behind Unwrap) and the job's own. The operation's error shows it.
type showable struct{ error }

func (s showable) Unwrap() error { return s.error }

// fromGit marks err (nil stays nil) as showable.
func fromGit(err error) error {
	if err == nil {
		return nil
	}
	return showable{err}
}

// gitConnection is a space's connection and its repository, the
// credential opened.
func (r *Resolver) gitConnection(ctx context.Context, spaceID string) (*ent.GitSync, gs.Remote, error) {
	conn, err := r.Client.GitSync.Query().Where(entgitsync.SpaceID(spaceID)).Only(ctx)
	if err != nil {
		return nil, gs.Remote{}, err
	}
	rem := gs.Remote{URL: conn.URL}
	if conn.CredentialSealed != "" {
		cred, err := r.openSecret(secrets.GitCredential, conn.ID, conn.CredentialSealed)
		if err != nil {
			return nil, rem, err
		}
		rem.Username, rem.Password, _ = strings.Cut(cred, ":")
	}
	return conn, rem, nil
}

// throughChangeRequests tells a space edited through change requests:
// one not in live edit mode (UpdateSpaceContent's rule).
func throughChangeRequests(s *ent.Space) bool {
	return s.EditMode == nil || *s.EditMode != space.EditModeLive
}

func (r *Resolver) runGitImport(ctx context.Context, op *ent.GitSyncOperation) (gitOutcome, error) {
	var out gitOutcome
	s, err := unlockedSpace(ctx, op.SpaceID)
	if err != nil {
		return out, err
	}
	conn, remote, err := r.gitConnection(ctx, op.SpaceID)
	if err != nil {
		return out, err
	}
	snap, err := r.gitTransport().Fetch(ctx, remote, op.Ref, conn.ProjectDirectory, r.gitLimits())
	if err != nil {
		return out, fromGit(err)
	}
	out.commit = snap.Commit
	tree, err := gs.Decode(snap.Files)
	if err != nil {
		return out, fromGit(err)
	}
	if conn.RepoTreeURL != "" {
		linkRepoFiles(tree.Pages, snap.Files, conn.RepoTreeURL, conn.ProjectDirectory)
	}
	if throughChangeRequests(s) && !op.Standalone {
		return r.importIntoChangeRequest(ctx, op, s, conn, tree, snap)
	}
	if !op.Force && !op.Standalone && conn.RevisionID != "" && conn.RevisionID != s.RevisionID {
		// Edited in Folio since the last sync: the import would overwrite
		// those edits. Each edited page is listed; nothing changes.
		out.conflicts, out.conflictCount, err = r.editedSince(ctx, conn.RevisionID, s.RevisionID)
		if err != nil {
			return out, err
		}
		return out, apperr.Conflictf("the space was edited in Folio since the last sync (%d pages): import with force to overwrite those edits", out.conflictCount)
	}
	d, entries, err := r.importedDraft(ctx, s.RevisionID, tree, snap, conn.Files)
	if err != nil {
		return out, err
	}
	d.git = revisionGit(conn, op, snap)
	moved, err := r.mergeMovedPages(ctx, s.ID, s.RevisionID, d)
	if err != nil {
		return out, err
	}
	moved = append(moved, yamlRedirects(tree, d, entries)...)
	err = r.write(ctx, func(ctx context.Context, tx *ent.Client) error {
		rev, err := d.write(ctx, tx, r.Dialect, s.ID, revision.TypeImport, []string{s.RevisionID}, op.CreatedBy)
		if err != nil {
			return err
		}
		out.revisionID = rev.ID
		movedSpace, err := moveSpaceRevision(ctx, tx, s, rev.ID)
		if err != nil {
			return err
		}
		if err := r.redirectMovedPages(ctx, tx, s.ID, moved); err != nil {
			return err
		}
		if err := r.reindex(ctx, tx, s.ID, d.before(), d); err != nil {
			return err
		}
		if !op.Standalone {
			if err := tx.GitSync.UpdateOneID(conn.ID).SetCommit(snap.Commit).SetRevisionID(rev.ID).SetFiles(entries).
				SetUnauthenticated(false).Exec(ctx); err != nil {
				return err
			}
		}
		record(ctx, spaceEvent(events.GitImportFinished, movedSpace, map[string]any{"operationId": op.ID, "commit": snap.Commit,
			"ref": op.Ref, "revisionId": rev.ID, "forced": op.Force}))
		return nil
	})
	if err == nil {
		loader.For(ctx).SpaceByID.Clear(ctx, s.ID)
	}
	return out, err
}

// importIntoChangeRequest brings an import into the connection's open
// change request (or a new one) as its content, based on the revision of
// the last sync: merging it then keeps every edit made in Folio since.
// Pages edited on both sides are listed as conflicts; the change request
// waits for review unless the caller asked to merge it and the rules
// allow.
func (r *Resolver) importIntoChangeRequest(ctx context.Context, op *ent.GitSyncOperation, s *ent.Space, conn *ent.GitSync, tree *gs.Tree, snap *gs.Snapshot) (gitOutcome, error) {
	out := gitOutcome{commit: snap.Commit}
	ancestor := conn.RevisionID
	if ancestor == "" {
		ancestor = s.RevisionID
	}
	var cr *ent.ChangeRequest
	if conn.ChangeRequestID != "" {
		c, err := r.Client.ChangeRequest.Get(ctx, conn.ChangeRequestID)
		if err != nil && !ent.IsNotFound(err) {
			return out, err
		}
		if c != nil && (c.Status == changerequest.StatusOpen || c.Status == changerequest.StatusDraft) {
			cr = c
		}
	}
	base := ancestor
	if cr != nil {
		base = cr.RevisionID
	}
	d, entries, err := r.importedDraft(ctx, base, tree, snap, conn.Files)
	if err != nil {
		return out, err
	}
	d.git = revisionGit(conn, op, snap)
	err = r.write(ctx, func(ctx context.Context, tx *ent.Client) error {
		if cr == nil {
			subject := truncate(fmt.Sprintf("Import %s from %s", shortRef(op.Ref), repoName(conn.URL)), 100)
			var err error
			if cr, err = createChangeRequestTx(ctx, tx, s.ID, op.CreatedBy, ancestor, &subject); err != nil {
				return err
			}
		}
		d.changeRequest = cr.ID
		rev, err := d.write(ctx, tx, r.Dialect, s.ID, revision.TypeImport, []string{base}, op.CreatedBy)
		if err != nil {
			return err
		}
		if err := moveChangeRequestRevision(ctx, tx, cr, rev.ID); err != nil {
			return err
		}
		cr.RevisionID = rev.ID
		out.revisionID, out.changeRequestID = rev.ID, cr.ID
		if err := tx.GitSync.UpdateOneID(conn.ID).SetCommit(snap.Commit).SetFiles(entries).SetChangeRequestID(cr.ID).
			SetUnauthenticated(false).Exec(ctx); err != nil {
			return err
		}
		record(ctx, changeRequestEvent(events.GitImportFinishedInChangeRequest, s.OrganizationID, cr, map[string]any{
			"operationId": op.ID, "commit": snap.Commit, "ref": op.Ref, "number": cr.Number, "revisionId": rev.ID}))
		return nil
	})
	if err != nil {
		return out, err
	}
	// Would it merge? The conflicts are the merge's, page by page.
	_, err = r.threeWay(ctx, cr.RevisionMergedAncestor, s.RevisionID, cr.RevisionID)
	var mc *mergeConflicts
	switch {
	case errors.As(err, &mc):
		out.conflicts, out.conflictCount = r.describeConflicts(ctx, cr.RevisionID, s.RevisionID, mc, entries)
		out.note = fmt.Sprintf("change request %d waits: %d pages conflict with edits made in Folio", cr.Number, out.conflictCount)
		return out, nil
	case err != nil:
		return out, err
	}
	if !op.AutoMerge {
		out.note = fmt.Sprintf("change request %d waits for review", cr.Number)
		return out, nil
	}
	_, err = r.MergeChangeRequest(ctx, s.ID, cr.ID)
	if err != nil {
		var ae *apperr.Error
		if errors.As(err, &ae) && ae.Kind != apperr.Internal {
			out.note = fmt.Sprintf("change request %d was not merged: %s", cr.Number, ae.Message)
			return out, nil
		}
		return out, err
	}
	// The connection keeps the last sync's revision: the next import's
	// change request is based on it, and what this merge brought in is on
	// both sides then (no conflict).
	out.note = fmt.Sprintf("change request %d merged", cr.Number)
	return out, nil
}

// describeConflicts names a merge's conflicting pages (title from either
// side, file from the import), the first MaxGitSyncConflicts.
func (r *Resolver) describeConflicts(ctx context.Context, theirs, ours string, mc *mergeConflicts, entries []entschema.GitSyncEntry) ([]entschema.GitSyncConflict, int) {
	paths := map[string]string{}
	for _, e := range entries {
		paths[e.PageID] = e.Path
	}
	titles := map[string]string{}
	for _, rev := range []string{ours, theirs} {
		if t, err := loader.For(ctx).RevisionTree.Load(ctx, rev)(); err == nil {
			for _, p := range t.Pages {
				titles[p.PageID] = p.Title
			}
		}
	}
	out := make([]entschema.GitSyncConflict, 0, min(len(mc.conflicts), MaxGitSyncConflicts))
	for _, c := range mc.conflicts {
		if len(out) == MaxGitSyncConflicts {
			break
		}
		out = append(out, entschema.GitSyncConflict{PageID: c.PageID, Title: titles[c.PageID], Path: paths[c.PageID], Reason: c.Reason})
	}
	return out, len(mc.conflicts)
}

// editedSince lists the pages that differ between two revisions (added,
// removed or changed), the first MaxGitSyncConflicts, and their count.
func (r *Resolver) editedSince(ctx context.Context, from, to string) ([]entschema.GitSyncConflict, int, error) {
	a, err := newDraft(ctx, from)
	if err != nil {
		return nil, 0, err
	}
	b, err := newDraft(ctx, to)
	if err != nil {
		return nil, 0, err
	}
	var out []entschema.GitSyncConflict
	for id, p := range b.pages {
		old, ok := a.pages[id]
		switch {
		case !ok:
			out = append(out, entschema.GitSyncConflict{PageID: id, Title: p.Title, Reason: "added in Folio since the last sync"})
		case *old != *p:
			out = append(out, entschema.GitSyncConflict{PageID: id, Title: p.Title, Reason: "edited in Folio since the last sync"})
		}
	}
	for id, p := range a.pages {
		if _, ok := b.pages[id]; !ok {
			out = append(out, entschema.GitSyncConflict{PageID: id, Title: p.Title, Reason: "deleted in Folio since the last sync"})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].PageID < out[j].PageID })
	n := len(out)
	if n > MaxGitSyncConflicts {
		out = out[:MaxGitSyncConflicts]
	}
	return out, n, nil
}

// yamlRedirects are .gitbook.yaml's redirects as moved pages: an old
// address of a published page that now lives in the file named, unless a
// page holds that address.
func yamlRedirects(tree *gs.Tree, d *draft, entries []entschema.GitSyncEntry) []MovedPage {
	if len(tree.Redirects) == 0 {
		return nil
	}
	byFile := map[string]string{}
	for _, e := range entries {
		byFile[e.Path] = e.PageID
	}
	taken := make(map[string]bool, len(d.pages))
	for _, p := range d.pages {
		taken[draftPath(d.pages, p)] = true
	}
	var out []MovedPage
	for from, file := range tree.Redirects {
		id := byFile[strings.TrimPrefix(file, "./")]
		old := strings.TrimSuffix(strings.Trim(from, "/"), ".md")
		if id == "" || old == "" || taken[old] {
			continue
		}
		out = append(out, MovedPage{PageID: id, OldPath: old, NewPath: draftPath(d.pages, d.pages[id])})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].OldPath < out[j].OldPath })
	return out
}

// revisionGit is the commit an import revision is built from.
func revisionGit(conn *ent.GitSync, op *ent.GitSyncOperation, snap *gs.Snapshot) *entschema.RevisionGit {
	g := &entschema.RevisionGit{OID: snap.Commit, Message: truncate(snap.Message, 10000), Ref: op.Ref}
	if conn.RepoCommitURL != "" {
		g.URL = strings.TrimSuffix(conn.RepoCommitURL, "/") + "/" + snap.Commit
	}
	return g
}

func shortRef(ref string) string {
	return strings.TrimPrefix(strings.TrimPrefix(ref, "refs/heads/"), "refs/tags/")
}

func (r *Resolver) runGitExport(ctx context.Context, op *ent.GitSyncOperation, u *ent.User) (gitOutcome, error) {
	var out gitOutcome
	s, err := editableSpace(ctx, op.SpaceID)
	if err != nil {
		return out, err
	}
	conn, remote, err := r.gitConnection(ctx, op.SpaceID)
	if err != nil {
		return out, err
	}
	tree, pageIDs, err := r.revisionTree(ctx, s.RevisionID, r.gitLimits())
	if err != nil {
		return out, err
	}
	files, err := gs.Encode(tree)
	if err != nil {
		return out, fromGit(err)
	}
	req := gs.PushRequest{Ref: op.Ref, Dir: conn.ProjectDirectory, Files: files, AuthorName: u.DisplayName,
		AuthorEmail: u.Email, Message: op.CommitMessage, When: clock.Now()}
	if !op.Standalone {
		req.Expect = conn.Commit
	}
	commit, err := r.gitTransport().Push(ctx, remote, req, r.gitLimits())
	if err != nil {
		return out, fromGit(err)
	}
	out.commit, out.revisionID = commit, s.RevisionID
	err = r.write(ctx, func(ctx context.Context, tx *ent.Client) error {
		if !op.Standalone {
			if err := tx.GitSync.UpdateOneID(conn.ID).SetCommit(commit).SetRevisionID(s.RevisionID).
				SetFiles(syncEntries(files, pageIDs, tree.Pages)).SetUnauthenticated(false).Exec(ctx); err != nil {
				return err
			}
		}
		record(ctx, spaceEvent(events.GitExportFinished, s, map[string]any{"operationId": op.ID, "commit": commit,
			"ref": op.Ref, "revisionId": s.RevisionID}))
		return nil
	})
	return out, err
}
