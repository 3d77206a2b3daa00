package graph

import (
	"context"
	"encoding/json"

	"github.com/folio/folio/ent"
	"github.com/folio/folio/ent/customfieldvalue"
	"github.com/folio/folio/graph/loader"
	"github.com/folio/folio/graph/model"
	"github.com/folio/folio/internal/apperr"
	"github.com/folio/folio/internal/events"
	"github.com/folio/folio/internal/fieldvalue"
)

// SpaceCustomFields lists every custom field of the space's organization
// with the space's value (nil when unset); a role on the space is needed.
func (r *Resolver) SpaceCustomFields(ctx context.Context, s *ent.Space) ([]*model.SpaceCustomFieldValue, error) {
	if err := spaceContent(ctx, s); err != nil {
		return nil, err
	}
	l := loader.For(ctx)
	valuesThunk := l.SpaceFieldValues.Load(ctx, s.ID)
	fields, err := l.OrgCustomFields.Load(ctx, s.OrganizationID)()
	if err != nil {
		return nil, err
	}
	values, err := valuesThunk()
	if err != nil {
		return nil, err
	}
	out := make([]*model.SpaceCustomFieldValue, len(fields))
	for i, f := range fields {
		out[i] = &model.SpaceCustomFieldValue{CustomField: f, Value: values[f.ID]}
	}
	return out, nil
}

// UpdateSpaceCustomFields sets (or, with a nil value, removes) values of
// the space's custom fields by name, each checked against its field's type
// and options; all or nothing. Needs the edit role on the space.
func (r *Resolver) UpdateSpaceCustomFields(ctx context.Context, spaceID string, values []*model.CustomFieldValueInput) (*ent.Space, error) {
	s, err := editableSpace(ctx, spaceID)
	if err != nil {
		return nil, err
	}
	if len(values) == 0 {
		return nil, apperr.InvalidField("values", "give at least one field")
	}
	fields, err := loader.For(ctx).OrgCustomFields.Load(ctx, s.OrganizationID)()
	if err != nil {
		return nil, err
	}
	byName := make(map[string]*ent.CustomField, len(fields))
	for _, f := range fields {
		byName[f.Name] = f
	}
	type change struct {
		field *ent.CustomField
		value any // nil: remove
	}
	changes := make([]change, 0, len(values))
	seen := map[string]bool{}
	for _, in := range values {
		name := "values." + in.Name
		f, ok := byName[in.Name]
		if !ok {
			return nil, apperr.InvalidField(name, "is not a custom field of this organization")
		}
		if seen[in.Name] {
			return nil, apperr.InvalidField(name, "is given twice")
		}
		seen[in.Name] = true
		v := in.Value.Value()
		if v != nil {
			if v, err = fieldvalue.Check(f.Type.String(), f.Options, v); err != nil {
				return nil, apperr.InvalidField(name, "%s", err.Error())
			}
		}
		changes = append(changes, change{f, v})
	}
	err = r.write(ctx, func(ctx context.Context, tx *ent.Client) error {
		names := make([]string, len(changes))
		for i, c := range changes {
			names[i] = c.field.Name
		}
		record(ctx, events.Event{
			Action: events.SpaceFieldUpdated, OrganizationID: s.OrganizationID,
			Target:  events.Target{Type: "space", ID: s.ID, Label: s.Title},
			SpaceID: s.ID, Payload: map[string]any{"fields": names},
		})
		for _, c := range changes {
			del := tx.CustomFieldValue.Delete().
				Where(customfieldvalue.SpaceID(s.ID), customfieldvalue.CustomFieldID(c.field.ID))
			if _, err := del.Exec(ctx); err != nil {
				return err
			}
			if c.value == nil {
				continue
			}
			raw, err := json.Marshal(c.value)
			if err != nil {
				return err
			}
			if err := tx.CustomFieldValue.Create().SetSpaceID(s.ID).SetCustomFieldID(c.field.ID).SetValue(raw).Exec(ctx); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	loader.For(ctx).SpaceFieldValues.Clear(ctx, s.ID)
	return s, nil
}
