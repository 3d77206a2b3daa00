package graph

import (
	"github.com/folio/folio/ent"
	"github.com/folio/folio/graph/model"
	"github.com/folio/folio/internal/apperr"
)

// GraphQL's spelling of webhooks (schema/webhook.graphql): its inputs
// become the WebhookInput REST builds too, so both go through
// checkWebhookInput and the same methods.

// webhookCreateInput is createWebhook's input as a WebhookInput.
func webhookCreateInput(in model.CreateWebhookInput) WebhookInput {
	return WebhookInput{URL: &in.URL, Events: &in.Events, Description: in.Description.Value(), Active: in.Active.Value()}
}

// webhookUpdateInput is updateWebhook's input as a WebhookInput: absent
// fields stay nil; null is refused naming the field, except description,
// which null clears.
func webhookUpdateInput(in model.UpdateWebhookInput) (WebhookInput, error) {
	var out WebhookInput
	if v, ok := in.URL.ValueOK(); ok {
		if v == nil {
			return out, apperr.InvalidField("url", "cannot be null")
		}
		out.URL = v
	}
	if v, ok := in.Events.ValueOK(); ok {
		if v == nil {
			return out, apperr.InvalidField("events", "cannot be null")
		}
		out.Events = &v
	}
	if v, ok := in.Description.ValueOK(); ok {
		if v == nil {
			v = new(string)
		}
		out.Description = v
	}
	if v, ok := in.Active.ValueOK(); ok {
		if v == nil {
			return out, apperr.InvalidField("active", "cannot be null")
		}
		out.Active = v
	}
	return out, nil
}

// webhookAttempts is a delivery's attempt log as GraphQL shows it: no
// status code or no error is null, as REST leaves them out.
func webhookAttempts(d *ent.WebhookDelivery) []*model.WebhookDeliveryAttempt {
	out := make([]*model.WebhookDeliveryAttempt, len(d.AttemptLog))
	for i, a := range d.AttemptLog {
		out[i] = &model.WebhookDeliveryAttempt{Sequence: a.Sequence, At: a.At, DurationMs: int(a.DurationMs),
			StatusCode: optionalInt(a.StatusCode), Error: optional(a.Error)}
	}
	return out
}

func optionalInt(n int) *int {
	if n == 0 {
		return nil
	}
	return &n
}
