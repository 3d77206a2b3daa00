package graph

import (
	"context"

	"github.com/folio/folio/ent"
	"github.com/folio/folio/ent/translationsettings"
	"github.com/folio/folio/graph/loader"
	"github.com/folio/folio/graph/model"
	"github.com/folio/folio/internal/apperr"
	"github.com/folio/folio/internal/events"
	"github.com/folio/folio/internal/paging"
)

// OrganizationTranslations pages through an organization's translation
// settings (members with a role), newest first unless asked otherwise.
func (r *Resolver) OrganizationTranslations(ctx context.Context, orgID string, args paging.Args) (paging.Page[*ent.TranslationSettings], error) {
	if _, err := settingsOrganization(ctx, orgID); err != nil {
		return paging.Page[*ent.TranslationSettings]{}, err
	}
	return pageUnder(ctx, loader.Organizations, "translations", orgID, args, func(ctx context.Context, orgs []string) (map[string]paging.Page[*ent.TranslationSettings], error) {
		return listPages(ctx, r.Client.TranslationSettings.Query(), translationsettings.FieldOrganizationID, orgs, args, translationsettings.FieldCreatedAt,
			func(ts *ent.TranslationSettings) paging.Cursor { return paging.Cursor{Time: ts.CreatedAt, ID: ts.ID} },
			func(ts *ent.TranslationSettings) string { return ts.OrganizationID })
	})
}

// TranslationByID reads translation settings of orgID (members with a role).
func (r *Resolver) TranslationByID(ctx context.Context, orgID, id string) (*ent.TranslationSettings, error) {
	if _, err := settingsOrganization(ctx, orgID); err != nil {
		return nil, err
	}
	return r.translation(ctx, orgID, id)
}

// translation finds translation settings by id in orgID; those of other
// organizations are not found.
func (r *Resolver) translation(ctx context.Context, orgID, id string) (*ent.TranslationSettings, error) {
	ts, err := r.Client.TranslationSettings.Query().
		Where(translationsettings.ID(id), translationsettings.OrganizationID(orgID)).
		Only(ctx)
	if ent.IsNotFound(err) {
		return nil, apperr.NotFoundf("translation settings %s not found", id)
	}
	return ts, err
}

// CreateTranslation creates translation settings (admins only). languages
// absent or null means none yet.
func (r *Resolver) CreateTranslation(ctx context.Context, orgID string, in model.CreateTranslationInput) (*ent.TranslationSettings, error) {
	if _, err := adminOrganization(ctx, orgID); err != nil {
		return nil, err
	}
	langs := in.Languages.Value()
	if langs == nil {
		langs = []string{}
	}
	var ts *ent.TranslationSettings
	err := r.write(ctx, func(ctx context.Context, tx *ent.Client) error {
		var err error
		if ts, err = tx.TranslationSettings.Create().
			SetOrganizationID(orgID).
			SetTitle(in.Title).
			SetLanguages(langs).
			Save(ctx); err != nil {
			return entError(err)
		}
		record(ctx, translationEvent(events.TranslationCreated, ts, map[string]any{"title": ts.Title, "languages": ts.Languages}))
		return nil
	})
	if err != nil {
		return nil, err
	}
	return ts, nil
}

// UpdateTranslation replaces the title of translation settings (admins
// only); languages are replaced when sent, emptied when null and left alone
// when absent, so a client that knows only `title` keeps them.
func (r *Resolver) UpdateTranslation(ctx context.Context, orgID, id string, in model.UpdateTranslationInput) (*ent.TranslationSettings, error) {
	if _, err := adminOrganization(ctx, orgID); err != nil {
		return nil, err
	}
	ts, err := r.translation(ctx, orgID, id)
	if err != nil {
		return nil, err
	}
	// Prepared here, saved on the write's tx (replay).
	upd := r.Client.TranslationSettings.UpdateOne(ts).SetTitle(in.Title)
	if langs, ok := in.Languages.ValueOK(); ok {
		if langs == nil {
			langs = []string{}
		}
		upd.SetLanguages(langs)
	}
	err = r.write(ctx, func(ctx context.Context, tx *ent.Client) error {
		u := tx.TranslationSettings.UpdateOne(ts)
		if err := replay(u.Mutation(), upd.Mutation()); err != nil {
			return err
		}
		if ts, err = u.Save(ctx); err != nil {
			return entError(err)
		}
		record(ctx, translationEvent(events.TranslationUpdated, ts, map[string]any{"fields": changedFields(upd.Mutation())}))
		return nil
	})
	if err != nil {
		return nil, err
	}
	return ts, nil
}

// DeleteTranslation deletes translation settings (admins only).
func (r *Resolver) DeleteTranslation(ctx context.Context, orgID, id string) error {
	if _, err := adminOrganization(ctx, orgID); err != nil {
		return err
	}
	ts, err := r.translation(ctx, orgID, id)
	if err != nil {
		return err
	}
	return r.write(ctx, func(ctx context.Context, tx *ent.Client) error {
		if err := tx.TranslationSettings.DeleteOne(ts).Exec(ctx); err != nil {
			return entError(err)
		}
		record(ctx, translationEvent(events.TranslationDeleted, ts, nil))
		return nil
	})
}

// translationEvent is an event whose target is ts.
func translationEvent(action string, ts *ent.TranslationSettings, payload map[string]any) events.Event {
	return events.Event{
		Action: action, OrganizationID: ts.OrganizationID,
		Target:  events.Target{Type: "translation", ID: ts.ID, Label: ts.Title},
		Payload: payload,
	}
}

// TranslationURLs are the `urls` of translation settings.
func (r *Resolver) TranslationURLs(ts *ent.TranslationSettings) *model.TranslationSettingsURLs {
	return &model.TranslationSettingsURLs{Location: r.BaseURL + "/v1/orgs/" + ts.OrganizationID + "/translations/" + ts.ID}
}
