package graph

import (
	"context"
	"fmt"

	"github.com/folio/folio/ent"
	"github.com/folio/folio/ent/siteredirect"
	"github.com/folio/folio/graph/model"
	"github.com/folio/folio/internal/apperr"
	"github.com/folio/folio/internal/auth"
	"github.com/folio/folio/internal/clock"
	"github.com/folio/folio/internal/events"
)

// bulkItem is one item of a bulk write once checked: its destination
// resolved, or the error that refuses it.
type bulkItem struct {
	in     *model.SiteRedirectBulkInput
	intent model.SiteRedirectIntent
	dest   *redirectDest // nil: delete (or publish)
	err    *apperr.Error
}

// BulkUpsertSiteRedirects creates, updates, deletes or publishes up to
// MaxBulkRedirects redirects of a site, each item identified by its source
// and intent (live or draft). Every item is checked and written on its
// own: one refused (status error, naming its field) does not stop the
// others. The written ones commit together, each with its event.
func (r *Resolver) BulkUpsertSiteRedirects(ctx context.Context, orgID, siteID string, in []*model.SiteRedirectBulkInput) ([]*model.SiteRedirectBulkResult, error) {
	s, err := manageableSite(ctx, orgID, siteID)
	if err != nil {
		return nil, err
	}
	if len(in) < 1 || len(in) > MaxBulkRedirects {
		return nil, apperr.InvalidField("redirects", "must hold 1 to %d items", MaxBulkRedirects)
	}
	// A source or intent the reference's request schema refuses fails the
	// whole request (400 naming the item), as GitBook's validation would:
	// a result could not even echo it. Every other refusal is the item's.
	for i, it := range in {
		if it == nil {
			return nil, apperr.InvalidField(fmt.Sprintf("redirects[%d]", i), "must be an object")
		}
		if err := checkRedirectSource(fmt.Sprintf("redirects[%d].source", i), it.Source); err != nil {
			return nil, err
		}
		if v := it.Intent.Value(); v != nil && !v.IsValid() {
			return nil, apperr.InvalidField(fmt.Sprintf("redirects[%d].intent", i), "must be one of live, draft, publish")
		}
	}
	items := make([]*bulkItem, len(in))
	for i, it := range in {
		b := &bulkItem{in: it, intent: model.SiteRedirectIntentLive}
		items[i] = b
		if it == nil {
			b.in = &model.SiteRedirectBulkInput{}
			b.err = apperr.InvalidField("source", "is required")
			continue
		}
		if v := it.Intent.Value(); v != nil {
			b.intent = *v
		}
		if err := checkRedirectSource("source", it.Source); err != nil {
			b.err, _ = apperr.As(err)
			continue
		}
		if !b.intent.IsValid() {
			b.err = apperr.InvalidField("intent", "must be one of live, draft, publish")
			continue
		}
		if b.intent == model.SiteRedirectIntentPublish {
			continue
		}
		if !it.Destination.IsSet() {
			b.err = apperr.InvalidField("destination", "is required (null deletes the redirect)")
			continue
		}
		if v := it.Destination.Value(); v != nil {
			d, err := r.redirectDestination(ctx, s, "destination", v)
			if e, ok := apperr.As(err); ok {
				b.err = e
				continue
			} else if err != nil {
				return nil, err
			}
			b.dest = &d
		}
	}
	out := make([]*model.SiteRedirectBulkResult, len(items))
	err = r.write(ctx, func(ctx context.Context, tx *ent.Client) error {
		count, err := tx.SiteRedirect.Query().Where(siteredirect.SiteID(s.ID)).Count(ctx)
		if err != nil {
			return err
		}
		for i, b := range items {
			res, err := r.bulkWrite(ctx, tx, s, b, &count)
			if err != nil {
				return err
			}
			out[i] = res
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	forgetRedirects(s.ID)
	return out, nil
}

// bulkWrite writes one item of a bulk write in tx; count is the site's
// number of redirects, kept up to date.
func (r *Resolver) bulkWrite(ctx context.Context, tx *ent.Client, s *ent.Site, b *bulkItem, count *int) (*model.SiteRedirectBulkResult, error) {
	draft := b.intent == model.SiteRedirectIntentDraft
	res := &model.SiteRedirectBulkResult{Source: b.in.Source, Draft: draft}
	refuse := func(e *apperr.Error) *model.SiteRedirectBulkResult {
		res.Status = model.SiteRedirectBulkStatusError
		msg := e.Message
		if e.Field != "" {
			msg = e.Field + ": " + msg
			res.Field = strPtr(e.Field)
		}
		res.Error = &msg
		return res
	}
	if b.err != nil {
		return refuse(b.err), nil
	}
	find := func(draft bool) (*ent.SiteRedirect, error) {
		rd, err := tx.SiteRedirect.Query().Where(siteredirect.SiteID(s.ID), siteredirect.Source(b.in.Source), siteredirect.Draft(draft)).Only(ctx)
		if ent.IsNotFound(err) {
			return nil, nil
		}
		return rd, err
	}
	switch {
	case b.intent == model.SiteRedirectIntentPublish:
		res.Draft = false
		d, err := find(true)
		if err != nil {
			return nil, err
		}
		if d == nil {
			return refuse(apperr.InvalidField("source", "the site has no draft redirect from %s", b.in.Source)), nil
		}
		if live, err := find(false); err != nil {
			return nil, err
		} else if live != nil {
			if err := tx.SiteRedirect.DeleteOneID(live.ID).Exec(ctx); err != nil {
				return nil, err
			}
			*count--
			record(ctx, redirectEvent(events.SiteRedirectDeleted, s, live, nil))
		}
		pub, err := tx.SiteRedirect.UpdateOneID(d.ID).SetDraft(false).SetEditedAt(clock.Now()).Save(ctx)
		if err != nil {
			return nil, err
		}
		record(ctx, redirectEvent(events.SiteRedirectPublished, s, pub, nil))
		res.Status, res.ID = model.SiteRedirectBulkStatusPublished, &pub.ID
		return res, nil
	case b.dest == nil:
		old, err := find(draft)
		if err != nil {
			return nil, err
		}
		if old == nil {
			return refuse(apperr.InvalidField("source", "the site has no such redirect from %s to delete", b.in.Source)), nil
		}
		if err := tx.SiteRedirect.DeleteOneID(old.ID).Exec(ctx); err != nil {
			return nil, err
		}
		*count--
		record(ctx, redirectEvent(events.SiteRedirectDeleted, s, old, nil))
		res.Status = model.SiteRedirectBulkStatusDeleted
		return res, nil
	}
	old, err := find(draft)
	if err != nil {
		return nil, err
	}
	if old != nil {
		u := tx.SiteRedirect.UpdateOneID(old.ID).SetEditedAt(clock.Now())
		setDest(u, *b.dest)
		clearDest(u, *b.dest)
		if v := b.in.CaptureWildcard.Value(); v != nil {
			u.SetCaptureWildcard(*v)
		}
		if v := b.in.Permanent.Value(); v != nil {
			u.SetPermanent(*v)
		}
		fields := redirectFields(u.Mutation().Fields())
		up, err := u.Save(ctx)
		if err != nil {
			return nil, err
		}
		record(ctx, redirectEvent(events.SiteRedirectUpdated, s, up, map[string]any{"fields": fields}))
		res.Status, res.ID = model.SiteRedirectBulkStatusUpdated, &up.ID
		return res, nil
	}
	if *count >= MaxRedirectsPerSite {
		return refuse(apperr.InvalidField("source", "a site has at most %d redirects", MaxRedirectsPerSite)), nil
	}
	c := tx.SiteRedirect.Create().SetSiteID(s.ID).SetSource(b.in.Source).SetDraft(draft).
		SetCaptureWildcard(boolOf(b.in.CaptureWildcard.Value())).SetPermanent(boolOf(b.in.Permanent.Value()))
	if uid := auth.ViewerID(ctx); uid != "" {
		c.SetCreatedBy(uid)
	}
	setDest(c, *b.dest)
	created, err := c.Save(ctx)
	if err != nil {
		return nil, err
	}
	*count++
	record(ctx, redirectEvent(events.SiteRedirectCreated, s, created, map[string]any{"destination": string(b.dest.kind)}))
	res.Status, res.ID = model.SiteRedirectBulkStatusCreated, &created.ID
	return res, nil
}
