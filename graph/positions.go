package graph

import (
	"context"
	"math"

	"github.com/folio/folio/ent"
	"github.com/folio/folio/ent/collection"
	"github.com/folio/folio/ent/space"
	"github.com/folio/folio/graph/model"
	"github.com/folio/folio/internal/apperr"
)

// Positions order the contents of a parent (spaces and collections alike,
// ascending). New and moved items go at the end unless placed before or
// after a sibling, at the midpoint between it and its neighbour.

type sibling struct {
	kind, id string
	pos      float64
}

// siblings lists the contents of parentID (nil: the organization's root),
// leaving out the item being moved.
func siblings(ctx context.Context, c *ent.Client, orgID string, parentID *string, movingID string) ([]sibling, error) {
	sq := c.Space.Query().Where(space.OrganizationID(orgID), space.DeletedAtIsNil(), space.IDNEQ(movingID))
	cq := c.Collection.Query().Where(collection.OrganizationID(orgID), collection.IDNEQ(movingID))
	if parentID == nil {
		sq.Where(space.ParentIDIsNil())
		cq.Where(collection.ParentIDIsNil())
	} else {
		sq.Where(space.ParentID(*parentID))
		cq.Where(collection.ParentID(*parentID))
	}
	spaces, err := sq.Select(space.FieldID, space.FieldPosition).All(ctx)
	if err != nil {
		return nil, err
	}
	colls, err := cq.Select(collection.FieldID, collection.FieldPosition).All(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]sibling, 0, len(spaces)+len(colls))
	for _, s := range spaces {
		out = append(out, sibling{model.PositionSpace, s.ID, s.Position})
	}
	for _, c := range colls {
		out = append(out, sibling{model.PositionCollection, c.ID, c.Position})
	}
	return out, nil
}

// placeAt computes the position of an item put in parentID at pos (nil:
// at the end). A target that is not a sibling in that parent is a 400.
func placeAt(ctx context.Context, c *ent.Client, orgID string, parentID *string, movingID string, pos *model.PositionInput) (float64, error) {
	sibs, err := siblings(ctx, c, orgID, parentID, movingID)
	if err != nil {
		return 0, err
	}
	last := 0.0
	for _, s := range sibs {
		last = math.Max(last, s.pos)
	}
	var before, after *model.PositionTargetInput
	if pos != nil {
		before, after = pos.Before.Value(), pos.After.Value()
	}
	if before == nil && after == nil {
		return last + 1, nil
	}
	if before != nil && after != nil {
		return 0, apperr.InvalidField("position", "give before or after, not both")
	}
	target, field := before, "position.before"
	if target == nil {
		target, field = after, "position.after"
	}
	var id string
	switch target.Type {
	case model.PositionSpace:
		if target.Space.Value() == nil {
			return 0, apperr.InvalidField(field+".space", "is required for type space")
		}
		id = *target.Space.Value()
	case model.PositionCollection:
		if target.Collection.Value() == nil {
			return 0, apperr.InvalidField(field+".collection", "is required for type collection")
		}
		id = *target.Collection.Value()
	default:
		return 0, apperr.InvalidField(field+".type", "must be space or collection")
	}
	var ref *sibling
	for i := range sibs {
		if sibs[i].id == id && sibs[i].kind == target.Type {
			ref = &sibs[i]
		}
	}
	if ref == nil {
		return 0, apperr.InvalidField(field, "%s %s is not in the destination", target.Type, id)
	}
	// The nearest neighbour on the side we insert.
	if before != nil {
		prev, found := math.Inf(-1), false
		for _, s := range sibs {
			if s.pos < ref.pos && s.pos > prev {
				prev, found = s.pos, true
			}
		}
		if !found {
			return ref.pos - 1, nil
		}
		return (prev + ref.pos) / 2, nil
	}
	next, found := math.Inf(1), false
	for _, s := range sibs {
		if s.pos > ref.pos && s.pos < next {
			next, found = s.pos, true
		}
	}
	if !found {
		return ref.pos + 1, nil
	}
	return (ref.pos + next) / 2, nil
}
