package rest

import (
	"context"
	"net/http"

	"github.com/go-chi/chi/v5"

	"github.com/folio/folio/ent"
	"github.com/folio/folio/graph"
)

// Area `webhook` (a REST extension: GitBook's API has no webhooks): an
// organization's signed webhooks and their deliveries. The rules (admins
// only, the secret shown once) live in graph/webhooks.go, the sending in
// graph/webhooks_dispatch.go.
func (a *API) webhookRoutes(r chi.Router) {
	const one = "/orgs/{organizationId}/webhooks/{webhookId}"
	r.Method("GET", "/orgs/{organizationId}/webhooks", handler(a.listWebhooks))
	r.Method("POST", "/orgs/{organizationId}/webhooks", handler(a.createWebhook))
	r.Method("GET", one, handler(a.getWebhook))
	r.Method("PATCH", one, handler(a.updateWebhook))
	r.Method("DELETE", one, handler(a.deleteWebhook))
	r.Method("GET", one+"/deliveries", handler(a.listWebhookDeliveries))
	r.Method("POST", one+"/deliveries/{deliveryId}/redeliver", handler(a.redeliverWebhookDelivery))
}

// webhookBody is the body of a create or an update; absent fields are nil.
type webhookBody struct {
	URL         *string   `json:"url"`
	Events      *[]string `json:"events"`
	Description *string   `json:"description"`
	Active      *bool     `json:"active"`
}

func (b webhookBody) input() graph.WebhookInput {
	return graph.WebhookInput{URL: b.URL, Events: b.Events, Description: b.Description, Active: b.Active}
}

func (a *API) listWebhooks(w http.ResponseWriter, r *http.Request) error {
	args, err := listArgs(r)
	if err != nil {
		return err
	}
	page, err := a.res.Webhooks(r.Context(), chi.URLParam(r, "organizationId"), args)
	return writeList(w, r, page, err, nil, a.presentWebhook)
}

func (a *API) createWebhook(w http.ResponseWriter, r *http.Request) error {
	var in webhookBody
	if err := decodeJSON(r, &in); err != nil {
		return err
	}
	hook, secret, err := a.res.CreateWebhook(r.Context(), chi.URLParam(r, "organizationId"), in.input())
	if err != nil {
		return err
	}
	out := presentWebhook(hook)
	// The one answer that shows the secret.
	out.Secret = secret
	w.Header().Set("Location", a.res.WebhookLocation(hook))
	return writeJSON(w, http.StatusCreated, out)
}

func (a *API) getWebhook(w http.ResponseWriter, r *http.Request) error {
	hook, err := a.res.WebhookByID(r.Context(), chi.URLParam(r, "organizationId"), chi.URLParam(r, "webhookId"))
	return writeOne(w, r, http.StatusOK, hook, err, a.presentWebhook, nil)
}

func (a *API) updateWebhook(w http.ResponseWriter, r *http.Request) error {
	var in webhookBody
	if err := decodeJSON(r, &in); err != nil {
		return err
	}
	hook, err := a.res.UpdateWebhook(r.Context(), chi.URLParam(r, "organizationId"), chi.URLParam(r, "webhookId"), in.input())
	return writeOne(w, r, http.StatusOK, hook, err, a.presentWebhook, nil)
}

func (a *API) deleteWebhook(w http.ResponseWriter, r *http.Request) error {
	if err := a.res.DeleteWebhook(r.Context(), chi.URLParam(r, "organizationId"), chi.URLParam(r, "webhookId")); err != nil {
		return err
	}
	return writeStatus(w, http.StatusNoContent)
}

func (a *API) listWebhookDeliveries(w http.ResponseWriter, r *http.Request) error {
	args, err := listArgs(r)
	if err != nil {
		return err
	}
	page, err := a.res.WebhookDeliveries(r.Context(), chi.URLParam(r, "organizationId"), chi.URLParam(r, "webhookId"), args)
	return writeList(w, r, page, err, nil, presentWebhookDelivery)
}

func (a *API) redeliverWebhookDelivery(w http.ResponseWriter, r *http.Request) error {
	d, err := a.res.RedeliverWebhookDelivery(r.Context(), chi.URLParam(r, "organizationId"), chi.URLParam(r, "webhookId"), chi.URLParam(r, "deliveryId"))
	return writeOne(w, r, http.StatusAccepted, d, err, presentWebhookDelivery, nil)
}

// webhookJSON is a webhook; secret only in the answer of its creation.
type webhookJSON struct {
	Object       string   `json:"object"`
	ID           string   `json:"id"`
	URL          string   `json:"url"`
	Events       []string `json:"events"`
	Description  string   `json:"description"`
	Active       bool     `json:"active"`
	Secret       string   `json:"secret,omitempty"`
	CreatedAt    string   `json:"createdAt"`
	UpdatedAt    string   `json:"updatedAt"`
	FailingSince *string  `json:"failingSince,omitempty"`
	DisabledAt   *string  `json:"disabledAt,omitempty"`
}

func presentWebhook(h *ent.Webhook) webhookJSON {
	out := webhookJSON{Object: "webhook", ID: h.ID, URL: h.URL, Events: h.Events, Description: h.Description,
		Active: h.Active, CreatedAt: timestamp(h.CreatedAt), UpdatedAt: timestamp(h.UpdatedAt)}
	if h.FailingSince != nil {
		s := timestamp(*h.FailingSince)
		out.FailingSince = &s
	}
	if h.DisabledAt != nil {
		s := timestamp(*h.DisabledAt)
		out.DisabledAt = &s
	}
	return out
}

func (a *API) presentWebhook(_ context.Context, h *ent.Webhook) (any, error) {
	return presentWebhook(h), nil
}

type webhookAttemptJSON struct {
	Sequence   int    `json:"sequence"`
	At         string `json:"at"`
	StatusCode int    `json:"statusCode,omitempty"`
	Error      string `json:"error,omitempty"`
	DurationMs int64  `json:"durationMs"`
}

type webhookDeliveryJSON struct {
	Object         string               `json:"object"`
	ID             string               `json:"id"`
	EventID        string               `json:"eventId"`
	Type           string               `json:"type"`
	Status         string               `json:"status"`
	Sequence       int                  `json:"sequence"`
	Attempts       []webhookAttemptJSON `json:"attempts"`
	ResponseCode   *int                 `json:"responseCode"`
	LastError      string               `json:"lastError,omitempty"`
	NextAttemptAt  *string              `json:"nextAttemptAt"`
	CreatedAt      string               `json:"createdAt"`
	AttemptsInThis int                  `json:"attemptCount"`
}

func presentWebhookDelivery(_ context.Context, d *ent.WebhookDelivery) (any, error) {
	out := webhookDeliveryJSON{Object: "webhook-delivery", ID: d.ID, EventID: d.EventID, Type: d.Action,
		Status: string(d.State), Sequence: d.Sequence, ResponseCode: d.LastStatusCode, LastError: d.LastError,
		CreatedAt: timestamp(d.CreatedAt), AttemptsInThis: d.Attempts, Attempts: []webhookAttemptJSON{}}
	for _, a := range d.AttemptLog {
		out.Attempts = append(out.Attempts, webhookAttemptJSON{Sequence: a.Sequence, At: timestamp(a.At),
			StatusCode: a.StatusCode, Error: a.Error, DurationMs: a.DurationMs})
	}
	if d.NextAttemptAt != nil && d.State == "pending" {
		s := timestamp(*d.NextAttemptAt)
		out.NextAttemptAt = &s
	}
	return out, nil
}
