package graph

import (
	"context"
	"errors"
	"slices"
	"strconv"
	"strings"

	"github.com/folio/folio/ent"
	"github.com/folio/folio/ent/webhook"
	"github.com/folio/folio/ent/webhookdelivery"
	"github.com/folio/folio/graph/loader"
	"github.com/folio/folio/internal/apperr"
	"github.com/folio/folio/internal/auth"
	"github.com/folio/folio/internal/clock"
	"github.com/folio/folio/internal/events"
	"github.com/folio/folio/internal/fetch"
	"github.com/folio/folio/internal/jobs"
	"github.com/folio/folio/internal/paging"
	"github.com/folio/folio/internal/secrets"
	wh "github.com/folio/folio/internal/webhook"
)

// Webhooks of an organization.
//
// Who may do what: everything (listing, reading, creating, changing,
// deleting, the deliveries and redelivery) is for organization admins:
// other members and guests get 403, strangers 404, as for the organization
// itself. The admin check comes before any lookup of the webhook, so a
// non-admin cannot probe ids.
//
// The signing secret is made by the server, returned once by
// CreateWebhook, and stored sealed (secrets.WebhookSecret); no read shows
// it again. Sending is webhooks_dispatch.go's.

// WebhookInput is what a create or an update sends; nil fields are absent
// (an update keeps them).
type WebhookInput struct {
	URL         *string
	Events      *[]string
	Description *string
	Active      *bool
}

// WebhookWildcard subscribes a webhook to every action.
const WebhookWildcard = "*"

// checkWebhookInput validates the fields present in in.
func (r *Resolver) checkWebhookInput(ctx context.Context, in WebhookInput) error {
	if in.URL != nil {
		if err := fetch.CheckURL(*in.URL); err != nil {
			return apperr.InvalidField("url", "%s", err.Error())
		}
		if len(*in.URL) > 2048 {
			return apperr.InvalidField("url", "must be at most 2048 characters")
		}
		if err := r.Fetcher.CheckDestination(ctx, *in.URL); errors.Is(err, fetch.ErrPrivateAddress) {
			return apperr.InvalidField("url", "%s", err.Error())
		}
	}
	if in.Events != nil {
		evs := *in.Events
		if len(evs) == 0 {
			return apperr.InvalidField("events", "must name at least one action id, or \"*\" for all")
		}
		for _, e := range evs {
			if e == WebhookWildcard {
				if len(evs) > 1 {
					return apperr.InvalidField("events", "\"*\" stands alone: it already means every action")
				}
				continue
			}
			if _, ok := events.Lookup(e); !ok {
				return apperr.InvalidField("events", "%q is not an action id (see listOrganizationAuditEventActions)", e)
			}
		}
	}
	if in.Description != nil && len(*in.Description) > 500 {
		return apperr.InvalidField("description", "must be at most 500 characters")
	}
	return nil
}

// Webhooks pages through an organization's webhooks. Admins only.
func (r *Resolver) Webhooks(ctx context.Context, orgID string, args paging.Args) (paging.Page[*ent.Webhook], error) {
	if _, err := adminOrganization(ctx, orgID); err != nil {
		return paging.Page[*ent.Webhook]{}, err
	}
	pages, err := listPages(ctx, r.Client.Webhook.Query(), webhook.FieldOrganizationID, []string{orgID}, args, webhook.FieldCreatedAt,
		func(w *ent.Webhook) paging.Cursor { return paging.Cursor{Time: w.CreatedAt, ID: w.ID} },
		func(w *ent.Webhook) string { return w.OrganizationID })
	return pages[orgID], err
}

// WebhookByID reads webhook id of organization orgID. Admins only.
func (r *Resolver) WebhookByID(ctx context.Context, orgID, id string) (*ent.Webhook, error) {
	if _, err := adminOrganization(ctx, orgID); err != nil {
		return nil, err
	}
	w, err := r.Client.Webhook.Query().Where(webhook.ID(id), webhook.OrganizationID(orgID)).Only(ctx)
	if ent.IsNotFound(err) {
		return nil, apperr.NotFoundf("webhook %s not found", id)
	}
	return w, err
}

// CreateWebhook registers an endpoint and answers it with its secret, which
// no other answer shows. Admins only.
func (r *Resolver) CreateWebhook(ctx context.Context, orgID string, in WebhookInput) (*ent.Webhook, string, error) {
	if _, err := adminOrganization(ctx, orgID); err != nil {
		return nil, "", err
	}
	if in.URL == nil {
		return nil, "", apperr.InvalidField("url", "is required")
	}
	if in.Events == nil {
		return nil, "", apperr.InvalidField("events", "is required: action ids, or [\"*\"] for all")
	}
	if err := r.checkWebhookInput(ctx, in); err != nil {
		return nil, "", err
	}
	secret := wh.NewSecret()
	var w *ent.Webhook
	err := r.write(ctx, func(ctx context.Context, tx *ent.Client) error {
		c := tx.Webhook.Create().SetOrganizationID(orgID).SetURL(*in.URL).SetEvents(*in.Events).
			SetSecretSealed(r.seal(secrets.WebhookSecret, secret)).SetCreatedBy(auth.ViewerID(ctx))
		if in.Description != nil {
			c.SetDescription(*in.Description)
		}
		if in.Active != nil {
			c.SetActive(*in.Active)
		}
		var err error
		if w, err = c.Save(ctx); err != nil {
			return entError(err)
		}
		record(ctx, webhookEvent(events.WebhookCreated, w, map[string]any{"events": strings.Join(w.Events, ",")}))
		return nil
	})
	if err != nil {
		return nil, "", err
	}
	return w, secret, nil
}

// UpdateWebhook changes the fields in sends. Turning a webhook on again
// forgets its failures. Admins only.
func (r *Resolver) UpdateWebhook(ctx context.Context, orgID, id string, in WebhookInput) (*ent.Webhook, error) {
	w, err := r.WebhookByID(ctx, orgID, id)
	if err != nil {
		return nil, err
	}
	if err := r.checkWebhookInput(ctx, in); err != nil {
		return nil, err
	}
	err = r.write(ctx, func(ctx context.Context, tx *ent.Client) error {
		u := tx.Webhook.UpdateOne(w)
		var fields []string
		if in.URL != nil && *in.URL != w.URL {
			u.SetURL(*in.URL)
			fields = append(fields, "url")
		}
		if in.Events != nil && !slices.Equal(*in.Events, w.Events) {
			u.SetEvents(*in.Events)
			fields = append(fields, "events")
		}
		if in.Description != nil && *in.Description != w.Description {
			u.SetDescription(*in.Description)
			fields = append(fields, "description")
		}
		if in.Active != nil && *in.Active != w.Active {
			u.SetActive(*in.Active)
			if *in.Active {
				u.ClearFailingSince().ClearDisabledAt()
			}
			fields = append(fields, "active")
		}
		if len(fields) == 0 {
			return nil
		}
		var err error
		if w, err = u.Save(ctx); err != nil {
			return entError(err)
		}
		record(ctx, webhookEvent(events.WebhookUpdated, w, map[string]any{"fields": strings.Join(fields, ",")}))
		return nil
	})
	return w, err
}

// DeleteWebhook removes a webhook and its deliveries. Admins only.
func (r *Resolver) DeleteWebhook(ctx context.Context, orgID, id string) error {
	w, err := r.WebhookByID(ctx, orgID, id)
	if err != nil {
		return err
	}
	return r.write(ctx, func(ctx context.Context, tx *ent.Client) error {
		if _, err := tx.WebhookDelivery.Delete().Where(webhookdelivery.WebhookID(w.ID)).Exec(ctx); err != nil {
			return err
		}
		if err := tx.Webhook.DeleteOne(w).Exec(ctx); err != nil {
			return entError(err)
		}
		record(ctx, webhookEvent(events.WebhookDeleted, w, nil))
		return nil
	})
}

// webhookEvent is an event whose target is webhook w; payload adds to its
// id and URL (never its secret).
func webhookEvent(action string, w *ent.Webhook, payload map[string]any) events.Event {
	p := map[string]any{"webhookId": w.ID, "url": w.URL}
	for k, v := range payload {
		p[k] = v
	}
	return events.Event{
		Action: action, OrganizationID: w.OrganizationID,
		Target:  events.Target{Type: "webhook", ID: w.ID, Label: w.URL},
		Payload: p,
	}
}

// WebhookDeliveries pages through a webhook's deliveries, newest first
// unless asked otherwise. Admins only.
func (r *Resolver) WebhookDeliveries(ctx context.Context, orgID, id string, args paging.Args) (paging.Page[*ent.WebhookDelivery], error) {
	w, err := r.WebhookByID(ctx, orgID, id)
	if err != nil {
		return paging.Page[*ent.WebhookDelivery]{}, err
	}
	pages, err := listPages(ctx, r.Client.WebhookDelivery.Query(), webhookdelivery.FieldWebhookID, []string{w.ID}, args, webhookdelivery.FieldCreatedAt,
		func(d *ent.WebhookDelivery) paging.Cursor { return paging.Cursor{Time: d.CreatedAt, ID: d.ID} },
		func(d *ent.WebhookDelivery) string { return d.WebhookID })
	return pages[w.ID], err
}

// RedeliverWebhookDelivery starts a new attempt sequence of a delivery,
// whatever its state: the event is sent again (same webhook-id, so the
// receiver can tell a repeat). Admins only.
func (r *Resolver) RedeliverWebhookDelivery(ctx context.Context, orgID, id, deliveryID string) (*ent.WebhookDelivery, error) {
	w, err := r.WebhookByID(ctx, orgID, id)
	if err != nil {
		return nil, err
	}
	d, err := r.Client.WebhookDelivery.Query().Where(webhookdelivery.ID(deliveryID), webhookdelivery.WebhookID(w.ID)).Only(ctx)
	if ent.IsNotFound(err) {
		return nil, apperr.NotFoundf("delivery %s not found", deliveryID)
	}
	if err != nil {
		return nil, err
	}
	// A record of sending, not a change: exempt from the events.
	ctx = events.Exempt(ctx, events.ExemptDelivery)
	err = r.withTx(ctx, func(tx *ent.Client) error {
		now := clock.Now()
		d, err = tx.WebhookDelivery.UpdateOne(d).AddSequence(1).SetAttempts(0).SetState(webhookdelivery.StatePending).
			SetNextAttemptAt(now).Save(ctx)
		if err != nil {
			return err
		}
		return r.enqueueDelivery(ctx, tx, d)
	})
	if err != nil {
		return nil, err
	}
	if r.Jobs != nil {
		r.Jobs.Wake()
	}
	return d, nil
}

// WebhookDeliveryByID reads delivery id of organization orgID, whatever its
// webhook (node(id:) knows only the organization). Admins only, as the
// deliveries list.
func (r *Resolver) WebhookDeliveryByID(ctx context.Context, orgID, id string) (*ent.WebhookDelivery, error) {
	if _, err := adminOrganization(ctx, orgID); err != nil {
		return nil, err
	}
	d, err := r.Client.WebhookDelivery.Query().Where(webhookdelivery.ID(id), webhookdelivery.OrganizationID(orgID)).Only(ctx)
	if ent.IsNotFound(err) {
		return nil, apperr.NotFoundf("delivery %s not found", id)
	}
	return d, err
}

// DeliveryWebhook is the webhook of delivery d, under the same admin
// check as d (a loader: one statement for a page of deliveries).
func (r *Resolver) DeliveryWebhook(ctx context.Context, d *ent.WebhookDelivery) (*ent.Webhook, error) {
	if _, err := adminOrganization(ctx, d.OrganizationID); err != nil {
		return nil, err
	}
	return loader.For(ctx).WebhookByID.Load(ctx, d.WebhookID)()
}

// WebhookLocation is the API URL of a webhook.
func (r *Resolver) WebhookLocation(w *ent.Webhook) string {
	return r.BaseURL + "/v1/orgs/" + w.OrganizationID + "/webhooks/" + w.ID
}

// enqueueDelivery queues the job of d's current attempt sequence in tx.
func (r *Resolver) enqueueDelivery(ctx context.Context, tx *ent.Client, d *ent.WebhookDelivery) error {
	return jobs.Enqueue(ctx, tx, r.Dialect, deliveryJobID(d.ID, d.Sequence), JobWebhookDelivery, d.ID+":"+strconv.Itoa(d.Sequence))
}
