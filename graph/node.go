package graph

import (
	"context"
	"fmt"
	"strings"

	"github.com/folio/folio/ent/changerequest"
	"github.com/folio/folio/ent/collection"
	"github.com/folio/folio/ent/comment"
	"github.com/folio/folio/ent/commentreply"
	"github.com/folio/folio/ent/customfield"
	"github.com/folio/folio/ent/invite"
	"github.com/folio/folio/ent/openapispec"
	"github.com/folio/folio/ent/organization"
	"github.com/folio/folio/ent/revision"
	"github.com/folio/folio/ent/samlprovider"
	"github.com/folio/folio/ent/site"
	"github.com/folio/folio/ent/sitesection"
	"github.com/folio/folio/ent/sitesectiongroup"
	"github.com/folio/folio/ent/sitespace"
	"github.com/folio/folio/ent/space"
	"github.com/folio/folio/ent/team"
	"github.com/folio/folio/ent/translationsettings"
	"github.com/folio/folio/ent/user"
	"github.com/folio/folio/graph/model"
	"github.com/folio/folio/internal/apperr"
	"github.com/folio/folio/internal/auth"
	"github.com/folio/folio/internal/paging"
)

// nodeType is one GraphQL type that implements Node: the table whose
// primary key its ids are, the column naming the organization or space a
// row belongs to (when its own query is addressed under one), and how to
// read it through the same check as that query.
type nodeType struct {
	name  string // GraphQL type name, for errors and tests
	table string
	owner string // "" when the type is read by id alone
	read  func(r *Resolver, ctx context.Context, id, owner string) (model.Node, error)
}

// nodeTypes registers every type that implements Node; an area that adds
// one adds its line here (TestNodeCoversEveryType checks the schema).
var nodeTypes = []nodeType{
	{"Site", site.Table, "", func(r *Resolver, ctx context.Context, id, _ string) (model.Node, error) {
		return r.OrganizationSite(ctx, "", id)
	}},
	{"SiteSection", sitesection.Table, "", func(r *Resolver, ctx context.Context, id, _ string) (model.Node, error) {
		return r.visibleSection(ctx, id)
	}},
	{"SiteSectionGroup", sitesectiongroup.Table, "", func(r *Resolver, ctx context.Context, id, _ string) (model.Node, error) {
		return r.visibleGroup(ctx, id)
	}},
	{"SiteSpace", sitespace.Table, "", func(r *Resolver, ctx context.Context, id, _ string) (model.Node, error) {
		return r.visibleSiteSpace(ctx, id)
	}},
	{"Organization", organization.Table, "", func(r *Resolver, ctx context.Context, id, _ string) (model.Node, error) {
		o, _, err := visibleOrganization(ctx, id)
		return o, err
	}},
	{"Space", space.Table, "", func(r *Resolver, ctx context.Context, id, _ string) (model.Node, error) {
		s, _, err := visibleSpace(ctx, id)
		return s, err
	}},
	{"Collection", collection.Table, "", func(r *Resolver, ctx context.Context, id, _ string) (model.Node, error) {
		c, _, err := visibleCollection(ctx, id)
		return c, err
	}},
	{"User", user.Table, "", func(r *Resolver, ctx context.Context, id, _ string) (model.Node, error) {
		if id != auth.ViewerID(ctx) {
			return nil, apperr.NotFoundf("user %s not found", id) // users see only themselves
		}
		return viewerUser(ctx)
	}},
	{"Team", team.Table, team.FieldOrganizationID, func(r *Resolver, ctx context.Context, id, org string) (model.Node, error) {
		return r.OrganizationTeam(ctx, org, id)
	}},
	{"TranslationSettings", translationsettings.Table, translationsettings.FieldOrganizationID, func(r *Resolver, ctx context.Context, id, org string) (model.Node, error) {
		return r.TranslationByID(ctx, org, id)
	}},
	{"CustomField", customfield.Table, customfield.FieldOrganizationID, func(r *Resolver, ctx context.Context, id, org string) (model.Node, error) {
		return r.customFieldByID(ctx, org, id)
	}},
	{"OpenAPISpec", openapispec.Table, openapispec.FieldOrganizationID, func(r *Resolver, ctx context.Context, id, org string) (model.Node, error) {
		return r.openAPISpecByID(ctx, org, id)
	}},
	{"SAMLProvider", samlprovider.Table, samlprovider.FieldOrganizationID, func(r *Resolver, ctx context.Context, id, org string) (model.Node, error) {
		return r.SAMLProviderByID(ctx, org, id)
	}},
	{"Invite", invite.Table, invite.FieldOrganizationID, func(r *Resolver, ctx context.Context, id, org string) (model.Node, error) {
		return r.InviteLink(ctx, org, id)
	}},
	{"ChangeRequest", changerequest.Table, changerequest.FieldSpaceID, func(r *Resolver, ctx context.Context, id, spaceID string) (model.Node, error) {
		return r.FindChangeRequest(ctx, spaceID, id)
	}},
	{"Comment", comment.Table, comment.FieldSpaceID, func(r *Resolver, ctx context.Context, id, spaceID string) (model.Node, error) {
		return r.commentNode(ctx, spaceID, id)
	}},
	{"CommentReply", commentreply.Table, commentreply.FieldSpaceID, func(r *Resolver, ctx context.Context, id, spaceID string) (model.Node, error) {
		return r.replyNode(ctx, spaceID, id)
	}},
	{"Revision", revision.Table, revision.FieldSpaceID, func(r *Resolver, ctx context.Context, id, spaceID string) (model.Node, error) {
		return r.spaceRevisionByID(ctx, spaceID, id)
	}},
}

// nodeLookup finds which table holds an id, and the row's owner, in one
// statement: a UNION ALL of primary-key lookups, one per registered type,
// of which at most one matches (ids are unique across tables). $1 is the
// id in every branch, on SQLite and PostgreSQL alike.
var nodeLookup = func() string {
	branches := make([]string, len(nodeTypes))
	for i, t := range nodeTypes {
		owner := "''"
		if t.owner != "" {
			owner = t.owner
		}
		branches[i] = fmt.Sprintf("SELECT %d, %s FROM %s WHERE id = $1", i, owner, t.table)
	}
	return strings.Join(branches, " UNION ALL ")
}()

// node finds an object by ID among the types the caller may see: one
// statement finds its type, then the type's own read loads it through the
// same check as its own query, so node shows nothing the caller could not
// read otherwise. Unknown and hidden ids answer the same not-found error.
func (r *Resolver) node(ctx context.Context, id string) (model.Node, error) {
	notFound := apperr.NotFoundf("node %s not found", id)
	kind, owner, err := r.nodeKind(ctx, id)
	if err != nil {
		return nil, err
	}
	if kind < 0 {
		return nil, notFound
	}
	n, err := nodeTypes[kind].read(r, ctx, id, owner)
	if _, ok := apperr.As(err); ok {
		return nil, notFound // not found, or visible but not for this caller: the same answer
	}
	return n, err
}

// nodeKind runs nodeLookup: the index in nodeTypes of the id's type and
// the row's owner, or -1 when no table holds the id.
func (r *Resolver) nodeKind(ctx context.Context, id string) (kind int, owner string, err error) {
	rows, err := r.Client.QueryContext(ctx, nodeLookup, id)
	if err != nil {
		return -1, "", err
	}
	defer rows.Close()
	if !rows.Next() {
		return -1, "", rows.Err()
	}
	if err := rows.Scan(&kind, &owner); err != nil {
		return -1, "", err
	}
	return kind, owner, rows.Close()
}

// pageInfo is the Relay view of a page.
func pageInfo[T any](p paging.Page[T]) *model.PageInfo {
	info := &model.PageInfo{HasNextPage: p.Next != nil, HasPreviousPage: p.HasPrevious}
	if n := len(p.Cursors); n > 0 {
		info.StartCursor = &p.Cursors[0]
		info.EndCursor = &p.Cursors[n-1]
	}
	return info
}

// enumString turns an optional ent enum into an optional string.
func enumString[T ~string](v *T) *string {
	if v == nil {
		return nil
	}
	s := string(*v)
	return &s
}
