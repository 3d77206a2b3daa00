package loader

import (
	"context"

	"github.com/graph-gophers/dataloader/v7"

	"github.com/folio/folio/ent"
	"github.com/folio/folio/ent/changerequest"
	"github.com/folio/folio/ent/collection"
	"github.com/folio/folio/ent/comment"
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
	// SpacesInCollection lists the live spaces directly in a collection, in
	// position order.
	SpacesInCollection *dataloader.Loader[string, []*ent.Space]
	// SpaceChangeRequests counts a space's change requests by status.
	SpaceChangeRequests *dataloader.Loader[string, ChangeRequestCounts]
	// SpaceOpenComments counts a space's open comments.
	SpaceOpenComments *dataloader.Loader[string, int]
}

// ChangeRequestCounts are the change-request counts of a space.
type ChangeRequestCounts struct{ Total, Open, Draft int }

func newContentLoaders(client *ent.Client) *ContentLoaders {
	return &ContentLoaders{
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
		SpacesInCollection: dataloader.NewBatchedLoader(func(ctx context.Context, parentIDs []string) []*dataloader.Result[[]*ent.Space] {
			rows, err := client.Space.Query().
				Where(space.ParentIDIn(parentIDs...), space.DeletedAtIsNil()).
				Order(ent.Asc(space.FieldPosition), ent.Asc(space.FieldID)).All(ctx)
			byParent := map[string][]*ent.Space{}
			for _, s := range rows {
				byParent[*s.ParentID] = append(byParent[*s.ParentID], s)
			}
			results := make([]*dataloader.Result[[]*ent.Space], len(parentIDs))
			for i, id := range parentIDs {
				results[i] = &dataloader.Result[[]*ent.Space]{Data: byParent[id], Error: err}
			}
			return results
		}, dataloader.WithWait[string, []*ent.Space](batchWait)),
		SpaceChangeRequests: dataloader.NewBatchedLoader(func(ctx context.Context, spaceIDs []string) []*dataloader.Result[ChangeRequestCounts] {
			var rows []struct {
				SpaceID string `json:"space_id"`
				Status  string `json:"status"`
				Count   int    `json:"count"`
			}
			err := client.ChangeRequest.Query().Where(changerequest.SpaceIDIn(spaceIDs...)).
				GroupBy(changerequest.FieldSpaceID, changerequest.FieldStatus).Aggregate(ent.Count()).Scan(ctx, &rows)
			counts := map[string]ChangeRequestCounts{}
			for _, r := range rows {
				c := counts[r.SpaceID]
				c.Total += r.Count
				switch r.Status {
				case changerequest.StatusOpen.String():
					c.Open += r.Count
				case changerequest.StatusDraft.String():
					c.Draft += r.Count
				}
				counts[r.SpaceID] = c
			}
			results := make([]*dataloader.Result[ChangeRequestCounts], len(spaceIDs))
			for i, id := range spaceIDs {
				results[i] = &dataloader.Result[ChangeRequestCounts]{Data: counts[id], Error: err}
			}
			return results
		}, dataloader.WithWait[string, ChangeRequestCounts](batchWait)),
		SpaceOpenComments: newCountLoader(func(ctx context.Context, spaceIDs []string) (map[string]int, error) {
			var rows []struct {
				SpaceID string `json:"space_id"`
				Count   int    `json:"count"`
			}
			err := client.Comment.Query().Where(comment.SpaceIDIn(spaceIDs...), comment.StatusEQ(comment.StatusOpen)).
				GroupBy(comment.FieldSpaceID).Aggregate(ent.Count()).Scan(ctx, &rows)
			counts := make(map[string]int, len(rows))
			for _, r := range rows {
				counts[r.SpaceID] = r.Count
			}
			return counts, err
		}),
	}
}
