package schema

import (
	"regexp"

	"entgo.io/ent"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"

	"github.com/folio/folio/internal/fetch"
)

// OpenAPISpec is an OpenAPI description an organization keeps under a slug:
// its source (a URL Folio fetches, or text given inline) and where its
// background processing stands. Each processing whose content differs from
// the last version adds an OpenAPISpecVersion.
type OpenAPISpec struct{ ent.Schema }

func (OpenAPISpec) Mixin() []ent.Mixin { return []ent.Mixin{IDMixin{}, TimeMixin{}} }

var openAPISlugPattern = regexp.MustCompile(`^[a-z0-9]+(?:-[a-z0-9]+)*$`)

// OpenAPIProcessingStates and OpenAPIErrorCodes are GitBook's enums.
var (
	OpenAPIProcessingStates = []string{"pending", "progress", "complete"}
	OpenAPIErrorCodes       = []string{"FETCH_TIMEOUT", "FETCH_ERROR", "PARSE_ERROR"}
	OpenAPIVisibilities     = []string{"private", "public"}
)

// OpenAPIProblem is one entry of lastProcessedErrors: what went wrong and
// where (file of the version, line or JSON pointer), never an address.
type OpenAPIProblem struct {
	Message string `json:"message"`
	Code    string `json:"code,omitempty"`
	File    string `json:"file,omitempty"`
	Line    int    `json:"line,omitempty"`
	Pointer string `json:"pointer,omitempty"`
}

func (OpenAPISpec) Fields() []ent.Field {
	return []ent.Field{
		field.String("organization_id").Immutable(),
		field.String("slug").Immutable().Validate(all(length(1, 100),
			matches(openAPISlugPattern, "lower-case letters and digits in words joined by single hyphens (^[a-z0-9]+(?:-[a-z0-9]+)*$)"))),
		// Exactly one of source_url and source_text is set.
		field.String("source_url").Optional().Nillable().Validate(all(length(1, 2048), fetch.CheckURL)),
		field.Text("source_text").Optional().Nillable(),
		field.Enum("visibility").Values(OpenAPIVisibilities...).Default("private"),
		field.Enum("processing_state").Values(OpenAPIProcessingStates...).Default("pending"),
		// generation grows with every change of the source: a processing
		// started for an older generation leaves the spec alone.
		field.Int("generation").Default(1),
		field.String("last_version_id").Optional().Nillable(),
		field.Time("last_processed_at").Optional().Nillable(),
		field.Enum("last_process_error_code").Values(OpenAPIErrorCodes...).Optional().Nillable(),
		field.JSON("last_processed_errors", []OpenAPIProblem{}).Optional(),
	}
}

func (OpenAPISpec) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("organization_id", "slug").Unique(),
		index.Fields("organization_id", "created_at", "id"),
	}
}

// OpenAPISpecVersion is one processed content of a spec: every file (the
// root and the files its relative $refs reach) as text. Content is
// addressed by hash, so processing the same content twice, even on two
// instances at once, makes one version.
type OpenAPISpecVersion struct{ ent.Schema }

func (OpenAPISpecVersion) Mixin() []ent.Mixin { return []ent.Mixin{IDMixin{}, TimeMixin{}} }

func (OpenAPISpecVersion) Fields() []ent.Field {
	return []ent.Field{
		field.String("spec_id").Immutable(),
		field.String("hash").Immutable(),
		// root is the path of the root document among files.
		field.String("root").Immutable(),
		// format of the root document: json or yaml (decides the type it is
		// served with, never the upstream's).
		field.Enum("format").Values("json", "yaml").Immutable(),
		field.JSON("files", map[string]string{}).Immutable(),
		// public_key makes the unguessable public URL of the root document.
		field.String("public_key").Immutable().Unique(),
	}
}

func (OpenAPISpecVersion) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("spec_id", "hash").Unique(),
		index.Fields("spec_id", "created_at", "id"),
	}
}

// Job is a unit of background work (internal/jobs): a durable row claimed
// by one server at a time under a lease, so work queued before a restart
// runs after it and several instances share the queue.
type Job struct{ ent.Schema }

func (Job) Mixin() []ent.Mixin { return []ent.Mixin{IDMixin{}, TimeMixin{}} }

func (Job) Fields() []ent.Field {
	return []ent.Field{
		field.String("kind"),
		field.String("payload").Default(""),
		// singleton, when set, is unique: one row per periodic job (purge).
		field.String("singleton").Optional().Nillable().Unique(),
		field.Enum("state").Values("queued", "running", "done", "failed").Default("queued"),
		field.Int("attempts").Default(0),
		// run_at and lease_until are Unix milliseconds: compared in SQL the
		// same way on both databases.
		field.Int64("run_at").Default(0),
		field.Int64("lease_until").Default(0),
		// owner is the lease holder's random token.
		field.String("owner").Default(""),
		field.String("last_error").Default(""),
		// runs counts completed runs (a periodic job completes many times).
		field.Int("runs").Default(0),
	}
}

func (Job) Indexes() []ent.Index {
	return []ent.Index{index.Fields("state", "run_at")}
}
