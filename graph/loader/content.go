package loader

import (
	"context"
	"encoding/json"

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
	// SpaceByID finds live spaces; deleted ones answer not found.
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
	// organization at once, by collection, in position order (with their
	// counts): a collection tree of any size and depth then costs the same.
	SpacesInCollections *dataloader.Loader[string, map[string][]*ent.Space]
	// ChangeRequestOpenComments counts the open comments of a change request.
	ChangeRequestOpenComments *dataloader.Loader[string, int]
	// SpaceCounts counts a space's change requests by status and its open
	// comments.
	SpaceCounts *dataloader.Loader[string, SpaceCounts]

	spacesTogether together // spaces one list shows (ShowSpacesTogether)
}

// SpaceCounts are the counts a space object carries.
type SpaceCounts struct{ ChangeRequests, Open, Draft, OpenComments int }

// countSpaces counts change requests and open comments of many spaces in two
// statements.
func countSpaces(ctx context.Context, client *ent.Client, spaceIDs []string) (map[string]SpaceCounts, error) {
	counts := make(map[string]SpaceCounts, len(spaceIDs))
	var crs []struct {
		SpaceID string `json:"space_id"`
		Status  string `json:"status"`
		Count   int    `json:"count"`
	}
	if err := client.ChangeRequest.Query().Where(changerequest.SpaceIDIn(spaceIDs...)).
		GroupBy(changerequest.FieldSpaceID, changerequest.FieldStatus).Aggregate(ent.Count()).Scan(ctx, &crs); err != nil {
		return nil, err
	}
	for _, r := range crs {
		c := counts[r.SpaceID]
		c.ChangeRequests += r.Count
		switch r.Status {
		case changerequest.StatusOpen.String():
			c.Open += r.Count
		case changerequest.StatusDraft.String():
			c.Draft += r.Count
		}
		counts[r.SpaceID] = c
	}
	var comments []struct {
		SpaceID string `json:"space_id"`
		Count   int    `json:"count"`
	}
	if err := client.Comment.Query().Where(comment.SpaceIDIn(spaceIDs...), comment.StatusEQ(comment.StatusOpen)).
		GroupBy(comment.FieldSpaceID).Aggregate(ent.Count()).Scan(ctx, &comments); err != nil {
		return nil, err
	}
	for _, r := range comments {
		c := counts[r.SpaceID]
		c.OpenComments = r.Count
		counts[r.SpaceID] = c
	}
	return counts, nil
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

func newContentLoaders(client *ent.Client) *ContentLoaders {
	cl := &ContentLoaders{}
	*cl = ContentLoaders{
		SpaceByID: newLoader(func(ctx context.Context, ids []string) ([]*ent.Space, error) {
			return client.Space.Query().Where(space.IDIn(ids...), space.DeletedAtIsNil()).All(ctx)
		}, func(s *ent.Space) string { return s.ID }, "space"),
		CollectionByID: newLoader(func(ctx context.Context, ids []string) ([]*ent.Collection, error) {
			return client.Collection.Query().Where(collection.IDIn(ids...)).All(ctx)
		}, func(c *ent.Collection) string { return c.ID }, "collection"),
		OrgCollections: dataloader.NewBatchedLoader(func(ctx context.Context, orgIDs []string) []*dataloader.Result[map[string]*ent.Collection] {
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
		}, dataloader.WithWait[string, map[string]*ent.Collection](batchWait)),
		OrgSpaces: dataloader.NewBatchedLoader(func(ctx context.Context, orgIDs []string) []*dataloader.Result[[]*ent.Space] {
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
		}, dataloader.WithWait[string, []*ent.Space](batchWait)),
		OrgCustomFields: dataloader.NewBatchedLoader(func(ctx context.Context, orgIDs []string) []*dataloader.Result[[]*ent.CustomField] {
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
		}, dataloader.WithWait[string, []*ent.CustomField](batchWait)),
		SpaceFieldValues: dataloader.NewBatchedLoader(func(ctx context.Context, spaceIDs []string) []*dataloader.Result[map[string]any] {
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
		}, dataloader.WithWait[string, map[string]any](batchWait)),
		SpacesInCollections: dataloader.NewBatchedLoader(func(ctx context.Context, orgIDs []string) []*dataloader.Result[map[string][]*ent.Space] {
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
		}, dataloader.WithWait[string, map[string][]*ent.Space](batchWait)),
		ChangeRequestOpenComments: newCountLoader(func(ctx context.Context, crIDs []string) (map[string]int, error) {
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
		SpaceCounts: mapLoader(byLevel(&cl.spacesTogether, "counts", func(ctx context.Context, spaceIDs []string) (map[string]SpaceCounts, error) {
			return countSpaces(ctx, client, spaceIDs)
		})),
	}
	return cl
}
