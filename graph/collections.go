package graph

import (
	"context"
	"fmt"

	"github.com/folio/folio/ent"
	"github.com/folio/folio/ent/collection"
	"github.com/folio/folio/ent/grant"
	"github.com/folio/folio/ent/space"
	"github.com/folio/folio/graph/loader"
	"github.com/folio/folio/graph/model"
	"github.com/folio/folio/internal/access"
	"github.com/folio/folio/internal/apperr"
	"github.com/folio/folio/internal/events"
	"github.com/folio/folio/internal/paging"
)

func collectionKey(c *ent.Collection) paging.Cursor {
	return paging.Cursor{Time: c.CreatedAt, ID: c.ID}
}

func positionKey(pos float64, id string) paging.Cursor { return paging.Cursor{Pos: pos, ID: id} }

// OrganizationCollections pages through the collections of an organization
// the caller can access, newest first; nested false keeps top-level ones.
// Filtered by access (contentScope) and paged by keyset in SQL, for every
// organization a list shows at once.
func (r *Resolver) OrganizationCollections(ctx context.Context, orgID string, nested bool, args paging.Args) (paging.Page[*ent.Collection], error) {
	if _, err := visibleOrganizationMembership(ctx, orgID); err != nil {
		return paging.Page[*ent.Collection]{}, err
	}
	kind := fmt.Sprintf("collections|%v", nested)
	return pageUnder(ctx, loader.Organizations, kind, orgID, args, func(ctx context.Context, orgs []string) (map[string]paging.Page[*ent.Collection], error) {
		scopes, err := contentScopes(ctx, orgs)
		if err != nil {
			return nil, err
		}
		q := r.Client.Collection.Query().Where(anyScope(scopes, contentScope.collections))
		if !nested {
			q.Where(collection.ParentIDIsNil())
		}
		pages, err := listPagesInScope(ctx, q, collection.FieldOrganizationID, orgs, args, collection.FieldCreatedAt, args.Keyset(collection.FieldCreatedAt), collectionKey,
			func(c *ent.Collection) string { return c.OrganizationID })
		if err != nil {
			return nil, err
		}
		showCollections(ctx, itemsOf(pages))
		return pages, nil
	})
}

// CollectionSpaces pages through the spaces directly in a collection, in
// position order, that the caller can access: filtered (contentScope) and
// paged by keyset in SQL, for every collection a list shows at once.
func (r *Resolver) CollectionSpaces(ctx context.Context, c *ent.Collection, args paging.Args) (paging.Page[*ent.Space], error) {
	return pageUnder(ctx, loader.Collections, "collection spaces", c.ID, args, func(ctx context.Context, colls []string) (map[string]paging.Page[*ent.Space], error) {
		scopes, err := collectionScopes(ctx, colls)
		if err != nil {
			return nil, err
		}
		q := r.Client.Space.Query().Where(space.DeletedAtIsNil(), anyScope(scopes, contentScope.spaces))
		pages, err := listPagesInScope(ctx, q, space.FieldParentID, colls, args, space.FieldPosition, args.PositionKeyset(space.FieldPosition),
			func(s *ent.Space) paging.Cursor { return positionKey(s.Position, s.ID) },
			func(s *ent.Space) string { return *s.ParentID })
		if err != nil {
			return nil, err
		}
		showSpaces(ctx, itemsOf(pages))
		return pages, nil
	})
}

// collectionScopes are the caller's scopes in the organizations of colls
// (collections the caller was shown).
func collectionScopes(ctx context.Context, colls []string) (map[string]contentScope, error) {
	rows, errs := loader.For(ctx).CollectionByID.LoadMany(ctx, colls)()
	seen := map[string]bool{}
	var orgs []string
	for i, c := range rows {
		if len(errs) > i && errs[i] != nil {
			if e, ok := apperr.As(errs[i]); ok && e.Kind == apperr.NotFound {
				continue // gone since: it has nothing to list
			}
			return nil, errs[i]
		}
		if c != nil && !seen[c.OrganizationID] {
			seen[c.OrganizationID] = true
			orgs = append(orgs, c.OrganizationID)
		}
	}
	return contentScopes(ctx, orgs)
}

// showCollections primes the collection loader with the collections a
// list shows and shows them together: what is read under one (its spaces,
// its subcollections) is read for all.
func showCollections(ctx context.Context, shown []*ent.Collection) {
	l := loader.For(ctx)
	ids := make([]string, len(shown))
	for i, c := range shown {
		l.CollectionByID.Prime(ctx, c.ID, c)
		ids[i] = c.ID
	}
	l.ShowParents(loader.Collections, ids)
}

// Subcollections pages through the collections directly in a collection,
// in position order, that the caller can access, as CollectionSpaces does.
func (r *Resolver) Subcollections(ctx context.Context, c *ent.Collection, args paging.Args) (paging.Page[*ent.Collection], error) {
	return pageUnder(ctx, loader.Collections, "subcollections", c.ID, args, func(ctx context.Context, colls []string) (map[string]paging.Page[*ent.Collection], error) {
		scopes, err := collectionScopes(ctx, colls)
		if err != nil {
			return nil, err
		}
		q := r.Client.Collection.Query().Where(anyScope(scopes, contentScope.collections))
		pages, err := listPagesInScope(ctx, q, collection.FieldParentID, colls, args, collection.FieldPosition, args.PositionKeyset(collection.FieldPosition),
			func(c *ent.Collection) paging.Cursor { return positionKey(c.Position, c.ID) },
			func(c *ent.Collection) string { return *c.ParentID })
		if err != nil {
			return nil, err
		}
		showCollections(ctx, itemsOf(pages))
		return pages, nil
	})
}

// CollectionParent is the collection c is in (nil at the root), read with
// its organization's collections: one read for every collection a list
// shows.
func (r *Resolver) CollectionParent(ctx context.Context, c *ent.Collection) (*ent.Collection, error) {
	if c.ParentID == nil {
		return nil, nil
	}
	cols, err := loader.For(ctx).OrgCollections.Load(ctx, c.OrganizationID)()
	if err != nil {
		return nil, err
	}
	if p := cols[*c.ParentID]; p != nil {
		return p, nil
	}
	return loader.For(ctx).CollectionByID.Load(ctx, *c.ParentID)()
}

// ReadCollection reads a collection the caller has a role on.
func (r *Resolver) ReadCollection(ctx context.Context, id string) (*ent.Collection, error) {
	c, _, err := visibleCollection(ctx, id)
	return c, err
}

// CollectionPermissions are the caller's permissions on c.
func (r *Resolver) CollectionPermissions(ctx context.Context, c *ent.Collection) (*access.CollectionPermissions, error) {
	role, err := collectionRole(ctx, c)
	if err != nil {
		return nil, err
	}
	p := access.CollectionPermissionsFor(role)
	return &p, nil
}

// CreateCollection creates a collection at the end of its parent.
func (r *Resolver) CreateCollection(ctx context.Context, orgID string, in model.CreateCollectionInput) (*ent.Collection, error) {
	parent := in.Parent.Value()
	if _, err := creatableParent(ctx, orgID, parent, "parent"); err != nil {
		return nil, err
	}
	var created *ent.Collection
	err := r.write(ctx, func(ctx context.Context, tx *ent.Client) error {
		if err := r.lockTrees(ctx, tx, orgID); err != nil {
			return err
		}
		if err := parentStillIn(ctx, tx, orgID, parent, "parent"); err != nil {
			return err
		}
		pos, err := placeAt(ctx, tx, orgID, parent, "", nil)
		if err != nil {
			return err
		}
		create := tx.Collection.Create().SetOrganizationID(orgID).SetNillableParentID(parent).
			SetPosition(pos).SetDefaultLevel(collection.DefaultLevelInherit)
		if v := in.Title.Value(); v != nil {
			create.SetTitle(*v)
		}
		if created, err = create.Save(ctx); err != nil {
			return entError(err)
		}
		record(ctx, collectionEvent(events.CollectionCreated, created, map[string]any{"title": created.Title, "parentId": parentPayload(parent)}))
		return nil
	})
	return created, err
}

// collectionEvent is an event whose target is c, in c's organization.
func collectionEvent(action string, c *ent.Collection, payload map[string]any) events.Event {
	return events.Event{
		Action: action, OrganizationID: c.OrganizationID,
		Target:  events.Target{Type: "collection", ID: c.ID, Label: c.Title},
		Payload: payload,
	}
}

// UpdateCollection changes title, description and defaultLevel; admins of
// the collection only.
func (r *Resolver) UpdateCollection(ctx context.Context, id string, in model.UpdateCollectionInput) (*ent.Collection, error) {
	c, err := adminCollection(ctx, id)
	if err != nil {
		return nil, err
	}
	// Checked first, made inside the write, whose event names the fields
	// given.
	var sets []func(*ent.CollectionUpdateOne)
	var fields []string
	set := func(field string, f func(*ent.CollectionUpdateOne)) {
		fields = append(fields, field)
		sets = append(sets, f)
	}
	if v, ok := in.Title.ValueOK(); ok {
		if v == nil {
			return nil, apperr.InvalidField("title", "cannot be null")
		}
		set("title", func(upd *ent.CollectionUpdateOne) { upd.SetTitle(*v) })
	}
	if v, ok := in.Description.ValueOK(); ok {
		set("description", func(upd *ent.CollectionUpdateOne) {
			if v == nil {
				upd.ClearDescription()
			} else {
				upd.SetDescription(*v)
			}
		})
	}
	if v, ok := in.DefaultLevel.ValueOK(); ok {
		if err := checkDefaultLevel(enumString(v)); err != nil {
			return nil, err
		}
		set("defaultLevel", func(upd *ent.CollectionUpdateOne) {
			if v == nil {
				upd.ClearDefaultLevel()
			} else {
				upd.SetDefaultLevel(collection.DefaultLevel(*v))
			}
		})
	}
	var updated *ent.Collection
	err = r.write(ctx, func(ctx context.Context, tx *ent.Client) error {
		upd := tx.Collection.UpdateOne(c)
		for _, f := range sets {
			f(upd)
		}
		var err error
		if updated, err = upd.Save(ctx); err != nil {
			return entError(err)
		}
		record(ctx, collectionEvent(events.CollectionUpdated, updated, map[string]any{"fields": fieldList(fields)}))
		return nil
	})
	if err != nil {
		return nil, err
	}
	r.forgetCollections(ctx, updated.OrganizationID, id)
	return updated, nil
}

// DeleteCollection deletes a collection. Nothing it contains is lost: its
// spaces (deleted ones too) and collections move up to its parent, after
// the parent's current contents. Admins of the collection only.
func (r *Resolver) DeleteCollection(ctx context.Context, id string) error {
	c, err := adminCollection(ctx, id)
	if err != nil {
		return err
	}
	err = r.write(ctx, func(ctx context.Context, tx *ent.Client) error {
		// Its children go to its parent as it is now, under the tree lock.
		if err := r.lockTrees(ctx, tx, c.OrganizationID); err != nil {
			return err
		}
		if c, err = tx.Collection.Get(ctx, c.ID); ent.IsNotFound(err) {
			return apperr.NotFoundf("collection %s not found", id)
		} else if err != nil {
			return err
		}
		base, err := placeAt(ctx, tx, c.OrganizationID, c.ParentID, c.ID, nil)
		if err != nil {
			return err
		}
		spaces := tx.Space.Update().Where(space.ParentID(c.ID)).AddPosition(base)
		colls := tx.Collection.Update().Where(collection.ParentID(c.ID)).AddPosition(base)
		if c.ParentID == nil {
			spaces.ClearParentID()
			colls.ClearParentID()
		} else {
			spaces.SetParentID(*c.ParentID)
			colls.SetParentID(*c.ParentID)
		}
		if _, err := spaces.Save(ctx); err != nil {
			return err
		}
		if _, err := colls.Save(ctx); err != nil {
			return err
		}
		// What was shared through it goes with it (its contents move up,
		// under other collections' grants).
		if err := removeObjectGrants(ctx, tx, grant.ObjectKindCollection, c.Title, c.ID); err != nil {
			return err
		}
		if err := tx.Collection.DeleteOneID(c.ID).Exec(ctx); err != nil {
			return err
		}
		record(ctx, collectionEvent(events.CollectionDeleted, c, map[string]any{"parentId": parentPayload(c.ParentID)}))
		return nil
	})
	if err != nil {
		return err
	}
	r.forgetCollections(ctx, c.OrganizationID, id)
	return nil
}

// MoveCollection puts a collection in another parent and/or at a position
// among its siblings. A collection cannot go inside itself or its own
// descendants (400). The check and the move happen together under the
// organization's tree lock, so two crossing moves cannot both pass it.
func (r *Resolver) MoveCollection(ctx context.Context, id string, in model.MoveInput) (*ent.Collection, error) {
	c, err := adminCollection(ctx, id)
	if err != nil {
		return nil, err
	}
	newParent, reparent := in.Parent.ValueOK()
	if reparent {
		if _, err := creatableParent(ctx, c.OrganizationID, newParent, "parent"); err != nil {
			return nil, err
		}
	}
	var moved *ent.Collection
	err = r.write(ctx, func(ctx context.Context, tx *ent.Client) error {
		if err := r.lockTrees(ctx, tx, c.OrganizationID); err != nil {
			return err
		}
		all, err := treeIn(ctx, tx, c.OrganizationID)
		if err != nil {
			return err
		}
		cur, ok := all[c.ID]
		if !ok {
			// Deleted or transferred since it was read.
			return apperr.NotFoundf("collection %s not found", id)
		}
		parent := cur.ParentID
		if reparent {
			parent = newParent
		}
		if parent != nil {
			if _, ok := all[*parent]; !ok {
				return apperr.InvalidField("parent", "%s is not a collection of this organization", *parent)
			}
			if err := checkNotInside(all, c.ID, *parent); err != nil {
				return err
			}
		}
		pos, err := placeAt(ctx, tx, c.OrganizationID, parent, c.ID, in.Position.Value())
		if err != nil {
			return err
		}
		upd := tx.Collection.UpdateOneID(c.ID).SetPosition(pos)
		if parent == nil {
			upd.ClearParentID()
		} else {
			upd.SetParentID(*parent)
		}
		if moved, err = upd.Save(ctx); err != nil {
			return err
		}
		record(ctx, collectionEvent(events.CollectionMoved, moved, map[string]any{"parentId": parentPayload(parent), "position": pos}))
		return nil
	})
	if err != nil {
		return nil, err
	}
	r.forgetCollections(ctx, c.OrganizationID, id)
	return moved, nil
}

// TransferCollection moves a collection, with everything it contains, to
// another organization whose admin the caller also is; it arrives at the
// root of that organization. Spaces drop their custom-field values.
func (r *Resolver) TransferCollection(ctx context.Context, id, orgID string) (*ent.Collection, error) {
	c, err := adminCollection(ctx, id)
	if err != nil {
		return nil, err
	}
	if err := adminOfBoth(ctx, c.OrganizationID, orgID); err != nil {
		return nil, err
	}
	var moved *ent.Collection
	err = r.write(ctx, func(ctx context.Context, tx *ent.Client) error {
		// The subtree is read under the lock of both organizations: a
		// collection or space moved into it meanwhile goes along, and
		// nothing is left behind with a parent in the other organization.
		if err := r.lockTrees(ctx, tx, c.OrganizationID, orgID); err != nil {
			return err
		}
		all, err := treeIn(ctx, tx, c.OrganizationID)
		if err != nil {
			return err
		}
		if _, ok := all[c.ID]; !ok {
			return apperr.NotFoundf("collection %s not found", id)
		}
		tree := descendants(all, c.ID)
		pos, err := placeAt(ctx, tx, orgID, nil, c.ID, nil)
		if err != nil {
			return err
		}
		if _, err := tx.Collection.Update().Where(collection.IDIn(tree...)).SetOrganizationID(orgID).Save(ctx); err != nil {
			return err
		}
		spaces, err := tx.Space.Query().Where(space.ParentIDIn(tree...)).All(ctx)
		if err != nil {
			return err
		}
		spaceIDs := make([]string, len(spaces))
		for i, s := range spaces {
			if _, err := transferSpaceRow(ctx, tx, s, orgID, false, 0); err != nil {
				return err
			}
			spaceIDs[i] = s.ID
		}
		if moved, err = tx.Collection.UpdateOneID(c.ID).ClearParentID().SetPosition(pos).Save(ctx); err != nil {
			return err
		}
		// Grants name the old organization's teams and members: they
		// mean nothing in the new one.
		if err := removeObjectGrants(ctx, tx, grant.ObjectKindCollection, "", tree...); err != nil {
			return err
		}
		if err := removeObjectGrants(ctx, tx, grant.ObjectKindSpace, "", spaceIDs...); err != nil {
			return err
		}
		// One event for the subtree (its spaces and collections are in
		// the payload), in both organizations' logs.
		recordTransfer(ctx, events.CollectionTransferred, events.Target{Type: "collection", ID: moved.ID, Label: moved.Title},
			"", c.OrganizationID, orgID, map[string]any{"spaceIds": spaceIDs, "collectionIds": tree})
		return nil
	})
	if err != nil {
		return nil, err
	}
	r.forgetCollections(ctx, c.OrganizationID, id)
	return moved, nil
}

// descendants lists id and every collection below it.
func descendants(all map[string]*ent.Collection, id string) []string {
	out := []string{id}
	for i := 0; i < len(out); i++ {
		for _, c := range all {
			if c.ParentID != nil && *c.ParentID == out[i] {
				out = append(out, c.ID)
			}
		}
	}
	return out
}

// forgetCollections drops cached collections after a write, so the rest of
// the request sees the new tree.
func (r *Resolver) forgetCollections(ctx context.Context, orgID, id string) {
	l := loader.For(ctx)
	l.OrgCollections.Clear(ctx, orgID)
	l.CollectionByID.Clear(ctx, id)
}

// CollectionURLs are the `urls` of a collection.
func (r *Resolver) CollectionURLs(c *ent.Collection) *model.CollectionURLs {
	// No app of its own: `app` (required by the reference) is the API location.
	loc := r.BaseURL + "/v1/collections/" + c.ID
	return &model.CollectionURLs{Location: loc, App: loc}
}
