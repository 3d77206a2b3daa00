package loader

import (
	"context"

	"entgo.io/ent/dialect/sql"

	"github.com/folio/folio/ent"
	"github.com/folio/folio/ent/grant"
	"github.com/folio/folio/ent/predicate"
	"github.com/folio/folio/ent/teammember"
	"github.com/folio/folio/internal/access"
)

// newViewerGrants loads, keyed by organization id, every grant in that
// organization to the viewer or to a team the viewer is in: one statement
// for all the organizations a round asks about. Read afresh by every
// request, so removing a grant, a team or a team member takes effect on the
// next one.
func newViewerGrants(b batching, client *ent.Client, viewerID string) *Loader[[]access.Grant] {
	return mapLoader(b, func(ctx context.Context, orgIDs []string) (map[string][]access.Grant, error) {
		out := make(map[string][]access.Grant, len(orgIDs))
		if viewerID == "" {
			return out, nil
		}
		rows, err := client.Grant.Query().
			Where(grant.OrganizationIDIn(orgIDs...), ToViewer(viewerID)).
			// In id order, as authentication reads them: equal grants then
			// name the same origin whichever way they were read.
			Order(ent.Asc(grant.FieldID)).
			All(ctx)
		if err != nil {
			return nil, err
		}
		for _, g := range rows {
			out[g.OrganizationID] = append(out[g.OrganizationID], AccessGrant(g))
		}
		return out, nil
	})
}

// ToViewer keeps the grants to userID and to the teams userID is in.
func ToViewer(userID string) predicate.Grant {
	return func(s *sql.Selector) {
		teams := sql.Select(teammember.FieldTeamID).From(sql.Table(teammember.Table)).
			Where(sql.EQ(teammember.FieldUserID, userID))
		s.Where(sql.Or(
			sql.And(sql.EQ(s.C(grant.FieldPrincipalKind), grant.PrincipalKindUser), sql.EQ(s.C(grant.FieldPrincipalID), userID)),
			sql.And(sql.EQ(s.C(grant.FieldPrincipalKind), grant.PrincipalKindTeam), sql.In(s.C(grant.FieldPrincipalID), teams)),
		))
	}
}

// AccessGrant is a grant row as internal/access reads it.
func AccessGrant(g *ent.Grant) access.Grant {
	a := access.Grant{Role: g.Role, Object: g.ObjectID}
	if g.PrincipalKind == grant.PrincipalKindTeam {
		a.Team = g.PrincipalID
	}
	return a
}
