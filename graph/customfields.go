package graph

import (
	"context"

	"github.com/folio/folio/ent"
	"github.com/folio/folio/ent/customfield"
	"github.com/folio/folio/ent/customfieldvalue"
	"github.com/folio/folio/graph/loader"
	"github.com/folio/folio/graph/model"
	"github.com/folio/folio/internal/access"
	"github.com/folio/folio/internal/apperr"
	"github.com/folio/folio/internal/events"
	"github.com/folio/folio/internal/paging"
)

// SettingsPermissions are the caller's {view, edit} on a setting of orgID
// (a custom field, translation settings).
func (r *Resolver) SettingsPermissions(ctx context.Context, orgID string) (*access.SettingsPermissions, error) {
	m, _, err := membership(ctx, orgID)
	if err != nil {
		return nil, err
	}
	p := access.SettingsPermissionsFor(m)
	return &p, nil
}

// OrganizationCustomFields pages through an organization's custom-field
// definitions, newest first unless asked otherwise.
func (r *Resolver) OrganizationCustomFields(ctx context.Context, orgID string, args paging.Args) (paging.Page[*ent.CustomField], error) {
	if _, err := settingsOrganization(ctx, orgID); err != nil {
		return paging.Page[*ent.CustomField]{}, err
	}
	return pageUnder(ctx, loader.Organizations, "custom fields", orgID, args, func(ctx context.Context, orgs []string) (map[string]paging.Page[*ent.CustomField], error) {
		return listPages(ctx, r.Client.CustomField.Query(), customfield.FieldOrganizationID, orgs, args, customfield.FieldCreatedAt,
			func(c *ent.CustomField) paging.Cursor { return paging.Cursor{Time: c.CreatedAt, ID: c.ID} },
			func(c *ent.CustomField) string { return c.OrganizationID })
	})
}

// CustomFieldByName reads a custom field of orgID (members with a role).
func (r *Resolver) CustomFieldByName(ctx context.Context, orgID, name string) (*ent.CustomField, error) {
	if _, err := settingsOrganization(ctx, orgID); err != nil {
		return nil, err
	}
	return r.customField(ctx, orgID, name)
}

// customFieldByID is CustomFieldByName by the field's id (for node).
func (r *Resolver) customFieldByID(ctx context.Context, orgID, id string) (*ent.CustomField, error) {
	if _, err := settingsOrganization(ctx, orgID); err != nil {
		return nil, err
	}
	cf, err := r.Client.CustomField.Query().
		Where(customfield.OrganizationID(orgID), customfield.ID(id)).
		Only(ctx)
	if ent.IsNotFound(err) {
		return nil, apperr.NotFoundf("custom field %s not found", id)
	}
	return cf, err
}

// customField finds a field by name in orgID; fields of other
// organizations are not found.
func (r *Resolver) customField(ctx context.Context, orgID, name string) (*ent.CustomField, error) {
	cf, err := r.Client.CustomField.Query().
		Where(customfield.OrganizationID(orgID), customfield.Name(name)).
		Only(ctx)
	if ent.IsNotFound(err) {
		return nil, apperr.NotFoundf("custom field %q not found", name)
	}
	return cf, err
}

// hasOptions tells whether fields of type t pick from options.
func hasOptions(t customfield.Type) bool {
	return t == customfield.TypeSelectSingle || t == customfield.TypeSelectMulti
}

// CreateCustomField defines a custom field (admins only). select:single and
// select:multi fields need options; other types take none.
func (r *Resolver) CreateCustomField(ctx context.Context, orgID string, in model.CreateCustomFieldInput) (*ent.CustomField, error) {
	if _, err := adminOrganization(ctx, orgID); err != nil {
		return nil, err
	}
	typ := customfield.Type(in.Type)
	if customfield.TypeValidator(typ) != nil {
		return nil, apperr.InvalidField("type", "must be one of text, number, boolean, tags, select:single, select:multi (got %q)", in.Type)
	}
	opts := in.Options.Value()
	switch {
	case hasOptions(typ) && opts == nil:
		return nil, apperr.InvalidField("options", "are required for %s fields", typ)
	case !hasOptions(typ) && opts != nil:
		return nil, apperr.InvalidField("options", "only select:single and select:multi fields take options, not %s", typ)
	}
	// Prepared here, saved on the write's tx (replay).
	create := r.Client.CustomField.Create().
		SetOrganizationID(orgID).
		SetName(in.Name).
		SetType(typ).
		SetTitle(deref(in.Title.Value())).
		SetDescription(deref(in.Description.Value())).
		SetPlaceholder(deref(in.Placeholder.Value()))
	if opts != nil {
		create.SetOptions(opts)
	}
	var cf *ent.CustomField
	err := r.write(ctx, func(ctx context.Context, tx *ent.Client) error {
		c := tx.CustomField.Create()
		if err := replay(c.Mutation(), create.Mutation()); err != nil {
			return err
		}
		var err error
		cf, err = c.Save(ctx)
		if ent.IsConstraintError(err) {
			return apperr.ConflictField("name", "a custom field named %q already exists in the organization", in.Name)
		}
		if err != nil {
			return entError(err)
		}
		record(ctx, customFieldEvent(events.CustomFieldCreated, cf, map[string]any{"name": cf.Name, "type": string(cf.Type)}))
		return nil
	})
	if err != nil {
		return nil, err
	}
	return cf, nil
}

// UpdateCustomField changes a field's title, description, placeholder or
// options (admins only); its name and type never change. Absent fields are
// left alone; null clears the texts to "".
func (r *Resolver) UpdateCustomField(ctx context.Context, orgID, name string, in model.UpdateCustomFieldInput) (*ent.CustomField, error) {
	if _, err := adminOrganization(ctx, orgID); err != nil {
		return nil, err
	}
	cf, err := r.customField(ctx, orgID, name)
	if err != nil {
		return nil, err
	}
	// Prepared here, saved on the write's tx (replay).
	upd := r.Client.CustomField.UpdateOne(cf)
	if _, ok := in.Title.ValueOK(); ok {
		upd.SetTitle(deref(in.Title.Value()))
	}
	if _, ok := in.Description.ValueOK(); ok {
		upd.SetDescription(deref(in.Description.Value()))
	}
	if _, ok := in.Placeholder.ValueOK(); ok {
		upd.SetPlaceholder(deref(in.Placeholder.Value()))
	}
	if opts, ok := in.Options.ValueOK(); ok {
		switch {
		case hasOptions(cf.Type) && opts == nil:
			return nil, apperr.InvalidField("options", "cannot be removed from a %s field", cf.Type)
		case !hasOptions(cf.Type) && opts != nil:
			return nil, apperr.InvalidField("options", "only select:single and select:multi fields take options, not %s", cf.Type)
		case opts != nil:
			upd.SetOptions(opts)
		}
	}
	err = r.write(ctx, func(ctx context.Context, tx *ent.Client) error {
		u := tx.CustomField.UpdateOne(cf)
		if err := replay(u.Mutation(), upd.Mutation()); err != nil {
			return err
		}
		if cf, err = u.Save(ctx); err != nil {
			return entError(err)
		}
		record(ctx, customFieldEvent(events.CustomFieldUpdated, cf, map[string]any{"name": cf.Name, "fields": changedFields(upd.Mutation())}))
		return nil
	})
	if err != nil {
		return nil, err
	}
	return cf, nil
}

// DeleteCustomField deletes a custom field (admins only).
func (r *Resolver) DeleteCustomField(ctx context.Context, orgID, name string) error {
	if _, err := adminOrganization(ctx, orgID); err != nil {
		return err
	}
	cf, err := r.customField(ctx, orgID, name)
	if err != nil {
		return err
	}
	// The spaces' values of the field go with it.
	return r.write(ctx, func(ctx context.Context, tx *ent.Client) error {
		if _, err := tx.CustomFieldValue.Delete().Where(customfieldvalue.CustomFieldID(cf.ID)).Exec(ctx); err != nil {
			return err
		}
		if err := tx.CustomField.DeleteOne(cf).Exec(ctx); err != nil {
			return entError(err)
		}
		record(ctx, customFieldEvent(events.CustomFieldDeleted, cf, map[string]any{"name": cf.Name}))
		return nil
	})
}

// customFieldEvent is an event whose target is cf.
func customFieldEvent(action string, cf *ent.CustomField, payload map[string]any) events.Event {
	return events.Event{
		Action: action, OrganizationID: cf.OrganizationID,
		Target:  events.Target{Type: "custom-field", ID: cf.ID, Label: cf.Name},
		Payload: payload,
	}
}

// CustomFieldURLs are the `urls` of a custom field.
func (r *Resolver) CustomFieldURLs(cf *ent.CustomField) *model.CustomFieldURLs {
	// Names are [a-z0-9_-]: nothing to escape.
	return &model.CustomFieldURLs{Location: r.BaseURL + "/v1/orgs/" + cf.OrganizationID + "/custom-fields/" + cf.Name}
}
