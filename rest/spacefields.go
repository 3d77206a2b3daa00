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
	r.Method("GET", "/spaces/{spaceId}/custom-fields", handler(a.getSpaceCustomFields))
	r.Method("PATCH", "/spaces/{spaceId}/custom-fields", handler(a.updateSpaceCustomFields))
}

func (a *API) getSpaceCustomFields(w http.ResponseWriter, r *http.Request) error {
	s, err := a.res.ReadSpace(r.Context(), chi.URLParam(r, "spaceId"), nil)
	if err != nil {
		return err
	}
	values, err := a.res.SpaceCustomFields(r.Context(), s)
	if err != nil {
		return err
	}
	items, err := presentEach(r.Context(), values, func(ctx context.Context, v *model.SpaceCustomFieldValue) (any, error) {
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
		return err
	}
	return writeJSON(w, http.StatusOK, items)
}

// updateSpaceCustomFields reads {"values": {"<name>": {"value": ...}}};
// {"value": null} removes the space's value.
func (a *API) updateSpaceCustomFields(w http.ResponseWriter, r *http.Request) error {
	var body struct {
		Values map[string]*struct {
			Value json.RawMessage `json:"value"`
		} `json:"values"`
	}
	if err := decodeJSON(r, &body); err != nil {
		return err
	}
	if len(body.Values) == 0 {
		return apperr.InvalidField("values", "is required: a map from field name to {\"value\": ...}")
	}
	in := make([]*model.CustomFieldValueInput, 0, len(body.Values))
	for name, entry := range body.Values {
		if entry == nil {
			return apperr.InvalidField("values."+name, "must be an object {\"value\": ...}")
		}
		var v any
		if len(entry.Value) > 0 {
			if err := json.Unmarshal(entry.Value, &v); err != nil {
				return apperr.InvalidField("values."+name+".value", "is not valid JSON")
			}
		}
		in = append(in, &model.CustomFieldValueInput{Name: name, Value: graphql.OmittableOf(v)})
	}
	// Map order is random: sort so errors name the same field every time.
	sort.Slice(in, func(i, j int) bool { return in[i].Name < in[j].Name })
	if _, err := a.res.UpdateSpaceCustomFields(r.Context(), chi.URLParam(r, "spaceId"), in); err != nil {
		return err
	}
	return writeStatus(w, http.StatusNoContent)
}
