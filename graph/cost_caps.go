package graph

import (
	"sort"

	"github.com/vektah/gqlparser/v2/ast"

	"github.com/folio/folio/internal/events"
	"github.com/folio/folio/internal/mergerules"
	"github.com/folio/folio/internal/paging"
)

// listFieldCaps is the most elements each plain list of objects of the
// schema can hold, for the cost of queries (connections, with `first`, and
// the page tree are costed by their own rules; lists of scalars count as one
// value). A test fails when a list of objects is missing here.
var listFieldCaps = map[string]int64{
	// An operation keeps its first MaxGitSyncConflicts conflicts.
	"GitSyncOperation.conflicts": MaxGitSyncConflicts,
	// nodes(ids:) takes at most MaxNodes ids.
	"Query.nodes": MaxNodes,
	// One per address of an invitation (people.go).
	"InviteUsersToOrganizationResult.users":       MaxInvitees,
	"InviteUsersToOrganizationResult.inviteLinks": MaxInvitees,
	// A processing reports one problem (the first it meets).
	"OpenAPISpec.lastProcessedErrors": 1,
	// A version holds at most openapi.Defaults.Files files.
	"OpenAPISpecVersion.files": 100,
	// Unbounded: a user may belong to any number of organizations. The
	// paging maximum stands for it (organizationsConnection pages them).
	"Viewer.organizations": paging.MaxLimit,
	// The newest live sessions (sessions.go).
	"Viewer.sessions": MaxSessionsListed,
	// A user holds at most MaxPasskeys (passkeys.go).
	"Viewer.passkeys": MaxPasskeys,
	// Unbounded: a revision's files are not capped; the paging maximum.
	"Revision.files": paging.MaxLimit,
	// The first MaxLinkPagesPerItem pages linking to a target
	// (LinkUsage.morePages counts the others).
	"LinkUsage.pages": MaxLinkPagesPerItem,
	// Pages of one revision.
	"Space.fileBacklinks": MaxPagesPerRevision,
	"Page.ancestors":      MaxPagesPerRevision,
	// At most the limit argument's maximum.
	"RevisionChanges.changes": paging.MaxLimit,
	// Unbounded: two per member who edited or commented; the paging maximum.
	"ChangeRequest.contributors":  paging.MaxLimit,
	"ChangeRequest.fileBacklinks": MaxPagesPerRevision,
	"Space.pageBacklinks":         MaxPagesPerRevision,
	"ChangeRequest.pageBacklinks": MaxPagesPerRevision,
	// Reviews (reviews.go, internal/mergerules).
	"ChangeRequest.requestedReviewers": MaxRequestedReviewers,
	"Mutation.requestReviewers":        MaxRequestedReviewers,
	"Mutation.bulkUpsertSiteRedirects": MaxBulkRedirects,
	"Mergeability.rules":               mergerules.MaxRules,
	"MergeRules.rules":                 mergerules.MaxRules,
	// One item per distinct link target of a revision's content, the first
	// MaxLinkItems of them (LinksResult.more counts the others).
	"LinksResult.items": MaxLinkItems,
	// Unbounded: one per custom field of the organization; the paging maximum.
	"Space.customFields": paging.MaxLimit,
	// Unbounded: one per active SAML provider; the paging maximum.
	"Organization.ssoProviders": paging.MaxLimit,
	// A comment or reply holds at most MaxReactionEmoji different emoji
	// (applyReactions); each emoji's users are unbounded (members of the
	// organization): the paging maximum.
	"Comment.reactions":      MaxReactionEmoji,
	"CommentReply.reactions": MaxReactionEmoji,
	"EmojiReaction.users":    paging.MaxLimit,
	// A site's structure (sites.go: written limits).
	"Site.sections":          MaxSectionsPerSite,
	"Site.sectionGroups":     MaxGroupsPerSite,
	"Site.siteSpaces":        MaxRootSiteSpacesPerSite,
	"SiteSection.siteSpaces": MaxSiteSpacesPerSection,
	// The other variants of a section (documents.go).
	"PageMetaLinks.alternates":  max(MaxSiteSpacesPerSection, MaxRootSiteSpacesPerSite),
	"SiteSectionGroup.sections": MaxSectionsPerSite,
	"Site.shareLinks":           MaxShareLinksPerSite,
	// searchResults (search.go) keeps at most 3 matching sections a page.
	"SearchPage.sections": 3,
	// Site insights and search (insights_aggregate.go, search_site.go).
	"Site.visitorSegments":       maxSegments,
	"SiteInsightsResult.columns": maxInsightsColumns,
	"SiteSearchSpace.pages":      maxSiteSearchPages,
	"SiteSearchPage.sections":    3,
	// A published page's breadcrumbs are pages of its revision; its
	// outline is cut at MaxOutlineHeadings (sites_pages.go).
	"PublishedPage.ancestors": MaxPagesPerRevision,
	"PublishedPage.outline":   MaxOutlineHeadings,
	// The action catalog (internal/events), fixed at build time.
	"Organization.auditEventActions": int64(len(events.Actions())),
	// Unbounded: a delivery keeps every attempt of every sequence
	// (FOLIO_WEBHOOK_MAX_ATTEMPTS each, one sequence more per redelivery);
	// the paging maximum.
	"WebhookDelivery.attempts": paging.MaxLimit,
}

// pageTreeRoots and pageTreeLevels are the fields of a revision's page
// tree, which holds at most MaxPagesPerRevision pages however deep it
// nests: a revision's pages, and the navigation of the revision a site
// space shows (its listed pages).
var (
	pageTreeRoots  = map[string]bool{"Revision.pages": true, "SiteSpace.pages": true}
	pageTreeLevels = map[string]bool{"Page.pages": true, "PublishedPage.pages": true}
)

type ruleKind int

const (
	plain      ruleKind = iota // a single value, or a list of cap elements
	connection                 // a list paged by `first`
	treeRoot                   // Revision.pages, SiteSpace.pages
	inTree                     // Page.pages, PublishedPage.pages
)

type listRule struct {
	kind ruleKind
	cap  int64
}

// listCaps is the cost rule of every composite field of a schema, found once
// when the handler is built.
type listCaps struct {
	rules map[*ast.FieldDefinition]listRule
	// undocumented lists the lists of objects missing from listFieldCaps
	// (costed at paging.MaxLimit meanwhile).
	undocumented []string
}

var single = listRule{kind: plain, cap: 1}

func (c *listCaps) rule(def *ast.FieldDefinition) listRule {
	if r, ok := c.rules[def]; ok {
		return r
	}
	return single
}

func newListCaps(schema *ast.Schema) *listCaps {
	c := &listCaps{rules: map[*ast.FieldDefinition]listRule{}}
	introspection := introspectionCaps(schema)
	// A connection's edges are as many as its `first`: the connection field
	// multiplies by it, so its edges list counts once.
	connections := map[string]bool{}
	for _, t := range schema.Types {
		for _, f := range t.Fields {
			if f.Arguments.ForName("first") != nil {
				connections[f.Type.Name()] = true
			}
		}
	}
	for _, t := range schema.Types {
		if t.Kind != ast.Object && t.Kind != ast.Interface {
			continue
		}
		for _, f := range t.Fields {
			key := t.Name + "." + f.Name
			switch {
			case f.Arguments.ForName("first") != nil:
				c.rules[f] = listRule{kind: connection}
			case connections[t.Name] && f.Name == "edges":
				c.rules[f] = single
			case pageTreeRoots[key]:
				c.rules[f] = listRule{kind: treeRoot}
			case pageTreeLevels[key]:
				c.rules[f] = listRule{kind: inTree}
			case f.Type.Elem != nil && isComposite(schema, f.Type):
				n, ok := listFieldCaps[key]
				if !ok {
					n, ok = introspection[key]
				}
				if !ok {
					n = paging.MaxLimit
					c.undocumented = append(c.undocumented, key)
				}
				c.rules[f] = listRule{kind: plain, cap: n}
			}
		}
	}
	sort.Strings(c.undocumented)
	return c
}

func isComposite(schema *ast.Schema, t *ast.Type) bool {
	def := schema.Types[t.Name()]
	return def != nil && (def.Kind == ast.Object || def.Kind == ast.Interface || def.Kind == ast.Union)
}

// introspectionCaps bounds the introspection lists by the schema itself:
// the number of its types and directives, and the most fields, arguments,
// enum values, interfaces and possible types any one of them has.
func introspectionCaps(schema *ast.Schema) map[string]int64 {
	var fields, args, enums, ifaces, possible int
	for _, t := range schema.Types {
		fields = max(fields, len(t.Fields))
		enums = max(enums, len(t.EnumValues))
		ifaces = max(ifaces, len(t.Interfaces))
		possible = max(possible, len(schema.PossibleTypes[t.Name]))
		for _, f := range t.Fields {
			args = max(args, len(f.Arguments))
		}
	}
	for _, d := range schema.Directives {
		args = max(args, len(d.Arguments))
	}
	return map[string]int64{
		"__Schema.types":       int64(len(schema.Types)),
		"__Schema.directives":  int64(len(schema.Directives)),
		"__Type.fields":        int64(fields),
		"__Type.inputFields":   int64(fields),
		"__Type.enumValues":    int64(enums),
		"__Type.interfaces":    int64(ifaces),
		"__Type.possibleTypes": int64(possible),
		"__Field.args":         int64(args),
		"__Directive.args":     int64(args),
	}
}
