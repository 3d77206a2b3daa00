package graph

import (
	"context"
	"slices"

	"github.com/folio/folio/ent"
	"github.com/folio/folio/ent/sitespace"
	"github.com/folio/folio/graph/loader"
	"github.com/folio/folio/graph/model"
	"github.com/folio/folio/internal/adaptive"
	"github.com/folio/folio/internal/apperr"
	"github.com/folio/folio/internal/markdown"
)

// What GitBook's renderer reads for a page (issue 29): its document, with
// adaptive conditions evaluated for the caller's visitor claims, and its
// meta links (canonical address, previous / next / parent, alternates).

// Evaluation says which `if` blocks of a document are decided
// (getPageDocumentInRevisionById?evaluated=).
type Evaluation string

const (
	// EvaluateNone keeps every condition as written.
	EvaluateNone Evaluation = "false"
	// EvaluateAll decides every condition against the caller's claims.
	EvaluateAll Evaluation = "true"
	// EvaluateDeterministic decides only the conditions that read no
	// claim (`true`, `1 < 2`): what is the same for every visitor.
	EvaluateDeterministic Evaluation = "deterministic-only"
)

// DocumentOptions are how a page's document is answered.
type DocumentOptions struct {
	Evaluated Evaluation
	// Dereferenced asks for references to other content to be expanded.
	// Folio has no reusable content and keeps content-ref blocks as links
	// (their target is a URL, not content to inline), so a document has
	// nothing to expand: the flag is accepted and changes nothing.
	Dereferenced bool
}

// RevisionPageDocument is page pageID of revision revisionID of space
// spaceID as GitBook's JSON document: the caller reads the space and the
// revision is the space's (404 otherwise, as an unknown id); a group or a
// link has no document (404).
func (r *Resolver) RevisionPageDocument(ctx context.Context, spaceID, revisionID, pageID string, opt DocumentOptions) (markdown.Document, error) {
	rev, err := r.SpaceRevisionByID(ctx, spaceID, revisionID)
	if err != nil {
		return markdown.Document{}, err
	}
	p, err := r.RevisionPage(ctx, rev, pageID)
	if err != nil {
		return markdown.Document{}, err
	}
	return r.PageDocumentWith(ctx, p, opt)
}

// PageDocumentWith is a page's document under opt (Page.evaluatedDocument).
func (r *Resolver) PageDocumentWith(ctx context.Context, p *model.Page, opt DocumentOptions) (markdown.Document, error) {
	if !p.IsDocument() {
		return markdown.Document{}, apperr.NotFoundf("page %s is a %s: it has no document", p.PageID, p.Kind)
	}
	doc, err := r.PageDocument(ctx, p)
	if err != nil || opt.Evaluated == EvaluateNone || opt.Evaluated == "" {
		return doc, err
	}
	ev, err := r.newEvaluator(ctx, opt.Evaluated)
	if err != nil {
		return markdown.Document{}, err
	}
	// The stored document is shared (loader.PageDerived): evaluate a copy.
	doc.Nodes = ev.nodes(doc.Nodes)
	return doc, nil
}

// evaluator decides the `if` blocks of documents for one caller.
type evaluator struct {
	mode   Evaluation
	schema *adaptive.Schema
	site   *ent.Site
	claims map[string]any
}

// newEvaluator evaluates for the caller: a site-scoped token's visitor
// claims against its site's adaptive schema; any other caller has no
// claims, and conditions compile against the empty schema.
func (r *Resolver) newEvaluator(ctx context.Context, mode Evaluation) (*evaluator, error) {
	ev := &evaluator{mode: mode, schema: adaptive.EmptySchema()}
	if sc := siteScopeOf(ctx); sc != nil {
		s, err := loader.For(ctx).SiteByID.Load(ctx, sc.SiteID)()
		if e, ok := apperr.As(err); err != nil && (!ok || e.Kind != apperr.NotFound) {
			return nil, err
		}
		if err == nil && s != nil {
			ev.site, ev.schema = s, SchemaOf(s)
		}
		ev.claims = sc.Claims
	}
	return ev, nil
}

// condition compiles src (cached per site when there is one); ok is false
// when it does not compile (a claim the schema lacks, a syntax error).
func (ev *evaluator) condition(src string) (c *adaptive.Condition, ok bool) {
	var err error
	if ev.site != nil {
		c, err = compiledCondition(src, ev.schema, ev.site)
	} else {
		c, err = adaptive.Compile(src, ev.schema)
	}
	return c, err == nil
}

// nodes is ns with its `if` blocks decided: a block whose condition holds
// is replaced by its content, one whose condition fails is removed, and
// one left undecided (deterministic-only, a condition reading claims)
// stays with its content evaluated. ns itself is not changed.
func (ev *evaluator) nodes(ns []markdown.Node) []markdown.Node {
	if ns == nil {
		return nil
	}
	out := make([]markdown.Node, 0, len(ns))
	for _, n := range ns {
		if n.Object != "block" {
			out = append(out, n)
			continue
		}
		if n.Type == "if" && n.Data != nil {
			// A condition that does not compile is false when everything is
			// decided (it was written to hide, as sections' conditions in
			// publishedStructure) and undecided when only what reads no
			// claim is: it may read one.
			c, ok := ev.condition(n.Data.Expression)
			if ev.mode == EvaluateAll || (ok && len(c.Claims()) == 0) {
				if ok && c.Eval(ev.claims) {
					out = append(out, ev.nodes(n.Nodes)...)
				}
				continue
			}
		}
		n.Nodes = ev.nodes(n.Nodes)
		out = append(out, n)
	}
	return out
}

// MetaLinkTarget is where a meta link points: a page of this space (Page
// set) or a published address (URL set).
type MetaLinkTarget struct {
	Page, Space, URL string
}

// PageMetaLinks are a page's meta links (GitBook's RevisionPageMetaLinks):
// its canonical address, its alternates (the same path in the other
// variants of its site section), and its neighbours in reading order.
type PageMetaLinks struct {
	Canonical          MetaLinkTarget
	Alternates         []MetaLinkTarget
	Previous, Next, Up *MetaLinkTarget
}

// SpacePageMetaLinks are the meta links of a page of a space's current
// revision.
func (r *Resolver) SpacePageMetaLinks(ctx context.Context, spaceID, pageID string) (*PageMetaLinks, error) {
	rev, err := r.SpaceRevision(ctx, spaceID)
	if err != nil {
		return nil, err
	}
	return r.RevisionPageMetaLinks(ctx, rev, pageID)
}

// ChangeRequestPageMetaLinks are the meta links of a page of a change
// request's revision.
func (r *Resolver) ChangeRequestPageMetaLinks(ctx context.Context, spaceID, crID, pageID string) (*PageMetaLinks, error) {
	rev, err := r.ChangeRequestRevision(ctx, spaceID, crID)
	if err != nil {
		return nil, err
	}
	return r.RevisionPageMetaLinks(ctx, rev, pageID)
}

// RevisionIDPageMetaLinks are the meta links of a page of any revision of
// a space.
func (r *Resolver) RevisionIDPageMetaLinks(ctx context.Context, spaceID, revisionID, pageID string) (*PageMetaLinks, error) {
	rev, err := r.SpaceRevisionByID(ctx, spaceID, revisionID)
	if err != nil {
		return nil, err
	}
	return r.RevisionPageMetaLinks(ctx, rev, pageID)
}

// RevisionPageMetaLinks computes a page's meta links in a revision the
// caller already reads (the one definition the three operations share).
//
//   - previous / next: the page's neighbours in the published reading order
//     (published.Nav.Neighbours: listed documents, hidden pages left out);
//     up: its parent page.
//   - canonical: the page's address on the first published site (by site
//     space creation) showing the space, the page's path below the site
//     space's address; the page itself when no published site shows it.
//   - alternates: the same path in the other site spaces of that site
//     space's section (its variants) when their current revision has a page
//     there. Folio's translation settings name languages but tie no space to
//     a language, so there are no language alternates.
func (r *Resolver) RevisionPageMetaLinks(ctx context.Context, rev *ent.Revision, pageID string) (*PageMetaLinks, error) {
	p, err := r.RevisionPage(ctx, rev, pageID)
	if err != nil {
		return nil, err
	}
	out := &PageMetaLinks{Canonical: MetaLinkTarget{Page: p.PageID}, Alternates: []MetaLinkTarget{}}
	nav, err := r.PublishedNav(ctx, rev.ID)
	if err != nil {
		return nil, err
	}
	if np := nav.ByID[p.PageID]; np != nil {
		prev, next := nav.Neighbours(np)
		if prev != nil {
			out.Previous = &MetaLinkTarget{Page: prev.ID}
		}
		if next != nil {
			out.Next = &MetaLinkTarget{Page: next.ID}
		}
	}
	if p.ParentPageID != "" {
		out.Up = &MetaLinkTarget{Page: p.ParentPageID}
	}
	path := p.Path()
	mine, err := r.Client.SiteSpace.Query().Where(sitespace.SpaceID(rev.SpaceID)).
		Order(ent.Asc(sitespace.FieldCreatedAt), ent.Asc(sitespace.FieldID)).All(ctx)
	if err != nil {
		return nil, err
	}
	for _, ss := range mine {
		u, err := r.SiteSpacePublishedURL(ctx, ss)
		if err != nil {
			return nil, err
		}
		if u == nil {
			continue // its site is not published
		}
		out.Canonical = MetaLinkTarget{URL: *u + path}
		if out.Alternates, err = r.variantAlternates(ctx, ss, path); err != nil {
			return nil, err
		}
		break
	}
	return out, nil
}

// variantAlternates are the addresses of path in the site spaces that share
// ss's section (or its site's root), ss left out, where their space's
// current revision has a page at path.
func (r *Resolver) variantAlternates(ctx context.Context, ss *ent.SiteSpace, path string) ([]MetaLinkTarget, error) {
	st, err := loader.For(ctx).SiteStructure.Load(ctx, ss.SiteID)()
	if err != nil {
		return nil, err
	}
	out := []MetaLinkTarget{}
	for _, other := range st.SiteSpaces {
		if other.ID == ss.ID || !sameContainer(other.SectionID, ss.SectionID) {
			continue
		}
		sp := st.Spaces[other.SpaceID]
		if sp == nil || sp.RevisionID == "" {
			continue
		}
		nav, err := r.PublishedNav(ctx, sp.RevisionID)
		if err != nil {
			return nil, err
		}
		if nav.ByPath[path] == nil {
			continue
		}
		u, err := r.SiteSpacePublishedURL(ctx, other)
		if err != nil {
			return nil, err
		}
		if u != nil && !slices.ContainsFunc(out, func(t MetaLinkTarget) bool { return t.URL == *u+path }) {
			out = append(out, MetaLinkTarget{URL: *u + path})
		}
	}
	return out, nil
}

// evaluationOf is GraphQL's DocumentEvaluation as an Evaluation.
func evaluationOf(e model.DocumentEvaluation) Evaluation {
	switch e {
	case model.DocumentEvaluationAll:
		return EvaluateAll
	case model.DocumentEvaluationDeterministicOnly:
		return EvaluateDeterministic
	}
	return EvaluateNone
}

// PageEvaluatedDocument is Page.evaluatedDocument: null for a group or a
// link.
func (r *Resolver) PageEvaluatedDocument(ctx context.Context, p *model.Page, e model.DocumentEvaluation, dereferenced bool) (any, error) {
	if !p.IsDocument() {
		return nil, nil
	}
	return r.PageDocumentWith(ctx, p, DocumentOptions{Evaluated: evaluationOf(e), Dereferenced: dereferenced})
}

// PageMetaLinksObject is Page.metaLinks: the page in its revision (which
// the caller reached, so reads).
func (r *Resolver) PageMetaLinksObject(ctx context.Context, p *model.Page) (*model.PageMetaLinks, error) {
	rev, err := loadRevision(ctx, p.Tree.RevisionID)
	if err != nil {
		return nil, err
	}
	l, err := r.RevisionPageMetaLinks(ctx, rev, p.PageID)
	if err != nil {
		return nil, err
	}
	target := func(t *MetaLinkTarget) *model.PageMetaLinkTarget {
		if t == nil {
			return nil
		}
		if t.URL != "" {
			return &model.PageMetaLinkTarget{Kind: "url", URL: &t.URL}
		}
		return &model.PageMetaLinkTarget{Kind: "page", Page: &t.Page}
	}
	out := &model.PageMetaLinks{Canonical: target(&l.Canonical), Alternates: make([]*model.PageMetaLinkTarget, len(l.Alternates)),
		Previous: target(l.Previous), Next: target(l.Next), Parent: target(l.Up)}
	for i := range l.Alternates {
		out.Alternates[i] = target(&l.Alternates[i])
	}
	return out, nil
}
