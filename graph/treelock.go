package graph

import (
	"context"
	"fmt"
	"sort"

	"github.com/folio/folio/ent"
	"github.com/folio/folio/ent/collection"
	"github.com/folio/folio/internal/apperr"
	"github.com/folio/folio/internal/db"
)

// The collection tree of an organization is checked and changed under one
// lock. Checks made before the write's transaction (through the request's
// loaders) see a tree another request may be changing: two crossing moves
// (X into Y, Y into X) would each pass the cycle check and together make a
// cycle. So every write that gives a collection or a space a new parent, or
// takes a subtree to another organization, first locks the organizations
// involved, then reads the tree inside its transaction and checks it there.
//
// The lock is the organization's row (PostgreSQL: SELECT … FOR NO KEY UPDATE; on
// SQLite the immediate write transaction is the lock). Locking the chain of
// collections involved instead would let unrelated moves of one organization
// run in parallel, but the chain is only known after reading it and changes
// while it is being locked, so the rows would have to be locked, re-read and
// re-locked until stable, in an order that cannot deadlock. Tree writes are
// rare admin actions; serializing them per organization costs nothing that
// matters and is easy to see correct.

// lockTrees takes the tree lock of each organization, in id order: two
// transfers between the same organizations in opposite directions then
// wait for each other instead of deadlocking.
func (r *Resolver) lockTrees(ctx context.Context, tx *ent.Client, orgIDs ...string) error {
	q := db.LockOrganization(r.Dialect)
	if q == "" {
		return nil
	}
	ids := append([]string(nil), orgIDs...)
	sort.Strings(ids)
	for i, id := range ids {
		if i > 0 && id == ids[i-1] {
			continue
		}
		rows, err := tx.QueryContext(ctx, q, id)
		if err != nil {
			return fmt.Errorf("lock organization %s: %w", id, err)
		}
		if err := rows.Close(); err != nil {
			return fmt.Errorf("lock organization %s: %w", id, err)
		}
	}
	return nil
}

// treeIn reads the collections of orgID inside tx, after lockTrees: the
// tree as it is now, not as the request's loaders saw it.
func treeIn(ctx context.Context, tx *ent.Client, orgID string) (map[string]*ent.Collection, error) {
	rows, err := tx.Collection.Query().Where(collection.OrganizationID(orgID)).
		Select(collection.FieldID, collection.FieldOrganizationID, collection.FieldParentID).All(ctx)
	if err != nil {
		return nil, err
	}
	all := make(map[string]*ent.Collection, len(rows))
	for _, c := range rows {
		all[c.ID] = c
	}
	return all, nil
}

// parentStillIn checks, inside tx after lockTrees, that parent (nil: the
// root) is still a collection of orgID: the caller's earlier check may have
// raced with a transfer or a deletion of it.
func parentStillIn(ctx context.Context, tx *ent.Client, orgID string, parent *string, field string) error {
	if parent == nil {
		return nil
	}
	ok, err := tx.Collection.Query().Where(collection.ID(*parent), collection.OrganizationID(orgID)).Exist(ctx)
	if err != nil {
		return err
	}
	if !ok {
		return apperr.InvalidField(field, "%s is not a collection of this organization", *parent)
	}
	return nil
}

// checkNotInside refuses a parent that is the collection id itself or one
// of its descendants in the tree all.
func checkNotInside(all map[string]*ent.Collection, id, parentID string) error {
	for at, seen := &parentID, map[string]bool{}; at != nil && !seen[*at]; {
		if *at == id {
			return apperr.InvalidField("parent", "a collection cannot be moved into itself or its own subcollections")
		}
		seen[*at] = true
		p, ok := all[*at]
		if !ok {
			break
		}
		at = p.ParentID
	}
	return nil
}
