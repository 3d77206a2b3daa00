package graph

import (
	"context"

	"github.com/folio/folio/ent"
	"github.com/folio/folio/ent/grant"
	"github.com/folio/folio/ent/predicate"
	"github.com/folio/folio/internal/events"
)

// Removing a grant, a team, a team member or a membership removes what it
// gave, at once: the writes that remove a team, a membership or a shared
// object (or move it to another organization, whose teams and guests the
// old grants do not name) call these in their own transaction. Team
// members need nothing: a team's grants reach its members through their
// current membership (loader.ToViewer), read afresh by every request.
//
// Each grant removed this way is a grant.removed event of its own, like a
// grant removed by hand, so that webhooks and subscriptions hear of every
// access withdrawn the same way. The purge of deleted spaces alone records
// nothing: it is maintenance (events.ExemptMaintenance) removing what the
// recorded deletion already took away.

// removeTeamGrants removes the grants to team teamID.
func removeTeamGrants(ctx context.Context, tx *ent.Client, teamID string) error {
	return removeGrants(ctx, tx, "", grant.PrincipalKindEQ(grant.PrincipalKindTeam), grant.PrincipalID(teamID))
}

// removeMemberGrants removes the grants to userID in orgID (the user is
// leaving the organization).
func removeMemberGrants(ctx context.Context, tx *ent.Client, orgID, userID string) error {
	return removeGrants(ctx, tx, "", grant.OrganizationID(orgID),
		grant.PrincipalKindEQ(grant.PrincipalKindUser), grant.PrincipalID(userID))
}

// removeObjectGrants removes the grants on objects of kind (a collection
// deleted, a site deleted, spaces and collections leaving for another
// organization). label is the object's title when there is one object.
func removeObjectGrants(ctx context.Context, tx *ent.Client, kind grant.ObjectKind, label string, ids ...string) error {
	if len(ids) == 0 {
		return nil
	}
	return removeGrants(ctx, tx, label, grant.ObjectKindEQ(kind), grant.ObjectIDIn(ids...))
}

// purgeObjectGrants removes the grants on a space being purged, without
// events (the purge is exempt maintenance).
func purgeObjectGrants(ctx context.Context, tx *ent.Client, kind grant.ObjectKind, id string) error {
	_, err := tx.Grant.Delete().Where(grant.ObjectKindEQ(kind), grant.ObjectID(id)).Exec(ctx)
	return err
}

// removeGrants deletes the grants matching where, in two statements, and
// records a grant.removed for each.
func removeGrants(ctx context.Context, tx *ent.Client, label string, where ...predicate.Grant) error {
	gone, err := tx.Grant.Query().Where(where...).Order(ent.Asc(grant.FieldCreatedAt), ent.Asc(grant.FieldID)).All(ctx)
	if err != nil || len(gone) == 0 {
		return err
	}
	ids := make([]string, len(gone))
	for i, g := range gone {
		ids[i] = g.ID
	}
	if _, err := tx.Grant.Delete().Where(grant.IDIn(ids...)).Exec(ctx); err != nil {
		return err
	}
	for _, g := range gone {
		record(ctx, grantEvent(events.GrantRemoved, g, label))
	}
	return nil
}
