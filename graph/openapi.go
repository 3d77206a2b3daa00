package graph

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"entgo.io/ent/dialect/sql"
	"github.com/getkin/kin-openapi/openapi3"

	"github.com/folio/folio/ent"
	"github.com/folio/folio/ent/job"
	"github.com/folio/folio/ent/openapispec"
	"github.com/folio/folio/ent/openapispecversion"
	entschema "github.com/folio/folio/ent/schema"
	"github.com/folio/folio/graph/loader"
	"github.com/folio/folio/graph/model"
	"github.com/folio/folio/internal/access"
	"github.com/folio/folio/internal/apperr"
	"github.com/folio/folio/internal/clock"
	"github.com/folio/folio/internal/events"
	"github.com/folio/folio/internal/fetch"
	"github.com/folio/folio/internal/ids"
	"github.com/folio/folio/internal/jobs"
	"github.com/folio/folio/internal/openapi"
	"github.com/folio/folio/internal/paging"
)

// OpenAPI specifications of an organization.
//
// Who may do what (internal/access/openapi.go): members with a role list
// and read specs and versions; create and admin members create, replace and
// delete them. Guests get 403, strangers 404 (as for the organization).
//
// Processing never runs in a request: creating a spec or replacing its
// source queues a job (JobOpenAPI) in the same transaction, and the job
// runner (internal/jobs) fetches, parses and stores a version when the
// content differs from every earlier one. A spec's generation grows with
// each new source, so a processing of an older source changes nothing.

// JobOpenAPI is the kind of the jobs that process a spec; JobPurge the
// periodic purge of deleted spaces.
const (
	JobOpenAPI = "openapi"
	JobPurge   = "purge"
)

// OpenAPISourceInput is a spec's source as both APIs give it: exactly one
// of URL and Text.
type OpenAPISourceInput struct {
	URL  *string `json:"url"`
	Text *string `json:"text"`
}

// openAPISourceOf reads GraphQL's input (null and absent alike).
func openAPISourceOf(in model.OpenAPISpecSourceInput) OpenAPISourceInput {
	u, _ := in.URL.ValueOK()
	t, _ := in.Text.ValueOK()
	return OpenAPISourceInput{URL: u, Text: t}
}

// OpenAPISpecs pages through an organization's specs, newest first.
func (r *Resolver) OpenAPISpecs(ctx context.Context, orgID string, args paging.Args) (paging.Page[*ent.OpenAPISpec], error) {
	if _, err := openAPIReader(ctx, orgID); err != nil {
		return paging.Page[*ent.OpenAPISpec]{}, err
	}
	return pageUnder(ctx, loader.Organizations, "openapi specs", orgID, args, func(ctx context.Context, orgs []string) (map[string]paging.Page[*ent.OpenAPISpec], error) {
		pages, err := listPages(ctx, r.Client.OpenAPISpec.Query(), openapispec.FieldOrganizationID, orgs, args, openapispec.FieldCreatedAt,
			specKey, func(s *ent.OpenAPISpec) string { return s.OrganizationID })
		if err != nil {
			return nil, err
		}
		// A version's urls name its spec: the list's specs are known.
		specs := itemsOf(pages)
		l := loader.For(ctx)
		ids := make([]string, len(specs))
		for i, s := range specs {
			ids[i] = s.ID
			l.OpenAPISpecByID.Prime(ctx, s.ID, s)
		}
		l.ShowParents(loader.OpenAPISpecs, ids)
		return pages, nil
	})
}

func specKey(s *ent.OpenAPISpec) paging.Cursor { return paging.Cursor{Time: s.CreatedAt, ID: s.ID} }

func versionKey(v *ent.OpenAPISpecVersion) paging.Cursor {
	return paging.Cursor{Time: v.CreatedAt, ID: v.ID}
}

// OpenAPISpecBySlug reads one spec.
func (r *Resolver) OpenAPISpecBySlug(ctx context.Context, orgID, slug string) (*ent.OpenAPISpec, error) {
	if _, err := openAPIReader(ctx, orgID); err != nil {
		return nil, err
	}
	return r.openAPISpec(ctx, orgID, slug)
}

// openAPISpecByID is spec id of organization orgID, for node(id:).
func (r *Resolver) openAPISpecByID(ctx context.Context, orgID, id string) (*ent.OpenAPISpec, error) {
	if _, err := openAPIReader(ctx, orgID); err != nil {
		return nil, err
	}
	s, err := r.Client.OpenAPISpec.Query().Where(openapispec.OrganizationID(orgID), openapispec.ID(id)).Only(ctx)
	if ent.IsNotFound(err) {
		return nil, apperr.NotFoundf("OpenAPI spec %s not found", id)
	}
	return s, err
}

func (r *Resolver) openAPISpec(ctx context.Context, orgID, slug string) (*ent.OpenAPISpec, error) {
	s, err := r.Client.OpenAPISpec.Query().Where(openapispec.OrganizationID(orgID), openapispec.Slug(slug)).Only(ctx)
	if ent.IsNotFound(err) {
		return nil, apperr.NotFoundf("OpenAPI spec %q not found", slug)
	}
	return s, err
}

// checkOpenAPISource accepts exactly one of url (an absolute http(s) URL
// of at most 2048 characters) and text (not empty).
func checkOpenAPISource(in OpenAPISourceInput) error {
	switch {
	case in.URL != nil && in.Text != nil:
		return apperr.InvalidField("source", "give either url or text, not both")
	case in.URL != nil:
		if len(*in.URL) > 2048 || fetch.CheckURL(*in.URL) != nil {
			return apperr.InvalidField("source.url", "must be an absolute http or https URL of at most 2048 characters")
		}
	case in.Text != nil:
		if strings.TrimSpace(*in.Text) == "" {
			return apperr.InvalidField("source.text", "must not be empty")
		}
		if len(*in.Text) > int(openapi.Defaults.FileBytes) {
			return apperr.InvalidField("source.text", "must be at most %d bytes", openapi.Defaults.FileBytes)
		}
	default:
		return apperr.InvalidField("source", "must have url or text")
	}
	return nil
}

// checkOpenAPISlug is the slug's pattern and bounds (ent's validator says
// the same; this answers before any write).
func checkOpenAPISlug(slug string) error {
	if slug == "" {
		return apperr.InvalidField("slug", "is required")
	}
	if err := openapispec.SlugValidator(slug); err != nil {
		return apperr.InvalidField("slug", "%v", err)
	}
	return nil
}

// CreateOpenAPISpec adds a spec (409 when the slug is taken) and queues its
// processing.
func (r *Resolver) CreateOpenAPISpec(ctx context.Context, orgID, slug string, src OpenAPISourceInput) (*ent.OpenAPISpec, error) {
	if _, err := openAPIEditor(ctx, orgID); err != nil {
		return nil, err
	}
	if err := checkOpenAPISlug(slug); err != nil {
		return nil, err
	}
	if err := checkOpenAPISource(src); err != nil {
		return nil, err
	}
	var spec *ent.OpenAPISpec
	err := r.write(ctx, func(ctx context.Context, tx *ent.Client) error {
		taken, err := tx.OpenAPISpec.Query().Where(openapispec.OrganizationID(orgID), openapispec.Slug(slug)).Exist(ctx)
		if err != nil {
			return err
		}
		if taken {
			return apperr.Conflictf("an OpenAPI spec with slug %q exists in this organization", slug)
		}
		spec, err = tx.OpenAPISpec.Create().SetOrganizationID(orgID).SetSlug(slug).
			SetNillableSourceURL(src.URL).SetNillableSourceText(src.Text).Save(ctx)
		if err != nil {
			if ent.IsConstraintError(err) {
				return apperr.Conflictf("an OpenAPI spec with slug %q exists in this organization", slug)
			}
			return entError(err)
		}
		record(ctx, openAPIEvent(events.OpenAPISpecCreated, spec, nil))
		return r.queueOpenAPI(ctx, tx, spec)
	})
	if err != nil {
		return nil, err
	}
	r.wakeJobs()
	return spec, nil
}

// PutOpenAPISpec creates the spec or replaces its source, and queues a
// processing either way (created tells which).
func (r *Resolver) PutOpenAPISpec(ctx context.Context, orgID, slug string, src OpenAPISourceInput) (*ent.OpenAPISpec, bool, error) {
	if _, err := openAPIEditor(ctx, orgID); err != nil {
		return nil, false, err
	}
	if err := checkOpenAPISlug(slug); err != nil {
		return nil, false, err
	}
	if err := checkOpenAPISource(src); err != nil {
		return nil, false, err
	}
	existing, err := r.openAPISpec(ctx, orgID, slug)
	if e, ok := apperr.As(err); ok && e.Kind == apperr.NotFound {
		s, err := r.CreateOpenAPISpec(ctx, orgID, slug, src)
		if e, ok := apperr.As(err); ok && e.Kind == apperr.Conflict {
			return r.PutOpenAPISpec(ctx, orgID, slug, src) // created meanwhile: replace
		}
		return s, true, err
	}
	if err != nil {
		return nil, false, err
	}
	var spec *ent.OpenAPISpec
	err = r.write(ctx, func(ctx context.Context, tx *ent.Client) error {
		upd := tx.OpenAPISpec.UpdateOne(existing).AddGeneration(1).
			SetProcessingState(openapispec.ProcessingStatePending)
		if src.URL != nil {
			upd.SetSourceURL(*src.URL).ClearSourceText()
		} else {
			upd.SetSourceText(*src.Text).ClearSourceURL()
		}
		var err error
		if spec, err = upd.Save(ctx); err != nil {
			return entError(err)
		}
		record(ctx, openAPIEvent(events.OpenAPISpecUpdated, spec, map[string]any{"fields": []string{"source"}}))
		return r.queueOpenAPI(ctx, tx, spec)
	})
	if err != nil {
		return nil, false, err
	}
	r.wakeJobs()
	return spec, false, nil
}

// DeleteOpenAPISpec removes a spec and its versions; its queued job finds
// nothing to do.
func (r *Resolver) DeleteOpenAPISpec(ctx context.Context, orgID, slug string) error {
	if _, err := openAPIEditor(ctx, orgID); err != nil {
		return err
	}
	spec, err := r.openAPISpec(ctx, orgID, slug)
	if err != nil {
		return err
	}
	return r.write(ctx, func(ctx context.Context, tx *ent.Client) error {
		if _, err := tx.OpenAPISpecVersion.Delete().Where(openapispecversion.SpecID(spec.ID)).Exec(ctx); err != nil {
			return err
		}
		if err := tx.OpenAPISpec.DeleteOneID(spec.ID).Exec(ctx); err != nil {
			return err
		}
		record(ctx, events.Event{
			Action: events.OpenAPISpecDeleted, OrganizationID: spec.OrganizationID,
			Target:  events.Target{Type: "openapi-spec", ID: spec.ID, Label: spec.Slug},
			Payload: map[string]any{"slug": spec.Slug},
		})
		return nil
	})
}

// openAPIEvent is an event whose target is spec (its slug is its title),
// with its slug and generation in the payload.
func openAPIEvent(action string, spec *ent.OpenAPISpec, payload map[string]any) events.Event {
	p := map[string]any{"slug": spec.Slug, "generation": spec.Generation}
	for k, v := range payload {
		p[k] = v
	}
	return events.Event{
		Action: action, OrganizationID: spec.OrganizationID,
		Target:  events.Target{Type: "openapi-spec", ID: spec.ID, Label: spec.Slug},
		Payload: p,
	}
}

// OpenAPISpecVersions pages through a spec's versions, newest first.
func (r *Resolver) OpenAPISpecVersions(ctx context.Context, orgID, slug string, args paging.Args) (paging.Page[*ent.OpenAPISpecVersion], error) {
	spec, err := r.OpenAPISpecBySlug(ctx, orgID, slug)
	if err != nil {
		return paging.Page[*ent.OpenAPISpecVersion]{}, err
	}
	return r.SpecVersions(ctx, spec, args)
}

// SpecVersions pages through the versions of a spec already checked: the
// versions of every spec a list shows are read together (pageUnder).
func (r *Resolver) SpecVersions(ctx context.Context, spec *ent.OpenAPISpec, args paging.Args) (paging.Page[*ent.OpenAPISpecVersion], error) {
	return pageUnder(ctx, loader.OpenAPISpecs, "versions", spec.ID, args, func(ctx context.Context, specs []string) (map[string]paging.Page[*ent.OpenAPISpecVersion], error) {
		return listPages(ctx, r.Client.OpenAPISpecVersion.Query(), openapispecversion.FieldSpecID, specs, args,
			openapispecversion.FieldCreatedAt, versionKey, func(v *ent.OpenAPISpecVersion) string { return v.SpecID })
	})
}

// OpenAPISpecLatestVersion is the spec's last version (404 before one).
func (r *Resolver) OpenAPISpecLatestVersion(ctx context.Context, orgID, slug string) (*ent.OpenAPISpecVersion, error) {
	spec, err := r.OpenAPISpecBySlug(ctx, orgID, slug)
	if err != nil {
		return nil, err
	}
	v, err := r.SpecLastVersion(ctx, spec)
	if err == nil && v == nil {
		return nil, apperr.NotFoundf("OpenAPI spec %q has no version yet", slug)
	}
	return v, err
}

// SpecLastVersion is a checked spec's last version, nil before one: the
// last versions of every spec a list shows are read together.
func (r *Resolver) SpecLastVersion(ctx context.Context, spec *ent.OpenAPISpec) (*ent.OpenAPISpecVersion, error) {
	if spec.LastVersionID == nil {
		return nil, nil
	}
	return loader.PerParent(ctx, loader.OpenAPISpecs, "last version", spec.ID, func(ctx context.Context, specs []string) (map[string]*ent.OpenAPISpecVersion, error) {
		rows, err := r.Client.OpenAPISpecVersion.Query().Where(func(s *sql.Selector) {
			t := sql.Table(openapispec.Table)
			s.Where(sql.In(s.C(openapispecversion.FieldID), sql.Select(t.C(openapispec.FieldLastVersionID)).From(t).
				Where(sql.In(t.C(openapispec.FieldID), anySlice(specs)...))))
		}).All(ctx)
		out := make(map[string]*ent.OpenAPISpecVersion, len(rows))
		for _, v := range rows {
			out[v.SpecID] = v
			loader.For(ctx).OpenAPIVersionByID.Prime(ctx, v.ID, v)
		}
		return out, err
	})
}

// OpenAPISpecVersionByID is one version of a spec.
func (r *Resolver) OpenAPISpecVersionByID(ctx context.Context, orgID, slug, versionID string) (*ent.OpenAPISpecVersion, error) {
	spec, err := r.OpenAPISpecBySlug(ctx, orgID, slug)
	if err != nil {
		return nil, err
	}
	v, err := loader.For(ctx).OpenAPIVersionByID.Load(ctx, versionID)()
	if err != nil || v.SpecID != spec.ID {
		return nil, apperr.NotFoundf("OpenAPI spec version %s not found", versionID)
	}
	return v, nil
}

// OpenAPISpecLatest is the parsed document of a spec's latest version, for
// the caller (members with a role): what API reference blocks show.
func (r *Resolver) OpenAPISpecLatest(ctx context.Context, orgID, slug string) (*openapi3.T, *model.OpenAPISpecVersion, error) {
	v, err := r.OpenAPISpecLatestVersion(ctx, orgID, slug)
	if err != nil {
		return nil, nil, err
	}
	return r.parseVersion(ctx, v)
}

// OpenAPISpecLatestForPublished is OpenAPISpecLatest without the caller's
// access check, for the published site of organization orgID (its readers
// are not members). Only a caller that has decided the organization's
// content is being shown may use it.
func (r *Resolver) OpenAPISpecLatestForPublished(ctx context.Context, orgID, slug string) (*openapi3.T, *model.OpenAPISpecVersion, error) {
	spec, err := r.openAPISpec(ctx, orgID, slug)
	if err != nil {
		return nil, nil, err
	}
	v, err := r.SpecLastVersion(ctx, spec)
	if err == nil && v == nil {
		err = apperr.NotFoundf("OpenAPI spec %q has no version yet", slug)
	}
	if err != nil {
		return nil, nil, err
	}
	return r.parseVersion(ctx, v)
}

func (r *Resolver) parseVersion(ctx context.Context, v *ent.OpenAPISpecVersion) (*openapi3.T, *ent.OpenAPISpecVersion, error) {
	doc, err := openapi.Parse(ctx, v.Root, v.Files)
	if err != nil {
		return nil, nil, fmt.Errorf("OpenAPI version %s no longer parses: %w", v.ID, err)
	}
	return doc, v, nil
}

// OpenAPIVersionByPublicKey is the version behind a public content URL
// (no caller: the key is the secret).
func (r *Resolver) OpenAPIVersionByPublicKey(ctx context.Context, key string) (*ent.OpenAPISpecVersion, error) {
	v, err := r.Client.OpenAPISpecVersion.Query().Where(openapispecversion.PublicKey(key)).Only(ctx)
	if ent.IsNotFound(err) {
		return nil, apperr.NotFoundf("not found")
	}
	if err != nil {
		return nil, err
	}
	return r.publicVersion(ctx, v) // private specs: 404 (openapi_visibility.go)
}

// OpenAPISpecPermissions is the caller's `permissions` on a spec.
func (r *Resolver) OpenAPISpecPermissions(ctx context.Context, s *ent.OpenAPISpec) (access.OpenAPISpecPermissions, error) {
	m, err := visibleOrganizationMembership(ctx, s.OrganizationID)
	if err != nil {
		return access.OpenAPISpecPermissions{}, err
	}
	return access.OpenAPISpecPermissionsFor(m), nil
}

// OpenAPISpecURLs are a spec's `urls`; Folio has no app page for a spec,
// so app is the API location (a URL that answers).
func (r *Resolver) OpenAPISpecURLs(s *ent.OpenAPISpec) *model.OpenAPISpecURLs {
	loc := r.BaseURL + "/v1/orgs/" + s.OrganizationID + "/openapi/" + s.Slug
	return &model.OpenAPISpecURLs{Location: loc, App: loc}
}

// OpenAPIVersionLocation is a version's API URL.
func (r *Resolver) OpenAPIVersionLocation(s *ent.OpenAPISpec, v *ent.OpenAPISpecVersion) string {
	return r.OpenAPISpecURLs(s).Location + "/versions/" + v.ID
}

// OpenAPIVersionPublicURL is the unguessable public URL of a version's
// root document.
func (r *Resolver) OpenAPIVersionPublicURL(v *ent.OpenAPISpecVersion) string {
	return r.BaseURL + OpenAPIContentPath + v.PublicKey + "/" + v.Root
}

// OpenAPIContentPath is where versions' root documents are served.
const OpenAPIContentPath = "/openapi-content/"

// OpenAPISpecErrors are lastProcessedErrors for GraphQL.
func OpenAPISpecErrors(s *ent.OpenAPISpec) []*model.OpenAPISpecProcessError {
	out := make([]*model.OpenAPISpecProcessError, 0, len(s.LastProcessedErrors))
	for _, e := range s.LastProcessedErrors {
		pe := &model.OpenAPISpecProcessError{Message: e.Message}
		if e.Code != "" {
			pe.Code = &e.Code
		}
		if e.File != "" {
			pe.File = &e.File
		}
		if e.Line > 0 {
			pe.Line = &e.Line
		}
		if e.Pointer != "" {
			pe.Pointer = &e.Pointer
		}
		out = append(out, pe)
	}
	return out
}

// queueOpenAPI queues the processing of the spec's current generation, in
// the transaction that changed it.
func (r *Resolver) queueOpenAPI(ctx context.Context, tx *ent.Client, s *ent.OpenAPISpec) error {
	return jobs.Enqueue(ctx, tx, r.Dialect, ids.New(), JobOpenAPI, s.ID+":"+strconv.Itoa(s.Generation))
}

func (r *Resolver) wakeJobs() {
	if r.Jobs != nil {
		r.Jobs.Wake()
	}
}

// ProcessOpenAPISpec is the job that processes one generation of a spec.
// Fetch failures that may pass are retried by the runner (the spec waits,
// pending); the last attempt, and every other failure, ends the processing
// complete with the error, the last version kept.
func (r *Resolver) ProcessOpenAPISpec(ctx context.Context, j jobs.Job) error {
	id, genText, _ := strings.Cut(j.Payload, ":")
	gen, _ := strconv.Atoi(genText)
	spec, err := r.Client.OpenAPISpec.Get(ctx, id)
	if ent.IsNotFound(err) {
		return nil // deleted meanwhile
	}
	if err != nil {
		return err
	}
	if spec.Generation != gen {
		return nil // replaced meanwhile: the newer job processes it
	}
	current := openapispec.And(openapispec.ID(id), openapispec.Generation(gen))
	// Each state the processing passes through is a write of its own and
	// records it; when a newer generation replaced the spec meanwhile it
	// changes nothing (errStale: the newer generation's job does the
	// work).
	setState := func(action string, payload map[string]any, set func(*ent.OpenAPISpecUpdate)) error {
		return r.write(ctx, func(ctx context.Context, tx *ent.Client) error {
			upd := tx.OpenAPISpec.Update().Where(current)
			set(upd)
			n, err := upd.Save(ctx)
			if err != nil {
				return err
			}
			if n == 0 {
				return errStale
			}
			record(ctx, openAPIEvent(action, spec, payload))
			return nil
		})
	}
	if err := setState(events.OpenAPISpecProcessingStarted, nil, func(u *ent.OpenAPISpecUpdate) {
		u.SetProcessingState(openapispec.ProcessingStateProgress)
	}); err != nil {
		return staleDone(err)
	}
	src := openapi.Source{}
	if spec.SourceURL != nil {
		src.URL = *spec.SourceURL
	} else if spec.SourceText != nil {
		src.Text = *spec.SourceText
	}
	res, problem := openapi.Process(ctx, src, r.openAPIFetch, r.OpenAPILimits)
	if ctx.Err() != nil {
		return ctx.Err() // cut by shutdown: the job runs again
	}
	now := clock.Now()
	if problem != nil {
		if problem.Retry && !j.Last {
			err := setState(events.OpenAPISpecProcessingRetried, map[string]any{"errorCode": problem.Code}, func(u *ent.OpenAPISpecUpdate) {
				u.SetProcessingState(openapispec.ProcessingStatePending)
			})
			if err != nil {
				return staleDone(err)
			}
			return jobs.Retry(problem)
		}
		errs := make([]entschema.OpenAPIProblem, len(problem.Errors))
		for i, e := range problem.Errors {
			errs[i] = entschema.OpenAPIProblem{Message: e.String(), Code: problem.Code, File: e.File, Line: e.Line, Pointer: e.Pointer}
		}
		return staleDone(setState(events.OpenAPISpecProcessingFailed, map[string]any{"errorCode": problem.Code}, func(u *ent.OpenAPISpecUpdate) {
			u.SetProcessingState(openapispec.ProcessingStateComplete).
				SetLastProcessErrorCode(openapispec.LastProcessErrorCode(problem.Code)).
				SetLastProcessedErrors(errs).SetLastProcessedAt(now)
		}))
	}
	err = r.write(ctx, func(ctx context.Context, tx *ent.Client) error {
		v, err := r.versionOf(ctx, tx, id, res)
		if err != nil {
			return err
		}
		n, err := tx.OpenAPISpec.Update().Where(current).
			SetProcessingState(openapispec.ProcessingStateComplete).
			SetLastVersionID(v.ID).SetLastProcessedAt(now).
			ClearLastProcessErrorCode().SetLastProcessedErrors([]entschema.OpenAPIProblem{}).Save(ctx)
		if err != nil {
			return err
		}
		if n == 0 {
			return errStale // replaced or deleted meanwhile: keep nothing
		}
		record(ctx, openAPIEvent(events.OpenAPISpecVersionProcessed, spec, map[string]any{"versionId": v.ID}))
		return nil
	})
	if errors.Is(err, errStale) {
		return nil // the newer generation's job does the work
	}
	return err
}

var errStale = errors.New("the spec changed during its processing")

// staleDone ends a processing whose spec was replaced or deleted: not an
// error, the newer generation's job does the work.
func staleDone(err error) error {
	if errors.Is(err, errStale) {
		return nil
	}
	return err
}

// versionOf is the version of the spec with res's content: the existing
// one when this content was seen before (identical content makes no new
// version, and two runs of one job make one), else a new one.
func (r *Resolver) versionOf(ctx context.Context, tx *ent.Client, specID string, res *openapi.Result) (*ent.OpenAPISpecVersion, error) {
	find := func() (*ent.OpenAPISpecVersion, error) {
		return tx.OpenAPISpecVersion.Query().Where(openapispecversion.SpecID(specID), openapispecversion.Hash(res.Hash)).Only(ctx)
	}
	v, err := find()
	if err == nil || !ent.IsNotFound(err) {
		return v, err
	}
	return tx.OpenAPISpecVersion.Create().SetSpecID(specID).SetHash(res.Hash).SetRoot(res.Root).
		SetFormat(openapispecversion.Format(res.Format)).SetFiles(res.Files).
		SetPublicKey(ids.New() + ids.New()).Save(ctx)
}

// openAPIFetch fetches for a processing through the guarded fetcher; a
// failure that may pass (unreachable, 5xx, 429) is marked retryable.
func (r *Resolver) openAPIFetch(ctx context.Context, rawURL string) ([]byte, error) {
	f := r.Fetcher
	limits := r.OpenAPILimits
	if limits.FileBytes > 0 {
		f.MaxBytes = limits.FileBytes
	} else {
		f.MaxBytes = openapi.Defaults.FileBytes
	}
	// The processing's own deadline ends a slow fetch first, so it reads
	// as a timeout, not as an unreachable host.
	f.Timeout = time.Hour
	res, err := f.Get(ctx, rawURL)
	if err != nil {
		var se *fetch.StatusError
		retry := errors.Is(err, fetch.ErrUnreachable) ||
			(errors.As(err, &se) && (se.Code >= 500 || se.Code == 429))
		return nil, &openapi.FetchFailure{Err: err, Retryable: retry}
	}
	return res.Body, nil
}

// OpenAPIEditable checks that the caller may change the organization's
// specs, before REST reads a body (authorization before validation).
func (r *Resolver) OpenAPIEditable(ctx context.Context, orgID string) error {
	_, err := openAPIEditor(ctx, orgID)
	return err
}

// OpenAPIVersionURLLocation is a version's API URL, its spec read through
// the loader.
func (r *Resolver) OpenAPIVersionURLLocation(ctx context.Context, v *ent.OpenAPISpecVersion) (string, error) {
	spec, err := loader.For(ctx).OpenAPISpecByID.Load(ctx, v.SpecID)()
	if err != nil {
		return "", err
	}
	return r.OpenAPIVersionLocation(spec, v), nil
}

// FinishedJobsKept is how long finished job rows stay (for inspection)
// before the purge removes them.
const FinishedJobsKept = 7 * 24 * time.Hour

// PurgeFinishedJobs removes job rows finished (done or failed) more than
// FinishedJobsKept ago; periodic jobs' rows are never finished.
func (r *Resolver) PurgeFinishedJobs(ctx context.Context) (int, error) {
	return r.Client.Job.Delete().
		Where(job.StateIn(job.StateDone, job.StateFailed), job.UpdatedAtLT(clock.Now().Add(-FinishedJobsKept))).
		Exec(ctx)
}

// openAPISpecVersionNode is version id of a spec of organization orgID, for
// node(id:): read as the spec's versions are (members with a role).
func (r *Resolver) openAPISpecVersionNode(ctx context.Context, orgID, id string) (*ent.OpenAPISpecVersion, error) {
	if _, err := openAPIReader(ctx, orgID); err != nil {
		return nil, err
	}
	return loader.For(ctx).OpenAPIVersionByID.Load(ctx, id)()
}
