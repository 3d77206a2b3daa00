package graph

import (
	"context"
	"net/url"
	"path"
	"strings"
	"sync"
	"time"

	"github.com/99designs/gqlgen/graphql"

	"github.com/folio/folio/ent"
	"github.com/folio/folio/ent/gitsync"
	"github.com/folio/folio/ent/gitsyncoperation"
	"github.com/folio/folio/graph/model"
	"github.com/folio/folio/internal/apperr"
	"github.com/folio/folio/internal/auth"
	"github.com/folio/folio/internal/events"
	"github.com/folio/folio/internal/fetch"
	gs "github.com/folio/folio/internal/gitsync"
	"github.com/folio/folio/internal/ids"
	"github.com/folio/folio/internal/jobs"
	"github.com/folio/folio/internal/secrets"
)

// Git import and export (REST area `git`): a request checks the caller and
// the target, stores the space's connection (the credential sealed) and
// queues an operation as a job in one transaction, and answers at once;
// the job (gitsync_run.go) fetches or pushes. Both APIs call these.

// JobGitSync is the kind of the jobs that run a Git import or export; the
// payload is the operation's id.
const JobGitSync = "git_sync"

// GitSyncTimeout is how long an operation may run (GitSyncState's
// operationTimeout) before it ends as timed out.
const GitSyncTimeout = 10 * time.Minute

// MaxGitSyncConflicts is how many conflicting pages an operation lists.
const MaxGitSyncConflicts = 100

// GitSettings configure Git sync: SSH needs a known_hosts file
// (FOLIO_GIT_KNOWN_HOSTS) and presents a key (FOLIO_GIT_SSH_KEY); Limits
// bound what one sync reads or writes (zero: gitsync.DefaultLimits).
type GitSettings struct {
	KnownHosts, SSHKey string
	Limits             gs.Limits
	Timeout            time.Duration

	once      sync.Once
	transport gs.Transport
}

func (r *Resolver) gitLimits() gs.Limits {
	l := r.Git.Limits
	if l.MaxFiles <= 0 {
		l.MaxFiles = gs.DefaultLimits.MaxFiles
	}
	if l.MaxBytes <= 0 {
		l.MaxBytes = gs.DefaultLimits.MaxBytes
	}
	return l
}

func (r *Resolver) gitTimeout() time.Duration {
	if r.Git.Timeout > 0 {
		return r.Git.Timeout
	}
	return GitSyncTimeout
}

// gitTransport reaches repositories through the guarded HTTP client (no
// private addresses unless FOLIO_ALLOW_PRIVATE_FETCH), its answers cut at
// the sync's byte limit. file:// is never allowed.
func (r *Resolver) gitTransport() gs.Transport {
	r.Git.once.Do(func() {
		// The operation's deadline (RunGitSync) ends a sync as timed out;
		// the transport's own come later, so they never end it first as a
		// network failure.
		late := r.gitTimeout() + time.Minute
		f := fetch.Fetcher{AllowPrivate: r.Fetcher.AllowPrivate, MaxBytes: r.gitLimits().MaxBytes, Timeout: late, MaxRedirects: 5}
		r.Git.transport = gs.Transport{HTTP: f.HTTPClient(), KnownHosts: r.Git.KnownHosts, SSHKey: r.Git.SSHKey, Timeout: late}
	})
	return r.Git.transport
}

// GitSyncRequest is an import or export as the caller asks for it.
type GitSyncRequest struct {
	URL, Ref                                     string
	ProjectDirectory, RepoTreeURL, RepoCommitURL string
	Provider, TreeURL                            string
	Timestamp                                    *time.Time
	Force, Standalone, AutoMerge                 bool
	CommitMessage                                string
}

// gitSyncTarget is GraphQL's target as a request.
func gitSyncTarget(t model.GitSyncTargetInput) GitSyncRequest {
	str := func(o graphql.Omittable[*string]) string {
		if v := o.Value(); v != nil {
			return *v
		}
		return ""
	}
	return GitSyncRequest{URL: t.URL, Ref: t.Ref, ProjectDirectory: str(t.RepoProjectDirectory), RepoTreeURL: str(t.RepoTreeURL),
		RepoCommitURL: str(t.RepoCommitURL), Provider: str(t.Provider), TreeURL: str(t.TreeURL), Timestamp: t.Timestamp.Value()}
}

// gitTarget is a checked request: the URL without credentials and the
// credential apart.
type gitTarget struct {
	url, credential, ref, dir string
}

// checkGitTarget validates the request's repository fields, naming the
// field at fault.
func (r *Resolver) checkGitTarget(ctx context.Context, in GitSyncRequest, export bool) (gitTarget, error) {
	var t gitTarget
	raw := strings.TrimSpace(in.URL)
	if raw == "" {
		return t, apperr.InvalidField("url", "is required")
	}
	if len(raw) > 2048 {
		return t, apperr.InvalidField("url", "is longer than 2048 characters")
	}
	noSSH := r.Git.KnownHosts == "" || r.Git.SSHKey == ""
	if scpLike(raw) {
		if noSSH {
			return t, apperr.InvalidField("url", "SSH repositories need FOLIO_GIT_KNOWN_HOSTS and FOLIO_GIT_SSH_KEY on the server: use an https URL")
		}
		t.url = raw
	} else {
		u, err := url.Parse(raw)
		if err != nil || u.Host == "" {
			return t, apperr.InvalidField("url", "must be an https://, http:// or ssh:// repository URL")
		}
		switch u.Scheme {
		case "https", "http":
			if u.User != nil {
				name := u.User.Username()
				pass, _ := u.User.Password()
				t.credential = name + ":" + pass
				u.User = nil
			}
			if err := r.Fetcher.CheckDestination(ctx, u.String()); err != nil {
				return t, apperr.InvalidField("url", "%s", err.Error())
			}
		case "ssh":
			if noSSH {
				return t, apperr.InvalidField("url", "SSH repositories need FOLIO_GIT_KNOWN_HOSTS and FOLIO_GIT_SSH_KEY on the server: use an https URL")
			}
			if _, hasPassword := u.User.Password(); hasPassword {
				return t, apperr.InvalidField("url", "an SSH URL takes a user name, not a password: Folio presents FOLIO_GIT_SSH_KEY")
			}
		default:
			return t, apperr.InvalidField("url", "%s repositories are not allowed: use an https:// or ssh:// URL", u.Scheme)
		}
		u.RawQuery, u.Fragment = "", ""
		t.url = u.String()
	}
	ref := strings.TrimSpace(in.Ref)
	switch {
	case ref == "":
		return t, apperr.InvalidField("ref", "is required")
	case !strings.HasPrefix(ref, "refs/"):
		ref = "refs/heads/" + ref
	}
	if len(ref) > 255 || strings.Contains(ref, "..") || strings.ContainsAny(ref, " ~^:?*[\\\x00\t\n") || strings.HasSuffix(ref, "/") || strings.HasSuffix(ref, ".lock") {
		return t, apperr.InvalidField("ref", "%q is not a valid Git ref", in.Ref)
	}
	if export && !strings.HasPrefix(ref, "refs/heads/") {
		return t, apperr.InvalidField("ref", "an export writes a branch: refs/heads/<name>")
	}
	if !export && !strings.HasPrefix(ref, "refs/heads/") && !strings.HasPrefix(ref, "refs/tags/") {
		return t, apperr.InvalidField("ref", "an import reads a branch or a tag: refs/heads/<name> or refs/tags/<name>")
	}
	t.ref = ref
	dir := strings.Trim(path.Clean("/"+strings.TrimSpace(in.ProjectDirectory)), "/")
	if strings.Contains(in.ProjectDirectory, "..") || len(dir) > 512 {
		return t, apperr.InvalidField("repoProjectDirectory", "must be a directory of the repository, without ..")
	}
	t.dir = dir
	for field, v := range map[string]string{"repoTreeURL": in.RepoTreeURL, "repoCommitURL": in.RepoCommitURL, "gitInfo.url": in.TreeURL} {
		if v != "" {
			if err := fetch.CheckURL(v); err != nil || len(v) > 2048 {
				return t, apperr.InvalidField(field, "must be an absolute http(s) URL of at most 2048 characters")
			}
		}
	}
	switch in.Provider {
	case "", "github", "gitlab":
	default:
		return t, apperr.InvalidField("gitInfo.provider", "must be github or gitlab")
	}
	return t, nil
}

// guessProvider is the provider a plain URL's host names: gitlab, else
// github (GitBook's providers; any other host is shown as github).
func guessProvider(u string) gitsync.Provider {
	if strings.Contains(strings.ToLower(u), "gitlab") {
		return gitsync.ProviderGitlab
	}
	return gitsync.ProviderGithub
}

// scpLike tells user@host:path, Git's short form of an SSH URL.
func scpLike(s string) bool {
	if strings.Contains(s, "://") {
		return false
	}
	at := strings.Index(s, "@")
	colon := strings.Index(s, ":")
	return at > 0 && colon > at
}

// ImportGitRepository queues an import of in.Ref from in.URL into the
// space (editors; a locked space answers 423).
func (r *Resolver) ImportGitRepository(ctx context.Context, spaceID string, in GitSyncRequest) (*model.GitSyncState, error) {
	s, err := unlockedSpace(ctx, spaceID)
	if err != nil {
		return nil, err
	}
	return r.queueGitSync(ctx, s, gitsyncoperation.DirectionImport, in)
}

// ExportToGitRepository queues an export of the space's content as one
// commit on in.Ref (editors). Folio never force-pushes: force is a 400.
func (r *Resolver) ExportToGitRepository(ctx context.Context, spaceID string, in GitSyncRequest) (*model.GitSyncState, error) {
	s, err := editableSpace(ctx, spaceID)
	if err != nil {
		return nil, err
	}
	if in.Force {
		return nil, apperr.InvalidField("force", "Folio never force-pushes: import the branch's new commits first, then export")
	}
	msg := strings.TrimSpace(in.CommitMessage)
	if msg == "" {
		return nil, apperr.InvalidField("commitMessage", "is required")
	}
	if len(in.CommitMessage) > 10000 {
		return nil, apperr.InvalidField("commitMessage", "is longer than 10000 characters")
	}
	return r.queueGitSync(ctx, s, gitsyncoperation.DirectionExport, in)
}

func (r *Resolver) queueGitSync(ctx context.Context, s *ent.Space, dir gitsyncoperation.Direction, in GitSyncRequest) (*model.GitSyncState, error) {
	t, err := r.checkGitTarget(ctx, in, dir == gitsyncoperation.DirectionExport)
	if err != nil {
		return nil, err
	}
	var op *ent.GitSyncOperation
	err = r.write(ctx, func(ctx context.Context, tx *ent.Client) error {
		conn, err := tx.GitSync.Query().Where(gitsync.SpaceID(s.ID)).Only(ctx)
		if err != nil && !ent.IsNotFound(err) {
			return err
		}
		fresh := conn == nil
		if fresh {
			// Made as it stands, then set like any connection below.
			if conn, err = tx.GitSync.Create().SetSpaceID(s.ID).SetOrganizationID(s.OrganizationID).SetURL(t.url).SetRef(t.ref).Save(ctx); err != nil {
				return entError(err)
			}
		}
		upd := conn.Update().SetProjectDirectory(t.dir)
		if conn.URL != t.url || conn.Ref != t.ref || conn.ProjectDirectory != t.dir {
			// Another repository, branch or directory: the connection
			// starts afresh, and the credential of another remote is never
			// sent to this one.
			upd.SetURL(t.url).SetRef(t.ref).SetCommit("").SetRevisionID("").ClearFiles().SetChangeRequestID("").SetUnauthenticated(false)
			if conn.URL != t.url {
				upd.SetCredentialSealed("")
			}
		}
		if t.credential != "" {
			upd.SetCredentialSealed(r.seal(secrets.GitCredential, t.credential)).SetUnauthenticated(false)
		}
		if in.RepoTreeURL != "" {
			upd.SetRepoTreeURL(in.RepoTreeURL)
		}
		if in.RepoCommitURL != "" {
			upd.SetRepoCommitURL(in.RepoCommitURL)
		}
		if in.TreeURL != "" {
			upd.SetTreeURL(in.TreeURL)
		}
		switch {
		case in.Provider != "":
			upd.SetProvider(gitsync.Provider(in.Provider))
		case fresh || conn.URL != t.url:
			upd.SetProvider(guessProvider(t.url))
		}
		if conn, err = upd.Save(ctx); err != nil {
			return entError(err)
		}
		create := tx.GitSyncOperation.Create().SetID(ids.New()).SetSpaceID(s.ID).SetOrganizationID(s.OrganizationID).
			SetDirection(dir).SetRef(t.ref).SetCommitMessage(in.CommitMessage).SetForce(in.Force).
			SetStandalone(in.Standalone).SetAutoMerge(in.AutoMerge).SetCreatedBy(auth.ViewerID(ctx)).SetNillableTimestamp(in.Timestamp)
		if op, err = create.Save(ctx); err != nil {
			return entError(err)
		}
		if err := jobs.Enqueue(ctx, tx, r.Dialect, op.ID, JobGitSync, op.ID); err != nil {
			return err
		}
		action := events.GitImportQueued
		if dir == gitsyncoperation.DirectionExport {
			action = events.GitExportQueued
		}
		record(ctx, spaceEvent(action, s, map[string]any{"operationId": op.ID, "url": t.url, "ref": t.ref,
			"force": in.Force, "standalone": in.Standalone, "autoMerge": in.AutoMerge}))
		return nil
	})
	if err != nil {
		return nil, err
	}
	r.wakeJobs()
	return r.SpaceGitInfo(ctx, s.ID)
}

// SpaceGitInfo is the space's Git connection and its last operations
// (readers of the space); 404 when the space never synced.
func (r *Resolver) SpaceGitInfo(ctx context.Context, spaceID string) (*model.GitSyncState, error) {
	s, _, err := visibleSpace(ctx, spaceID)
	if err != nil {
		return nil, err
	}
	conn, err := r.Client.GitSync.Query().Where(gitsync.SpaceID(s.ID)).Only(ctx)
	if ent.IsNotFound(err) {
		return nil, apperr.NotFoundf("space %s has no Git repository set up", spaceID)
	}
	if err != nil {
		return nil, err
	}
	// The last operation of each direction: two short index seeks.
	var last [2]*ent.GitSyncOperation
	for i, d := range []gitsyncoperation.Direction{gitsyncoperation.DirectionImport, gitsyncoperation.DirectionExport} {
		op, err := r.Client.GitSyncOperation.Query().
			Where(gitsyncoperation.SpaceID(s.ID), gitsyncoperation.DirectionEQ(d)).
			Order(ent.Desc(gitsyncoperation.FieldCreatedAt), ent.Desc(gitsyncoperation.FieldID)).First(ctx)
		if err != nil && !ent.IsNotFound(err) {
			return nil, err
		}
		last[i] = op
	}
	return presentGitSync(conn, last[0], last[1]), nil
}

func presentGitSync(conn *ent.GitSync, imp, exp *ent.GitSyncOperation) *model.GitSyncState {
	st := &model.GitSyncState{
		RepoName:             repoName(conn.URL),
		InstallationProvider: strings.ReplaceAll(conn.Provider.String(), "-", "_"),
		InstallationID:       conn.ID,
		OperationTimeout:     int(GitSyncTimeout / time.Millisecond),
		UpdatedAt:            conn.UpdatedAt,
		RemoteURL:            conn.URL,
		Ref:                  conn.Ref,
		ProjectDirectory:     conn.ProjectDirectory,
		LastImport:           presentGitOperation(imp),
		LastExport:           presentGitOperation(exp),
		ChangeRequestID:      conn.ChangeRequestID,
		SpaceID:              conn.SpaceID,
	}
	if conn.TreeURL != "" {
		st.URL = &conn.TreeURL
	} else if conn.RepoTreeURL != "" {
		st.URL = &conn.RepoTreeURL
	}
	if conn.Commit != "" {
		st.Commit = &conn.Commit
	}
	st.Operation = st.LastImport
	if exp != nil && (imp == nil || exp.CreatedAt.After(imp.CreatedAt)) {
		st.Operation = st.LastExport
	}
	switch {
	case conn.Unauthenticated:
		st.InstallationStatus = "unauthenticated"
	case finished(imp) || finished(exp):
		st.InstallationStatus = "active"
	default:
		st.InstallationStatus = "pending"
	}
	return st
}

func finished(op *ent.GitSyncOperation) bool {
	return op != nil && op.EndedAt != nil
}

func presentGitOperation(op *ent.GitSyncOperation) *model.GitSyncOperation {
	if op == nil {
		return nil
	}
	out := &model.GitSyncOperation{State: op.State.String(), Direction: op.Direction.String(), StartedAt: op.CreatedAt,
		EndedAt: op.EndedAt, ConflictCount: op.ConflictCount}
	for i := range op.Conflicts {
		out.Conflicts = append(out.Conflicts, &op.Conflicts[i])
	}
	if op.State == gitsyncoperation.StateQueued {
		out.State = "running"
	}
	if op.StartedAt != nil {
		out.StartedAt = *op.StartedAt
	}
	for _, f := range []struct {
		v   string
		dst **string
	}{{op.Error, &out.Error}, {op.Commit, &out.Commit}, {op.RevisionID, &out.RevisionID}} {
		if f.v != "" {
			v := f.v
			*f.dst = &v
		}
	}
	return out
}

// repoName is the last part of a repository URL's path, without .git.
func repoName(raw string) string {
	p := raw
	if u, err := url.Parse(raw); err == nil && u.Path != "" {
		p = u.Path
	} else if i := strings.LastIndex(raw, ":"); i >= 0 {
		p = raw[i+1:]
	}
	return strings.TrimSuffix(path.Base(strings.TrimSuffix(p, "/")), ".git")
}

// GitSyncChangeRequest is the change request imports arrive in, when the
// caller may see it.
func (r *Resolver) GitSyncChangeRequest(ctx context.Context, st *model.GitSyncState) (*ent.ChangeRequest, error) {
	if st.ChangeRequestID == "" {
		return nil, nil
	}
	return r.SpaceChangeRequest(ctx, st.SpaceID, st.ChangeRequestID)
}
