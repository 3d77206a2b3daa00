package loader

import (
	"cmp"
	"context"
	"slices"

	"entgo.io/ent/dialect/sql"

	"github.com/folio/folio/ent"
	"github.com/folio/folio/ent/page"
	"github.com/folio/folio/ent/predicate"
	"github.com/folio/folio/ent/revisionchunk"
)

// RevisionPages reads the page rows of revisions revs that match where, by
// revision, in one statement: a revision's pages are the rows of the chunks
// its map names (revision_chunks; internal/db/chunks.go), so the read joins
// the map. Rows come ordered by parent, position and page id.
func RevisionPages(ctx context.Context, client *ent.Client, revs []string, where ...predicate.Page) (map[string][]*ent.Page, error) {
	out := make(map[string][]*ent.Page, len(revs))
	if len(revs) == 0 {
		return out, nil
	}
	in := make([]any, len(revs))
	for i, r := range revs {
		in[i] = r
	}
	rows, err := client.Page.Query().Where(where...).Modify(func(s *sql.Selector) {
		m := sql.Table(revisionchunk.Table).As("m")
		s.Join(m).On(s.C(page.FieldChunkID), m.C(revisionchunk.FieldChunkID)).
			Where(sql.In(m.C(revisionchunk.FieldRevisionID), in...)).
			AppendSelectAs(m.C(revisionchunk.FieldRevisionID), "map_revision_id")
	}).All(ctx)
	if err != nil {
		return nil, err
	}
	for _, p := range rows {
		rev, err := p.Value("map_revision_id")
		if err != nil {
			return nil, err
		}
		id, _ := rev.(string)
		if b, ok := rev.([]byte); ok {
			id = string(b)
		}
		out[id] = append(out[id], p)
	}
	// Sorted here rather than by the database: its collation makes the
	// sort the costliest part of the statement, and ent's own scanner
	// (All, the revision through Value) is about twice as fast as
	// scanning into a struct.
	for _, ps := range out {
		slices.SortFunc(ps, func(a, b *ent.Page) int {
			return cmp.Or(cmp.Compare(a.ParentPageID, b.ParentPageID), cmp.Compare(a.Position, b.Position), cmp.Compare(a.PageID, b.PageID))
		})
	}
	return out, nil
}
