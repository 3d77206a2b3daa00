package loader

import (
	"cmp"
	"context"
	"slices"

	"github.com/folio/folio/ent"
	"github.com/folio/folio/ent/page"
	"github.com/folio/folio/ent/predicate"
	"github.com/folio/folio/ent/revisionchunk"
)

// RevisionPages reads the page rows of revisions revs that match where, by
// revision: a revision's pages are the rows of the chunks its map names
// (revision_chunks; internal/db/chunks.go). Two statements: the maps (a few
// rows a revision), then the pages of their chunks by the (chunk_id, …)
// index. One statement joining the map lets PostgreSQL's planner hash the
// whole pages table when its estimate of the rows is off, which made a
// 1,000-page tree half as fast. Rows come ordered by parent, position and
// page id.
func RevisionPages(ctx context.Context, client *ent.Client, revs []string, where ...predicate.Page) (map[string][]*ent.Page, error) {
	out := make(map[string][]*ent.Page, len(revs))
	if len(revs) == 0 {
		return out, nil
	}
	revsOf, chunks, err := ChunkMaps(ctx, client, revs)
	if err != nil {
		return nil, err
	}
	for len(chunks) > 0 {
		n := min(len(chunks), maxChunksPerStatement)
		rows, err := client.Page.Query().Where(append(where[:len(where):len(where)], page.ChunkIDIn(chunks[:n]...))...).All(ctx)
		if err != nil {
			return nil, err
		}
		chunks = chunks[n:]
		addPages(out, rows, revsOf)
	}
	sortRevisionPages(out)
	return out, nil
}

// ChunkMaps reads the chunk maps of revisions: the revisions holding each
// chunk, and the chunks in the order first met.
func ChunkMaps(ctx context.Context, client *ent.Client, revs []string) (map[string][]string, []string, error) {
	maps, err := client.RevisionChunk.Query().Where(revisionchunk.RevisionIDIn(revs...)).
		Select(revisionchunk.FieldRevisionID, revisionchunk.FieldChunkID).All(ctx)
	if err != nil {
		return nil, nil, err
	}
	revsOf := make(map[string][]string, len(maps))
	chunks := make([]string, 0, len(maps))
	for _, m := range maps {
		if revsOf[m.ChunkID] == nil {
			chunks = append(chunks, m.ChunkID)
		}
		revsOf[m.ChunkID] = append(revsOf[m.ChunkID], m.RevisionID)
	}
	return revsOf, chunks, nil
}

// PagesByRevision hands page rows to the revisions holding their chunks
// (revsOf, from ChunkMaps), in RevisionPages' order.
func PagesByRevision(rows []*ent.Page, revsOf map[string][]string) map[string][]*ent.Page {
	out := map[string][]*ent.Page{}
	addPages(out, rows, revsOf)
	sortRevisionPages(out)
	return out
}

func addPages(out map[string][]*ent.Page, rows []*ent.Page, revsOf map[string][]string) {
	for _, p := range rows {
		for i, rev := range revsOf[p.ChunkID] {
			if i > 0 {
				// Revisions sharing a chunk (a duplicated space) get
				// rows of their own, as callers may change them.
				c := *p
				p = &c
			}
			out[rev] = append(out[rev], p)
		}
	}
}

// sortRevisionPages orders each revision's rows by parent, position and page id:
// sorted here rather than by the database, whose collation made the sort
// the costliest part of the statement.
func sortRevisionPages(out map[string][]*ent.Page) {
	for _, ps := range out {
		slices.SortFunc(ps, func(a, b *ent.Page) int {
			return cmp.Or(cmp.Compare(a.ParentPageID, b.ParentPageID), cmp.Compare(a.Position, b.Position), cmp.Compare(a.PageID, b.PageID))
		})
	}
}

// maxChunksPerStatement bounds the parameters of one statement (SQLite
// takes 32,766, PostgreSQL 65,535): more chunks take more statements.
const maxChunksPerStatement = 10000
