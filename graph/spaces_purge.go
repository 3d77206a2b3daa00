package graph

import (
	"context"

	"github.com/folio/folio/ent"
	"github.com/folio/folio/ent/changerequest"
	"github.com/folio/folio/ent/changerequestreview"
	"github.com/folio/folio/ent/comment"
	"github.com/folio/folio/ent/commentreaction"
	"github.com/folio/folio/ent/commentreply"
	"github.com/folio/folio/ent/customfieldvalue"
	"github.com/folio/folio/ent/download"
	"github.com/folio/folio/ent/file"
	"github.com/folio/folio/ent/gitsync"
	"github.com/folio/folio/ent/gitsyncoperation"
	"github.com/folio/folio/ent/grant"
	"github.com/folio/folio/ent/page"
	"github.com/folio/folio/ent/reviewrequest"
	"github.com/folio/folio/ent/revision"
	"github.com/folio/folio/ent/revisionchunk"
	"github.com/folio/folio/ent/sitespace"
	"github.com/folio/folio/ent/space"
	"github.com/folio/folio/graph/loader"
	"github.com/folio/folio/internal/clock"
	"github.com/folio/folio/internal/events"
)

// PurgeDeletedSpaces removes for good the spaces deleted more than
// RestoreWindow ago, with their content (revisions, pages, files, change
// requests, comments, custom-field values), one space per transaction. Page
// bodies and file bytes are content-addressed and may be shared with other
// spaces (duplicates), so they stay. Several
// server instances may run it at once: a space another instance already
// purged simply deletes nothing.
func (r *Resolver) PurgeDeletedSpaces(ctx context.Context) (int, error) {
	// Maintenance: it removes what a recorded deletion already removed
	// (space.deleted), and expired downloads.
	ctx = events.Exempt(ctx, events.ExemptMaintenance)
	// Expired downloads go too (their bytes are content-addressed and may
	// be shared, so they stay in blob storage).
	if _, err := r.Client.Download.Delete().Where(download.ExpiresAtLT(clock.Now())).Exec(ctx); err != nil {
		return 0, err
	}
	ids, err := r.Client.Space.Query().
		Where(space.DeletedAtNotNil(), space.DeletedAtLTE(clock.Now().Add(-RestoreWindow))).
		IDs(ctx)
	if err != nil {
		return 0, err
	}
	purged := 0
	for _, id := range ids {
		var n int
		var revs []string
		err := r.withTx(ctx, func(tx *ent.Client) error {
			if _, err := tx.CustomFieldValue.Delete().Where(customfieldvalue.SpaceID(id)).Exec(ctx); err != nil {
				return err
			}
			// Kept while it could be restored, its grants go now.
			if err := purgeObjectGrants(ctx, tx, grant.ObjectKindSpace, id); err != nil {
				return err
			}
			if _, err := tx.CommentReaction.Delete().Where(commentreaction.SpaceID(id)).Exec(ctx); err != nil {
				return err
			}
			if _, err := tx.CommentReply.Delete().Where(commentreply.SpaceID(id)).Exec(ctx); err != nil {
				return err
			}
			// Its site spaces, hidden while it was in the trash, go with it.
			if _, err := tx.GitSyncOperation.Delete().Where(gitsyncoperation.SpaceID(id)).Exec(ctx); err != nil {
				return err
			}
			if _, err := tx.GitSync.Delete().Where(gitsync.SpaceID(id)).Exec(ctx); err != nil {
				return err
			}
			if _, err := tx.SiteSpace.Delete().Where(sitespace.SpaceID(id)).Exec(ctx); err != nil {
				return err
			}
			if _, err := tx.Comment.Delete().Where(comment.SpaceID(id)).Exec(ctx); err != nil {
				return err
			}
			if _, err := tx.ChangeRequestReview.Delete().Where(changerequestreview.SpaceID(id)).Exec(ctx); err != nil {
				return err
			}
			if _, err := tx.ReviewRequest.Delete().Where(reviewrequest.SpaceID(id)).Exec(ctx); err != nil {
				return err
			}
			if _, err := tx.ChangeRequest.Delete().Where(changerequest.SpaceID(id)).Exec(ctx); err != nil {
				return err
			}
			revs, err = tx.Revision.Query().Where(revision.SpaceID(id)).IDs(ctx)
			if err != nil {
				return err
			}
			if err := deleteChunks(ctx, tx, revs); err != nil {
				return err
			}
			if _, err := tx.File.Delete().Where(file.RevisionIDIn(revs...)).Exec(ctx); err != nil {
				return err
			}
			if _, err := tx.Revision.Delete().Where(revision.SpaceID(id)).Exec(ctx); err != nil {
				return err
			}
			if err := r.unindexSpace(ctx, tx, id); err != nil {
				return err
			}
			n, err = tx.Space.Delete().Where(space.ID(id), space.DeletedAtNotNil()).Exec(ctx)
			return err
		})
		if err != nil {
			return purged, err
		}
		loader.ForgetTrees(revs)
		purged += n
	}
	return purged, nil
}

// deleteChunks removes the chunk maps of revisions revs and the pages of the
// chunks no other revision names: a duplicated space shares its source's
// chunks, which stay while either space holds them.
func deleteChunks(ctx context.Context, tx *ent.Client, revs []string) error {
	for start := 0; start < len(revs); start += pageChunk {
		batch := revs[start:min(len(revs), start+pageChunk)]
		chunks, err := tx.RevisionChunk.Query().Where(revisionchunk.RevisionIDIn(batch...)).
			Unique(true).Select(revisionchunk.FieldChunkID).Strings(ctx)
		if err != nil {
			return err
		}
		if _, err := tx.RevisionChunk.Delete().Where(revisionchunk.RevisionIDIn(batch...)).Exec(ctx); err != nil {
			return err
		}
		for from := 0; from < len(chunks); from += pageChunk {
			part := chunks[from:min(len(chunks), from+pageChunk)]
			still, err := tx.RevisionChunk.Query().Where(revisionchunk.ChunkIDIn(part...)).
				Unique(true).Select(revisionchunk.FieldChunkID).Strings(ctx)
			if err != nil {
				return err
			}
			kept := map[string]bool{}
			for _, c := range still {
				kept[c] = true
			}
			var gone []string
			for _, c := range part {
				if !kept[c] {
					gone = append(gone, c)
				}
			}
			if len(gone) == 0 {
				continue
			}
			if _, err := tx.Page.Delete().Where(page.ChunkIDIn(gone...)).Exec(ctx); err != nil {
				return err
			}
		}
	}
	return nil
}
