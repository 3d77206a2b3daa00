package graph

import (
	"context"
	"errors"
	"net/url"
	"strings"

	"github.com/folio/folio/ent"
	"github.com/folio/folio/ent/page"
	"github.com/folio/folio/ent/revision"
	"github.com/folio/folio/graph/model"
	"github.com/folio/folio/internal/apperr"
	"github.com/folio/folio/internal/auth"
	"github.com/folio/folio/internal/clock"
	"github.com/folio/folio/internal/events"
	"github.com/folio/folio/internal/fetch"
	"github.com/folio/folio/internal/ids"
	"github.com/folio/folio/internal/importer"
	"github.com/folio/folio/internal/markdown"
	"github.com/folio/folio/internal/metrics"
)

// ImportContent fetches rawURL, reads it as source (markdown, zip, html,
// website) and adds what it holds at the end of the content of the space
// (crID "") or of a change request, as an import revision. Bad URLs,
// unreachable or refused hosts and oversize bodies answer 4xx and change
// nothing. At most Imports.Max imports run at once: a caller past the bound
// waits its turn, then answers 503 with Retry-After.
func (r *Resolver) ImportContent(ctx context.Context, spaceID, crID, rawURL, source string) (*model.ImportResult, error) {
	switch source {
	case model.ImportMarkdown, model.ImportZip, model.ImportHTML, model.ImportWebsite:
	case "":
		return nil, apperr.InvalidField("source", "is required: markdown, zip, html or website")
	default:
		return nil, apperr.InvalidField("source", "%q cannot be imported by Folio (markdown, zip, html or website)", source)
	}
	if rawURL == "" {
		return nil, apperr.InvalidField("url", "is required")
	}
	if err := fetch.CheckURL(rawURL); err != nil {
		return nil, apperr.InvalidField("url", "%s", err.Error())
	}
	s, err := unlockedSpace(ctx, spaceID)
	if err != nil {
		return nil, err
	}
	var cr *ent.ChangeRequest
	baseRev := s.RevisionID
	if crID != "" {
		if _, cr, err = r.editableChangeRequest(ctx, spaceID, crID); err != nil {
			return nil, err
		}
		baseRev = cr.RevisionID
	}
	// The turn is held until the revision is written: the import's content
	// stays in memory until then.
	gate := r.importGate()
	release, err := gate.Enter(ctx)
	if errors.Is(err, importer.ErrBusy) {
		return nil, apperr.Unavailablef(gate.RetryAfter(), "%d imports are already running: retry later", gate.InFlight())
	}
	if err != nil { // the client left while waiting: nobody reads the answer
		return nil, apperr.Unavailablef(gate.RetryAfter(), "the request ended while waiting for a turn to import")
	}
	defer release()
	imported := false
	defer func() { metrics.JobRuns.WithLabelValues("import", metrics.Outcome(imported)).Inc() }()
	res, err := r.fetchImport(ctx, rawURL, source)
	if err != nil {
		return nil, err
	}
	d, err := newDraft(ctx, baseRev)
	if err != nil {
		return nil, err
	}
	old, err := newDraft(ctx, baseRev)
	if err != nil {
		return nil, err
	}
	tokens := map[string]string{}
	for _, f := range res.Files {
		key, err := r.Blobs.Put(ctx, f.Data, f.ContentType)
		if err != nil {
			return nil, err
		}
		id := ids.New()
		tokens["/files/"+f.Token] = "/files/" + id
		d.files = append(d.files, &draftFile{ID: id, Name: f.Name, ContentType: f.ContentType, BlobKey: key, Size: int64(len(f.Data)), CreatedAt: clock.Now()})
	}
	replacer := strings.NewReplacer(flatten(tokens)...)
	siblings := importSiblings{d: d, groups: map[string]*siblingGroup{}}
	var add func(parent string, pages []*importer.Page)
	add = func(parent string, pages []*importer.Page) {
		for _, ip := range pages {
			// The title is the importer's: the fields alone are read, not
			// the first heading (a parse of the whole body).
			meta := markdown.Fields(replacer.Replace(ip.Markdown))
			p := &draftPage{ID: ids.New(), Kind: page.KindDocument, Title: truncate(ip.Title, 256), Emoji: meta.Emoji,
				Description: truncate(meta.Description, 1000), Hidden: meta.Hidden, CreatedAt: clock.Now(), UpdatedAt: clock.Now()}
			if p.Title == "" {
				p.Title = "Untitled"
			}
			// Robots settings of the frontmatter stay with the body (the
			// rest of it becomes the page's fields).
			noIndex, noRobotsIndex := markdown.Robots(ip.Markdown)
			d.setBody(p, markdown.KeepRobots(meta.Body, derefBool(noIndex), derefBool(noRobotsIndex)))
			siblings.append(p, parent, markdown.Slug(p.Title))
			add(p.ID, ip.Children)
		}
	}
	add("", res.Pages)

	if cr != nil {
		d.changeRequest = cr.ID
	}
	var rev *ent.Revision
	err = r.write(ctx, func(ctx context.Context, tx *ent.Client) error {
		if rev, err = d.write(ctx, tx, r.Dialect, spaceID, revision.TypeImport, []string{baseRev}, auth.ViewerID(ctx)); err != nil {
			return err
		}
		payload := map[string]any{"revisionId": rev.ID, "source": source, "importedResources": res.Count(), "totalResources": res.Total}
		if cr == nil {
			moved, err := moveSpaceRevision(ctx, tx, s, rev.ID)
			if err != nil {
				return err
			}
			if err := r.reindex(ctx, tx, spaceID, old, d); err != nil {
				return err
			}
			record(ctx, spaceEvent(events.ImportFinished, moved, payload))
			return nil
		}
		if err := moveChangeRequestRevision(ctx, tx, cr, rev.ID); err != nil {
			return err
		}
		payload["number"] = cr.Number
		record(ctx, changeRequestEvent(events.ImportFinishedInChangeRequest, s.OrganizationID, cr, payload))
		return nil
	})
	if err != nil {
		return nil, err
	}
	imported = true
	return &model.ImportResult{Revision: rev.ID, ImportedResources: res.Count(), TotalResources: res.Total}, nil
}

// importSiblings puts imported pages last among their parent's children
// with a slug unique among them, as uniqueSlug and place(p, parent, -1) do,
// without their scan of every page of the draft for each page (n² for an
// import of n pages). A parent's children are read once, on its first
// imported child, which place numbers with them 0..n-1; each further child
// takes the next position.
type importSiblings struct {
	d      *draft
	groups map[string]*siblingGroup
}

type siblingGroup struct {
	slugs map[string]bool
	n     int
}

func (s *importSiblings) append(p *draftPage, parent, slug string) {
	g := s.groups[parent]
	if g == nil {
		p.Slug = s.d.uniqueSlug(p, parent, slug)
		s.d.pages[p.ID] = p
		s.d.place(p, parent, -1)
		g = &siblingGroup{slugs: map[string]bool{}}
		for _, c := range s.d.children(parent) {
			g.slugs[c.Slug] = true
			g.n++
		}
		s.groups[parent] = g
		return
	}
	p.Slug = freeSlug(g.slugs, slug)
	p.Parent, p.Position = parent, g.n
	g.slugs[p.Slug] = true
	g.n++
	s.d.pages[p.ID] = p
}

// fetchImport downloads and reads the source.
func (r *Resolver) fetchImport(ctx context.Context, rawURL, source string) (importer.Result, error) {
	get := func(ctx context.Context, u string) ([]byte, string, *url.URL, error) {
		res, err := r.Fetcher.Get(ctx, u)
		if err != nil {
			return nil, "", nil, err
		}
		return res.Body, res.ContentType, res.URL, nil
	}
	fail := func(err error) (importer.Result, error) {
		var ie *importer.Error
		switch {
		case ctx.Err() != nil: // the client left or the request's time ran out
			return importer.Result{}, apperr.Unavailablef(r.importGate().RetryAfter(), "the request ended before the source was read")
		case errors.Is(err, fetch.ErrTooLarge):
			return importer.Result{}, &apperr.Error{Kind: apperr.TooLarge, Field: "url", Message: "url: the resource is larger than the import limit"}
		case errors.As(err, &ie) && ie.TooLarge:
			return importer.Result{}, &apperr.Error{Kind: apperr.TooLarge, Field: "url", Message: "url: " + ie.Error()}
		case errors.As(err, &ie):
			return importer.Result{}, apperr.InvalidField("url", "%s", ie.Error())
		}
		return importer.Result{}, apperr.InvalidField("url", "cannot be fetched: %s", err.Error())
	}
	if source == model.ImportWebsite {
		res, err := importer.Website(ctx, rawURL, get)
		if err != nil {
			return fail(err)
		}
		return res, nil
	}
	body, _, final, err := get(ctx, rawURL)
	if err != nil {
		return fail(err)
	}
	var res importer.Result
	switch source {
	case model.ImportMarkdown:
		res, err = importer.Markdown(body, final.Path)
	case model.ImportHTML:
		res, err = importer.HTML(body, final)
	default:
		res, err = importer.Zip(ctx, body)
	}
	if err != nil {
		return fail(err)
	}
	return res, nil
}

// defaultImports bounds imports of a Resolver built without a Gate.
var defaultImports importer.Gate

func (r *Resolver) importGate() *importer.Gate {
	if r.Imports != nil {
		return r.Imports
	}
	return &defaultImports
}

func flatten(m map[string]string) []string {
	out := make([]string, 0, 2*len(m))
	for k, v := range m {
		out = append(out, k, v)
	}
	return out
}

func truncate(s string, n int) string {
	r := []rune(s)
	if len(r) > n {
		return string(r[:n])
	}
	return s
}
