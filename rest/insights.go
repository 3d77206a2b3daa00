package rest

import (
	"context"
	"encoding/json"
	"net/http"

	"github.com/go-chi/chi/v5"

	"github.com/folio/folio/graph"
	"github.com/folio/folio/graph/model"
	"github.com/folio/folio/internal/paging"
)

// Area `insights`: a published site's events, tracked by its front end
// (or a member) and aggregated for its members.
func (a *API) insightRoutes(r chi.Router) {
	const site = "/orgs/{organizationId}/sites/{siteId}/insights"
	r.Method("POST", site+"/events", handler(a.trackEventsInSite))
	r.Method("POST", site+"/events/aggregate", handler(a.aggregateSiteEvents))
	r.Method("GET", site+"/visitor-segments", handler(a.listSiteVisitorSegments))
}

// trackEventsBody is trackEventsInSiteById's body; each event is checked by
// the application, which names events[i].field.
type trackEventsBody struct {
	Events *[]json.RawMessage `json:"events"`
}

func (a *API) trackEventsInSite(w http.ResponseWriter, r *http.Request) error {
	r.Body = http.MaxBytesReader(w, r.Body, graph.MaxSiteEventsBody)
	var in trackEventsBody
	if err := decodeJSON(r, &in); err != nil {
		return err
	}
	// nil: the list is missing, which the application refuses once it has
	// checked the caller.
	events := []json.RawMessage(nil)
	if in.Events != nil {
		events = append([]json.RawMessage{}, *in.Events...)
	}
	if err := a.res.TrackEventsInSite(r.Context(), chi.URLParam(r, "organizationId"), chi.URLParam(r, "siteId"), events); err != nil {
		return err
	}
	return writeStatus(w, http.StatusNoContent)
}

func (a *API) aggregateSiteEvents(w http.ResponseWriter, r *http.Request) error {
	var raw json.RawMessage
	if err := decodeJSON(r, &raw); err != nil {
		return err
	}
	res, err := a.res.AggregateSiteEvents(r.Context(), chi.URLParam(r, "organizationId"), chi.URLParam(r, "siteId"), raw)
	return writeOne(w, r, http.StatusOK, res, err, func(_ context.Context, res *model.SiteInsightsResult) (any, error) {
		cols := make([]any, len(res.Columns))
		for i, c := range res.Columns {
			cols[i] = map[string]any{"column": c.Column, "values": c.Values}
		}
		return map[string]any{"columns": cols}, nil
	}, nil)
}

func (a *API) listSiteVisitorSegments(w http.ResponseWriter, r *http.Request) error {
	segs, err := a.res.SiteVisitorSegments(r.Context(), chi.URLParam(r, "organizationId"), chi.URLParam(r, "siteId"))
	page := paging.Page[*model.SiteVisitorSegment]{Items: segs, Total: len(segs)}
	return writeList(w, r, page, err, nil, func(_ context.Context, s *model.SiteVisitorSegment) (any, error) {
		return map[string]any{"title": s.Title, "claims": s.Claims, "events": s.Events, "visitors": s.Visitors, "sessions": s.Sessions}, nil
	})
}
