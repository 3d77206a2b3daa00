package graph

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/99designs/gqlgen/graphql"

	"github.com/folio/folio/ent"
	"github.com/folio/folio/ent/member"
	"github.com/folio/folio/ent/predicate"
	"github.com/folio/folio/ent/team"
	"github.com/folio/folio/ent/teammember"
	"github.com/folio/folio/ent/user"
	"github.com/folio/folio/graph/loader"
	"github.com/folio/folio/graph/model"
	"github.com/folio/folio/internal/access"
	"github.com/folio/folio/internal/apperr"
	"github.com/folio/folio/internal/auth"
	"github.com/folio/folio/internal/db"
	"github.com/folio/folio/internal/events"
	"github.com/folio/folio/internal/paging"
)

// Members of an organization are addressed by user id: the member object's
// id is its user's id, in REST and GraphQL alike.

// MemberFilter narrows a list of members.
type MemberFilter struct {
	// Role: members with that role, or guests for MemberRoleFilterGuest.
	Role *model.MemberRoleFilter
	// Search: case-insensitive contains over display name and email.
	Search *string
	// Sort: joinedAt (default) or lastSeenAt (members never seen are left out).
	Sort *model.MemberSort
}

// OrganizationMember is one member of an organization, by user id.
func (r *Resolver) OrganizationMember(ctx context.Context, orgID, userID string) (*ent.Member, error) {
	target, _, err := visibleMember(ctx, orgID, userID)
	return target, err
}

// OrganizationMembers pages through an organization's members, sorted by
// the sort column and id. Guests may not list members (403).
func (r *Resolver) OrganizationMembers(ctx context.Context, orgID string, args paging.Args, f MemberFilter) (paging.Page[*ent.Member], error) {
	var none paging.Page[*ent.Member]
	if _, err := membersOrganization(ctx, orgID); err != nil {
		return none, err
	}
	q := r.Client.Member.Query()
	if f.Role != nil {
		switch {
		case !f.Role.IsValid():
			return none, apperr.InvalidField("role", "must be a role (admin, create, review, edit, comment, read) or guest")
		case *f.Role == model.MemberRoleFilterGuest:
			q.Where(member.RoleIsNil())
		default:
			q.Where(member.RoleEQ(access.Role(*f.Role)))
		}
	}
	search := ""
	if f.Search != nil {
		if search = strings.TrimSpace(*f.Search); search != "" {
			q.Where(member.HasUserWith(user.Or(user.DisplayNameContainsFold(search), user.EmailContainsFold(search))))
		}
	}
	column := member.FieldJoinedAt
	if f.Sort != nil {
		switch *f.Sort {
		case model.MemberSortJoinedAt:
		case model.MemberSortLastSeenAt:
			column = member.FieldLastSeenAt
			q.Where(member.LastSeenAtNotNil())
		default:
			return none, apperr.InvalidField("sort", "must be joinedAt or lastSeenAt")
		}
	}
	key := func(mb *ent.Member) paging.Cursor {
		if column == member.FieldLastSeenAt {
			return paging.Cursor{Time: *mb.LastSeenAt, ID: mb.ID}
		}
		return paging.Cursor{Time: mb.JoinedAt, ID: mb.ID}
	}
	// Every member sees the same list: unfiltered, its total is kept.
	var count pageCount
	if f.Role == nil && search == "" && column == member.FieldJoinedAt {
		count = r.keptCount(db.CountMembers)
	}
	// The members of every organization a list shows are read together.
	kind := fmt.Sprintf("members|%v|%q|%s", f.Role, search, column)
	return pageUnder(ctx, loader.Organizations, kind, orgID, args, func(ctx context.Context, orgs []string) (map[string]paging.Page[*ent.Member], error) {
		q := q.Clone().Where(member.OrganizationIDIn(orgs...))
		pages, err := listPagesCounted(ctx, q.WithUser(), byColumn(member.FieldOrganizationID), orgs, args, column, args.Keyset(column), key,
			func(mb *ent.Member) string { return mb.OrganizationID }, count)
		if err != nil {
			return nil, err
		}
		return pages, r.primeMembers(ctx, itemsOf(pages))
	})
}

// primeMembers fills the loaders behind every member's fields from members
// a list shows (of one organization or several), loaded with their users:
// the users, the members themselves and, in one more statement, their team
// counts; it records them as shown together and announces them to the
// MemberTeams loader, so that the first member asked for its teams loads
// everyone's. A list then costs the same number of statements however
// many members it holds.
func (r *Resolver) primeMembers(ctx context.Context, rows []*ent.Member) error {
	if len(rows) == 0 {
		return nil
	}
	l := loader.For(ctx)
	users := map[string][]string{}
	keys := make([]string, len(rows))
	for i, mb := range rows {
		users[mb.OrganizationID] = append(users[mb.OrganizationID], mb.UserID)
		keys[i] = loader.MemberKey(mb.OrganizationID, mb.UserID)
		l.MemberByOrgUser.Prime(ctx, keys[i], mb)
		if mb.Edges.User != nil {
			l.UserByID.Prime(ctx, mb.UserID, mb.Edges.User)
		}
	}
	counts, err := loader.CountMembersTeams(ctx, r.Client, users)
	if err != nil {
		return err
	}
	for _, k := range keys {
		l.MemberTeamCount.Prime(ctx, k, counts[k])
	}
	for org, us := range users {
		l.MemberTeams.Expect(org, us...)
	}
	l.ShowParents(loader.Members, keys)
	return nil
}

// MemberUser is the user a member is.
func (r *Resolver) MemberUser(ctx context.Context, m *ent.Member) (*ent.User, error) {
	return loader.For(ctx).UserByID.Load(ctx, m.UserID)()
}

// MemberSpaceCount is the number of spaces of the member's organization the
// member can access, their grants and their teams' counted (the member
// object's `spaces`): counted in SQL for every member a list shows at once
// (memberSpaceCounts).
func (r *Resolver) MemberSpaceCount(ctx context.Context, m *ent.Member) (int, error) {
	key := loader.MemberKey(m.OrganizationID, m.UserID)
	return loader.PerParent(ctx, loader.Members, "space count", key, func(ctx context.Context, keys []string) (map[string]int, error) {
		return r.memberSpaceCounts(ctx, keys)
	})
}

// MemberTeamCount is the number of teams of the member's organization the
// member is in (the member object's `teams`).
func (r *Resolver) MemberTeamCount(ctx context.Context, m *ent.Member) (int, error) {
	return loader.For(ctx).MemberTeamCount.Load(ctx, loader.MemberKey(m.OrganizationID, m.UserID))()
}

// MemberTeams pages through the teams of orgID that userID is in, most
// recently joined first unless asked otherwise; each team membership comes
// with its team. Guests may not list teams (403). Without a title filter
// the member's memberships come from the MemberTeams loader, which loads
// those of a whole page of members at once; they are few per member, so
// the page is cut in memory.
func (r *Resolver) MemberTeams(ctx context.Context, orgID, userID string, args paging.Args, title *string) (paging.Page[*ent.TeamMember], error) {
	var none paging.Page[*ent.TeamMember]
	if _, _, err := visibleMember(ctx, orgID, userID); err != nil {
		return none, err
	}
	if _, err := teamsOrganization(ctx, orgID); err != nil {
		return none, err
	}
	if title == nil || strings.TrimSpace(*title) == "" {
		rows, err := loader.For(ctx).MemberTeams.Load(ctx, orgID, userID)
		if err != nil {
			return none, err
		}
		return paging.Slice(args, rows, teamMemberCursor), nil
	}
	// The matching teams of every member a list shows are read together:
	// members are keyed by organization and user, and a list's members are
	// of one organization or a few.
	t := strings.TrimSpace(*title)
	return pageUnder(ctx, loader.Members, "teams titled "+strconv.Quote(t), loader.MemberKey(orgID, userID), args, func(ctx context.Context, keys []string) (map[string]paging.Page[*ent.TeamMember], error) {
		pages := make(map[string]paging.Page[*ent.TeamMember], len(keys))
		var teams []*ent.Team
		for org, users := range loader.SplitMemberKeys(keys) {
			q := r.Client.TeamMember.Query().Where(teammember.HasTeamWith(team.OrganizationID(org), team.TitleContainsFold(t)))
			byUser, err := listPages(ctx, q.WithTeam(), teammember.FieldUserID, users, args, teammember.FieldCreatedAt, teamMemberCursor,
				func(tm *ent.TeamMember) string { return tm.UserID })
			if err != nil {
				return nil, err
			}
			for u, p := range byUser {
				pages[loader.MemberKey(org, u)] = p
				for _, tm := range p.Items {
					teams = append(teams, tm.Edges.Team)
				}
			}
		}
		return pages, r.primeTeams(ctx, teams)
	})
}

// UpdateMember changes a member's role (admins only); role null makes the
// member a guest, an absent role changes nothing. The last admin of an
// organization keeps their role (409).
func (r *Resolver) UpdateMember(ctx context.Context, orgID, userID string, input model.UpdateMemberInput) (*ent.Member, error) {
	target, err := manageableMember(ctx, orgID, userID)
	if err != nil {
		return nil, err
	}
	role, ok := input.Role.ValueOK()
	if !ok {
		return target, nil
	}
	if role != nil && !role.Valid() {
		return nil, apperr.InvalidField("role", "%q is not a role (admin, create, review, edit, comment, read, or null for guest)", string(*role))
	}
	var updated *ent.Member
	err = r.write(ctx, func(ctx context.Context, tx *ent.Client) error {
		if !access.AtLeast(role, access.Admin) {
			if err := keepAnAdmin(ctx, tx, orgID, userID, "demoted"); err != nil {
				return err
			}
		}
		upd := tx.Member.UpdateOneID(target.ID)
		if role == nil {
			upd.ClearRole()
		} else {
			upd.SetRole(*role)
		}
		if updated, err = upd.Save(ctx); err != nil {
			return entError(err)
		}
		payload := map[string]any{"userId": userID, "role": nil}
		if role != nil {
			payload["role"] = string(*role)
		}
		record(ctx, memberEvent(events.MemberRoleUpdated, orgID, userID, payload))
		return nil
	})
	if err != nil {
		return nil, err
	}
	r.forgetMember(ctx, updated)
	return updated, nil
}

// RemoveMember removes a member from an organization, from every team of
// it and from everything shared with them there, in one transaction. Admins remove anyone; any member may leave. The
// last admin cannot leave (409).
func (r *Resolver) RemoveMember(ctx context.Context, orgID, userID string) error {
	target, err := removableMember(ctx, orgID, userID)
	if err != nil {
		return err
	}
	err = r.write(ctx, func(ctx context.Context, tx *ent.Client) error {
		if err := keepAnAdmin(ctx, tx, orgID, userID, "removed"); err != nil {
			return err
		}
		if _, err := tx.TeamMember.Delete().
			Where(teammember.UserID(userID), teammember.HasTeamWith(team.OrganizationID(orgID))).
			Exec(ctx); err != nil {
			return err
		}
		if err := removeMemberReviewRequests(ctx, tx, orgID, userID); err != nil {
			return err
		}
		if err := removeMemberGrants(ctx, tx, orgID, userID); err != nil {
			return err
		}
		if err := tx.Member.DeleteOneID(target.ID).Exec(ctx); err != nil {
			return err
		}
		record(ctx, memberEvent(events.MemberRemoved, orgID, userID, map[string]any{"userId": userID}))
		return nil
	})
	if err != nil {
		return err
	}
	l := loader.For(ctx)
	key := loader.MemberKey(orgID, userID)
	l.MemberByOrgUser.Clear(ctx, key).Prime(ctx, key, nil)
	l.MemberTeamCount.Clear(ctx, key)
	l.MemberTeams.ForgetOrganization(orgID)
	if userID == auth.ViewerID(ctx) {
		l.ForgetViewerMembership(ctx, orgID)
	}
	return nil
}

// SetMemberSSO marks a member as signing in through SSO (admins only).
func (r *Resolver) SetMemberSSO(ctx context.Context, orgID, userID string) (*ent.Member, error) {
	target, err := manageableMember(ctx, orgID, userID)
	if err != nil {
		return nil, err
	}
	var updated *ent.Member
	err = r.write(ctx, func(ctx context.Context, tx *ent.Client) error {
		var err error
		if updated, err = tx.Member.UpdateOneID(target.ID).SetSSO(true).Save(ctx); err != nil {
			return entError(err)
		}
		record(ctx, memberEvent(events.MemberSSOUpdated, orgID, userID, map[string]any{"userId": userID}))
		return nil
	})
	if err != nil {
		return nil, err
	}
	r.forgetMember(ctx, updated)
	return updated, nil
}

// keepAnAdmin refuses (409) a change that would leave orgID without an
// admin: userID is about to stop being one (how: "demoted", "removed"). It
// runs inside the change's transaction and first locks the organization's
// admin rows (a no-op update), so that two admins demoting each other at the
// same time cannot both succeed on PostgreSQL; SQLite has one writer at a
// time anyway.
func keepAnAdmin(ctx context.Context, tx *ent.Client, orgID, userID, how string) error {
	admins := []predicate.Member{member.OrganizationID(orgID), member.RoleEQ(access.Admin)}
	if _, err := tx.Member.Update().Where(admins...).SetRole(access.Admin).Save(ctx); err != nil {
		return err
	}
	target, err := tx.Member.Query().Where(member.OrganizationID(orgID), member.UserID(userID)).Only(ctx)
	if err != nil {
		return entError(err)
	}
	if !access.AtLeast(target.Role, access.Admin) {
		return nil
	}
	n, err := tx.Member.Query().Where(admins...).Count(ctx)
	if err != nil {
		return err
	}
	if !access.KeepsAnAdmin(n, 1) {
		return apperr.Conflictf("the last admin of the organization cannot be %s: make another member admin first", how)
	}
	return nil
}

// forgetMember replaces a changed member in the loaders.
func (r *Resolver) forgetMember(ctx context.Context, m *ent.Member) {
	l := loader.For(ctx)
	key := loader.MemberKey(m.OrganizationID, m.UserID)
	l.MemberByOrgUser.Clear(ctx, key).Prime(ctx, key, m)
	if m.UserID == auth.ViewerID(ctx) {
		l.ViewerMembership.Clear(ctx, m.OrganizationID).Prime(ctx, m.OrganizationID, m)
	}
}

// memberTeamEdge is an edge of Member.teams: the team, with the member's
// role in it.
func memberTeamEdge(cursor string, tm *ent.TeamMember) *model.TeamEdge {
	role := model.TeamRole(tm.Role)
	return &model.TeamEdge{Cursor: cursor, Node: tm.Edges.Team, Role: &role}
}

// onlyTotalCount tells whether a connection field asks for nothing but its
// totalCount: a count loader then answers it without loading a page, so
// nested connections cost one statement per level, not one per parent.
func onlyTotalCount(ctx context.Context) bool {
	for _, f := range graphql.CollectFieldsCtx(ctx, nil) {
		if f.Name != "totalCount" && f.Name != "__typename" {
			return false
		}
	}
	return true
}

// memberEvent is an event whose target is the member userID of orgID (a
// member's id is its user's, in both APIs).
func memberEvent(action, orgID, userID string, payload map[string]any) events.Event {
	return events.Event{
		Action: action, OrganizationID: orgID,
		Target:  events.Target{Type: "member", ID: userID},
		Payload: payload,
	}
}
