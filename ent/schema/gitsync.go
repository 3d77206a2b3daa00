package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
)

// GitSyncEntry is a file of the last synced commit that holds a page: the
// import matches files to pages by it (a file whose path changed but whose
// blob did not is the same page, moved).
type GitSyncEntry struct {
	Path   string `json:"path"`
	PageID string `json:"pageId"`
	OID    string `json:"oid"`
}

// GitSyncConflict is a page an import could not bring in without
// overwriting an edit made in Folio since the last sync.
type GitSyncConflict struct {
	PageID string `json:"pageId"`
	Title  string `json:"title,omitempty"`
	Path   string `json:"path,omitempty"`
	Reason string `json:"reason"`
}

// RevisionGit is the commit an import revision was built from (GitBook's
// Revision.git).
type RevisionGit struct {
	OID     string `json:"oid"`
	Message string `json:"message"`
	// URL is repoCommitURL followed by the commit, when the import gave one.
	URL              string `json:"url,omitempty"`
	Ref              string `json:"ref"`
	CreatedByGitBook bool   `json:"createdByGitBook"`
}

// GitSync is a space's connection to a Git repository: where it is, the
// credential it takes (sealed at rest: internal/secrets GitCredential), and
// where the last sync left both sides (commit and revision), so that an
// import knows which edits it would overwrite and an export which branch
// head it builds on. One per space; the last import or export sets it.
type GitSync struct{ ent.Schema }

func (GitSync) Mixin() []ent.Mixin { return []ent.Mixin{IDMixin{}, TimeMixin{}} }

func (GitSync) Fields() []ent.Field {
	return []ent.Field{
		field.String("space_id").Immutable().NotEmpty(),
		field.String("organization_id").Immutable().NotEmpty(),
		// The remote without credentials, and the ref last named.
		field.String("url").Validate(length(1, 2048)),
		field.String("ref").Validate(length(1, 512)),
		// "user:password" of HTTPS basic auth, sealed; "" for none.
		field.String("credential_sealed").StorageKey("credential").Default("").Sensitive(),
		field.Enum("provider").Values("github", "gitlab", "github-legacy").Default("github"),
		field.String("tree_url").Default(""),
		field.String("repo_tree_url").Default(""),
		field.String("repo_commit_url").Default(""),
		field.String("project_directory").Default(""),
		// Where the last sync left the branch and the space ("" before the
		// first), and the page files of that commit.
		field.String("commit").Default(""),
		field.String("revision_id").Default(""),
		field.JSON("files", []GitSyncEntry{}).Optional(),
		// Unauthenticated after the remote refused the credential.
		field.Bool("unauthenticated").Default(false),
		// The change request imports arrive in (spaces edited through
		// change requests) while it is open.
		field.String("change_request_id").Default(""),
	}
}

func (GitSync) Indexes() []ent.Index {
	return []ent.Index{index.Fields("space_id").Unique()}
}

// GitSyncOperation is one import or export, queued as a job (its id is
// the job's payload) and run once across instances. Its parameters hold
// no credential: the job reads the connection's.
type GitSyncOperation struct{ ent.Schema }

func (GitSyncOperation) Mixin() []ent.Mixin { return []ent.Mixin{IDMixin{}, TimeMixin{}} }

func (GitSyncOperation) Fields() []ent.Field {
	return []ent.Field{
		field.String("space_id").Immutable().NotEmpty(),
		field.String("organization_id").Immutable().NotEmpty(),
		field.Enum("direction").Values("import", "export").Immutable(),
		// queued, then running, then success or failure (or timeout when
		// the runner gave up on it).
		field.Enum("state").Values("queued", "running", "success", "failure", "timeout").Default("queued"),
		field.String("ref").Immutable(),
		field.String("commit_message").Default("").Immutable(),
		field.Bool("force").Default(false).Immutable(),
		field.Bool("standalone").Default(false).Immutable(),
		field.Bool("auto_merge").Default(false).Immutable(),
		// The caller's timestamp: an operation older than the last one run
		// in its direction is skipped (GitBook orders syncs by it).
		field.Time("timestamp").Optional().Nillable().Immutable(),
		field.String("created_by").Immutable(),
		field.Time("started_at").Optional().Nillable(),
		field.Time("ended_at").Optional().Nillable(),
		field.String("error").Default(""),
		// What it made: the commit read or written, the revision built,
		// the change request opened or updated.
		field.String("commit").Default(""),
		field.String("revision_id").Default(""),
		field.String("change_request_id").Default(""),
		// The first MaxConflicts conflicting pages, and how many there were.
		field.JSON("conflicts", []GitSyncConflict{}).Optional(),
		field.Int("conflict_count").Default(0),
	}
}

func (GitSyncOperation) Indexes() []ent.Index {
	return []ent.Index{index.Fields("space_id", "created_at")}
}
