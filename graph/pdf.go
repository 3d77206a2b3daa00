package graph

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/folio/folio/ent"
	"github.com/folio/folio/ent/download"
	"github.com/folio/folio/graph/loader"
	"github.com/folio/folio/internal/apperr"
	"github.com/folio/folio/internal/clock"
	"github.com/folio/folio/internal/events"
	"github.com/folio/folio/internal/gate"
	"github.com/folio/folio/internal/pdf"
)

// PDFLifetime is how long a PDF's download URL works.
const PDFLifetime = time.Hour

// ChangeRequestPDF prints a change request's content — every page, or the
// page pageID with its subpages (only: the page alone) — to a PDF and
// answers the URL of a download that expires after PDFLifetime.
func (r *Resolver) ChangeRequestPDF(ctx context.Context, spaceID, crID string, pageID string, only bool) (string, error) {
	cr, err := r.FindChangeRequest(ctx, spaceID, crID)
	if err != nil {
		return "", err
	}
	rev, err := loadRevision(ctx, cr.RevisionID)
	if err != nil {
		return "", err
	}
	title := cr.Subject
	if title == "" {
		title = "Change request"
	}
	s, err := loader.For(ctx).SpaceByID.Load(ctx, cr.SpaceID)()
	if err != nil {
		return "", err
	}
	ev := changeRequestEvent(events.PDFExported, s.OrganizationID, cr, nil)
	return r.printRevision(ctx, rev, title, "change-request.pdf", pageID, only, ev)
}

// SpacePDF prints a space's current content as ChangeRequestPDF prints a
// change request's.
func (r *Resolver) SpacePDF(ctx context.Context, spaceID string, pageID string, only bool) (string, error) {
	s, _, err := visibleSpace(ctx, spaceID)
	if err != nil {
		return "", err
	}
	rev, err := loadRevision(ctx, s.RevisionID)
	if err != nil {
		return "", err
	}
	title := s.Title
	if title == "" {
		title = "Space"
	}
	return r.printRevision(ctx, rev, title, "space.pdf", pageID, only, spaceEvent(events.PDFExported, s, nil))
}

// printRevision prints a revision (every page, or pageID with its
// subpages, or alone with only) and stores the PDF as a download that
// expires after PDFLifetime; it answers the download's URL. ev is the
// event the download's creation records (its target: what was printed).
func (r *Resolver) printRevision(ctx context.Context, rev *ent.Revision, title, name, pageID string, only bool, ev events.Event) (string, error) {
	l := loader.For(ctx)
	filesThunk := l.RevisionFiles.Load(ctx, rev.ID)
	t, err := l.RevisionTree.Load(ctx, rev.ID)()
	if err != nil {
		return "", err
	}
	derived, err := revisionDerived(ctx, t)
	if err != nil {
		return "", err
	}
	files, err := filesThunk()
	if err != nil {
		return "", err
	}
	var pages []pdf.Page
	var walk func(ps []*ent.Page, depth int)
	walk = func(ps []*ent.Page, depth int) {
		for _, p := range ps {
			pages = append(pages, pdf.Page{Title: p.Title, Document: derived[p.ContentHash].Document, Depth: depth})
			if !only {
				walk(t.Children[p.PageID], depth+1)
			}
		}
	}
	switch {
	case pageID != "":
		p, ok := t.ByID[pageID]
		if !ok {
			return "", apperr.NotFoundf("page %s not found", pageID)
		}
		walk([]*ent.Page{p}, 0)
	case only:
		return "", apperr.InvalidField("only", "needs a page")
	default:
		walk(t.Children[""], 0)
	}
	byID := map[string]*ent.File{}
	for _, f := range files {
		byID[f.FileID] = f
	}
	image := func(src string) ([]byte, string, bool) {
		id, ok := strings.CutPrefix(src, "/files/")
		f := byID[strings.Trim(id, "/")]
		if !ok || f == nil {
			return nil, "", false
		}
		kind := map[string]string{"image/png": "PNG", "image/jpeg": "JPG", "image/gif": "GIF"}[f.ContentType]
		if kind == "" {
			return nil, "", false
		}
		data, err := r.Blobs.Get(ctx, f.BlobKey)
		return data, kind, err == nil
	}
	// A turn is held while the PDF is laid out and stored: each busies a
	// processor and holds its document.
	g := r.pdfGate()
	release, err := g.Enter(ctx)
	if errors.Is(err, gate.ErrBusy) {
		return "", apperr.Unavailablef(g.RetryAfter(), "%d PDFs are already being printed: retry later", g.InFlight())
	}
	if err != nil { // the client left while waiting: nobody reads the answer
		return "", apperr.Unavailablef(g.RetryAfter(), "the request ended while waiting for a turn to print")
	}
	defer release()
	data, err := pdf.Render(ctx, title, pages, image)
	if errors.Is(err, pdf.ErrTooManyPages) {
		return "", &apperr.Error{Kind: apperr.TooLarge, Message: err.Error()}
	}
	if err != nil {
		return "", err
	}
	key, err := r.Blobs.Put(ctx, data, "application/pdf")
	if err != nil {
		return "", err
	}
	var dl *ent.Download
	err = r.write(ctx, func(ctx context.Context, tx *ent.Client) error {
		var err error
		if dl, err = tx.Download.Create().SetBlobKey(key).SetName(name).
			SetContentType("application/pdf").SetExpiresAt(clock.Now().Add(PDFLifetime)).Save(ctx); err != nil {
			return err
		}
		ev.Payload = map[string]any{"downloadId": dl.ID, "only": only}
		if pageID != "" {
			ev.Payload["pageId"] = pageID
		}
		record(ctx, ev)
		return nil
	})
	if err != nil {
		return "", err
	}
	return r.BaseURL + "/downloads/" + dl.ID, nil
}

// defaultPDFs bounds PDFs of a Resolver built without a Gate.
var defaultPDFs gate.Gate

func (r *Resolver) pdfGate() *gate.Gate {
	if r.PDFs != nil {
		return r.PDFs
	}
	return &defaultPDFs
}

// Download finds a download that has not expired.
func (r *Resolver) Download(ctx context.Context, id string) (*ent.Download, error) {
	dl, err := r.Client.Download.Query().Where(download.ID(id), download.ExpiresAtGT(clock.Now())).Only(ctx)
	if ent.IsNotFound(err) {
		return nil, apperr.NotFoundf("download not found or expired")
	}
	return dl, err
}
