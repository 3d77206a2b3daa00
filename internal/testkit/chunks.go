package testkit

import (
	"context"

	"github.com/folio/folio/ent"
)

// OneChunk names, in revision revID's chunk map, the chunk of id revID as
// its only bucket: the layout of pages written straight through ent with
// SetChunkID(revID) (and of revisions migrated from before chunks). The
// revision must have one bucket (the default).
func OneChunk(ctx context.Context, c *ent.Client, revID string) {
	c.RevisionChunk.Create().SetRevisionID(revID).SetBucket(0).SetChunkID(revID).ExecX(ctx)
}
