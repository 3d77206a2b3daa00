package graph

import (
	"context"
	"sort"
	"strings"
	"unicode/utf8"

	"entgo.io/ent/dialect/sql"
	"github.com/99designs/gqlgen/graphql"

	"github.com/folio/folio/ent"
	"github.com/folio/folio/ent/page"
	"github.com/folio/folio/ent/predicate"
	"github.com/folio/folio/ent/space"
	"github.com/folio/folio/graph/loader"
	"github.com/folio/folio/graph/model"
	"github.com/folio/folio/internal/apperr"
	"github.com/folio/folio/internal/events"
	"github.com/folio/folio/internal/markdown"
	"github.com/folio/folio/internal/paging"
	"github.com/folio/folio/internal/search"
)

// The index holds the current revision of every space: each write that
// moves a space's content (live edit, merge, duplicate, import) updates the
// rows of the pages that changed, in the same transaction.

// reindex brings the index of spaceID from the pages of old (nil: none) to
// those of next.
func (r *Resolver) reindex(ctx context.Context, tx *ent.Client, spaceID string, old, next *draft) error {
	var changed, removed []string
	for id, p := range next.pages {
		if old == nil {
			changed = append(changed, id)
			continue
		}
		if o, ok := old.pages[id]; !ok || o.Hash != p.Hash || o.Title != p.Title {
			changed = append(changed, id)
		}
	}
	if old != nil {
		for id := range old.pages {
			if _, ok := next.pages[id]; !ok {
				removed = append(removed, id)
			}
		}
	}
	if len(changed) == 0 && len(removed) == 0 {
		return nil
	}
	sort.Strings(changed)
	// Bodies not in the draft were stored before: read them in one go.
	var missing []string
	for _, id := range changed {
		if h := next.pages[id].Hash; h != "" {
			if _, ok := next.bodies[h]; !ok {
				missing = append(missing, h)
			}
		}
	}
	texts := map[string]string{}
	if len(missing) > 0 {
		values, errs := loader.For(ctx).PageMarkdown.LoadMany(ctx, missing)()
		for i, h := range missing {
			if errs != nil && errs[i] != nil {
				return errs[i]
			}
			texts[h] = values[i]
		}
	}
	docs := make([]search.Doc, 0, len(changed))
	for _, id := range changed {
		p := next.pages[id]
		body, ok := next.bodies[p.Hash]
		if !ok {
			body = texts[p.Hash]
		}
		docs = append(docs, search.Doc{SpaceID: spaceID, PageID: id, Title: p.Title, Body: markdown.Text(body)})
	}
	stmts := search.Delete(r.Dialect, spaceID, append(changed, removed...))
	stmts = append(stmts, search.Insert(r.Dialect, docs)...)
	for _, st := range stmts {
		if _, err := tx.ExecContext(ctx, st.SQL, st.Args...); err != nil {
			return err
		}
	}
	return nil
}

// unindexSpace drops a purged space from the index.
func (r *Resolver) unindexSpace(ctx context.Context, tx *ent.Client, spaceID string) error {
	for _, st := range search.Delete(r.Dialect, spaceID, nil) {
		if _, err := tx.ExecContext(ctx, st.SQL, st.Args...); err != nil {
			return err
		}
	}
	return nil
}

// DefaultSearchRankLimit is FOLIO_SEARCH_RANK_LIMIT's default: the most
// matches a search ranks (Resolver.SearchRankLimit).
const DefaultSearchRankLimit = 1000

// rankLimit is the most matches a search ranks.
func (r *Resolver) rankLimit() int {
	if r.SearchRankLimit > 0 {
		return r.SearchRankLimit
	}
	return DefaultSearchRankLimit
}

type hit struct {
	spaceID, pageID string
	rank            float64
}

// searchPages ranks the pages of spaces matching query, best first, in one
// statement. When more than the rank limit match, only the first ones the
// index yields are ranked (the limit of them) and capped says so: a common
// term costs what the limit costs, not what it matches. Otherwise every
// match is ranked and the hits are all of them.
func (r *Resolver) searchPages(ctx context.Context, query string, spaceIDs []string) (hits []hit, capped bool, err error) {
	if strings.TrimSpace(query) == "" {
		return nil, false, apperr.InvalidField("query", "is required")
	}
	if utf8.RuneCountInString(query) > search.MaxQuery {
		return nil, false, apperr.InvalidField("query", "must be at most %d characters", search.MaxQuery)
	}
	if len(spaceIDs) == 0 {
		return nil, false, nil
	}
	limit := r.rankLimit()
	// One match more than the limit tells whether others are left out.
	st, ok := search.Query(r.Dialect, query, spaceIDs, limit+1)
	if !ok {
		return nil, false, nil
	}
	rows, err := r.Client.QueryContext(ctx, st.SQL, st.Args...)
	if err != nil {
		return nil, false, err
	}
	defer rows.Close()
	for rows.Next() {
		var h hit
		if err := rows.Scan(&h.spaceID, &h.pageID, &h.rank); err != nil {
			return nil, false, err
		}
		hits = append(hits, h)
	}
	if err := rows.Err(); err != nil {
		return nil, false, err
	}
	if len(hits) > limit {
		return hits[:limit], true, nil
	}
	return hits, false, nil
}

// searchConnectionShape is the Go type of a search connection: a Relay
// connection (connectionShape) that also says whether its totalCount is a
// lower bound.
type searchConnectionShape[E any] interface {
	~struct {
		Edges             []*E            `json:"edges"`
		PageInfo          *model.PageInfo `json:"pageInfo"`
		TotalCount        int             `json:"totalCount"`
		CountIsLowerBound bool            `json:"countIsLowerBound"`
	}
}

// searchConnectionOf is connectionOf for search connections.
func searchConnectionOf[C searchConnectionShape[E], E edgeShape[T], T any](page paging.Page[T]) *C {
	edges := make([]*E, len(page.Items))
	for i, it := range page.Items {
		edges[i] = &E{Cursor: page.Cursors[i], Node: it}
	}
	return &C{Edges: edges, PageInfo: pageInfo(page), TotalCount: page.Total, CountIsLowerBound: page.TotalIsLowerBound}
}

// SearchSpace searches the current content of a space the caller can read.
func (r *Resolver) SearchSpace(ctx context.Context, spaceID, query string, args paging.Args) (paging.Page[*model.SearchPage], error) {
	s, _, err := visibleSpace(ctx, spaceID)
	if err != nil {
		return paging.Page[*model.SearchPage]{}, err
	}
	return r.searchIn(ctx, []string{s.ID}, query, args)
}

// SearchOrganizationPages searches every space of the organization the
// caller can read, pages best first.
func (r *Resolver) SearchOrganizationPages(ctx context.Context, orgID, query string, args paging.Args) (paging.Page[*model.SearchPage], error) {
	ids, err := readableSpaceIDs(ctx, r.Client, orgID)
	if err != nil {
		return paging.Page[*model.SearchPage]{}, err
	}
	return r.searchIn(ctx, ids, query, args)
}

func (r *Resolver) searchIn(ctx context.Context, spaceIDs []string, query string, args paging.Args) (paging.Page[*model.SearchPage], error) {
	var none paging.Page[*model.SearchPage]
	hits, capped, err := r.searchPages(ctx, query, spaceIDs)
	if err != nil {
		return none, err
	}
	page, err := sliceRanked(args, hits)
	if err != nil {
		return none, err
	}
	items, err := r.searchResults(ctx, query, page.Items, asks(ctx, "edges", "node", "page", "pages"))
	if err != nil {
		return none, err
	}
	return paging.Page[*model.SearchPage]{Items: items, Cursors: page.Cursors[:len(items)], Next: page.Next, HasPrevious: page.HasPrevious,
		Total: page.Total, TotalIsLowerBound: capped}, nil
}

// readableSpaceIDs lists the live spaces of an organization the caller can
// read: one statement with the space rule's predicate (contentScope).
func readableSpaceIDs(ctx context.Context, client *ent.Client, orgID string) ([]string, error) {
	if _, err := visibleOrganizationMembership(ctx, orgID); err != nil {
		return nil, err
	}
	scopes, err := contentScopes(ctx, []string{orgID})
	if err != nil {
		return nil, err
	}
	return client.Space.Query().Where(space.DeletedAtIsNil(), anyScope(scopes, contentScope.spaces)).IDs(ctx)
}

// SearchOrganization searches every space of the organization the caller
// can read; results are spaces, best first, each with its matching pages.
func (r *Resolver) SearchOrganization(ctx context.Context, orgID, query string, args paging.Args) (paging.Page[*model.SearchSpace], error) {
	var none paging.Page[*model.SearchSpace]
	ids, err := readableSpaceIDs(ctx, r.Client, orgID)
	if err != nil {
		return none, err
	}
	hits, capped, err := r.searchPages(ctx, query, ids)
	if err != nil {
		return none, err
	}
	// Spaces rank by their best hit. Only the spaces of the page asked for
	// are built: the ranking needs nothing but the hits.
	var order []string
	bySpace := map[string][]hit{}
	for _, h := range hits {
		if _, ok := bySpace[h.spaceID]; !ok {
			order = append(order, h.spaceID)
		}
		bySpace[h.spaceID] = append(bySpace[h.spaceID], h)
	}
	ranked, err := sliceRanked(args, order)
	if err != nil {
		return none, err
	}
	var chosen []hit
	for _, id := range ranked.Items {
		chosen = append(chosen, bySpace[id]...)
	}
	pages, err := r.searchResults(ctx, query, chosen, false)
	if err != nil {
		return none, err
	}
	built := map[string]*model.SearchSpace{}
	for _, p := range pages {
		sp := built[p.Space.ID]
		if sp == nil {
			sp = &model.SearchSpace{Space: p.Space}
			built[p.Space.ID] = sp
		}
		sp.Pages = append(sp.Pages, p)
	}
	// A space deleted since the search ranked it has no results: it drops
	// out of the page, as it would have out of the ranking.
	out := paging.Page[*model.SearchSpace]{Next: ranked.Next, HasPrevious: ranked.HasPrevious, Total: ranked.Total, TotalIsLowerBound: capped}
	for i, id := range ranked.Items {
		if sp := built[id]; sp != nil {
			out.Items = append(out.Items, sp)
			out.Cursors = append(out.Cursors, ranked.Cursors[i])
		}
	}
	return out, nil
}

// sliceRanked pages through results in rank order: the cursor is the
// place in the ranking (results have no other order).
func sliceRanked[T any](args paging.Args, items []T) (paging.Page[T], error) {
	type ranked struct {
		i int
		v T
	}
	rs := make([]ranked, len(items))
	for i, it := range items {
		rs[i] = ranked{i, it}
	}
	args.Order = paging.Asc
	p := paging.Slice(args, rs, func(r ranked) paging.Cursor { return paging.Cursor{Pos: float64(r.i + 1), ID: "rank"} })
	out := paging.Page[T]{Cursors: p.Cursors, Next: p.Next, HasPrevious: p.HasPrevious, Total: p.Total, Items: make([]T, len(p.Items))}
	for i, r := range p.Items {
		out.Items[i] = r.v
	}
	return out, nil
}

// searchResults turns hits into pages with the sections that match. Bodies
// of all the pages load together. A search page's tree holds the hits and
// their ancestors (what their paths need), loaded in one statement, not the
// whole revision: a search costs what its hits cost, whatever the size of
// the spaces. subpages asks for whole trees instead, for a caller that reads
// the hits' subpages.
func (r *Resolver) searchResults(ctx context.Context, query string, hits []hit, subpages bool) ([]*model.SearchPage, error) {
	l := loader.For(ctx)
	terms := search.Terms(query)
	spaceIDs := make([]string, len(hits))
	for i, h := range hits {
		spaceIDs[i] = h.spaceID
	}
	spaces, errs := l.SpaceByID.LoadMany(ctx, spaceIDs)()
	byRevision := map[string][]string{}
	for i, h := range hits {
		if errs != nil && errs[i] != nil {
			continue // deleted meanwhile
		}
		byRevision[spaces[i].RevisionID] = append(byRevision[spaces[i].RevisionID], h.pageID)
	}
	trees, err := r.searchTrees(ctx, byRevision, subpages)
	if err != nil {
		return nil, err
	}
	var out []*model.SearchPage
	var hashes []string
	for i, h := range hits {
		if errs != nil && errs[i] != nil {
			continue
		}
		s := spaces[i]
		t := trees[s.RevisionID]
		p, ok := t.ByID[h.pageID]
		if !ok {
			continue
		}
		out = append(out, &model.SearchPage{Page: &model.Page{Page: p, Tree: t, SpaceID: s.ID}, Space: s})
		hashes = append(hashes, p.ContentHash)
	}
	derived, errs := l.PageDerived.LoadMany(ctx, hashes)()
	for i, result := range out {
		if errs != nil && errs[i] != nil {
			return nil, errs[i]
		}
		for _, sec := range derived[i].Sections {
			if excerpt, ok := matchExcerpt(sec.Title+"\n"+sec.Body, terms); ok {
				path := result.Page.Tree.Path(result.Page.Page)
				if sec.ID != "" {
					path += "#" + sec.ID
				}
				result.Sections = append(result.Sections, &model.SearchSection{Section: sec, Excerpt: excerpt, Path: path,
					RevisionID: result.Page.Tree.RevisionID, PageID: result.Page.PageID, Query: query})
				if len(result.Sections) == 3 {
					break
				}
			}
		}
	}
	return out, nil
}

// searchTrees gives, by revision, a tree holding the pages asked for and
// their ancestors (whole trees when subpages is set).
func (r *Resolver) searchTrees(ctx context.Context, pageIDs map[string][]string, subpages bool) (map[string]*loader.Tree, error) {
	revs := make([]string, 0, len(pageIDs))
	for rev := range pageIDs {
		revs = append(revs, rev)
	}
	sort.Strings(revs)
	trees := make(map[string]*loader.Tree, len(revs))
	if len(revs) == 0 {
		return trees, nil
	}
	if subpages {
		whole, errs := loader.For(ctx).RevisionTree.LoadMany(ctx, revs)()
		for i, rev := range revs {
			if errs != nil && errs[i] != nil {
				return nil, errs[i]
			}
			trees[rev] = whole[i]
		}
		return trees, nil
	}
	byRevision, err := searchTreePages(ctx, r.Client, revs, pageIDs)
	if err != nil {
		return nil, err
	}
	for _, rev := range revs {
		trees[rev] = loader.NewTree(byRevision[rev])
		trees[rev].RevisionID = rev
	}
	return trees, nil
}

// searchTreePages reads, by revision, the rows withAncestors finds, in
// loader.RevisionPages' order: two statements, the revisions' chunk maps,
// then the rows by their ids. Not loader.RevisionPages itself: its filter on
// the revisions' chunks, redundant here, is what the planners (with no
// statistics, as after a bulk load) drive the statement by, reading every
// row of the chunks, so a search cost what its spaces held.
func searchTreePages(ctx context.Context, client *ent.Client, revs []string, pageIDs map[string][]string) (map[string][]*ent.Page, error) {
	revsOf, _, err := loader.ChunkMaps(ctx, client, revs)
	if err != nil {
		return nil, err
	}
	rows, err := client.Page.Query().Where(withAncestors(pageIDs, revs)).All(ctx)
	if err != nil {
		return nil, err
	}
	return loader.PagesByRevision(rows, revsOf), nil
}

// withAncestors keeps the pages asked for, by revision, and every page above
// them: a recursive walk up parent_page_id through each revision's chunk
// map and the (chunk_id, page_id) index, a few rows per level, however many
// pages the revisions hold; the rows are then read by primary key. A row of
// a chunk several of the revisions share comes to each of them
// (searchTreePages), which only adds a true ancestor to a revision's
// partial tree.
func withAncestors(pageIDs map[string][]string, revs []string) predicate.Page {
	return func(s *sql.Selector) {
		s.Where(sql.P(func(b *sql.Builder) {
			b.WriteString(s.C(page.FieldID) + " IN (WITH RECURSIVE up(id, revision_id, parent_page_id) AS (" +
				"SELECT p.id, um.revision_id, p.parent_page_id FROM " + page.Table + " p JOIN revision_chunks um ON um.chunk_id = p.chunk_id WHERE ")
			for i, rev := range revs {
				if i > 0 {
					b.WriteString(" OR ")
				}
				b.WriteString("(um.revision_id = ").Arg(rev).WriteString(" AND p.page_id IN (")
				for j, id := range pageIDs[rev] {
					if j > 0 {
						b.Comma()
					}
					b.Arg(id)
				}
				b.WriteString("))")
			}
			b.WriteString(" UNION SELECT p.id, um.revision_id, p.parent_page_id FROM up JOIN revision_chunks um ON um.revision_id = up.revision_id" +
				" JOIN " + page.Table + " p ON p.chunk_id = um.chunk_id AND p.page_id = up.parent_page_id) SELECT id FROM up)")
		}))
	}
}

// asks tells whether the GraphQL field being resolved selects the field at
// path below it (each step a field name, fragments included). Outside
// GraphQL (REST) nothing is asked beyond what the presenter shows.
func asks(ctx context.Context, path ...string) bool {
	if graphql.GetFieldContext(ctx) == nil {
		return false
	}
	op := graphql.GetOperationContext(ctx)
	var walk func(fields []graphql.CollectedField, path []string) bool
	walk = func(fields []graphql.CollectedField, path []string) bool {
		if len(path) == 0 {
			return true
		}
		for _, f := range fields {
			if f.Name == path[0] && walk(graphql.CollectFields(op, f.Selections, nil), path[1:]) {
				return true
			}
		}
		return false
	}
	return walk(graphql.CollectFieldsCtx(ctx, nil), path)
}

// matchExcerpt finds the first term in text and cuts about 200 characters
// around it.
func matchExcerpt(text string, terms []string) (string, bool) {
	lower := strings.ToLower(text)
	for _, t := range terms {
		if i := strings.Index(lower, t); i >= 0 {
			start := max(0, i-80)
			end := min(len(text), i+120)
			for start > 0 && !utf8.RuneStart(text[start]) {
				start--
			}
			for end < len(text) && !utf8.RuneStart(text[end]) {
				end++
			}
			excerpt := strings.Join(strings.Fields(text[start:end]), " ")
			if start > 0 {
				excerpt = "…" + excerpt
			}
			if end < len(text) {
				excerpt += "…"
			}
			return excerpt, true
		}
	}
	return "", false
}

// ReindexSpace rebuilds a space's index from its current revision: for
// content written around the resolvers (tests, repairs).
func (r *Resolver) ReindexSpace(ctx context.Context, spaceID string) error {
	// A repair of derived rows: it changes nothing anyone edits.
	ctx = events.Exempt(ctx, events.ExemptMaintenance)
	ctx = loader.With(ctx, loader.New(r.Client, ""))
	s, err := r.Client.Space.Get(ctx, spaceID)
	if err != nil {
		return err
	}
	d, err := newDraft(ctx, s.RevisionID)
	if err != nil {
		return err
	}
	return r.withTx(ctx, func(tx *ent.Client) error {
		if err := r.unindexSpace(ctx, tx, spaceID); err != nil {
			return err
		}
		return r.reindex(ctx, tx, spaceID, nil, d)
	})
}

// searchSectionNode is node(id:) of a search hit: section anchor of page
// pageID of revision revID, with the excerpt query gives it; not found when
// the section no longer matches.
func (r *Resolver) searchSectionNode(ctx context.Context, revID, pageID, anchor, query string) (*model.SearchSection, error) {
	rev, err := r.visibleRevision(ctx, revID)
	if err != nil {
		return nil, err
	}
	p, err := r.RevisionPage(ctx, rev, pageID)
	if err != nil {
		return nil, err
	}
	d, err := loader.For(ctx).PageDerived.Load(ctx, p.ContentHash)()
	if err != nil {
		return nil, err
	}
	for _, sec := range d.Sections {
		if sec.ID != anchor {
			continue
		}
		excerpt, ok := matchExcerpt(sec.Title+"\n"+sec.Body, search.Terms(query))
		if !ok {
			break
		}
		path := p.Path()
		if anchor != "" {
			path += "#" + anchor
		}
		return &model.SearchSection{Section: sec, Excerpt: excerpt, Path: path, RevisionID: revID, PageID: pageID, Query: query}, nil
	}
	return nil, apperr.NotFoundf("search section not found")
}
