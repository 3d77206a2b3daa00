package loader

import (
	"context"
	"runtime"
	"sync"
	"weak"

	"github.com/graph-gophers/dataloader/v7"

	"github.com/folio/folio/ent"
	"github.com/folio/folio/ent/changerequest"
	"github.com/folio/folio/ent/file"
	"github.com/folio/folio/ent/revision"
)

// ReadLoaders batch the reads of issue 16 (revision history, contributors,
// organization change requests) that fan out over a list.
type ReadLoaders struct {
	// SpaceRevisions are every revision of a space, oldest first (by
	// created_at, id): the space's history is walked from them in memory, so
	// one statement serves the revisions of a whole list of spaces.
	SpaceRevisions *dataloader.Loader[string, []*ent.Revision]
	// MergedFrom is the change request whose merge made a revision, keyed
	// by revision id; nil for other revisions.
	MergedFrom *dataloader.Loader[string, *ent.ChangeRequest]
	// RevisionFiles is RevisionLoaders.RevisionFiles by level: revisions a
	// list shows together (ShowTogether) read their files in one
	// statement, however the list's resolution falls into batches (diffs).
	RevisionFiles *dataloader.Loader[string, []*ent.File]
}

func newReadLoaders(b batching, client *ent.Client, t *together) *ReadLoaders {
	files := byLevel(t, "files", func(ctx context.Context, revs []string) (map[string][]*ent.File, error) {
		rows, err := client.File.Query().Where(file.RevisionIDIn(revs...)).
			Order(ent.Asc(file.FieldCreatedAt), ent.Asc(file.FieldFileID)).All(ctx)
		out := make(map[string][]*ent.File, len(revs))
		for _, f := range rows {
			out[f.RevisionID] = append(out[f.RevisionID], f)
		}
		return out, err
	})
	return &ReadLoaders{
		RevisionFiles: mapLoader(b, files),
		SpaceRevisions: groupLoader(b, func(ctx context.Context, spaceIDs []string) ([]*ent.Revision, error) {
			return client.Revision.Query().Where(revision.SpaceIDIn(spaceIDs...)).
				Order(ent.Asc(revision.FieldCreatedAt), ent.Asc(revision.FieldID)).All(ctx)
		}, func(r *ent.Revision) string { return r.SpaceID }),
		MergedFrom: newLoader(b, func(ctx context.Context, revs []string) ([]*ent.ChangeRequest, error) {
			return client.ChangeRequest.Query().Where(changerequest.RevisionMergedIn(revs...)).All(ctx)
		}, func(cr *ent.ChangeRequest) string { return *cr.RevisionMerged }, ""),
	}
}

// The read loaders of each request, made on first use. They live beside
// Loaders rather than in it so that this file is the only one they touch;
// a weak key lets a finished request's loaders go.
var (
	readsMu sync.Mutex
	reads   = map[weak.Pointer[Loaders]]*ReadLoaders{}
)

// Reads are the request's ReadLoaders.
func (l *Loaders) Reads() *ReadLoaders {
	key := weak.Make(l)
	readsMu.Lock()
	defer readsMu.Unlock()
	if r, ok := reads[key]; ok {
		return r
	}
	r := newReadLoaders(batching{stats: l.stats, wait: batchWait}, l.client, &l.RevisionLoaders.together)
	reads[key] = r
	runtime.AddCleanup(l, func(k weak.Pointer[Loaders]) {
		readsMu.Lock()
		delete(reads, k)
		readsMu.Unlock()
	}, key)
	return r
}

// ByPath finds a page by its path (slugs from the root joined with "/").
func (t *Tree) ByPath(path string) (*ent.Page, bool) {
	for id, p := range t.paths {
		if p == path {
			return t.ByID[id], true
		}
	}
	return nil, false
}
