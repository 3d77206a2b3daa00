package graph

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"

	"github.com/folio/folio/ent"
	"github.com/folio/folio/ent/apitoken"
	"github.com/folio/folio/ent/changerequest"
	"github.com/folio/folio/ent/changerequestreview"
	"github.com/folio/folio/ent/collection"
	"github.com/folio/folio/ent/comment"
	"github.com/folio/folio/ent/commentreply"
	"github.com/folio/folio/ent/customfield"
	"github.com/folio/folio/ent/event"
	"github.com/folio/folio/ent/invite"
	"github.com/folio/folio/ent/openapispec"
	"github.com/folio/folio/ent/openapispecversion"
	"github.com/folio/folio/ent/organization"
	"github.com/folio/folio/ent/passkey"
	"github.com/folio/folio/ent/revision"
	"github.com/folio/folio/ent/samlprovider"
	"github.com/folio/folio/ent/session"
	"github.com/folio/folio/ent/site"
	"github.com/folio/folio/ent/siteredirect"
	"github.com/folio/folio/ent/sitesection"
	"github.com/folio/folio/ent/sitesectiongroup"
	"github.com/folio/folio/ent/sitesharelink"
	"github.com/folio/folio/ent/sitespace"
	"github.com/folio/folio/ent/space"
	"github.com/folio/folio/ent/team"
	"github.com/folio/folio/ent/translationsettings"
	"github.com/folio/folio/ent/user"
	"github.com/folio/folio/ent/webhook"
	"github.com/folio/folio/ent/webhookdelivery"
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
	{"ChangeRequestReview", changerequestreview.Table, changerequestreview.FieldSpaceID, func(r *Resolver, ctx context.Context, id, spaceID string) (model.Node, error) {
		return r.reviewNode(ctx, spaceID, id)
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
	// A version's owner is its spec's organization (a subquery on the
	// spec's primary key), so the read is the spec list's own check.
	{"OpenAPISpecVersion", openapispecversion.Table, "(SELECT organization_id FROM " + openapispec.Table + " WHERE " + openapispec.Table + ".id = spec_id)",
		func(r *Resolver, ctx context.Context, id, org string) (model.Node, error) {
			return r.openAPISpecVersionNode(ctx, org, id)
		}},
	// An event's id is a UUIDv7, unique across the schema like every
	// stored id; its owner is its organization ("" for a user's own
	// changes, which no audit log shows).
	{"AuditEvent", event.Table, event.FieldOrganizationID, func(r *Resolver, ctx context.Context, id, org string) (model.Node, error) {
		return r.OrganizationAuditEvent(ctx, org, id)
	}},
	{"Webhook", webhook.Table, webhook.FieldOrganizationID, func(r *Resolver, ctx context.Context, id, org string) (model.Node, error) {
		return r.WebhookByID(ctx, org, id)
	}},
	{"WebhookDelivery", webhookdelivery.Table, webhookdelivery.FieldOrganizationID, func(r *Resolver, ctx context.Context, id, org string) (model.Node, error) {
		return r.WebhookDeliveryByID(ctx, org, id)
	}},
	// A session is its user's alone.
	{"Session", session.Table, "", func(r *Resolver, ctx context.Context, id, _ string) (model.Node, error) {
		return r.viewerSession(ctx, id)
	}},
	// A passkey is its user's alone.
	{"Passkey", passkey.Table, "", func(r *Resolver, ctx context.Context, id, _ string) (model.Node, error) {
		return r.viewerPasskey(ctx, id)
	}},
	// An API token is its user's alone.
	{"APIToken", apitoken.Table, "", func(r *Resolver, ctx context.Context, id, _ string) (model.Node, error) {
		return r.viewerAPIToken(ctx, id)
	}},
	{"SiteRedirect", siteredirect.Table, "", func(r *Resolver, ctx context.Context, id, _ string) (model.Node, error) {
		return r.visibleRedirect(ctx, id)
	}},
	{"SiteShareLink", sitesharelink.Table, "", func(r *Resolver, ctx context.Context, id, _ string) (model.Node, error) {
		_, l, err := r.manageableShareLink(ctx, "", "", id)
		return l, err
	}},
}

// MaxNodes bounds nodes(ids:).
const MaxNodes = 100

// nodeLookup finds which table holds each of n ids, and each row's owner, in
// one statement: a UNION ALL of primary-key lookups, one per registered
// type, of which at most one matches an id (ids are unique across tables).
// $1…$n are the ids in every branch, on SQLite and PostgreSQL alike.
func nodeLookup(n int) string {
	params := make([]string, n)
	for i := range params {
		params[i] = fmt.Sprintf("$%d", i+1)
	}
	in := strings.Join(params, ", ")
	branches := make([]string, len(nodeTypes))
	for i, t := range nodeTypes {
		owner := "''"
		if t.owner != "" {
			owner = t.owner
		}
		branches[i] = fmt.Sprintf("SELECT %d, id, %s FROM %s WHERE id IN (%s)", i, owner, t.table, in)
	}
	return strings.Join(branches, " UNION ALL ")
}

// node finds an object by ID among the types the caller may see. A
// composite id (model.NodeID) names its type: no statement finds it. Any
// other id is looked up by one statement (nodeLookup), then the type's own
// read loads it through the same check as its own query, so node shows
// nothing the caller could not read otherwise. Unknown and hidden ids
// answer the same not-found error.
func (r *Resolver) node(ctx context.Context, id string) (model.Node, error) {
	if _, _, ok := model.ParseNodeID(id); ok {
		return r.compositeNode(ctx, id)
	}
	kinds, err := r.nodeKinds(ctx, []string{id})
	if err != nil {
		return nil, err
	}
	return r.storedNode(ctx, id, kinds[id])
}

// nodes is node for many ids, in order: one statement finds the types of
// every stored id, and reads of one type share their loaders' batches.
// Each id the caller cannot see is null with its own NOT_FOUND error at its
// index.
func (r *Resolver) nodes(ctx context.Context, ids []string) ([]model.Node, error) {
	if len(ids) > MaxNodes {
		return nil, apperr.InvalidField("ids", "at most %d ids, not %d", MaxNodes, len(ids))
	}
	var stored []string
	for _, id := range ids {
		if _, _, ok := model.ParseNodeID(id); !ok && !slices.Contains(stored, id) {
			stored = append(stored, id)
		}
	}
	kinds, err := r.nodeKinds(ctx, stored)
	if err != nil {
		return nil, err
	}
	out := make([]model.Node, len(ids))
	errs := make([]error, len(ids))
	var wg sync.WaitGroup
	for i, id := range ids {
		wg.Go(func() {
			if _, _, ok := model.ParseNodeID(id); ok {
				out[i], errs[i] = r.compositeNode(ctx, id)
			} else {
				out[i], errs[i] = r.storedNode(ctx, id, kinds[id])
			}
		})
	}
	wg.Wait()
	for i, err := range errs {
		if err == nil {
			continue
		}
		if _, ok := apperr.As(err); !ok {
			return nil, err
		}
		graphql.AddError(ctx, &gqlerror.Error{Err: err, Message: err.Error(), Path: append(graphql.GetPath(ctx), ast.PathIndex(i))})
	}
	return out, nil
}

// storedKind is where nodeLookup found an id: the index in nodeTypes of
// its type (-1: nowhere) and the row's owner.
type storedKind struct {
	kind  int
	owner string
}

// storedNode reads an id nodeLookup found (or did not).
func (r *Resolver) storedNode(ctx context.Context, id string, k *storedKind) (model.Node, error) {
	notFound := apperr.NotFoundf("node %s not found", id)
	if k == nil {
		return nil, notFound
	}
	n, err := nodeTypes[k.kind].read(r, ctx, id, k.owner)
	if _, ok := apperr.As(err); ok {
		return nil, notFound // not found, or visible but not for this caller: the same answer
	}
	return n, err
}

// nodeKinds runs nodeLookup for ids: the type and owner of each id some
// table holds.
func (r *Resolver) nodeKinds(ctx context.Context, ids []string) (map[string]*storedKind, error) {
	out := make(map[string]*storedKind, len(ids))
	if len(ids) == 0 {
		return out, nil
	}
	args := make([]any, len(ids))
	for i, id := range ids {
		args[i] = id
	}
	rows, err := r.Client.QueryContext(ctx, nodeLookup(len(ids)), args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var k storedKind
		var id string
		if err := rows.Scan(&k.kind, &id, &k.owner); err != nil {
			return nil, err
		}
		out[id] = &k
	}
	return out, rows.Close()
}

// compositeNode reads a composite id (model.NodeID) through the check of the
// query that shows its object; malformed or hidden ids are not found.
func (r *Resolver) compositeNode(ctx context.Context, id string) (model.Node, error) {
	notFound := apperr.NotFoundf("node %s not found", id)
	typ, parts, _ := model.ParseNodeID(id)
	c, ok := compositeTypes[typ]
	if !ok || len(parts) != c.parts {
		return nil, notFound
	}
	n, err := c.read(r, ctx, parts)
	if _, ok := apperr.As(err); ok || (err == nil && n == nil) {
		return nil, notFound
	}
	return n, err
}

// compositeType is a type whose ids model.NodeID makes: how many parts its
// ids have, and how to read one.
type compositeType struct {
	parts int
	read  func(r *Resolver, ctx context.Context, parts []string) (model.Node, error)
}

// compositeTypes registers every type with composite ids (graph/model's
// XNode constants); TestNodeCoversEveryType checks the schema.
var compositeTypes = map[string]compositeType{
	model.PageNode: {2, func(r *Resolver, ctx context.Context, p []string) (model.Node, error) {
		rev, err := r.visibleRevision(ctx, p[0])
		if err != nil {
			return nil, err
		}
		return r.RevisionPage(ctx, rev, p[1])
	}},
	model.FileNode: {2, func(r *Resolver, ctx context.Context, p []string) (model.Node, error) {
		rev, err := r.visibleRevision(ctx, p[0])
		if err != nil {
			return nil, err
		}
		files, err := r.AllRevisionFiles(ctx, rev)
		for _, f := range files {
			if f.FileID == p[1] {
				return model.FileOf(f), nil
			}
		}
		return nil, err
	}},
	model.MemberNode: {2, func(r *Resolver, ctx context.Context, p []string) (model.Node, error) {
		m, _, err := visibleMember(ctx, p[0], p[1])
		return model.MemberResult(m, err)
	}},
	model.SearchSectionNode: {4, func(r *Resolver, ctx context.Context, p []string) (model.Node, error) {
		return r.searchSectionNode(ctx, p[0], p[1], p[2], p[3])
	}},
	model.SSOProviderLoginNode: {2, func(r *Resolver, ctx context.Context, p []string) (model.Node, error) {
		if _, err := visibleOrganizationMembership(ctx, p[0]); err != nil {
			return nil, err
		}
		logins, err := r.SSOProviders(ctx, p[0])
		for _, l := range logins {
			if l.ProviderID == p[1] {
				return l, nil
			}
		}
		return nil, err
	}},
	model.CommentPageTargetNode: {3, func(r *Resolver, ctx context.Context, p []string) (model.Node, error) {
		t, err := r.commentTargetNode(ctx, p[0], p[1])
		if err != nil || t.Page == nil || t.Page.PageID != p[2] {
			return nil, err
		}
		return t.Page, nil
	}},
	model.PublishedPageNode: {4, func(r *Resolver, ctx context.Context, p []string) (model.Node, error) {
		return r.publishedPageNode(ctx, p[0], p[1], p[2], p[3])
	}},
	model.CommentNodeTargetNode: {3, func(r *Resolver, ctx context.Context, p []string) (model.Node, error) {
		t, err := r.commentTargetNode(ctx, p[0], p[1])
		if err != nil || t.Node == nil || t.Node.Key != p[2] {
			return nil, err
		}
		return t.Node, nil
	}},
}

// gitBookID is the GitBook id an argument names: a composite id of type
// typ gives its last part (a Page node's page id, a File node's file id);
// anything else is taken as the GitBook id itself.
func gitBookID(typ, id string) string {
	if t, parts, ok := model.ParseNodeID(id); ok && t == typ {
		return parts[len(parts)-1]
	}
	return id
}

// visibleRevision is a revision of a space the caller can read (its own
// revisions and its change requests').
func (r *Resolver) visibleRevision(ctx context.Context, id string) (*ent.Revision, error) {
	rev, err := loadRevision(ctx, id)
	if err != nil {
		return nil, err
	}
	if _, _, err := visibleSpace(ctx, rev.SpaceID); err != nil {
		return nil, err
	}
	return rev, scopedRevision(ctx, rev)
}

// commentTargetNode is the target of comment commentID of space spaceID.
func (r *Resolver) commentTargetNode(ctx context.Context, spaceID, commentID string) (*model.CommentTarget, error) {
	c, err := r.commentNode(ctx, spaceID, commentID)
	if err != nil {
		return nil, err
	}
	if c.SpaceID != spaceID {
		return nil, apperr.NotFoundf("comment %s not found", commentID)
	}
	return r.CommentTarget(ctx, c)
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
