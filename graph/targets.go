package graph

import "context"

// Target names the objects a request's path points at; empty fields are
// absent from the path.
type Target struct {
	OrganizationID  string
	TeamID          string
	SpaceID         string
	ShareKey        *string // a space's share key, for the readers it lets in
	ChangeRequestID string  // an id or a number, within SpaceID
	CollectionID    string
}

// SeeTarget is the 404 the caller gets for the first object of t they may
// not see, or nil when they may see them all. REST asks it before telling a
// caller that their request was malformed, so that a stranger learns
// nothing about a path's objects, not even that a body was bad. It runs the
// guards every resolver runs, through the same per-request loaders.
func (r *Resolver) SeeTarget(ctx context.Context, t Target) error {
	if t.OrganizationID != "" {
		if _, _, err := visibleOrganization(ctx, t.OrganizationID); err != nil {
			return err
		}
		if t.TeamID != "" {
			if _, _, err := visibleTeam(ctx, t.OrganizationID, t.TeamID); err != nil {
				return err
			}
		}
	}
	if t.SpaceID != "" {
		if t.ChangeRequestID != "" {
			if _, err := r.FindChangeRequest(ctx, t.SpaceID, t.ChangeRequestID); err != nil {
				return err
			}
		} else if _, err := r.ReadSpace(ctx, t.SpaceID, t.ShareKey); err != nil {
			return err
		}
	}
	if t.CollectionID != "" {
		if _, _, err := visibleCollection(ctx, t.CollectionID); err != nil {
			return err
		}
	}
	return nil
}
