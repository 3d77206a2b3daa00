package loader

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"entgo.io/ent/dialect/sql"

	"github.com/folio/folio/ent"
	"github.com/folio/folio/ent/changerequest"
	"github.com/folio/folio/ent/collection"
	"github.com/folio/folio/ent/comment"
	"github.com/folio/folio/ent/customfield"
	"github.com/folio/folio/ent/customfieldvalue"
	"github.com/folio/folio/ent/space"
)

// ContentLoaders batch the lookups of collections and spaces.
type ContentLoaders struct {
	// SpaceByID finds live spaces; deleted ones answer not found. It primes
	// the viewer's memberships of their organizations (New).
	SpaceByID      *Loader[*ent.Space]
	CollectionByID *Loader[*ent.Collection]
	// OrgCollections loads every collection of an organization at once:
	// effective roles walk up the collection tree, and one query per
	// organization is cheaper than one per level.
	OrgCollections *Loader[map[string]*ent.Collection]
	// OrgCustomFields loads an organization's custom-field definitions,
	// oldest first.
	OrgCustomFields *Loader[[]*ent.CustomField]
	// SpaceFieldValues loads a space's custom-field values by field id.
	SpaceFieldValues *Loader[map[string]any]
	// ChangeRequestOpenComments counts the open comments of a change request.
	ChangeRequestOpenComments *Loader[int]
	// SpaceCounts counts a space's change requests by status and its open
	// comments.
	SpaceCounts *Loader[SpaceCounts]

	spacesTogether together // spaces one list shows (ShowSpacesTogether)
	shownSpaces    sync.Map // id → *ent.Space: the spaces lists showed
	wantCounts     idSet    // spaces whose counts their read brings (WantSpaceCounts)
	// countSpaces reads counts by level: SpaceCounts' batches and
	// PrimeSpaceCounts share its one read of each level.
	countSpaces func(context.Context, []string) (map[string]SpaceCounts, error)
	// countOpenComments is ChangeRequestOpenComments' query, by level (the
	// change requests one list shows), which PrimeChangeRequestOpenComments
	// runs for a whole list: both share one read of a level.
	countOpenComments func(context.Context, []string) (map[string]int, error)
}

// SpaceCounts are the counts a space object carries.
type SpaceCounts struct {
	ChangeRequests, Open, Draft, OpenComments int
	// Publication is where a published site shows the space (nil: none),
	// read with the counts so that a space's urls.published costs no
	// statement or round of its own (site_published.go).
	Publication *Publication
}

// spaceCountsSQL is the one definition of a space's counts: its change
// requests, open and draft ones, and its own open comments, as scalar
// subqueries of the space row whose id is spaceID (a qualified column).
// countSpaces selects them for ids; a space read that will present them
// selects them with the space (WantSpaceCounts), so the read is one
// statement. Each seeks the (space_id, status, …) indexes.
func spaceCountsSQL(spaceID string) []string {
	crs := fmt.Sprintf("(SELECT count(*) FROM %s c WHERE c.%s = %s", changerequest.Table, changerequest.FieldSpaceID, spaceID)
	status := func(st string) string { return fmt.Sprintf("%s AND c.%s = '%s')", crs, changerequest.FieldStatus, st) }
	return []string{
		crs + ")",
		status(changerequest.StatusOpen.String()),
		status(changerequest.StatusDraft.String()),
		// The space's own comments, not those posted in its change requests.
		fmt.Sprintf("(SELECT count(*) FROM %s k WHERE k.%s = %s AND k.%s = '%s' AND k.%s IS NULL)",
			comment.Table, comment.FieldSpaceID, spaceID, comment.FieldStatus, comment.StatusOpen, comment.FieldChangeRequestID),
		publicationSQL(spaceID),
	}
}

// spaceCountsColumn holds the counts and publication a space read selects
// with the row, packed in one text value ("changeRequests|open|draft|
// openComments|publication"): ent scans a column it does not know by
// asking the driver for every column's type, once per such column and row,
// which was a fifth of a page of spaces' time with one column per count.
const spaceCountsColumn = "space_counts"

// withSpaceCounts adds a space's counts to a query of spaces.
func withSpaceCounts(s *sql.Selector) {
	exprs := spaceCountsSQL(s.C(space.FieldID))
	parts := make([]string, len(exprs))
	for i, expr := range exprs {
		if i < len(exprs)-1 {
			expr = "CAST(" + expr + " AS TEXT)"
		}
		parts[i] = expr
	}
	s.AppendSelectExprAs(sql.Raw(strings.Join(parts, " || '|' || ")), spaceCountsColumn)
}

// SelectSpaceCounts adds each space's counts and publication to a query
// of spaces, for a list that presents them (PrimeSelectedSpaceCounts):
// the page and its counts are then one statement.
func SelectSpaceCounts(s *sql.Selector) { withSpaceCounts(s) }

// PrimeSelectedSpaceCounts primes SpaceCounts with the counts a query
// read with its spaces (SelectSpaceCounts).
func (cl *ContentLoaders) PrimeSelectedSpaceCounts(ctx context.Context, spaces []*ent.Space) error {
	return cl.primeSpaceCounts(ctx, spaces)
}

// spaceCountsOf reads the counts withSpaceCounts selected with s.
func spaceCountsOf(s *ent.Space) (SpaceCounts, error) {
	v, err := s.Value(spaceCountsColumn)
	if err != nil {
		return SpaceCounts{}, err
	}
	var packed string
	switch x := v.(type) {
	case string:
		packed = x
	case []byte:
		packed = string(x)
	default:
		return SpaceCounts{}, fmt.Errorf("loader: space counts of type %T", v)
	}
	parts := strings.SplitN(packed, "|", 5)
	if len(parts) != 5 {
		return SpaceCounts{}, fmt.Errorf("loader: space counts %q", packed)
	}
	var n [4]int
	for i := range n {
		if n[i], err = strconv.Atoi(parts[i]); err != nil {
			return SpaceCounts{}, fmt.Errorf("loader: space counts %q: %w", packed, err)
		}
	}
	return SpaceCounts{ChangeRequests: n[0], Open: n[1], Draft: n[2], OpenComments: n[3],
		Publication: parsePublication(parts[4])}, nil
}

// WantSpaceCounts asks that the space id be read with its counts, for a
// read that will present them: the space loader selects them with the row
// and primes SpaceCounts, so the read is one statement, not two. Nothing is
// shown before the space's guard has passed.
func (cl *ContentLoaders) WantSpaceCounts(id string) { cl.wantCounts.add(id) }

// primeSpaceCounts primes SpaceCounts with the counts read with spaces.
func (cl *ContentLoaders) primeSpaceCounts(ctx context.Context, spaces []*ent.Space) error {
	for _, s := range spaces {
		c, err := spaceCountsOf(s)
		if err != nil {
			return err
		}
		cl.SpaceCounts.Prime(ctx, s.ID, c)
	}
	return nil
}

// idSet is a set of ids that concurrent loads consult.
type idSet struct {
	mu  sync.Mutex
	ids map[string]bool
}

func (s *idSet) add(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ids == nil {
		s.ids = map[string]bool{}
	}
	s.ids[id] = true
}

// take removes ids from the set and reports whether any was in it.
func (s *idSet) take(ids []string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	found := false
	for _, id := range ids {
		if s.ids[id] {
			delete(s.ids, id)
			found = true
		}
	}
	return found
}

// countSpaces counts the change requests (by status) and open comments of
// many spaces in one statement. $n placeholders number the same way on
// SQLite and PostgreSQL.
func countSpaces(ctx context.Context, client *ent.Client, spaceIDs []string) (map[string]SpaceCounts, error) {
	counts := make(map[string]SpaceCounts, len(spaceIDs))
	if len(spaceIDs) == 0 {
		return counts, nil
	}
	marks := make([]string, len(spaceIDs))
	args := make([]any, len(spaceIDs))
	for i, id := range spaceIDs {
		marks[i] = "$" + strconv.Itoa(i+1)
		args[i] = id
	}
	query := fmt.Sprintf("SELECT s.%[1]s, %[2]s FROM %[3]s s WHERE s.%[1]s IN (%[4]s)", space.FieldID,
		strings.Join(spaceCountsSQL("s."+space.FieldID), ", "), space.Table, strings.Join(marks, ", "))
	rows, err := client.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var (
			id  string
			c   SpaceCounts
			pub string
		)
		if err := rows.Scan(&id, &c.ChangeRequests, &c.Open, &c.Draft, &c.OpenComments, &pub); err != nil {
			return nil, err
		}
		c.Publication = parsePublication(pub)
		counts[id] = c
	}
	return counts, rows.Close()
}

// ShowSpacesTogether records that one list shows these spaces: the first
// count asked of any of them counts them all, in one go (none is counted
// when the query asks for no count), and their revisions are read together
// (RevisionLoaders.ShowTogether). Lists call it so that what their items
// cost does not depend on how concurrent item resolution happens to fall
// into batches.
func (cl *ContentLoaders) ShowSpacesTogether(ctx context.Context, spaces []*ent.Space) {
	ids := make([]string, len(spaces))
	revs := make([]string, 0, len(spaces))
	for i, s := range spaces {
		ids[i] = s.ID
		if s.RevisionID != "" {
			revs = append(revs, s.RevisionID)
		}
	}
	cl.spacesTogether.add(ids)
	for _, s := range spaces {
		cl.shownSpaces.Store(s.ID, s)
	}
	For(ctx).ShowTogether(revs)
}

// ShownSpace is a space a list showed (ShowSpacesTogether), for a read of
// a whole level that needs more of each space than its id (its current
// revision); nil when no list showed it.
func (cl *ContentLoaders) ShownSpace(id string) *ent.Space {
	if s, ok := cl.shownSpaces.Load(id); ok {
		return s.(*ent.Space)
	}
	return nil
}

// PrimeSpaceCounts reads the counts of spaces a list shows now, instead of
// on the first ask, and primes SpaceCounts with them: for a solo read
// that presents every item's counts one after another (a member's spaces):
// each then finds its counts cached instead of waiting for a batch of its
// own. It is not a second way of counting: the read goes
// through the list's level (ShowSpacesTogether), the one SpaceCounts'
// batches use, so a level's counts are read once whoever asks first.
func (cl *ContentLoaders) PrimeSpaceCounts(ctx context.Context, spaces []*ent.Space) error {
	ids := make([]string, len(spaces))
	for i, s := range spaces {
		ids[i] = s.ID
	}
	counts, err := cl.countSpaces(ctx, ids)
	if err != nil {
		return err
	}
	for _, id := range ids {
		cl.SpaceCounts.Prime(ctx, id, counts[id])
	}
	return nil
}

// countOpenComments counts the open comments of change requests crIDs.
func countOpenComments(ctx context.Context, client *ent.Client, crIDs []string) (map[string]int, error) {
	var rows []struct {
		ChangeRequestID string `json:"change_request_id"`
		Count           int    `json:"count"`
	}
	err := client.Comment.Query().Where(comment.ChangeRequestIDIn(crIDs...), comment.StatusEQ(comment.StatusOpen)).
		GroupBy(comment.FieldChangeRequestID).Aggregate(ent.Count()).Scan(ctx, &rows)
	counts := make(map[string]int, len(rows))
	for _, r := range rows {
		counts[r.ChangeRequestID] = r.Count
	}
	return counts, err
}

// PrimeChangeRequestOpenComments reads the open comment counts of change
// requests ids in one statement, now, and caches them: a list that
// presents its items concurrently then costs one statement for them
// whatever the scheduling of its goroutines.
func (cl *ContentLoaders) PrimeChangeRequestOpenComments(ctx context.Context, ids []string) error {
	if len(ids) == 0 {
		return nil
	}
	counts, err := cl.countOpenComments(ctx, ids)
	if err != nil {
		return err
	}
	for _, id := range ids {
		cl.ChangeRequestOpenComments.Prime(ctx, id, counts[id])
	}
	return nil
}

// crs is where the change requests lists show are recorded: their open
// comments are counted a level at a time.
// orgs is where the organizations lists show are recorded: what is read
// by organization is read a level at a time.
func newContentLoaders(b batching, client *ent.Client, crs, orgs *together) *ContentLoaders {
	cl := &ContentLoaders{}
	counts := byLevel(&cl.spacesTogether, "counts", func(ctx context.Context, spaceIDs []string) (map[string]SpaceCounts, error) {
		return countSpaces(ctx, client, spaceIDs)
	})
	openComments := byLevel(crs, "open comments", func(ctx context.Context, crIDs []string) (map[string]int, error) {
		return countOpenComments(ctx, client, crIDs)
	})
	*cl = ContentLoaders{
		countSpaces:       counts,
		countOpenComments: openComments,
		CollectionByID: newLoader(b, func(ctx context.Context, ids []string) ([]*ent.Collection, error) {
			return client.Collection.Query().Where(collection.IDIn(ids...)).All(ctx)
		}, func(c *ent.Collection) string { return c.ID }, "collection"),
		// Keyed by organization: the organizations a list shows are read
		// together (ShowParents(Organizations)), the others alone.
		OrgCollections: mapLoader(b, byLevel(orgs, "collections", func(ctx context.Context, orgIDs []string) (map[string]map[string]*ent.Collection, error) {
			rows, err := client.Collection.Query().Where(collection.OrganizationIDIn(orgIDs...)).All(ctx)
			byOrg := make(map[string]map[string]*ent.Collection, len(orgIDs))
			for _, id := range orgIDs {
				byOrg[id] = map[string]*ent.Collection{}
			}
			for _, c := range rows {
				byOrg[c.OrganizationID][c.ID] = c
			}
			return byOrg, err
		})),
		OrgCustomFields: mapLoader(b, byLevel(orgs, "custom fields", func(ctx context.Context, orgIDs []string) (map[string][]*ent.CustomField, error) {
			rows, err := client.CustomField.Query().Where(customfield.OrganizationIDIn(orgIDs...)).
				Order(ent.Asc(customfield.FieldCreatedAt), ent.Asc(customfield.FieldID)).All(ctx)
			byOrg := make(map[string][]*ent.CustomField, len(orgIDs))
			for _, f := range rows {
				byOrg[f.OrganizationID] = append(byOrg[f.OrganizationID], f)
			}
			return byOrg, err
		})),
		// By level: the spaces a list shows (ShowSpacesTogether).
		SpaceFieldValues: mapLoader(b, byLevel(&cl.spacesTogether, "field values", func(ctx context.Context, spaceIDs []string) (map[string]map[string]any, error) {
			rows, err := client.CustomFieldValue.Query().Where(customfieldvalue.SpaceIDIn(spaceIDs...)).All(ctx)
			bySpace := make(map[string]map[string]any, len(spaceIDs))
			for _, v := range rows {
				if bySpace[v.SpaceID] == nil {
					bySpace[v.SpaceID] = map[string]any{}
				}
				var value any
				if jerr := json.Unmarshal(v.Value, &value); jerr != nil && err == nil {
					err = jerr
				}
				bySpace[v.SpaceID][v.CustomFieldID] = value
			}
			return bySpace, err
		})),
		ChangeRequestOpenComments: mapLoader(b, openComments),
		SpaceCounts:               mapLoader(b, counts),
	}
	return cl
}
