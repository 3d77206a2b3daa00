package graph

import (
	"context"

	"github.com/folio/folio/ent"
	"github.com/folio/folio/ent/changerequest"
	"github.com/folio/folio/ent/comment"
	"github.com/folio/folio/ent/commentreply"
	"github.com/folio/folio/ent/customhostname"
	"github.com/folio/folio/ent/samlprovider"
	"github.com/folio/folio/ent/space"
	"github.com/folio/folio/ent/teammember"
	"github.com/folio/folio/graph/loader"
	"github.com/folio/folio/internal/access"
	"github.com/folio/folio/internal/apperr"
	"github.com/folio/folio/internal/auth"
	"github.com/folio/folio/internal/clock"
)

// Guards: every check that loads an object and decides whether the caller
// may see it, change it or act on it in its current state. Each is named for
// what it returns:
//
//   - visibleX: an X the caller may see; anything else answers 404, whether
//     or not it exists.
//   - editableX, manageableX, removableX, leavableX, adminX: a visible X the
//     caller may change in that way; a caller who sees it but may not gets
//     403.
//   - unlockedX, restorableX: an X whose state allows the change (423, 409,
//     or 404 past the restore window); inviteLinksEnabled refuses a state of
//     an object already loaded.
//   - yX (settingsOrganization, membersOrganization, teamsOrganization,
//     spacesMember): an X whose y the caller may list or read.
//
// The rules themselves are internal/access's pure functions (the same ones
// that compute the `permissions` objects); guards load, call them and choose
// the answer. One guard per rule: callers do not repeat a check inline.

// visibleOrganization is an organization the caller belongs to, with the
// caller's standing in it.
func visibleOrganization(ctx context.Context, id string) (*ent.Organization, access.Membership, error) {
	// Both lookups are queued before either is awaited, so a single read
	// pays one batch wait, not two.
	l := loader.For(ctx)
	orgThunk := l.OrganizationByID.Load(ctx, id)
	m, err := visibleOrganizationMembership(ctx, id)
	if err != nil {
		return nil, m, err
	}
	org, err := orgThunk()
	return org, m, err
}

// visibleOrganizationMembership is the caller's standing in an organization
// it may see, for reads that need no more of the organization than that:
// it does not load the organization's row (a membership implies it).
func visibleOrganizationMembership(ctx context.Context, id string) (access.Membership, error) {
	m, _, err := membership(ctx, id)
	if err != nil {
		return m, err
	}
	if !m.CanSeeOrganization() {
		return m, apperr.NotFoundf("organization %s not found", id)
	}
	return m, nil
}

// adminOrganization is a visible organization the caller administers.
func adminOrganization(ctx context.Context, id string) (*ent.Organization, error) {
	org, m, err := visibleOrganization(ctx, id)
	if err != nil {
		return nil, err
	}
	if !m.CanAdminOrganization() {
		return nil, apperr.Forbiddenf("only admins of the organization can do this")
	}
	return org, nil
}

// adminOfBoth checks that the caller administers both organizations of a
// transfer; a target the caller cannot see is a 400 naming `organization`.
func adminOfBoth(ctx context.Context, fromOrg, toOrg string) error {
	if _, err := adminOrganization(ctx, fromOrg); err != nil {
		return err
	}
	_, m, err := visibleOrganization(ctx, toOrg)
	if e, ok := apperr.As(err); ok && e.Kind == apperr.NotFound {
		return apperr.InvalidField("organization", "%s is not an organization you belong to", toOrg)
	}
	if err != nil {
		return err
	}
	if !m.CanAdminOrganization() {
		return apperr.Forbiddenf("transfers need the admin role in both organizations")
	}
	return nil
}

// settingsOrganization is the caller's standing in an organization whose
// translation settings and custom-field definitions the caller may read:
// members with a role. The check comes before any lookup, so a 403 tells
// nothing of whether an id or name exists.
func settingsOrganization(ctx context.Context, orgID string) (access.Membership, error) {
	_, m, err := visibleOrganization(ctx, orgID)
	if err != nil {
		return m, err
	}
	if !m.CanReadSettings() {
		return m, apperr.Forbiddenf("only members with a role can see the organization's settings")
	}
	return m, nil
}

// membersOrganization is the caller's standing in an organization whose
// members the caller may list: guests may not.
func membersOrganization(ctx context.Context, orgID string) (access.Membership, error) {
	_, m, err := visibleOrganization(ctx, orgID)
	if err != nil {
		return m, err
	}
	if !m.CanSeeMembers() {
		return m, apperr.Forbiddenf("guests cannot list the members of the organization")
	}
	return m, nil
}

// teamsOrganization is the caller's standing in an organization whose teams
// the caller may list: guests may not.
func teamsOrganization(ctx context.Context, orgID string) (access.Membership, error) {
	_, m, err := visibleOrganization(ctx, orgID)
	if err != nil {
		return m, err
	}
	if !m.CanSeeTeams() {
		return m, apperr.Forbiddenf("guests cannot list the teams of the organization")
	}
	return m, nil
}

// inviteLinksEnabled refuses (403) to create or use invite links in an
// organization whose inviteLinks setting is off.
func inviteLinksEnabled(org *ent.Organization) error {
	if !org.InviteLinks {
		return apperr.Forbiddenf("invite links are disabled in organization %s (its inviteLinks setting is false)", org.ID)
	}
	return nil
}

// visibleMember is the member userID of orgID, if the caller may see it,
// with the caller's own standing. Strangers, unknown users and users of
// other organizations answer 404; so does another member for a guest.
func visibleMember(ctx context.Context, orgID, userID string) (*ent.Member, access.Membership, error) {
	thunk := loader.For(ctx).MemberByOrgUser.Load(ctx, loader.MemberKey(orgID, userID))
	_, m, err := visibleOrganization(ctx, orgID)
	if err != nil {
		return nil, m, err
	}
	target, err := thunk()
	if err != nil {
		return nil, m, err
	}
	if target == nil || !m.CanSeeMember(userID == auth.ViewerID(ctx)) {
		return nil, m, apperr.NotFoundf("member %s not found in organization %s", userID, orgID)
	}
	return target, m, nil
}

// manageableMember is a visible member whose role and SSO flag the caller
// may change: admins of the organization.
func manageableMember(ctx context.Context, orgID, userID string) (*ent.Member, error) {
	target, m, err := visibleMember(ctx, orgID, userID)
	if err != nil {
		return nil, err
	}
	if !m.CanManageMembers() {
		return nil, apperr.Forbiddenf("only admins of the organization can change members")
	}
	return target, nil
}

// removableMember is a visible member the caller may remove from the
// organization: anyone for an admin, themself for any member.
func removableMember(ctx context.Context, orgID, userID string) (*ent.Member, error) {
	target, m, err := visibleMember(ctx, orgID, userID)
	if err != nil {
		return nil, err
	}
	if !m.CanRemoveMember(userID == auth.ViewerID(ctx)) {
		return nil, apperr.Forbiddenf("only admins of the organization can remove other members")
	}
	return target, nil
}

// spacesMember is a visible member whose spaces the caller may list:
// themself, or anyone for an admin of the organization.
func spacesMember(ctx context.Context, orgID, userID string) (*ent.Member, error) {
	target, m, err := visibleMember(ctx, orgID, userID)
	if err != nil {
		return nil, err
	}
	if userID != auth.ViewerID(ctx) && !m.CanAdminOrganization() {
		return nil, apperr.Forbiddenf("only admins can list another member's spaces")
	}
	return target, nil
}

// visibleTeam is a team of orgID the caller may see: any other id, a team
// of another organization, or a caller who is a stranger or a guest of the
// organization, answers 404.
func visibleTeam(ctx context.Context, orgID, teamID string) (*ent.Team, access.Membership, error) {
	teamThunk := loader.For(ctx).TeamByID.Load(ctx, teamID)
	m, _, err := membership(ctx, orgID)
	if err != nil {
		return nil, m, err
	}
	t, terr := teamThunk()
	if !m.CanSeeTeams() || terr != nil || t.OrganizationID != orgID {
		if _, ok := apperr.As(terr); terr != nil && !ok {
			return nil, m, terr
		}
		return nil, m, apperr.NotFoundf("team %s not found", teamID)
	}
	return t, m, nil
}

// manageableTeam is a visible team the caller may change: organization
// admins and the team's owners.
func manageableTeam(ctx context.Context, orgID, teamID string) (*ent.Team, access.Membership, error) {
	t, m, err := visibleTeam(ctx, orgID, teamID)
	if err != nil {
		return nil, m, err
	}
	own, err := loader.For(ctx).ViewerTeamMembership.Load(ctx, t.ID)()
	if err != nil {
		return nil, m, err
	}
	if !m.CanManageTeam(own != nil && own.Role == teammember.RoleOwner) {
		return nil, m, apperr.Forbiddenf("only owners of the team and admins of the organization can change it")
	}
	return t, m, nil
}

// leavableTeam is a visible team the caller may leave.
func leavableTeam(ctx context.Context, orgID, teamID string) (*ent.Team, error) {
	t, m, err := visibleTeam(ctx, orgID, teamID)
	if err != nil {
		return nil, err
	}
	if !m.CanLeaveTeam() {
		return nil, apperr.Forbiddenf("you cannot leave this team")
	}
	return t, nil
}

// adminSAMLProvider is provider id of organization orgID, for an admin of
// that organization. The admin check comes first, so a non-admin cannot
// probe provider ids; a provider of another organization is not found.
func (r *Resolver) adminSAMLProvider(ctx context.Context, orgID, id string) (*ent.SAMLProvider, error) {
	if _, err := adminOrganization(ctx, orgID); err != nil {
		return nil, err
	}
	p, err := r.Client.SAMLProvider.Query().
		Where(samlprovider.ID(id), samlprovider.OrganizationID(orgID)).
		Only(ctx)
	if ent.IsNotFound(err) {
		return nil, apperr.NotFoundf("SAML provider %s not found", id)
	}
	return p, err
}

// roleAtLeast answers for content (what: "space", "collection") on which
// the caller has role: none is 404, less than min is 403.
func roleAtLeast(role *access.Role, min access.Role, what, id string) error {
	if role == nil {
		return apperr.NotFoundf("%s %s not found", what, id)
	}
	if !access.AtLeast(role, min) {
		return apperr.Forbiddenf("this needs the %s role on the %s", min, what)
	}
	return nil
}

// visibleSpace is a live space the caller has a role on, with that role.
func visibleSpace(ctx context.Context, id string) (*ent.Space, *access.Role, error) {
	s, err := loader.For(ctx).SpaceByID.Load(ctx, id)()
	if err != nil {
		return nil, nil, err
	}
	r, err := spaceRole(ctx, s)
	if err != nil {
		return nil, nil, err
	}
	if err := roleAtLeast(r, access.Read, "space", id); err != nil {
		return nil, nil, err
	}
	return s, r, nil
}

// discussedSpace is visibleSpace for the discussion around its content
// (comments, replies, commenters): a site-scoped read token, which reads
// published content only, gets 404.
func discussedSpace(ctx context.Context, id string) (*ent.Space, *access.Role, error) {
	if err := siteScopeHides(ctx, "space", id); err != nil {
		return nil, nil, err
	}
	return visibleSpace(ctx, id)
}

// spaceWithRole is a visible space on which the caller has at least min.
func spaceWithRole(ctx context.Context, id string, min access.Role) (*ent.Space, error) {
	s, r, err := visibleSpace(ctx, id)
	if err != nil {
		return nil, err
	}
	return s, roleAtLeast(r, min, "space", id)
}

// editableSpace is a visible space the caller may edit (change requests,
// custom-field values).
func editableSpace(ctx context.Context, id string) (*ent.Space, error) {
	return spaceWithRole(ctx, id, access.Edit)
}

// adminSpace is a visible space the caller administers (settings, delete,
// move, transfer).
func adminSpace(ctx context.Context, id string) (*ent.Space, error) {
	return spaceWithRole(ctx, id, access.Admin)
}

// unlockedSpace is an editable space whose content may change: a locked
// space answers 423.
func unlockedSpace(ctx context.Context, id string) (*ent.Space, error) {
	s, err := editableSpace(ctx, id)
	if err != nil {
		return nil, err
	}
	if s.EditMode != nil && *s.EditMode == space.EditModeLocked {
		return nil, &apperr.Error{Kind: apperr.Locked, Message: "the space is locked: its content cannot change"}
	}
	return s, nil
}

// restorableSpace is a space deleted less than RestoreWindow ago that the
// caller administers; past the window it answers as an unknown space.
func (r *Resolver) restorableSpace(ctx context.Context, id string) (*ent.Space, error) {
	s, err := r.Client.Space.Query().
		Where(space.ID(id), space.DeletedAtNotNil(), space.DeletedAtGT(clock.Now().Add(-RestoreWindow))).
		Only(ctx)
	if ent.IsNotFound(err) {
		return nil, apperr.NotFoundf("space %s not found", id)
	}
	if err != nil {
		return nil, err
	}
	role, err := spaceRole(ctx, s)
	if err != nil {
		return nil, err
	}
	return s, roleAtLeast(role, access.Admin, "space", id)
}

// spaceContent checks that the caller may read what s holds (its revision,
// pages, custom-field values): that needs a role on the space, which a
// share key alone does not give.
func spaceContent(ctx context.Context, s *ent.Space) error {
	role, err := spaceRole(ctx, s)
	if err != nil {
		return err
	}
	return roleAtLeast(role, access.Read, "space", s.ID)
}

// editableChangeRequest is a change request whose content may change, with
// its space: the space is unlocked, and the change request is neither
// merged nor archived (409).
func (r *Resolver) editableChangeRequest(ctx context.Context, spaceID, id string) (*ent.Space, *ent.ChangeRequest, error) {
	s, err := unlockedSpace(ctx, spaceID)
	if err != nil {
		return nil, nil, err
	}
	cr, err := r.FindChangeRequest(ctx, spaceID, id)
	if err != nil {
		return nil, nil, err
	}
	if cr.Status == changerequest.StatusMerged || cr.Status == changerequest.StatusArchived {
		return nil, nil, apperr.Conflictf("change request %d is %s: its content cannot change", cr.Number, cr.Status)
	}
	return s, cr, nil
}

// visibleCollection is a collection the caller has a role on, with that
// role.
func visibleCollection(ctx context.Context, id string) (*ent.Collection, *access.Role, error) {
	c, err := loader.For(ctx).CollectionByID.Load(ctx, id)()
	if err != nil {
		return nil, nil, err
	}
	r, err := collectionRole(ctx, c)
	if err != nil {
		return nil, nil, err
	}
	if err := roleAtLeast(r, access.Read, "collection", id); err != nil {
		return nil, nil, err
	}
	return c, r, nil
}

// visibleParent is visibleCollection for the parent of a space or
// collection of orgID: read with the organization's collections (one read
// for every organization a list shows), not one by one as batches fall.
func visibleParent(ctx context.Context, orgID, id string) (*ent.Collection, error) {
	cols, err := loader.For(ctx).OrgCollections.Load(ctx, orgID)()
	if err != nil {
		return nil, err
	}
	c := cols[id]
	if c == nil {
		c, _, err := visibleCollection(ctx, id)
		return c, err
	}
	r, err := collectionRole(ctx, c)
	if err != nil {
		return nil, err
	}
	return c, roleAtLeast(r, access.Read, "collection", id)
}

// adminCollection is a visible collection the caller administers.
func adminCollection(ctx context.Context, id string) (*ent.Collection, error) {
	c, r, err := visibleCollection(ctx, id)
	if err != nil {
		return nil, err
	}
	return c, roleAtLeast(r, access.Admin, "collection", id)
}

// creatableParent is the collection of orgID (nil: the organization's
// root) in which the caller may create content. A parent the caller cannot
// see, or of another organization, is a 400 naming field.
func creatableParent(ctx context.Context, orgID string, parent *string, field string) (*ent.Collection, error) {
	if parent == nil {
		_, m, err := visibleOrganization(ctx, orgID)
		if err != nil {
			return nil, err
		}
		if !access.AtLeast(m.Role, access.Create) {
			return nil, apperr.Forbiddenf("creating content needs the create role in the organization")
		}
		return nil, nil
	}
	c, r, err := visibleCollection(ctx, *parent)
	if _, ok := apperr.As(err); (ok && err != nil) || (err == nil && c.OrganizationID != orgID) {
		return nil, apperr.InvalidField(field, "%s is not a collection of this organization", *parent)
	}
	if err != nil {
		return nil, err
	}
	if !access.AtLeast(r, access.Create) {
		return nil, apperr.Forbiddenf("creating content in collection %s needs the create role on it", c.ID)
	}
	return c, nil
}

// commentScope is where comments live: a space, or one of its change
// requests (CR), with the caller's role on the space.
type commentScope struct {
	Space *ent.Space
	Role  *access.Role
	CR    *ent.ChangeRequest // nil: the space itself
}

// visibleCommentScope is a space the caller can read, or a change request
// of it (by id or number): comments there are readable.
func (r *Resolver) visibleCommentScope(ctx context.Context, spaceID string, crID *string) (commentScope, error) {
	s, role, err := discussedSpace(ctx, spaceID)
	if err != nil {
		return commentScope{}, err
	}
	sc := commentScope{Space: s, Role: role}
	if crID != nil {
		if sc.CR, err = r.FindChangeRequest(ctx, spaceID, *crID); err != nil {
			return commentScope{}, err
		}
	}
	return sc, nil
}

// commentableScope is a visible scope where the caller may post, reply,
// react and resolve: the comment role (403), outside merged or archived
// change requests (409). Locked spaces take comments: they are not edits.
func (r *Resolver) commentableScope(ctx context.Context, spaceID string, crID *string) (commentScope, error) {
	sc, err := r.visibleCommentScope(ctx, spaceID, crID)
	if err != nil {
		return sc, err
	}
	if err := roleAtLeast(sc.Role, access.Comment, "space", spaceID); err != nil {
		return sc, err
	}
	if sc.CR != nil && !commentsWritable(sc.CR) {
		return sc, apperr.Conflictf("change request %d is %s: its comments are read-only", sc.CR.Number, sc.CR.Status)
	}
	return sc, nil
}

// visibleComment is comment id of a scope the caller can read; a comment of
// another space, or of another change request, is not found.
func (r *Resolver) visibleComment(ctx context.Context, sc commentScope, id string) (*ent.Comment, error) {
	c, err := r.Client.Comment.Query().Where(comment.ID(id), comment.SpaceID(sc.Space.ID)).Only(ctx)
	if ent.IsNotFound(err) || (err == nil && !inScope(sc, c.ChangeRequestID)) {
		return nil, apperr.NotFoundf("comment %s not found", id)
	}
	return c, err
}

// visibleReply is reply id of a visible comment.
func (r *Resolver) visibleReply(ctx context.Context, c *ent.Comment, id string) (*ent.CommentReply, error) {
	rp, err := r.Client.CommentReply.Query().Where(commentreply.ID(id), commentreply.CommentID(c.ID)).Only(ctx)
	if ent.IsNotFound(err) {
		return nil, apperr.NotFoundf("comment reply %s not found", id)
	}
	return rp, err
}

// authoredBody refuses (403) a change to the body of a comment or reply
// that the caller did not post.
func authoredBody(ctx context.Context, postedBy string) error {
	if postedBy != auth.ViewerID(ctx) {
		return apperr.Forbiddenf("only its author can edit the body of a comment or reply")
	}
	return nil
}

// removableBy refuses (403) to delete a comment or reply the caller may not
// delete: its author and the space's admins may.
func removableBy(ctx context.Context, sc commentScope, postedBy string) error {
	if !access.CommentPermissionsFor(sc.Role, postedBy == auth.ViewerID(ctx), true).Delete {
		return apperr.Forbiddenf("only its author or an admin of the space can delete a comment or reply")
	}
	return nil
}

// visibleSite is a docs site the caller has a role on (access.SiteRole:
// members with a role, and guests it is shared with), with the caller's
// standing; orgID, when not empty, is the organization the path names, and
// a site of another answers 404.
func visibleSite(ctx context.Context, orgID, siteID string) (*ent.Site, access.Membership, error) {
	s, _, m, err := visibleSiteRole(ctx, orgID, siteID)
	return s, m, err
}

// visibleSiteRole is visibleSite with the caller's role on the site.
func visibleSiteRole(ctx context.Context, orgID, siteID string) (*ent.Site, *access.Role, access.Membership, error) {
	s, err := loader.For(ctx).SiteByID.Load(ctx, siteID)()
	if err != nil {
		return nil, nil, access.Membership{}, err
	}
	if orgID != "" && s.OrganizationID != orgID {
		return nil, nil, access.Membership{}, apperr.NotFoundf("site %s not found", siteID)
	}
	r, m, err := siteRole(ctx, s)
	if err != nil {
		return nil, nil, m, err
	}
	if !access.CanSeeSite(r) {
		return nil, nil, m, apperr.NotFoundf("site %s not found", siteID)
	}
	return s, r, m, nil
}

// manageableSite is a visible site the caller may change: the create role
// on the site (organization admins, members with the create role, and
// those it is shared with as create or admin).
func manageableSite(ctx context.Context, orgID, siteID string) (*ent.Site, error) {
	s, r, _, err := visibleSiteRole(ctx, orgID, siteID)
	if err != nil {
		return nil, err
	}
	if !access.CanChangeSite(r) {
		return nil, apperr.Forbiddenf("changing a site needs the create role on it")
	}
	return s, nil
}

// adminHostname is a stored custom host name whose site the caller sees and
// whose organization the caller administers, with its site: 404 for a name
// not stored or a site the caller cannot see, 403 for members who are not
// admins.
func (r *Resolver) adminHostname(ctx context.Context, hostname string) (*ent.CustomHostname, *ent.Site, error) {
	h, err := r.Client.CustomHostname.Query().Where(customhostname.Hostname(NormalHost(hostname))).Only(ctx)
	if ent.IsNotFound(err) {
		return nil, nil, apperr.NotFoundf("custom hostname %s not found", hostname)
	}
	if err != nil {
		return nil, nil, err
	}
	s, _, err := visibleSite(ctx, h.OrganizationID, h.SiteID)
	if e, ok := apperr.As(err); ok && e.Kind == apperr.NotFound {
		return nil, nil, apperr.NotFoundf("custom hostname %s not found", hostname)
	}
	if err != nil {
		return nil, nil, err
	}
	if _, err := adminOrganization(ctx, h.OrganizationID); err != nil {
		return nil, nil, err
	}
	return h, s, nil
}

// manageableSitePart is a part of a site (a section, group, site space or
// share link) that the caller may change, read with get. It answers 404
// naming the part (`what id`) when the part does not exist, belongs to
// another site than siteID (when not empty: the site the path names), or
// belongs to a site the caller cannot see.
func manageableSitePart[T any](ctx context.Context, orgID, siteID, id, what string,
	get func(context.Context, string) (T, error), siteOf func(T) string) (*ent.Site, T, error) {
	var none T
	p, err := get(ctx, id)
	if ent.IsNotFound(err) || (err == nil && siteID != "" && siteOf(p) != siteID) {
		return nil, none, apperr.NotFoundf("%s %s not found", what, id)
	}
	if err != nil {
		return nil, none, err
	}
	s, err := manageableSite(ctx, orgID, siteOf(p))
	if e, ok := apperr.As(err); ok && e.Kind == apperr.NotFound {
		err = apperr.NotFoundf("%s %s not found", what, id)
	}
	return s, p, err
}

// sitesOrganization is an organization whose sites the caller may list:
// members see every site (access.CanSeeSites), guests those shared with
// them (contentScope.sites), strangers get 404.
func sitesOrganization(ctx context.Context, orgID string) (access.Membership, error) {
	_, m, err := visibleOrganization(ctx, orgID)
	return m, err
}

// siteCreatingOrganization is an organization the caller may create sites
// in.
func siteCreatingOrganization(ctx context.Context, orgID string) (*ent.Organization, error) {
	org, m, err := visibleOrganization(ctx, orgID)
	if err != nil {
		return nil, err
	}
	if !m.CanManageSites() {
		return nil, apperr.Forbiddenf("only admins and members with the create role can create sites")
	}
	return org, nil
}

// siteSpaceOf is a space the caller may read, of the site's organization,
// to add to a site: any other answers 404 naming the field.
func siteSpaceOf(ctx context.Context, s *ent.Site, spaceID string) (*ent.Space, error) {
	sp, _, err := visibleSpace(ctx, spaceID)
	if err == nil && sp.OrganizationID != s.OrganizationID {
		err = apperr.NotFoundf("space %s not found", spaceID)
	}
	return sp, err
}

// openAPIReader is the caller's standing in an organization whose OpenAPI
// specs it may read (members with a role; guests 403, strangers 404).
func openAPIReader(ctx context.Context, orgID string) (access.Membership, error) {
	m, err := visibleOrganizationMembership(ctx, orgID)
	if err != nil {
		return m, err
	}
	if !m.CanReadOpenAPISpecs() {
		return m, apperr.Forbiddenf("only members with a role can read OpenAPI specs")
	}
	return m, nil
}

// openAPIEditor is the caller's standing in an organization whose OpenAPI
// specs it may change (create and admin members; other members 403).
func openAPIEditor(ctx context.Context, orgID string) (access.Membership, error) {
	m, err := openAPIReader(ctx, orgID)
	if err != nil {
		return m, err
	}
	if !m.CanEditOpenAPISpecs() {
		return m, apperr.Forbiddenf("only members with the create role or admins can change OpenAPI specs")
	}
	return m, nil
}
