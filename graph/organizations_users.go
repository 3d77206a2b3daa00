package graph

import (
	"context"

	"entgo.io/ent/dialect/sql"

	"github.com/folio/folio/ent"
	"github.com/folio/folio/ent/member"
	"github.com/folio/folio/graph/loader"
	"github.com/folio/folio/internal/apperr"
	"github.com/folio/folio/internal/auth"
)

// UserByID is a user the caller shares an organization with (either of
// them may be a guest), or the caller; anyone else is 404, as an unknown
// id. One statement: the user's memberships in the caller's organizations.
func (r *Resolver) UserByID(ctx context.Context, id string) (*ent.User, error) {
	viewer := auth.ViewerID(ctx)
	if id != viewer {
		shared, err := r.Client.Member.Query().Where(member.UserID(id), func(s *sql.Selector) {
			mine := sql.Table(member.Table)
			s.Where(sql.In(s.C(member.FieldOrganizationID),
				sql.Select(mine.C(member.FieldOrganizationID)).From(mine).Where(sql.EQ(mine.C(member.FieldUserID), viewer))))
		}).Exist(ctx)
		if err != nil {
			return nil, err
		}
		if !shared {
			return nil, apperr.NotFoundf("user %s not found", id)
		}
	}
	return loader.For(ctx).UserByID.Load(ctx, id)()
}
