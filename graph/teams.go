package graph

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"entgo.io/ent/dialect/sql"

	"github.com/folio/folio/ent"
	"github.com/folio/folio/ent/member"
	"github.com/folio/folio/ent/samlprovider"
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

// TeamPermissions are the caller's permissions on a team.
func (r *Resolver) TeamPermissions(ctx context.Context, t *ent.Team) (*access.TeamPermissions, error) {
	l := loader.For(ctx)
	ownThunk := l.ViewerTeamMembership.Load(ctx, t.ID)
	m, _, err := membership(ctx, t.OrganizationID)
	if err != nil {
		return nil, err
	}
	own, err := ownThunk()
	if err != nil {
		return nil, err
	}
	p := access.TeamPermissionsFor(m, own != nil && own.Role == "owner")
	return &p, nil
}

// TeamMemberCount is the number of members of a team.
func (r *Resolver) TeamMemberCount(ctx context.Context, t *ent.Team) (int, error) {
	return loader.For(ctx).TeamMemberCount.Load(ctx, t.ID)()
}

// OrganizationTeams pages through an organization's teams, newest first
// unless asked otherwise. owner (a user id) keeps the teams that member can
// manage: every team for an admin, the teams they own otherwise. Guests may
// not list teams (403).
func (r *Resolver) OrganizationTeams(ctx context.Context, orgID string, args paging.Args, owner, title *string) (paging.Page[*ent.Team], error) {
	var none paging.Page[*ent.Team]
	l := loader.For(ctx)
	var ownerThunk func() (*ent.Member, error)
	if owner != nil {
		ownerThunk = l.MemberByOrgUser.Load(ctx, loader.MemberKey(orgID, *owner))
	}
	if _, err := teamsOrganization(ctx, orgID); err != nil {
		return none, err
	}
	q := r.Client.Team.Query()
	t := ""
	if title != nil && strings.TrimSpace(*title) != "" {
		t = strings.TrimSpace(*title)
		q.Where(team.TitleContainsFold(t))
	}
	if ownerThunk != nil {
		om, err := ownerThunk()
		if err != nil {
			return none, err
		}
		if om == nil {
			return none, apperr.InvalidField("owner", "%s is not a member of the organization", *owner)
		}
		q.Where(managedBy(om.UserID))
	}
	// Every member sees the same list: unfiltered, its total is kept.
	var count pageCount
	if t == "" && owner == nil {
		count = r.keptCount(db.CountTeams)
	}
	// The teams of every organization a list shows are read together.
	kind := fmt.Sprintf("teams|%q|%s", t, optionKey(owner))
	return pageUnder(ctx, loader.Organizations, kind, orgID, args, func(ctx context.Context, orgs []string) (map[string]paging.Page[*ent.Team], error) {
		q := q.Clone().Where(team.OrganizationIDIn(orgs...))
		pages, err := listPagesCounted(ctx, q, byColumn(team.FieldOrganizationID), orgs, args, team.FieldCreatedAt, args.Keyset(team.FieldCreatedAt), func(t *ent.Team) paging.Cursor {
			return paging.Cursor{Time: t.CreatedAt, ID: t.ID}
		}, func(t *ent.Team) string { return t.OrganizationID }, count)
		if err != nil {
			return nil, err
		}
		return pages, r.primeTeams(ctx, itemsOf(pages))
	})
}

// managedBy keeps the teams userID can manage (access.ManagesAllTeams):
// every team of an organization they administer, the teams they own in
// others.
func managedBy(userID string) func(*sql.Selector) {
	return func(s *sql.Selector) {
		m, tm := sql.Table(member.Table), sql.Table(teammember.Table)
		s.Where(sql.Or(
			sql.Exists(sql.Select(m.C(member.FieldID)).From(m).Where(sql.And(
				sql.ColumnsEQ(m.C(member.FieldOrganizationID), s.C(team.FieldOrganizationID)),
				sql.EQ(m.C(member.FieldUserID), userID),
				sql.EQ(m.C(member.FieldRole), access.Admin),
			))),
			sql.Exists(sql.Select(tm.C(teammember.FieldID)).From(tm).Where(sql.And(
				sql.ColumnsEQ(tm.C(teammember.FieldTeamID), s.C(team.FieldID)),
				sql.EQ(tm.C(teammember.FieldUserID), userID),
				sql.EQ(tm.C(teammember.FieldRole), teammember.RoleOwner),
			))),
		))
	}
}

// OrganizationTeam is one team of an organization.
func (r *Resolver) OrganizationTeam(ctx context.Context, orgID, teamID string) (*ent.Team, error) {
	t, _, err := visibleTeam(ctx, orgID, teamID)
	return t, err
}

// primeTeams fills the loaders behind a page of teams, in two statements
// whatever the page's size.
func (r *Resolver) primeTeams(ctx context.Context, teams []*ent.Team) error {
	return loader.PrimeTeams(ctx, r.Client, teams)
}

// TeamMembers pages through a team's members, earliest first unless asked
// otherwise, with their memberships of the organization primed.
func (r *Resolver) TeamMembers(ctx context.Context, orgID, teamID string, args paging.Args) (paging.Page[*ent.TeamMember], error) {
	t, _, err := visibleTeam(ctx, orgID, teamID)
	if err != nil {
		return paging.Page[*ent.TeamMember]{}, err
	}
	// The members of every team a list shows are read together, and their
	// organization memberships with them.
	return pageUnder(ctx, loader.Teams, "team members", t.ID, args, func(ctx context.Context, teams []string) (map[string]paging.Page[*ent.TeamMember], error) {
		pages, err := listPages(ctx, r.Client.TeamMember.Query(), teammember.FieldTeamID, teams, args, teammember.FieldCreatedAt,
			teamMemberCursor, func(tm *ent.TeamMember) string { return tm.TeamID })
		if err != nil {
			return nil, err
		}
		rows := itemsOf(pages)
		if len(rows) == 0 {
			return pages, nil
		}
		ids := make([]any, len(rows))
		for i, tm := range rows {
			ids[i] = tm.ID
		}
		members, err := r.Client.Member.Query().Where(func(s *sql.Selector) {
			// The memberships, in their team's organization, of the team
			// members shown.
			tm, tt := sql.Table(teammember.Table), sql.Table(team.Table)
			s.Where(sql.Exists(sql.Select(tm.C(teammember.FieldID)).From(tm).
				Join(tt).On(tm.C(teammember.FieldTeamID), tt.C(team.FieldID)).
				Where(sql.And(
					sql.In(tm.C(teammember.FieldID), ids...),
					sql.ColumnsEQ(tm.C(teammember.FieldUserID), s.C(member.FieldUserID)),
					sql.ColumnsEQ(tt.C(team.FieldOrganizationID), s.C(member.FieldOrganizationID)),
				))))
		}).WithUser().All(ctx)
		if err != nil {
			return nil, err
		}
		return pages, r.primeMembers(ctx, members)
	})
}

// teamMemberCursor is the keyset position of a team membership.
func teamMemberCursor(tm *ent.TeamMember) paging.Cursor {
	return paging.Cursor{Time: tm.CreatedAt, ID: tm.ID}
}

// TeamMemberMember is the organization membership of a team member.
func (r *Resolver) TeamMemberMember(ctx context.Context, tm *ent.TeamMember) (*ent.Member, error) {
	t, err := loader.For(ctx).TeamByID.Load(ctx, tm.TeamID)()
	if err != nil {
		return nil, err
	}
	m, err := loader.For(ctx).MemberByOrgUser.Load(ctx, loader.MemberKey(t.OrganizationID, tm.UserID))()
	if err == nil && m == nil {
		// Removing a member removes their team memberships in the same
		// transaction, so this cannot happen short of a corrupt database.
		err = fmt.Errorf("team member %s of team %s has no organization membership", tm.UserID, tm.TeamID)
	}
	return m, err
}

// TeamMemberPermissions are the caller's permissions on a team member.
func (r *Resolver) TeamMemberPermissions(ctx context.Context, tm *ent.TeamMember) (*access.TeamMemberPermissions, error) {
	t, err := loader.For(ctx).TeamByID.Load(ctx, tm.TeamID)()
	if err != nil {
		return nil, err
	}
	m, _, err := membership(ctx, t.OrganizationID)
	if err != nil {
		return nil, err
	}
	p := access.TeamMemberPermissionsFor(m)
	return &p, nil
}

// CreateTeam creates a team (admins only) with members (user ids or emails
// of members of the organization) as its members, in one transaction.
func (r *Resolver) CreateTeam(ctx context.Context, orgID, title string, members []string) (*ent.Team, error) {
	org, err := adminOrganization(ctx, orgID)
	if err != nil {
		return nil, err
	}
	users, err := r.resolveMembers(ctx, org.ID, "members", members, true)
	if err != nil {
		return nil, err
	}
	var t *ent.Team
	err = r.write(ctx, func(ctx context.Context, tx *ent.Client) error {
		if t, err = tx.Team.Create().SetOrganizationID(org.ID).SetTitle(title).Save(ctx); err != nil {
			return entError(err)
		}
		seen := map[string]bool{}
		for _, u := range users {
			if seen[u] {
				continue
			}
			seen[u] = true
			if err := tx.TeamMember.Create().SetTeamID(t.ID).SetUserID(u).Exec(ctx); err != nil {
				return err
			}
		}
		record(ctx, teamEvent(events.TeamCreated, t, map[string]any{"title": t.Title, "userIds": sortedKeys(seen)}))
		return nil
	})
	if err != nil {
		return nil, err
	}
	loader.For(ctx).TeamByID.Prime(ctx, t.ID, t)
	r.forgetTeamMembers(ctx, t, users)
	return t, nil
}

// UpdateTeam renames a team (its owners and organization admins).
func (r *Resolver) UpdateTeam(ctx context.Context, orgID, teamID, title string) (*ent.Team, error) {
	t, _, err := manageableTeam(ctx, orgID, teamID)
	if err != nil {
		return nil, err
	}
	err = r.write(ctx, func(ctx context.Context, tx *ent.Client) error {
		if t, err = tx.Team.UpdateOneID(t.ID).SetTitle(title).Save(ctx); err != nil {
			return entError(err)
		}
		record(ctx, teamEvent(events.TeamUpdated, t, map[string]any{"fields": []string{"title"}, "title": t.Title}))
		return nil
	})
	if err != nil {
		return nil, err
	}
	l := loader.For(ctx)
	l.TeamByID.Clear(ctx, t.ID).Prime(ctx, t.ID, t)
	l.MemberTeams.ForgetOrganization(t.OrganizationID)
	return t, nil
}

// DeleteTeam deletes a team with its memberships and the grants to it, in
// one transaction (its owners and organization admins). SAML providers that put new members in
// the team stop doing so.
func (r *Resolver) DeleteTeam(ctx context.Context, orgID, teamID string) error {
	t, _, err := manageableTeam(ctx, orgID, teamID)
	if err != nil {
		return err
	}
	err = r.write(ctx, func(ctx context.Context, tx *ent.Client) error {
		if _, err := tx.SAMLProvider.Update().Where(samlprovider.DefaultTeamID(t.ID)).ClearDefaultTeamID().Save(ctx); err != nil {
			return err
		}
		if _, err := tx.TeamMember.Delete().Where(teammember.TeamID(t.ID)).Exec(ctx); err != nil {
			return err
		}
		if err := removeTeamGrants(ctx, tx, t.ID); err != nil {
			return err
		}
		if err := tx.Team.DeleteOneID(t.ID).Exec(ctx); err != nil {
			return err
		}
		record(ctx, teamEvent(events.TeamDeleted, t, map[string]any{"title": t.Title}))
		return nil
	})
	if err != nil {
		return err
	}
	l := loader.For(ctx)
	l.TeamByID.Clear(ctx, t.ID)
	l.TeamMemberCount.Clear(ctx, t.ID)
	l.ViewerTeamMembership.Clear(ctx, t.ID)
	l.MemberTeams.ForgetOrganization(t.OrganizationID)
	l.ViewerGrants.Clear(ctx, t.OrganizationID)
	return nil
}

// UpdateTeamMembers changes a team's members in one all-or-nothing
// transaction (its owners and organization admins). add and remove hold
// user ids or emails; memberships adds or updates users with a role. A user
// named in remove ends up out of the team whatever else names them. Users
// to add must be members of the organization (400 naming them); users to
// remove who are not in the team are ignored.
func (r *Resolver) UpdateTeamMembers(ctx context.Context, orgID, teamID string, add, remove []string, memberships []*model.TeamMembershipInput) (*ent.Team, error) {
	t, _, err := manageableTeam(ctx, orgID, teamID)
	if err != nil {
		return nil, err
	}
	// desired role per user; nil: member for a newcomer, unchanged otherwise.
	upsert := map[string]*teammember.Role{}
	added, err := r.resolveMembers(ctx, orgID, "add", add, true)
	if err != nil {
		return nil, err
	}
	for _, u := range added {
		if _, ok := upsert[u]; !ok {
			upsert[u] = nil
		}
	}
	idents := make([]string, len(memberships))
	for i, ms := range memberships {
		if ms == nil {
			return nil, apperr.InvalidField("memberships", "entries cannot be null")
		}
		if !ms.Role.IsValid() {
			return nil, apperr.InvalidField("memberships", "%s: role must be owner or member", ms.User)
		}
		idents[i] = ms.User
	}
	withRole, err := r.resolveMembers(ctx, orgID, "memberships", idents, true)
	if err != nil {
		return nil, err
	}
	for i, u := range withRole {
		role := teammember.Role(memberships[i].Role)
		upsert[u] = &role
	}
	removed, err := r.resolveMembers(ctx, orgID, "remove", remove, false)
	if err != nil {
		return nil, err
	}
	for _, u := range removed {
		delete(upsert, u)
	}
	err = r.write(ctx, func(ctx context.Context, tx *ent.Client) error {
		if len(removed) > 0 {
			gone, err := tx.TeamMember.Query().Where(teammember.TeamID(t.ID), teammember.UserIDIn(removed...)).Select(teammember.FieldUserID).Strings(ctx)
			if err != nil {
				return err
			}
			if _, err := tx.TeamMember.Delete().Where(teammember.TeamID(t.ID), teammember.UserIDIn(removed...)).Exec(ctx); err != nil {
				return err
			}
			for _, u := range gone {
				record(ctx, teamEvent(events.TeamMemberRemoved, t, map[string]any{"teamId": t.ID, "userId": u}))
			}
		}
		for _, u := range sortedKeys(upsert) {
			if _, err := upsertTeamMember(ctx, tx, t, u, upsert[u]); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	r.forgetTeamMembers(ctx, t, append(removed, sortedKeys(upsert)...))
	return t, nil
}

// AddTeamMember adds a member of the organization to a team, or changes
// their role (its owners and organization admins). Without a role, a
// newcomer joins as a member and an existing member keeps their role. A user
// who is not a member of the organization answers 404.
func (r *Resolver) AddTeamMember(ctx context.Context, orgID, teamID, userID string, role *model.TeamRole) (*ent.TeamMember, error) {
	thunk := loader.For(ctx).MemberByOrgUser.Load(ctx, loader.MemberKey(orgID, userID))
	t, _, err := manageableTeam(ctx, orgID, teamID)
	if err != nil {
		return nil, err
	}
	target, err := thunk()
	if err != nil {
		return nil, err
	}
	if target == nil {
		return nil, apperr.NotFoundf("member %s not found in organization %s", userID, orgID)
	}
	var want *teammember.Role
	if role != nil {
		if !role.IsValid() {
			return nil, apperr.InvalidField("role", "must be owner or member")
		}
		r := teammember.Role(*role)
		want = &r
	}
	var tm *ent.TeamMember
	err = r.write(ctx, func(ctx context.Context, tx *ent.Client) error {
		tm, err = upsertTeamMember(ctx, tx, t, userID, want)
		return err
	})
	if err != nil {
		return nil, err
	}
	r.forgetTeamMembers(ctx, t, []string{userID})
	return tm, nil
}

// RemoveTeamMember takes a user out of a team: its owners and organization
// admins remove anyone, anyone else who can see the team may leave it. A
// user who is not in the team answers 404.
func (r *Resolver) RemoveTeamMember(ctx context.Context, orgID, teamID, userID string) error {
	var t *ent.Team
	var err error
	if userID == auth.ViewerID(ctx) {
		t, err = leavableTeam(ctx, orgID, teamID)
	} else {
		t, _, err = manageableTeam(ctx, orgID, teamID)
	}
	if err != nil {
		return err
	}
	err = r.write(ctx, func(ctx context.Context, tx *ent.Client) error {
		n, err := tx.TeamMember.Delete().Where(teammember.TeamID(t.ID), teammember.UserID(userID)).Exec(ctx)
		if err != nil {
			return err
		}
		if n == 0 {
			return apperr.NotFoundf("user %s is not a member of team %s", userID, t.ID)
		}
		record(ctx, teamEvent(events.TeamMemberRemoved, t, map[string]any{"teamId": t.ID, "userId": userID}))
		return nil
	})
	if err != nil {
		return err
	}
	r.forgetTeamMembers(ctx, t, []string{userID})
	return nil
}

// upsertTeamMember puts userID in team teamID with role, or changes their
// role; role nil leaves an existing member's role and makes a newcomer a
// member. It runs in a write (tx) and records what it changed.
func upsertTeamMember(ctx context.Context, tx *ent.Client, t *ent.Team, userID string, role *teammember.Role) (*ent.TeamMember, error) {
	existing, err := tx.TeamMember.Query().Where(teammember.TeamID(t.ID), teammember.UserID(userID)).Only(ctx)
	switch {
	case ent.IsNotFound(err):
		create := tx.TeamMember.Create().SetTeamID(t.ID).SetUserID(userID)
		if role != nil {
			create.SetRole(*role)
		}
		tm, err := create.Save(ctx)
		if err != nil {
			return nil, entError(err)
		}
		record(ctx, teamEvent(events.TeamMemberAdded, t, map[string]any{"teamId": t.ID, "userId": userID, "role": string(tm.Role)}))
		return tm, nil
	case err != nil:
		return nil, err
	case role == nil || existing.Role == *role:
		return existing, nil
	}
	tm, err := tx.TeamMember.UpdateOne(existing).SetRole(*role).Save(ctx)
	if err != nil {
		return nil, entError(err)
	}
	record(ctx, teamEvent(events.TeamMemberUpdated, t, map[string]any{"teamId": t.ID, "userId": userID, "role": string(tm.Role)}))
	return tm, nil
}

// teamEvent is an event whose target is t (team member events too: a
// membership has no id of its own in either API; payload names the user).
func teamEvent(action string, t *ent.Team, payload map[string]any) events.Event {
	return events.Event{
		Action: action, OrganizationID: t.OrganizationID,
		Target:  events.Target{Type: "team", ID: t.ID, Label: t.Title},
		Payload: payload,
	}
}

// resolveMembers turns user ids or emails into the user ids of members of
// orgID, in the order given. With strict, an entry that names no member of
// the organization is a 400 naming field and the entry; without, such
// entries are left out.
func (r *Resolver) resolveMembers(ctx context.Context, orgID, field string, idents []string, strict bool) ([]string, error) {
	if len(idents) == 0 {
		return nil, nil
	}
	var ids, emails []string
	for _, s := range idents {
		s = strings.TrimSpace(s)
		if s == "" {
			return nil, apperr.InvalidField(field, "entries must be user ids or emails, not empty strings")
		}
		ids = append(ids, s)
		emails = append(emails, strings.ToLower(s))
	}
	found, err := r.Client.Member.Query().
		Where(member.OrganizationID(orgID), member.HasUserWith(user.Or(user.IDIn(ids...), user.EmailIn(emails...)))).
		WithUser().All(ctx)
	if err != nil {
		return nil, err
	}
	byIdent := map[string]string{}
	for _, m := range found {
		byIdent[m.UserID] = m.UserID
		byIdent[m.Edges.User.Email] = m.UserID
	}
	out := make([]string, 0, len(idents))
	for i, s := range ids {
		u, ok := byIdent[s]
		if !ok {
			u, ok = byIdent[emails[i]]
		}
		switch {
		case ok:
			out = append(out, u)
		case strict:
			return nil, apperr.InvalidField(field, "%s is not a member of the organization: only members can join a team", s)
		}
	}
	return out, nil
}

// forgetTeamMembers drops what the loaders knew of a team's membership
// after users joined or left it.
func (r *Resolver) forgetTeamMembers(ctx context.Context, t *ent.Team, users []string) {
	l := loader.For(ctx)
	l.TeamMemberCount.Clear(ctx, t.ID)
	l.ViewerTeamMembership.Clear(ctx, t.ID)
	for _, u := range users {
		l.MemberTeamCount.Clear(ctx, loader.MemberKey(t.OrganizationID, u))
	}
	l.MemberTeams.ForgetOrganization(t.OrganizationID)
	// The team's grants reach the viewer through their membership.
	l.ViewerGrants.Clear(ctx, t.OrganizationID)
}

// teamEdge is an edge of Organization.teams, which has no role (Member.teams
// has: memberTeamEdge).
func teamEdge(cursor string, t *ent.Team) *model.TeamEdge {
	return &model.TeamEdge{Cursor: cursor, Node: t}
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
