package graph

import (
	"context"
	"fmt"

	"github.com/99designs/gqlgen/graphql"

	"github.com/folio/folio/ent"
	"github.com/folio/folio/ent/grant"
	"github.com/folio/folio/ent/member"
	"github.com/folio/folio/ent/predicate"
	"github.com/folio/folio/ent/team"
	"github.com/folio/folio/ent/user"
	"github.com/folio/folio/graph/loader"
	"github.com/folio/folio/graph/model"
	"github.com/folio/folio/internal/access"
	"github.com/folio/folio/internal/apperr"
	"github.com/folio/folio/internal/auth"
	"github.com/folio/folio/internal/events"
	"github.com/folio/folio/internal/paging"
)

// Sharing (REST area `sharing`): grants of a role on a space, collection or
// site to users and teams of its organization. Who may share is
// access.CanShare (the admin role on the object, as access.Effective or
// access.SiteRole give it); who may list an object's grants is
// access.CanListPermissions. Every grant created, changed or removed is one
// event (catalog_sharing.go) whose target is the object.

// MaxSharedWith bounds each list of an invitation (users, teams): one
// request writes at most that many grants of each kind.
const MaxSharedWith = 100

// SharedObject names what a sharing operation is about: a space, a
// collection, or a site of the organization OrgID (the organization a site
// path names; "" takes the site's own).
type SharedObject struct {
	Kind  grant.ObjectKind
	ID    string
	OrgID string
}

// PrincipalKind, ToUser and ToTeam name the kind of principal a grant is
// given to, for callers outside graph (REST's routes import no database
// package).
type PrincipalKind = grant.PrincipalKind

const (
	ToUser = grant.PrincipalKindUser
	ToTeam = grant.PrincipalKindTeam
)

// SpaceObject, CollectionObject and SiteObject name a shared object.
func SpaceObject(id string) SharedObject { return SharedObject{Kind: grant.ObjectKindSpace, ID: id} }
func CollectionObject(id string) SharedObject {
	return SharedObject{Kind: grant.ObjectKindCollection, ID: id}
}
func SiteObject(orgID, id string) SharedObject {
	return SharedObject{Kind: grant.ObjectKindSite, ID: id, OrgID: orgID}
}

// shared is a shared object the caller can see, with the caller's role on
// it and standing in its organization.
type shared struct {
	kind  grant.ObjectKind
	id    string
	org   string
	title string
	role  *access.Role
	m     access.Membership

	space      *ent.Space
	collection *ent.Collection
	site       *ent.Site
}

// visibleShared loads o through the guard of its kind: anything the caller
// cannot see answers 404.
func visibleShared(ctx context.Context, o SharedObject) (*shared, error) {
	sh := &shared{kind: o.Kind, id: o.ID}
	switch o.Kind {
	case grant.ObjectKindSpace:
		s, r, err := visibleSpace(ctx, o.ID)
		if err != nil {
			return nil, err
		}
		sh.space, sh.org, sh.title, sh.role = s, s.OrganizationID, s.Title, r
	case grant.ObjectKindCollection:
		c, r, err := visibleCollection(ctx, o.ID)
		if err != nil {
			return nil, err
		}
		sh.collection, sh.org, sh.title, sh.role = c, c.OrganizationID, c.Title, r
	case grant.ObjectKindSite:
		s, r, m, err := visibleSiteRole(ctx, o.OrgID, o.ID)
		if err != nil {
			return nil, err
		}
		sh.site, sh.org, sh.title, sh.role, sh.m = s, s.OrganizationID, s.Title, r, m
		return sh, nil
	default:
		return nil, fmt.Errorf("sharing: unknown object kind %q", o.Kind)
	}
	m, _, err := membership(ctx, sh.org)
	sh.m = m
	return sh, err
}

// shareableObject is a visible object the caller may share
// (access.CanShare): others who see it get 403.
func shareableObject(ctx context.Context, o SharedObject) (*shared, error) {
	sh, err := visibleShared(ctx, o)
	if err != nil {
		return nil, err
	}
	if !access.CanShare(sh.role) {
		return nil, apperr.Forbiddenf("sharing the %s needs the admin role on it", sh.kind)
	}
	return sh, nil
}

// grantsObject is a visible object whose grants the caller may list
// (access.CanListPermissions): others who see it get 403.
func grantsObject(ctx context.Context, o SharedObject) (*shared, error) {
	sh, err := visibleShared(ctx, o)
	if err != nil {
		return nil, err
	}
	if !access.CanListPermissions(sh.m, sh.role) {
		return nil, apperr.Forbiddenf("only admins of the %s and members with a role can see who it is shared with", sh.kind)
	}
	return sh, nil
}

// Share gives users and teams a role on an object (inviteToSpace,
// inviteToCollection, inviteToSite), in one transaction. Any existing user
// may be named: one who is not a member of the organization becomes a guest
// of it. An existing grant takes the new role. A null role gives no extra
// access: users still become guests, and the grants the users and teams
// had on the object are removed. An unknown user is a 400 naming `users`;
// a team that is not one of the organization's, a 404.
func (r *Resolver) Share(ctx context.Context, o SharedObject, in model.InviteUsersAndTeamsInput) error {
	sh, err := shareableObject(ctx, o)
	if err != nil {
		return err
	}
	role, given := in.Role.ValueOK()
	if !given {
		return apperr.InvalidField("role", "is required: a role (admin, create, review, edit, comment, read), or null for no access beyond the organization's")
	}
	if err := checkGrantRole(role); err != nil {
		return err
	}
	users, err := principalList("users", in.Users)
	if err != nil {
		return err
	}
	teams, err := principalList("teams", in.Teams)
	if err != nil {
		return err
	}
	if len(users) == 0 && len(teams) == 0 {
		return apperr.InvalidField("users", "name at least one user (users) or team (teams)")
	}
	if err := r.teamsOf(ctx, sh.org, teams); err != nil {
		return err
	}
	guests, err := r.newGuests(ctx, sh.org, users)
	if err != nil {
		return err
	}
	err = r.write(ctx, func(ctx context.Context, tx *ent.Client) error {
		for _, u := range guests {
			if err := tx.Member.Create().SetOrganizationID(sh.org).SetUserID(u).Exec(ctx); err != nil {
				if ent.IsConstraintError(err) {
					return apperr.Conflictf("user %s joined the organization meanwhile: try again", u)
				}
				return err
			}
			record(ctx, memberEvent(events.MemberAdded, sh.org, u, map[string]any{"userId": u, "role": nil}))
		}
		existing, err := tx.Grant.Query().Where(grant.ObjectID(sh.id), grant.Or(
			grant.And(grant.PrincipalKindEQ(grant.PrincipalKindUser), grant.PrincipalIDIn(users...)),
			grant.And(grant.PrincipalKindEQ(grant.PrincipalKindTeam), grant.PrincipalIDIn(teams...)),
		)).All(ctx)
		if err != nil {
			return err
		}
		had := make(map[string]*ent.Grant, len(existing))
		for _, g := range existing {
			had[string(g.PrincipalKind)+"|"+g.PrincipalID] = g
		}
		for _, p := range principals(users, teams) {
			if err := setGrant(ctx, tx, sh, p.kind, p.id, had[string(p.kind)+"|"+p.id], role); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	r.forgetGrants(ctx, sh.org, guests)
	return nil
}

// UpdateGrant changes the role of a user or team the object is shared with
// (updateUserPermissionIn…, updateTeamPermissionIn…). A principal the
// object is not shared with, or not of its organization, is not found. A
// null role (spaces and collections: MemberRoleOrGuest) removes the grant,
// as a null role does in Share; nullable false refuses it (sites take a
// MemberRole).
func (r *Resolver) UpdateGrant(ctx context.Context, o SharedObject, kind grant.PrincipalKind, id string, role graphql.Omittable[*access.Role], nullable bool) error {
	sh, err := shareableObject(ctx, o)
	if err != nil {
		return err
	}
	v, given := role.ValueOK()
	switch {
	case !given:
		return apperr.InvalidField("role", "is required")
	case v == nil && !nullable:
		return apperr.InvalidField("role", "must be a role (admin, create, review, edit, comment, read): remove the grant to take it away")
	}
	if err := checkGrantRole(v); err != nil {
		return err
	}
	if err := r.principalOf(ctx, sh.org, kind, id); err != nil {
		return err
	}
	err = r.write(ctx, func(ctx context.Context, tx *ent.Client) error {
		g, err := tx.Grant.Query().Where(grantOf(sh.id, kind, id)).Only(ctx)
		if ent.IsNotFound(err) {
			return apperr.NotFoundf("the %s is not shared with %s %s", sh.kind, kind, id)
		}
		if err != nil {
			return err
		}
		return setGrant(ctx, tx, sh, kind, id, g, v)
	})
	if err != nil {
		return err
	}
	r.forgetGrants(ctx, sh.org, nil)
	return nil
}

// RemoveGrant stops sharing an object with a user or team
// (removeUserFrom…, removeTeamFrom…). One it was not shared with changes
// nothing and is no error; a user or team not of the object's organization
// is not found.
func (r *Resolver) RemoveGrant(ctx context.Context, o SharedObject, kind grant.PrincipalKind, id string) error {
	sh, err := shareableObject(ctx, o)
	if err != nil {
		return err
	}
	if err := r.principalOf(ctx, sh.org, kind, id); err != nil {
		return err
	}
	err = r.write(ctx, func(ctx context.Context, tx *ent.Client) error {
		g, err := tx.Grant.Query().Where(grantOf(sh.id, kind, id)).Only(ctx)
		if ent.IsNotFound(err) {
			return nil
		}
		if err != nil {
			return err
		}
		return setGrant(ctx, tx, sh, kind, id, g, nil)
	})
	if err != nil {
		return err
	}
	r.forgetGrants(ctx, sh.org, nil)
	return nil
}

// UserGrants pages through the users an object is shared with, earliest
// first unless asked otherwise, their users primed.
func (r *Resolver) UserGrants(ctx context.Context, o SharedObject, args paging.Args) (paging.Page[*ent.Grant], error) {
	return r.grantPage(ctx, o, grant.PrincipalKindUser, args)
}

// TeamGrants pages through the teams an object is shared with, earliest
// first unless asked otherwise, their teams primed.
func (r *Resolver) TeamGrants(ctx context.Context, o SharedObject, args paging.Args) (paging.Page[*ent.Grant], error) {
	return r.grantPage(ctx, o, grant.PrincipalKindTeam, args)
}

// grantPage is one page of an object's grants of one kind of principal,
// in SQL (keyset on the grant's creation). Spaces shown side by side (a
// GraphQL list of spaces) have their grants read together (pageUnder);
// the principals of a page are read in one statement whatever its size.
func (r *Resolver) grantPage(ctx context.Context, o SharedObject, kind grant.PrincipalKind, args paging.Args) (paging.Page[*ent.Grant], error) {
	sh, err := grantsObject(ctx, o)
	if err != nil {
		return paging.Page[*ent.Grant]{}, err
	}
	read := func(ctx context.Context, objects []string) (map[string]paging.Page[*ent.Grant], error) {
		pages, err := listPages(ctx, r.Client.Grant.Query().Where(grant.PrincipalKindEQ(kind)), grant.FieldObjectID, objects,
			args, grant.FieldCreatedAt, grantCursor, func(g *ent.Grant) string { return g.ObjectID })
		if err != nil {
			return nil, err
		}
		return pages, r.primePrincipals(ctx, itemsOf(pages))
	}
	if sh.kind == grant.ObjectKindSpace {
		return pageUnder(ctx, loader.Spaces, "grants|"+string(kind), sh.id, args, read)
	}
	pages, err := read(ctx, []string{sh.id})
	if err != nil {
		return paging.Page[*ent.Grant]{}, err
	}
	return pages[sh.id], nil
}

// grantCursor is the keyset position of a grant.
func grantCursor(g *ent.Grant) paging.Cursor { return paging.Cursor{Time: g.CreatedAt, ID: g.ID} }

// primePrincipals reads the users and the teams (with what presenting a
// team needs) that grants name, one statement per kind.
func (r *Resolver) primePrincipals(ctx context.Context, grants []*ent.Grant) error {
	var users, teams []string
	for _, g := range grants {
		if g.PrincipalKind == grant.PrincipalKindUser {
			users = append(users, g.PrincipalID)
		} else {
			teams = append(teams, g.PrincipalID)
		}
	}
	if err := loader.For(ctx).PrimeUsers(ctx, users); err != nil {
		return err
	}
	if len(teams) == 0 {
		return nil
	}
	rows, err := r.Client.Team.Query().Where(team.IDIn(teams...)).All(ctx)
	if err != nil {
		return err
	}
	return r.primeTeams(ctx, rows)
}

// GrantUser is the user of a user grant.
func (r *Resolver) GrantUser(ctx context.Context, g *ent.Grant) (*ent.User, error) {
	return loader.For(ctx).UserByID.Load(ctx, g.PrincipalID)()
}

// GrantTeam is the team of a team grant.
func (r *Resolver) GrantTeam(ctx context.Context, g *ent.Grant) (*ent.Team, error) {
	return loader.For(ctx).TeamByID.Load(ctx, g.PrincipalID)()
}

// SharedSpace, SharedCollection and SharedSite are what the GraphQL
// mutations answer once err (the write's) is nil: the object, as the caller
// now sees it, or null when the change took away the caller's own access
// (an admin through a grant who removed it).
func (r *Resolver) SharedSpace(ctx context.Context, id string, err error) (*ent.Space, error) {
	if err != nil {
		return nil, err
	}
	s, _, err := visibleSpace(ctx, id)
	return stillVisible(s, err)
}

func (r *Resolver) SharedCollection(ctx context.Context, id string, err error) (*ent.Collection, error) {
	if err != nil {
		return nil, err
	}
	c, _, err := visibleCollection(ctx, id)
	return stillVisible(c, err)
}

func (r *Resolver) SharedSite(ctx context.Context, orgID, id string, err error) (*ent.Site, error) {
	if err != nil {
		return nil, err
	}
	s, _, err := visibleSite(ctx, orgID, id)
	return stillVisible(s, err)
}

// stillVisible is v, or nil without an error when the caller can no longer
// see it: the write they asked for did succeed.
func stillVisible[T any](v *T, err error) (*T, error) {
	if e, ok := apperr.As(err); ok && e.Kind == apperr.NotFound {
		return nil, nil
	}
	return v, err
}

// setGrant makes principal (kind, id)'s grant on sh have role (nil: no
// grant), given the grant it has (nil: none), and records what changed.
// It runs in a write (tx).
func setGrant(ctx context.Context, tx *ent.Client, sh *shared, kind grant.PrincipalKind, id string, had *ent.Grant, role *access.Role) error {
	switch {
	case had == nil && role == nil:
		return nil
	case had == nil:
		g, err := tx.Grant.Create().SetOrganizationID(sh.org).SetObjectKind(sh.kind).SetObjectID(sh.id).
			SetPrincipalKind(kind).SetPrincipalID(id).SetRole(*role).SetGrantedBy(auth.ViewerID(ctx)).Save(ctx)
		if ent.IsConstraintError(err) {
			return apperr.Conflictf("the %s was shared with %s %s meanwhile: try again", sh.kind, kind, id)
		}
		if err != nil {
			return entError(err)
		}
		record(ctx, grantEvent(events.GrantCreated, g, sh.title))
	case role == nil:
		if err := tx.Grant.DeleteOne(had).Exec(ctx); err != nil {
			return err
		}
		record(ctx, grantEvent(events.GrantRemoved, had, sh.title))
	case had.Role != *role:
		g, err := tx.Grant.UpdateOne(had).SetRole(*role).SetGrantedBy(auth.ViewerID(ctx)).Save(ctx)
		if err != nil {
			return entError(err)
		}
		record(ctx, grantEvent(events.GrantUpdated, g, sh.title))
	}
	return nil
}

// grantOf is the grant of principal (kind, id) on object.
func grantOf(object string, kind grant.PrincipalKind, id string) predicate.Grant {
	return grant.And(grant.ObjectID(object), grant.PrincipalKindEQ(kind), grant.PrincipalID(id))
}

// grantEvent is the event of a grant's change; its target is the object
// shared (label: its title, when known).
func grantEvent(action string, g *ent.Grant, label string) events.Event {
	e := events.Event{
		Action: action, OrganizationID: g.OrganizationID,
		Target: events.Target{Type: string(g.ObjectKind), ID: g.ObjectID, Label: label},
		Payload: map[string]any{
			"objectKind": string(g.ObjectKind), "objectId": g.ObjectID,
			"principalKind": string(g.PrincipalKind), "principalId": g.PrincipalID,
			"role": string(g.Role),
		},
	}
	if g.ObjectKind == grant.ObjectKindSpace {
		e.SpaceID = g.ObjectID
	}
	return e
}

// checkGrantRole refuses a role that is not one (nil, no role, passes).
func checkGrantRole(role *access.Role) error {
	if role != nil && !role.Valid() {
		return apperr.InvalidField("role", "must be one of admin, create, review, edit, comment, read or null (got %q)", string(*role))
	}
	return nil
}

// principalList reads one list of an invitation: absent or null is none;
// present, it holds 1 to MaxSharedWith ids, without empty ones. Repeated
// ids count once.
func principalList(field string, v graphql.Omittable[[]string]) ([]string, error) {
	ids, given := v.ValueOK()
	if !given || ids == nil {
		return nil, nil
	}
	if len(ids) == 0 {
		return nil, apperr.InvalidField(field, "must name at least one id when given")
	}
	if len(ids) > MaxSharedWith {
		return nil, apperr.InvalidField(field, "at most %d ids per request (got %d)", MaxSharedWith, len(ids))
	}
	seen := make(map[string]bool, len(ids))
	out := make([]string, 0, len(ids))
	for _, id := range ids {
		if id == "" {
			return nil, apperr.InvalidField(field, "ids cannot be empty strings")
		}
		if !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	return out, nil
}

type principal struct {
	kind grant.PrincipalKind
	id   string
}

// principals lists users then teams, in the order given.
func principals(users, teams []string) []principal {
	out := make([]principal, 0, len(users)+len(teams))
	for _, u := range users {
		out = append(out, principal{grant.PrincipalKindUser, u})
	}
	for _, t := range teams {
		out = append(out, principal{grant.PrincipalKindTeam, t})
	}
	return out
}

// teamsOf answers 404 for the first of ids that is not a team of orgID
// (unknown, or of another organization: the same answer).
func (r *Resolver) teamsOf(ctx context.Context, orgID string, ids []string) error {
	if len(ids) == 0 {
		return nil
	}
	found, err := r.Client.Team.Query().Where(team.IDIn(ids...), team.OrganizationID(orgID)).IDs(ctx)
	if err != nil {
		return err
	}
	have := make(map[string]bool, len(found))
	for _, id := range found {
		have[id] = true
	}
	for _, id := range ids {
		if !have[id] {
			return apperr.NotFoundf("team %s not found", id)
		}
	}
	return nil
}

// newGuests checks that every one of ids is a user (400 naming `users`
// otherwise) and returns those who are not members of orgID: sharing makes
// them guests.
func (r *Resolver) newGuests(ctx context.Context, orgID string, ids []string) ([]string, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	found, err := r.Client.User.Query().Where(user.IDIn(ids...)).IDs(ctx)
	if err != nil {
		return nil, err
	}
	exists := make(map[string]bool, len(found))
	for _, id := range found {
		exists[id] = true
	}
	for _, id := range ids {
		if !exists[id] {
			return nil, apperr.InvalidField("users", "%s is not a user", id)
		}
	}
	members, err := r.Client.Member.Query().Where(member.OrganizationID(orgID), member.UserIDIn(ids...)).
		Select(member.FieldUserID).Strings(ctx)
	if err != nil {
		return nil, err
	}
	in := make(map[string]bool, len(members))
	for _, id := range members {
		in[id] = true
	}
	var out []string
	for _, id := range ids {
		if !in[id] {
			out = append(out, id)
		}
	}
	return out, nil
}

// principalOf answers 404 unless (kind, id) is a member or a team of orgID.
func (r *Resolver) principalOf(ctx context.Context, orgID string, kind grant.PrincipalKind, id string) error {
	l := loader.For(ctx)
	if kind == grant.PrincipalKindUser {
		m, err := l.MemberByOrgUser.Load(ctx, loader.MemberKey(orgID, id))()
		if err != nil {
			return err
		}
		if m == nil {
			return apperr.NotFoundf("user %s not found in organization %s", id, orgID)
		}
		return nil
	}
	t, err := l.TeamByID.Load(ctx, id)()
	if _, ok := apperr.As(err); err != nil && !ok {
		return err
	}
	if err != nil || t.OrganizationID != orgID {
		return apperr.NotFoundf("team %s not found", id)
	}
	return nil
}

// forgetGrants drops what the request's loaders knew of grants in orgID
// (the viewer's own among them) and of the memberships of new guests.
func (r *Resolver) forgetGrants(ctx context.Context, orgID string, guests []string) {
	l := loader.For(ctx)
	l.ViewerGrants.Clear(ctx, orgID)
	for _, u := range guests {
		l.MemberByOrgUser.Clear(ctx, loader.MemberKey(orgID, u))
		if u == auth.ViewerID(ctx) {
			l.ForgetViewerMembership(ctx, orgID)
		}
	}
}

// userGrantConnection and teamGrantConnection are Space/Collection/Site
// .userGrants and .teamGrants.
func (r *Resolver) userGrantConnection(ctx context.Context, o SharedObject, first *int, after *string, order *model.Order) (*model.UserGrantConnection, error) {
	args, err := paging.New(first, after, (*string)(order), paging.GraphQLNames)
	if err != nil {
		return nil, err
	}
	page, err := r.UserGrants(ctx, o, args)
	if err != nil {
		return nil, err
	}
	return connectionOf[model.UserGrantConnection](page), nil
}

func (r *Resolver) teamGrantConnection(ctx context.Context, o SharedObject, first *int, after *string, order *model.Order) (*model.TeamGrantConnection, error) {
	args, err := paging.New(first, after, (*string)(order), paging.GraphQLNames)
	if err != nil {
		return nil, err
	}
	page, err := r.TeamGrants(ctx, o, args)
	if err != nil {
		return nil, err
	}
	return connectionOf[model.TeamGrantConnection](page), nil
}

// setRole is a role GraphQL's update mutations give (non-null there:
// removing takes the remove mutations).
func setRole(role access.Role) graphql.Omittable[*access.Role] { return graphql.OmittableOf(&role) }

// CheckSharer answers as Share would before reading a body: 404 for an
// object the caller cannot see, 403 for one they may not share. REST asks
// it before decoding, so that no one who may not share learns even that a
// body was malformed.
func (r *Resolver) CheckSharer(ctx context.Context, o SharedObject) error {
	_, err := shareableObject(ctx, o)
	return err
}
