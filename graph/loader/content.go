package loader

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/graph-gophers/dataloader/v7"

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
	SpaceByID      *dataloader.Loader[string, *ent.Space]
	CollectionByID *dataloader.Loader[string, *ent.Collection]
	// OrgCollections loads every collection of an organization at once:
	// effective roles walk up the collection tree, and one query per
	// organization is cheaper than one per level.
	OrgCollections *dataloader.Loader[string, map[string]*ent.Collection]
	// OrgSpaces loads the live spaces of an organization, oldest first:
	// what a member can access is decided space by space in memory.
	OrgSpaces *dataloader.Loader[string, []*ent.Space]
	// OrgCustomFields loads an organization's custom-field definitions,
	// oldest first.
	OrgCustomFields *dataloader.Loader[string, []*ent.CustomField]
	// SpaceFieldValues loads a space's custom-field values by field id.
	SpaceFieldValues *dataloader.Loader[string, map[string]any]
	// SpacesInCollections loads the live spaces of every collection of an
	// organization at once, by collection, in position order (shown
	// together, ShowSpacesTogether): a collection tree of any size and depth
	// then costs the same.
	SpacesInCollections *dataloader.Loader[string, map[string][]*ent.Space]
	// ChangeRequestOpenComments counts the open comments of a change request.
	ChangeRequestOpenComments *dataloader.Loader[string, int]
	// SpaceCounts counts a space's change requests by status and its open
	// comments.
	SpaceCounts *dataloader.Loader[string, SpaceCounts]

	spacesTogether together // spaces one list shows (ShowSpacesTogether)
	// countSpaces reads counts by level: SpaceCounts' batches and
	// PrimeSpaceCounts share its one read of each level.
	countSpaces func(context.Context, []string) (map[string]SpaceCounts, error)
}

// SpaceCounts are the counts a space object carries.
type SpaceCounts struct{ ChangeRequests, Open, Draft, OpenComments int }

// countSpaces counts the change requests (by status) and open comments
// (the space's own, not those of its change requests) of many spaces in one statement: a UNION ALL of the two GROUP BYs. $n
// placeholders number the same way on SQLite and PostgreSQL.
func countSpaces(ctx context.Context, client *ent.Client, spaceIDs []string) (map[string]SpaceCounts, error) {
	counts := make(map[string]SpaceCounts, len(spaceIDs))
	if len(spaceIDs) == 0 {
		return counts, nil
	}
	marks := make([]string, len(spaceIDs))
	args := make([]any, 0, len(spaceIDs)+1)
	for i, id := range spaceIDs {
		marks[i] = "$" + strconv.Itoa(i+1)
		args = append(args, id)
	}
	args = append(args, comment.StatusOpen.String())
	in := strings.Join(marks, ", ")
	query := fmt.Sprintf("SELECT %[1]s, %[2]s, count(*) FROM %[3]s WHERE %[1]s IN (%[4]s) GROUP BY %[1]s, %[2]s"+
		" UNION ALL SELECT %[5]s, NULL, count(*) FROM %[6]s WHERE %[5]s IN (%[4]s) AND %[7]s = $%[8]d AND %[9]s IS NULL GROUP BY %[5]s",
		changerequest.FieldSpaceID, changerequest.FieldStatus, changerequest.Table, in,
		comment.FieldSpaceID, comment.Table, comment.FieldStatus, len(args), comment.FieldChangeRequestID)
	rows, err := client.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var (
			spaceID string
			status  sql.NullString // NULL: the open comments' row
			n       int
		)
		if err := rows.Scan(&spaceID, &status, &n); err != nil {
			return nil, err
		}
		c := counts[spaceID]
		switch {
		case !status.Valid:
			c.OpenComments = n
		case status.String == changerequest.StatusOpen.String():
			c.ChangeRequests += n
			c.Open += n
		case status.String == changerequest.StatusDraft.String():
			c.ChangeRequests += n
			c.Draft += n
		default:
			c.ChangeRequests += n
		}
		counts[spaceID] = c
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
	For(ctx).ShowTogether(revs)
}

// PrimeSpaceCounts reads the counts of spaces a list shows now, instead of
// on the first ask, and primes SpaceCounts with them: for a solo read
// (Solo) that presents every item's counts. Its presenter asks them from a
// goroutine per item, and loaders without the batch wait would give those
// that happen not to meet a batch each: one statement still (the level is
// read once), but batches that vary with the list's length and timing, and
// a round of loads more. It is not a second way of counting: the read goes
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

func newContentLoaders(b batching, client *ent.Client) *ContentLoaders {
	cl := &ContentLoaders{}
	counts := byLevel(&cl.spacesTogether, "counts", func(ctx context.Context, spaceIDs []string) (map[string]SpaceCounts, error) {
		return countSpaces(ctx, client, spaceIDs)
	})
	*cl = ContentLoaders{
		countSpaces: counts,
		CollectionByID: newLoader(b, func(ctx context.Context, ids []string) ([]*ent.Collection, error) {
			return client.Collection.Query().Where(collection.IDIn(ids...)).All(ctx)
		}, func(c *ent.Collection) string { return c.ID }, "collection"),
		OrgCollections: batched(b, func(ctx context.Context, orgIDs []string) []*dataloader.Result[map[string]*ent.Collection] {
			rows, err := client.Collection.Query().Where(collection.OrganizationIDIn(orgIDs...)).All(ctx)
			byOrg := make(map[string]map[string]*ent.Collection, len(orgIDs))
			for _, id := range orgIDs {
				byOrg[id] = map[string]*ent.Collection{}
			}
			for _, c := range rows {
				byOrg[c.OrganizationID][c.ID] = c
			}
			results := make([]*dataloader.Result[map[string]*ent.Collection], len(orgIDs))
			for i, id := range orgIDs {
				results[i] = &dataloader.Result[map[string]*ent.Collection]{Data: byOrg[id], Error: err}
			}
			return results
		}),
		OrgSpaces: batched(b, func(ctx context.Context, orgIDs []string) []*dataloader.Result[[]*ent.Space] {
			rows, err := client.Space.Query().
				Where(space.OrganizationIDIn(orgIDs...), space.DeletedAtIsNil()).
				Order(ent.Asc(space.FieldCreatedAt), ent.Asc(space.FieldID)).All(ctx)
			byOrg := make(map[string][]*ent.Space, len(orgIDs))
			for _, s := range rows {
				byOrg[s.OrganizationID] = append(byOrg[s.OrganizationID], s)
			}
			results := make([]*dataloader.Result[[]*ent.Space], len(orgIDs))
			for i, id := range orgIDs {
				results[i] = &dataloader.Result[[]*ent.Space]{Data: byOrg[id], Error: err}
			}
			return results
		}),
		OrgCustomFields: batched(b, func(ctx context.Context, orgIDs []string) []*dataloader.Result[[]*ent.CustomField] {
			rows, err := client.CustomField.Query().Where(customfield.OrganizationIDIn(orgIDs...)).
				Order(ent.Asc(customfield.FieldCreatedAt), ent.Asc(customfield.FieldID)).All(ctx)
			byOrg := make(map[string][]*ent.CustomField, len(orgIDs))
			for _, f := range rows {
				byOrg[f.OrganizationID] = append(byOrg[f.OrganizationID], f)
			}
			results := make([]*dataloader.Result[[]*ent.CustomField], len(orgIDs))
			for i, id := range orgIDs {
				results[i] = &dataloader.Result[[]*ent.CustomField]{Data: byOrg[id], Error: err}
			}
			return results
		}),
		SpaceFieldValues: batched(b, func(ctx context.Context, spaceIDs []string) []*dataloader.Result[map[string]any] {
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
			results := make([]*dataloader.Result[map[string]any], len(spaceIDs))
			for i, id := range spaceIDs {
				results[i] = &dataloader.Result[map[string]any]{Data: bySpace[id], Error: err}
			}
			return results
		}),
		SpacesInCollections: batched(b, func(ctx context.Context, orgIDs []string) []*dataloader.Result[map[string][]*ent.Space] {
			rows, err := client.Space.Query().
				Where(space.OrganizationIDIn(orgIDs...), space.ParentIDNotNil(), space.DeletedAtIsNil()).
				Order(ent.Asc(space.FieldPosition), ent.Asc(space.FieldID)).All(ctx)
			if err == nil {
				cl.ShowSpacesTogether(ctx, rows)
			}
			byOrg := make(map[string]map[string][]*ent.Space, len(orgIDs))
			for _, id := range orgIDs {
				byOrg[id] = map[string][]*ent.Space{}
			}
			for _, s := range rows {
				byOrg[s.OrganizationID][*s.ParentID] = append(byOrg[s.OrganizationID][*s.ParentID], s)
			}
			results := make([]*dataloader.Result[map[string][]*ent.Space], len(orgIDs))
			for i, id := range orgIDs {
				results[i] = &dataloader.Result[map[string][]*ent.Space]{Data: byOrg[id], Error: err}
			}
			return results
		}),
		ChangeRequestOpenComments: newCountLoader(b, func(ctx context.Context, crIDs []string) (map[string]int, error) {
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
		}),
		SpaceCounts: mapLoader(b, counts),
	}
	return cl
}
