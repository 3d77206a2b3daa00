package rest

import (
	"context"
	"net/http"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/folio/folio/ent"
	"github.com/folio/folio/graph"
	"github.com/folio/folio/internal/apperr"
)

// Area `audit`: an organization's audit log, for its admins.
func (a *API) auditRoutes(r chi.Router) {
	r.Method("GET", "/orgs/{organizationId}/audit-event-actions", handler(a.listAuditEventActions))
	r.Method("GET", "/orgs/{organizationId}/audit-events", handler(a.listAuditEvents))
	r.Method("GET", "/orgs/{organizationId}/audit-events/{auditEventId}", handler(a.getAuditEvent))
}

// auditEventActionJSON is GitBook's AuditEventAction.
type auditEventActionJSON struct {
	Object string `json:"object"`
	ID     string `json:"id"`
	Label  string `json:"label"`
}

func (a *API) listAuditEventActions(w http.ResponseWriter, r *http.Request) error {
	actions, err := a.res.OrganizationAuditEventActions(r.Context(), chi.URLParam(r, "organizationId"))
	if err != nil {
		return err
	}
	items := make([]auditEventActionJSON, len(actions))
	for i, act := range actions {
		items[i] = auditEventActionJSON{Object: "audit-event-action", ID: act.ID, Label: act.Label}
	}
	return writeJSON(w, http.StatusOK, map[string]any{"items": items})
}

func (a *API) listAuditEvents(w http.ResponseWriter, r *http.Request) error {
	limit, err := queryInt(r, "limit")
	if err != nil {
		return err
	}
	p, err := graph.AuditPageArgs(limit, queryString(r, "page"), "limit", "page", false)
	if err != nil {
		return err
	}
	f := graph.AuditFilter{Action: queryString(r, "action"), Actor: queryString(r, "actor"), Target: queryString(r, "target")}
	if f.From, err = queryTime(r, "from"); err != nil {
		return err
	}
	if f.To, err = queryTime(r, "to"); err != nil {
		return err
	}
	page, err := a.res.OrganizationAuditEvents(r.Context(), chi.URLParam(r, "organizationId"), f, p)
	return writeList(w, r, page, err, nil, a.presentAuditEvent)
}

func (a *API) getAuditEvent(w http.ResponseWriter, r *http.Request) error {
	e, err := a.res.OrganizationAuditEvent(r.Context(), chi.URLParam(r, "organizationId"), chi.URLParam(r, "auditEventId"))
	return writeOne(w, r, http.StatusOK, e, err, a.presentAuditEventDetails, nil)
}

// queryTime reads an optional RFC 3339 date-time query parameter.
func queryTime(r *http.Request, name string) (*time.Time, error) {
	v := queryString(r, name)
	if v == nil {
		return nil, nil
	}
	t, err := time.Parse(time.RFC3339Nano, strings.TrimSpace(*v))
	if err != nil {
		return nil, apperr.InvalidField(name, "must be an RFC 3339 date-time such as 2026-01-02T15:04:05Z")
	}
	return &t, nil
}

// auditEventJSON is GitBook's AuditEvent; auditEventDetailsJSON its
// AuditEventDetails.
type auditEventJSON struct {
	Object     string         `json:"object"`
	ID         string         `json:"id"`
	OccurredAt string         `json:"occurredAt"`
	Action     string         `json:"action"`
	Actor      auditPartyJSON `json:"actor"`
	Source     string         `json:"source"`
	Target     auditPartyJSON `json:"target"`
	URLs       urlsLocation   `json:"urls"`
}

type auditPartyJSON struct {
	Type  string `json:"type"`
	ID    string `json:"id"`
	Label string `json:"label,omitempty"`
}

type auditEventDetailsJSON struct {
	auditEventJSON
	CorrelationID string         `json:"correlationId,omitempty"`
	SchemaVersion int            `json:"schemaVersion"`
	Payload       map[string]any `json:"payload"`
}

func (a *API) auditEventOf(e *ent.Event) auditEventJSON {
	return auditEventJSON{
		Object:     "audit-event",
		ID:         e.ID,
		OccurredAt: timestamp(e.OccurredAt),
		Action:     e.Action,
		Actor:      auditPartyJSON{Type: e.ActorType, ID: e.ActorID, Label: e.ActorLabel},
		Source:     e.Source,
		Target:     auditPartyJSON{Type: e.TargetType, ID: e.TargetID, Label: e.TargetLabel},
		URLs:       urlsLocation{Location: a.res.AuditEventLocation(e)},
	}
}

func (a *API) presentAuditEvent(_ context.Context, e *ent.Event) (any, error) {
	return a.auditEventOf(e), nil
}

func (a *API) presentAuditEventDetails(_ context.Context, e *ent.Event) (any, error) {
	p := e.Payload
	if p == nil {
		p = map[string]any{}
	}
	return auditEventDetailsJSON{auditEventJSON: a.auditEventOf(e), CorrelationID: e.CorrelationID, SchemaVersion: e.SchemaVersion, Payload: p}, nil
}
