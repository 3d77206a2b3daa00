package graph

import (
	"context"
	"time"

	"github.com/99designs/gqlgen/graphql"

	"github.com/folio/folio/ent"
	"github.com/folio/folio/ent/customfieldvalue"
	"github.com/folio/folio/ent/grant"
	"github.com/folio/folio/ent/revision"
	"github.com/folio/folio/ent/space"
	"github.com/folio/folio/graph/loader"
	"github.com/folio/folio/graph/model"
	"github.com/folio/folio/internal/access"
	"github.com/folio/folio/internal/apperr"
	"github.com/folio/folio/internal/auth"
	"github.com/folio/folio/internal/clock"
	"github.com/folio/folio/internal/events"
	"github.com/folio/folio/internal/ids"
	"github.com/folio/folio/internal/paging"
	"github.com/folio/folio/internal/secrets"
)

// RestoreWindow is how long a deleted space can be restored. After it the
// space is gone: it answers as an unknown space, and the purge removes it
// with its content.
const RestoreWindow = 7 * 24 * time.Hour

func spaceKey(s *ent.Space) paging.Cursor { return paging.Cursor{Time: s.CreatedAt, ID: s.ID} }

// OrganizationSpaces pages through the organization's spaces the caller can
// access, newest first unless asked otherwise: filtered by access and paged
// by keyset in SQL (contentScope).
func (r *Resolver) OrganizationSpaces(ctx context.Context, orgID string, args paging.Args) (paging.Page[*ent.Space], error) {
	if _, err := visibleOrganizationMembership(ctx, orgID); err != nil {
		return paging.Page[*ent.Space]{}, err
	}
	// The pages of every organization a list shows are cut at once (one
	// count and one page statement, the rows numbered per organization)
	// and their spaces shown as one level: what is read under them is read
	// for all of them.
	return pageUnder(ctx, loader.Organizations, "spaces", orgID, args, func(ctx context.Context, orgs []string) (map[string]paging.Page[*ent.Space], error) {
		scopes, err := contentScopes(ctx, orgs)
		if err != nil {
			return nil, err
		}
		q := r.Client.Space.Query().Where(space.DeletedAtIsNil(), anyScope(scopes, contentScope.spaces))
		pages, err := listPagesInScope(ctx, q, space.FieldOrganizationID, orgs, args, space.FieldCreatedAt, args.Keyset(space.FieldCreatedAt), spaceKey,
			func(s *ent.Space) string { return s.OrganizationID })
		if err != nil {
			return nil, err
		}
		showSpaces(ctx, itemsOf(pages))
		return pages, nil
	})
}

// showSpaces primes the space loader with the spaces a list shows, and
// shows them together.
func showSpaces(ctx context.Context, shown []*ent.Space) {
	l := loader.For(ctx)
	for _, s := range shown {
		l.SpaceByID.Prime(ctx, s.ID, s)
	}
	l.ShowSpacesTogether(ctx, shown)
}

// MemberSpaces lists the spaces a member of the organization can access,
// with the member's role on each (their grants and their teams' counted).
// Admins may ask about anyone; a member about themself.
func (r *Resolver) MemberSpaces(ctx context.Context, orgID, userID string, args paging.Args) (paging.Page[*model.MemberSpace], error) {
	var none paging.Page[*model.MemberSpace]
	target, err := spacesMember(ctx, orgID, userID)
	if err != nil {
		return none, err
	}
	m := access.Membership{Member: true, Role: target.Role}
	scopes, err := scopesFor(ctx, userID, map[string]access.Membership{orgID: m})
	if err != nil {
		return none, err
	}
	q := r.Client.Space.Query().Where(space.DeletedAtIsNil(), anyScope(scopes, contentScope.spaces))
	pages, err := listPagesInScope(ctx, q, space.FieldOrganizationID, []string{orgID}, args, space.FieldCreatedAt, args.Keyset(space.FieldCreatedAt), spaceKey,
		func(s *ent.Space) string { return s.OrganizationID })
	if err != nil {
		return none, err
	}
	page := pages[orgID]
	grants, err := memberGrants(ctx, r.Client, orgID, userID, m)
	if err != nil {
		return none, err
	}
	out := paging.Page[*model.MemberSpace]{Next: page.Next, HasPrevious: page.HasPrevious, Total: page.Total}
	for i, s := range page.Items {
		chain, objects, err := levelChain(ctx, orgID, s.ID, enumString(s.DefaultLevel), s.ParentID)
		if err != nil {
			return none, err
		}
		role, _ := access.Effective(m, chain, objects, grants)
		if role == nil {
			// A grant removed between the page's statement and the
			// grants': not shown rather than shown without a role.
			continue
		}
		out.Items = append(out.Items, &model.MemberSpace{Permission: *role, Space: s})
		out.Cursors = append(out.Cursors, page.Cursors[i])
	}
	showSpaces(ctx, page.Items)
	return out, nil
}

// memberGrants are the grants to userID and their teams in orgID: the
// viewer's come with the request (ViewerGrants), another member's are
// read.
func memberGrants(ctx context.Context, client *ent.Client, orgID, userID string, m access.Membership) ([]access.Grant, error) {
	if userID == auth.ViewerID(ctx) {
		return viewerGrants(ctx, orgID, m)
	}
	if access.AtLeast(m.Role, access.Admin) {
		return nil, nil
	}
	rows, err := client.Grant.Query().Where(grant.OrganizationID(orgID), loader.ToViewer(userID)).All(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]access.Grant, len(rows))
	for i, g := range rows {
		out[i] = loader.AccessGrant(g)
	}
	return out, nil
}

// ReadSpace reads a space the caller can access. With the share key of a
// share-link space, anyone authenticated may read it: the space's own
// fields, not what it leads to (see SpaceOrganization, SpaceParent,
// spaceContent).
func (r *Resolver) ReadSpace(ctx context.Context, id string, shareKey *string) (*ent.Space, error) {
	s, _, err := visibleSpace(ctx, id)
	if err == nil || shareKey == nil {
		return s, err
	}
	shared, lerr := loader.For(ctx).SpaceByID.Load(ctx, id)()
	if lerr == nil && shared.Visibility == space.VisibilityShareLink {
		key, kerr := r.SpaceShareKey(shared)
		if kerr != nil {
			return nil, kerr
		}
		if secrets.Equal(key, *shareKey) {
			return shared, nil
		}
	}
	return nil, err
}

// SpacePermissions are the caller's permissions on s.
func (r *Resolver) SpacePermissions(ctx context.Context, s *ent.Space) (*access.SpacePermissions, error) {
	role, err := spaceRole(ctx, s)
	if err != nil {
		return nil, err
	}
	p := access.SpacePermissionsFor(role)
	return &p, nil
}

// SpaceCounts are the counts a space object carries: its change requests
// by status and its open comments, one batched load for a page of spaces.
//
// A published site's audience without a role on the space (SiteSpace.space)
// gets none of its activity: every count is 0.
func (r *Resolver) SpaceCounts(ctx context.Context, s *ent.Space) (loader.SpaceCounts, error) {
	l := loader.For(ctx)
	c, err := l.SpaceCounts.Load(ctx, s.ID)()
	if err == nil && l.ShownToAudience(s.ID) {
		c = loader.SpaceCounts{Publication: c.Publication}
	}
	return c, err
}

// PrimeSpaceCounts reads now the counts of a page of spaces a solo read
// (loader.Solo) will present, in one statement (loader.PrimeSpaceCounts).
// Other lists leave them to be read together on the first ask, so that a
// GraphQL query that asks no count reads none.
func (r *Resolver) PrimeSpaceCounts(ctx context.Context, spaces []*ent.Space) error {
	return loader.For(ctx).PrimeSpaceCounts(ctx, spaces)
}

// WantSpaceCounts asks, before the space id is read, for its counts to be
// read with it, for a read that will present them (loader.WantSpaceCounts):
// the space, its counts and the caller's role then cost one statement.
// Nothing is shown before the space's guard has passed.
func (r *Resolver) WantSpaceCounts(ctx context.Context, id string) {
	loader.For(ctx).WantSpaceCounts(id)
}

// A space leads to its organization, its collection, its content and its
// custom-field values. Following it gives each only to a caller who could
// read it directly, whichever API asks: the organization as
// GET /v1/orgs/{id} does, the collection as GET /v1/collections/{id} does,
// what the space holds with a role on the space. A share key reads the
// space object alone (REST presents the ids it refers to, nothing more), so
// a share-key holder without a role gets a 404 for each of these.

// SpaceOrganization is the organization of s, for a caller who can see it.
func (r *Resolver) SpaceOrganization(ctx context.Context, s *ent.Space) (*ent.Organization, error) {
	org, _, err := visibleOrganization(ctx, s.OrganizationID)
	if e, ok := apperr.As(err); ok && e.Kind == apperr.NotFound && loader.For(ctx).ShownToAudience(s.ID) {
		// A published site's audience is not told which organization
		// publishes it, not even its id.
		return nil, apperr.NotFoundf("the space's organization is not shown to the site's audience")
	}
	return org, err
}

// SpaceParent is the collection s is in (nil at the root), for a caller
// with a role on it.
func (r *Resolver) SpaceParent(ctx context.Context, s *ent.Space) (*ent.Collection, error) {
	if s.ParentID == nil {
		return nil, nil
	}
	return visibleParent(ctx, s.OrganizationID, *s.ParentID)
}

// CreateSpace creates a space in the organization, at the end of its parent.
func (r *Resolver) CreateSpace(ctx context.Context, orgID string, in model.CreateSpaceInput) (*ent.Space, error) {
	parent := in.Parent.Value()
	if _, err := creatableParent(ctx, orgID, parent, "parent"); err != nil {
		return nil, err
	}
	var created *ent.Space
	err := r.write(ctx, func(ctx context.Context, tx *ent.Client) error {
		var err error
		created, err = r.createSpaceTx(ctx, tx, orgID, in)
		return err
	})
	return created, err
}

// spaceEvent is an event whose target is s, in s's organization.
func spaceEvent(action string, s *ent.Space, payload map[string]any) events.Event {
	return events.Event{
		Action: action, OrganizationID: s.OrganizationID,
		Target:  events.Target{Type: "space", ID: s.ID, Label: s.Title},
		SpaceID: s.ID, Payload: payload,
	}
}

// parentPayload is a parent id for a payload ("" at the root).
func parentPayload(parent *string) string {
	if parent == nil {
		return ""
	}
	return *parent
}

// createSpaceTx creates a space in tx, the caller having checked that it may
// (CreateSpace, and createSite's `spaces: "new"`).
func (r *Resolver) createSpaceTx(ctx context.Context, tx *ent.Client, orgID string, in model.CreateSpaceInput) (*ent.Space, error) {
	parent := in.Parent.Value()
	if err := r.lockTrees(ctx, tx, orgID); err != nil {
		return nil, err
	}
	if err := parentStillIn(ctx, tx, orgID, parent, "parent"); err != nil {
		return nil, err
	}
	pos, err := placeAt(ctx, tx, orgID, parent, "", nil)
	if err != nil {
		return nil, err
	}
	// Every space starts with an empty revision of its own.
	spaceID := ids.New()
	initial, err := tx.Revision.Create().SetSpaceID(spaceID).SetType(revision.TypeInitial).
		SetCreatedBy(auth.ViewerID(ctx)).SetCanonical(true).SetPageCount(0).Save(ctx)
	if err != nil {
		return nil, err
	}
	create := tx.Space.Create().SetID(spaceID).SetOrganizationID(orgID).SetNillableParentID(parent).
		SetPosition(pos).SetShareKeySealed(r.seal(secrets.SpaceShareKey, ids.New()+ids.New())).SetDefaultLevel(space.DefaultLevelInherit).
		SetRevisionID(initial.ID)
	if v := in.Title.Value(); v != nil {
		create.SetTitle(*v)
	}
	if v := in.Emoji.Value(); v != nil {
		create.SetEmoji(*v)
	}
	if v := in.EditMode.Value(); v != nil {
		create.SetEditMode(space.EditMode(*v))
	}
	created, err := create.Save(ctx)
	if err != nil {
		return nil, entError(err)
	}
	// Recorded here, not by CreateSpace: a site created with a new space
	// (createSite) records the space's creation too.
	record(ctx, spaceEvent(events.SpaceCreated, created, map[string]any{"title": created.Title, "parentId": parentPayload(created.ParentID)}))
	return created, nil
}

// UpdateSpace changes a space's settings; admins of the space only.
func (r *Resolver) UpdateSpace(ctx context.Context, id string, in model.UpdateSpaceInput) (*ent.Space, error) {
	s, err := adminSpace(ctx, id)
	if err != nil {
		return nil, err
	}
	// The changes are checked first and made inside the write, whose
	// event names the fields given.
	var sets []func(*ent.SpaceUpdateOne)
	var fields []string
	set := func(field string, f func(*ent.SpaceUpdateOne)) {
		fields = append(fields, field)
		sets = append(sets, f)
	}
	if v, ok := in.Title.ValueOK(); ok {
		if v == nil {
			return nil, apperr.InvalidField("title", "cannot be null")
		}
		set("title", func(upd *ent.SpaceUpdateOne) { upd.SetTitle(*v) })
	}
	if v, ok := in.Emoji.ValueOK(); ok {
		set("emoji", func(upd *ent.SpaceUpdateOne) {
			upd.SetNillableEmoji(v)
			if v == nil {
				upd.ClearEmoji()
			}
		})
	}
	if v, ok := in.EditMode.ValueOK(); ok {
		set("editMode", func(upd *ent.SpaceUpdateOne) {
			if v == nil {
				upd.ClearEditMode()
			} else {
				upd.SetEditMode(*v)
			}
		})
	}
	if v, ok := in.DefaultLevel.ValueOK(); ok {
		if err := checkDefaultLevel(enumString(v)); err != nil {
			return nil, err
		}
		set("defaultLevel", func(upd *ent.SpaceUpdateOne) {
			if v == nil {
				upd.ClearDefaultLevel()
			} else {
				upd.SetDefaultLevel(*v)
			}
		})
	}
	if v, ok := in.Visibility.ValueOK(); ok {
		if v == nil {
			return nil, apperr.InvalidField("visibility", "cannot be null")
		}
		if *v == space.VisibilityInCollection && s.ParentID == nil {
			return nil, apperr.InvalidField("visibility", "in-collection is only for spaces inside a collection")
		}
		set("visibility", func(upd *ent.SpaceUpdateOne) { upd.SetVisibility(*v) })
	}
	if v, ok := in.MergeRules.ValueOK(); ok {
		if err := r.checkMergeRules(ctx, s.OrganizationID, v, true); err != nil {
			return nil, err
		}
		set("mergeRules", func(upd *ent.SpaceUpdateOne) { upd.SetMergeRules(v) })
	}
	var updated *ent.Space
	err = r.write(ctx, func(ctx context.Context, tx *ent.Client) error {
		upd := tx.Space.UpdateOne(s)
		for _, f := range sets {
			f(upd)
		}
		var err error
		if updated, err = upd.Save(ctx); err != nil {
			return entError(err)
		}
		record(ctx, spaceEvent(events.SpaceUpdated, updated, map[string]any{"fields": fieldList(fields)}))
		return nil
	})
	if err != nil {
		return nil, err
	}
	loader.For(ctx).SpaceByID.Clear(ctx, id).Prime(ctx, id, updated)
	return updated, nil
}

// DeleteSpace soft-deletes a space: it leaves every list and read at once
// and can be restored for RestoreWindow. Admins of the space only.
func (r *Resolver) DeleteSpace(ctx context.Context, id string) error {
	s, err := adminSpace(ctx, id)
	if err != nil {
		return err
	}
	err = r.write(ctx, func(ctx context.Context, tx *ent.Client) error {
		if err := tx.Space.UpdateOne(s).SetDeletedAt(clock.Now()).Exec(ctx); err != nil {
			return err
		}
		record(ctx, spaceEvent(events.SpaceDeleted, s, nil))
		return nil
	})
	if err != nil {
		return err
	}
	loader.For(ctx).SpaceByID.Clear(ctx, id)
	return nil
}

// RestoreSpace brings back a space deleted less than RestoreWindow ago.
func (r *Resolver) RestoreSpace(ctx context.Context, id string) (*ent.Space, error) {
	s, err := r.restorableSpace(ctx, id)
	if err != nil {
		return nil, err
	}
	var restored *ent.Space
	err = r.write(ctx, func(ctx context.Context, tx *ent.Client) error {
		var err error
		if restored, err = tx.Space.UpdateOne(s).ClearDeletedAt().Save(ctx); err != nil {
			return err
		}
		record(ctx, spaceEvent(events.SpaceRestored, restored, nil))
		return nil
	})
	if err != nil {
		return nil, err
	}
	loader.For(ctx).SpaceByID.Clear(ctx, id).Prime(ctx, id, restored)
	return restored, nil
}

// DuplicateSpace copies a space's settings, current content and
// custom-field values into a new space placed right after it. It needs read
// access to the space and the right to create where it lives.
func (r *Resolver) DuplicateSpace(ctx context.Context, id string) (*ent.Space, error) {
	s, _, err := visibleSpace(ctx, id)
	if err != nil {
		return nil, err
	}
	if _, err := creatableParent(ctx, s.OrganizationID, s.ParentID, "parent"); err != nil {
		return nil, err
	}
	var dup *ent.Space
	err = r.write(ctx, func(ctx context.Context, tx *ent.Client) error {
		if err := r.lockTrees(ctx, tx, s.OrganizationID); err != nil {
			return err
		}
		if err := parentStillIn(ctx, tx, s.OrganizationID, s.ParentID, "parent"); err != nil {
			return err
		}
		after := &model.PositionInput{After: omit(&model.PositionTargetInput{Type: model.PositionSpace, Space: omit(&s.ID)})}
		pos, err := placeAt(ctx, tx, s.OrganizationID, s.ParentID, "", after)
		if err != nil {
			return err
		}
		// The copy gets a revision of its own with the same pages and files
		// (bodies and bytes are shared: they are stored by content).
		dupID := ids.New()
		content, err := newDraft(ctx, s.RevisionID)
		if err != nil {
			return err
		}
		rev, err := content.write(ctx, tx, r.Dialect, dupID, revision.TypeInitial, []string{s.RevisionID}, auth.ViewerID(ctx))
		if err != nil {
			return err
		}
		if err := r.reindex(ctx, tx, dupID, nil, content); err != nil {
			return err
		}
		create := tx.Space.Create().SetID(dupID).SetOrganizationID(s.OrganizationID).SetNillableParentID(s.ParentID).
			SetTitle(s.Title).SetNillableEmoji(s.Emoji).SetVisibility(s.Visibility).
			SetNillableEditMode(s.EditMode).SetPosition(pos).SetShareKeySealed(r.seal(secrets.SpaceShareKey, ids.New()+ids.New())).
			SetRevisionID(rev.ID)
		create.SetNillableDefaultLevel(s.DefaultLevel)
		if dup, err = create.Save(ctx); err != nil {
			return err
		}
		values, err := tx.CustomFieldValue.Query().Where(customfieldvalue.SpaceID(s.ID)).All(ctx)
		if err != nil {
			return err
		}
		for _, v := range values {
			if err := tx.CustomFieldValue.Create().SetSpaceID(dup.ID).SetCustomFieldID(v.CustomFieldID).SetValue(v.Value).Exec(ctx); err != nil {
				return err
			}
		}
		record(ctx, spaceEvent(events.SpaceDuplicated, dup, map[string]any{"sourceSpaceId": s.ID, "title": dup.Title, "revisionId": rev.ID}))
		return nil
	})
	return dup, err
}

// MoveSpace puts a space in another collection (or the root) and/or at a
// position among its new siblings. Admins of the space, with the create role
// where it goes. The destination is checked again under the organization's
// tree lock: a collection transferred or deleted meanwhile is refused.
func (r *Resolver) MoveSpace(ctx context.Context, id string, in model.MoveInput) (*ent.Space, error) {
	s, err := adminSpace(ctx, id)
	if err != nil {
		return nil, err
	}
	newParent, reparent := in.Parent.ValueOK()
	if reparent {
		if _, err := creatableParent(ctx, s.OrganizationID, newParent, "parent"); err != nil {
			return nil, err
		}
	}
	var moved *ent.Space
	err = r.write(ctx, func(ctx context.Context, tx *ent.Client) error {
		if err := r.lockTrees(ctx, tx, s.OrganizationID); err != nil {
			return err
		}
		cur, err := spaceStillIn(ctx, tx, s)
		if err != nil {
			return err
		}
		parent := cur.ParentID
		if reparent {
			parent = newParent
		}
		if parent == nil && cur.Visibility == space.VisibilityInCollection {
			return apperr.InvalidField("parent", "a space with visibility in-collection must stay in a collection")
		}
		if err := parentStillIn(ctx, tx, s.OrganizationID, parent, "parent"); err != nil {
			return err
		}
		pos, err := placeAt(ctx, tx, s.OrganizationID, parent, s.ID, in.Position.Value())
		if err != nil {
			return err
		}
		upd := tx.Space.UpdateOneID(s.ID).SetPosition(pos)
		if parent == nil {
			upd.ClearParentID()
		} else {
			upd.SetParentID(*parent)
		}
		if moved, err = upd.Save(ctx); err != nil {
			return err
		}
		record(ctx, spaceEvent(events.SpaceMoved, moved, map[string]any{"parentId": parentPayload(parent), "position": pos}))
		return nil
	})
	if err != nil {
		return nil, err
	}
	loader.For(ctx).SpaceByID.Clear(ctx, id).Prime(ctx, id, moved)
	return moved, nil
}

// TransferSpace moves a space to another organization; the caller must be
// an admin of both. The space leaves its collection (an in-collection space
// becomes private) and drops its custom-field values, which belong to the
// old organization's fields.
func (r *Resolver) TransferSpace(ctx context.Context, id, orgID string) (*ent.Space, error) {
	s, err := adminSpace(ctx, id)
	if err != nil {
		return nil, err
	}
	if err := adminOfBoth(ctx, s.OrganizationID, orgID); err != nil {
		return nil, err
	}
	var moved *ent.Space
	err = r.write(ctx, func(ctx context.Context, tx *ent.Client) error {
		// Under both tree locks, with the space as it is now: a move into
		// a collection cannot slip in between and leave it in one
		// organization with a parent in the other.
		if err := r.lockTrees(ctx, tx, s.OrganizationID, orgID); err != nil {
			return err
		}
		cur, err := spaceStillIn(ctx, tx, s)
		if err != nil {
			return err
		}
		pos, err := placeAt(ctx, tx, orgID, nil, s.ID, nil)
		if err != nil {
			return err
		}
		if moved, err = transferSpaceRow(ctx, tx, cur, orgID, true, pos); err != nil {
			return err
		}
		// Grants name the old organization's teams and members: they
		// mean nothing in the new one.
		if err := removeObjectGrants(ctx, tx, grant.ObjectKindSpace, moved.Title, moved.ID); err != nil {
			return err
		}
		recordTransfer(ctx, events.SpaceTransferred, events.Target{Type: "space", ID: moved.ID, Label: moved.Title},
			moved.ID, s.OrganizationID, orgID, nil)
		return nil
	})
	if err != nil {
		return nil, err
	}
	loader.For(ctx).SpaceByID.Clear(ctx, id).Prime(ctx, id, moved)
	return moved, nil
}

// recordTransfer records a transfer in both organizations' logs: the one
// it left and the one it joined.
func recordTransfer(ctx context.Context, action string, target events.Target, spaceID, from, to string, payload map[string]any) {
	for _, org := range []string{from, to} {
		p := map[string]any{"fromOrganizationId": from, "toOrganizationId": to}
		for k, v := range payload {
			p[k] = v
		}
		record(ctx, events.Event{Action: action, OrganizationID: org, Target: target, SpaceID: spaceID, Payload: p})
	}
}

// fieldList is the names of the fields a write changed, never nil (a
// payload shows [] rather than null).
func fieldList(fields []string) []string {
	if fields == nil {
		return []string{}
	}
	return fields
}

// transferSpaceRow moves one space to orgID (leaving its collection when
// detach) and drops its custom-field values.
func transferSpaceRow(ctx context.Context, tx *ent.Client, s *ent.Space, orgID string, detach bool, pos float64) (*ent.Space, error) {
	if _, err := tx.CustomFieldValue.Delete().Where(customfieldvalue.SpaceID(s.ID)).Exec(ctx); err != nil {
		return nil, err
	}
	// The space leaves the old organization's docs sites.
	if err := removeFromSites(ctx, tx, s.ID); err != nil {
		return nil, err
	}
	upd := tx.Space.UpdateOne(s).SetOrganizationID(orgID)
	if detach {
		upd.ClearParentID().SetPosition(pos)
		if s.Visibility == space.VisibilityInCollection {
			upd.SetVisibility(space.VisibilityPrivate)
		}
	}
	return upd.Save(ctx)
}

// SpaceURLs are the `urls` of a space. Folio has no app of its own, so
// `app` (required by the reference) is the API location. `published` is
// where the space is read: on the reader, when a published site shows it
// (the oldest such site; `public` too when that site is public), else,
// for a space published on its own, its API location — with the share key
// of a share-link space, for its admins only.
func (r *Resolver) SpaceURLs(ctx context.Context, s *ent.Space) (*model.SpaceURLs, error) {
	loc := r.BaseURL + "/v1/spaces/" + s.ID
	urls := &model.SpaceURLs{Location: loc, App: loc}
	onSite, public, err := r.spacePublishedURL(ctx, s.ID)
	if err != nil {
		return nil, err
	}
	if onSite != "" {
		urls.Published = &onSite
		if public {
			urls.Public = &onSite
		}
		return urls, nil
	}
	if s.Visibility != space.VisibilityPrivate {
		published := loc
		if s.Visibility == space.VisibilityShareLink {
			role, err := spaceRole(ctx, s)
			if err != nil {
				return nil, err
			}
			if !access.AtLeast(role, access.Admin) {
				return urls, nil
			}
			key, err := r.SpaceShareKey(s)
			if err != nil {
				return nil, err
			}
			published += "?shareKey=" + key
		}
		urls.Published = &published
	}
	if s.Visibility == space.VisibilityPublic {
		urls.Public = urls.Published
	}
	return urls, nil
}

// omit wraps a value as a present GraphQL input field.
func omit[T any](v T) graphql.Omittable[T] { return graphql.OmittableOf(v) }

// spaceStillIn reads s again inside a tree write's transaction: a space
// transferred to another organization since it was read is not found.
func spaceStillIn(ctx context.Context, tx *ent.Client, s *ent.Space) (*ent.Space, error) {
	cur, err := tx.Space.Query().Where(space.ID(s.ID), space.OrganizationID(s.OrganizationID)).Only(ctx)
	if ent.IsNotFound(err) {
		return nil, apperr.NotFoundf("space %s not found", s.ID)
	}
	return cur, err
}
