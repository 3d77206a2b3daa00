package loader

import (
	"context"

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
	var rows []struct {
		ent.Page
		Revision string `sql:"map_revision_id"`
	}
	err := client.Page.Query().Where(where...).Modify(func(s *sql.Selector) {
		m := sql.Table(revisionchunk.Table).As("m")
		s.Join(m).On(s.C(page.FieldChunkID), m.C(revisionchunk.FieldChunkID)).
			Where(sql.In(m.C(revisionchunk.FieldRevisionID), in...)).
			AppendSelectAs(m.C(revisionchunk.FieldRevisionID), "map_revision_id").
			OrderBy(s.C(page.FieldParentPageID), s.C(page.FieldPosition), s.C(page.FieldPageID))
	}).Scan(ctx, &rows)
	if err != nil {
		return nil, err
	}
	for i := range rows {
		p := rows[i].Page
		out[rows[i].Revision] = append(out[rows[i].Revision], &p)
	}
	return out, nil
}
