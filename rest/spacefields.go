package rest

import (
	"context"
	"encoding/json"
	"net/http"
	"sort"

	"github.com/99designs/gqlgen/graphql"
	"github.com/go-chi/chi/v5"

	"github.com/folio/folio/graph/model"
	"github.com/folio/folio/internal/apperr"
)

// Area `spaces` (custom-field values of a space).
func (a *API) spaceFieldRoutes(r chi.Router) {
	r.Get("/spaces/{spaceId}/custom-fields", a.getSpaceCustomFields)
	r.Patch("/spaces/{spaceId}/custom-fields", a.updateSpaceCustomFields)
}

func (a *API) getSpaceCustomFields(w http.ResponseWriter, r *http.Request) {
	s, err := a.query().Space(r.Context(), chi.URLParam(r, "spaceId"), nil)
	if err != nil {
		writeError(w, r, err)
		return
	}
	values, err := a.res.Space().CustomFields(r.Context(), s)
	if err != nil {
		writeError(w, r, err)
		return
	}
	items, err := presentAll(r.Context(), values, func(ctx context.Context, v *model.SpaceCustomFieldValue) (any, error) {
		field, err := a.presentCustomField(ctx, v.CustomField)
		if err != nil {
			return nil, err
		}
		out := map[string]any{"customField": field}
		if v.Value != nil {
			out["value"] = v.Value
		}
		return out, nil
	})
	if err != nil {
		writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, items)
}

// updateSpaceCustomFields reads {"values": {"<name>": {"value": ...}}};
// {"value": null} removes the space's value.
func (a *API) updateSpaceCustomFields(w http.ResponseWriter, r *http.Request) {
	var body struct {
		Values map[string]*struct {
			Value json.RawMessage `json:"value"`
		} `json:"values"`
	}
	if err := decodeJSON(r, &body); err != nil {
		writeError(w, r, err)
		return
	}
	if len(body.Values) == 0 {
		writeError(w, r, apperr.InvalidField("values", "is required: a map from field name to {\"value\": ...}"))
		return
	}
	in := make([]*model.CustomFieldValueInput, 0, len(body.Values))
	for name, entry := range body.Values {
		if entry == nil {
			writeError(w, r, apperr.InvalidField("values."+name, "must be an object {\"value\": ...}"))
			return
		}
		var v any
		if len(entry.Value) > 0 {
			if err := json.Unmarshal(entry.Value, &v); err != nil {
				writeError(w, r, apperr.InvalidField("values."+name+".value", "is not valid JSON"))
				return
			}
		}
		in = append(in, &model.CustomFieldValueInput{Name: name, Value: graphql.OmittableOf(v)})
	}
	// Map order is random: sort so errors name the same field every time.
	sort.Slice(in, func(i, j int) bool { return in[i].Name < in[j].Name })
	if _, err := a.res.Mutation().UpdateSpaceCustomFields(r.Context(), chi.URLParam(r, "spaceId"), in); err != nil {
		writeError(w, r, err)
		return
	}
	writeStatus(w, http.StatusNoContent)
}
