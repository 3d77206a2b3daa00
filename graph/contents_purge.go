package graph

import (
	"context"

	"entgo.io/ent/dialect"
	"entgo.io/ent/dialect/sql"

	"github.com/folio/folio/ent"
	"github.com/folio/folio/ent/page"
	"github.com/folio/folio/ent/pagecontent"
	"github.com/folio/folio/ent/pagederived"
	"github.com/folio/folio/internal/events"
	"github.com/folio/folio/internal/markdown"
)

// purgeBatch is how many bodies or derived rows one statement of the purge
// examines: each batch is a keyset step, so the purge's memory stays
// constant however much content there is.
const purgeBatch = 500

// PurgeOrphanedContents deletes the page bodies (page_contents) that no page
// of any revision holds any more — what purging spaces leaves behind, since
// bodies are shared and stay while any page holds them — and the rows
// derived from bodies (page_deriveds) that are of another converter version
// or whose body is gone. It walks both tables in keyset batches, checks ctx
// between them, and answers how many rows of each it deleted.
//
// A writer may take up a body that is orphaned at that moment (the same
// text written again): content_draft locks the existing row with a no-op
// upsert, and on PostgreSQL the purge locks the rows it is about to delete
// and then checks them again in a new statement, so either the writer's
// pages are seen and the body stays, or the writer waits and inserts it
// anew. SQLite runs one writer at a time.
func (r *Resolver) PurgeOrphanedContents(ctx context.Context) (contents, derived int, err error) {
	// Removing bodies nothing holds changes nothing anyone sees: maintenance
	// records no event.
	ctx = events.Exempt(ctx, events.ExemptMaintenance)
	for after := ""; ; {
		if err := ctx.Err(); err != nil {
			return contents, derived, err
		}
		batch, err := r.Client.PageContent.Query().Where(pagecontent.IDGT(after)).
			Order(pagecontent.ByID()).Limit(purgeBatch).IDs(ctx)
		if err != nil || len(batch) == 0 {
			if err != nil {
				return contents, derived, err
			}
			break
		}
		after = batch[len(batch)-1]
		held, err := r.Client.Page.Query().Where(page.ContentHashIn(batch...)).
			Unique(true).Select(page.FieldContentHash).Strings(ctx)
		if err != nil {
			return contents, derived, err
		}
		orphans := without(batch, held)
		if len(orphans) == 0 {
			continue
		}
		nc, nd, err := r.deleteOrphanedContents(ctx, orphans)
		contents, derived = contents+nc, derived+nd
		if err != nil {
			return contents, derived, err
		}
	}
	n, err := r.Client.PageDerived.Delete().Where(pagederived.VersionNEQ(markdown.FormatVersion)).Exec(ctx)
	derived += n
	if err != nil {
		return contents, derived, err
	}
	for after := ""; ; {
		if err := ctx.Err(); err != nil {
			return contents, derived, err
		}
		rows, err := r.Client.PageDerived.Query().Where(pagederived.IDGT(after)).
			Order(pagederived.ByID()).Limit(purgeBatch).
			Select(pagederived.FieldID, pagederived.FieldContentHash).All(ctx)
		if err != nil || len(rows) == 0 {
			return contents, derived, err
		}
		after = rows[len(rows)-1].ID
		hashes := make([]string, len(rows))
		for i, d := range rows {
			hashes[i] = d.ContentHash
		}
		kept, err := r.Client.PageContent.Query().Where(pagecontent.IDIn(hashes...)).IDs(ctx)
		if err != nil {
			return contents, derived, err
		}
		if gone := without(hashes, kept); len(gone) > 0 {
			n, err := r.Client.PageDerived.Delete().Where(pagederived.ContentHashIn(gone...), bodyGone()).Exec(ctx)
			derived += n
			if err != nil {
				return contents, derived, err
			}
		}
	}
}

// deleteOrphanedContents deletes, in one transaction, those of ids that no
// page holds, and what was derived from them.
func (r *Resolver) deleteOrphanedContents(ctx context.Context, ids []string) (contents, derived int, err error) {
	err = r.withTx(ctx, func(tx *ent.Client) error {
		if r.Dialect == dialect.Postgres {
			// Wait for the writers that hold these rows (they took a body
			// up again), and make the next ones wait for this transaction.
			if _, err := tx.PageContent.Query().Where(pagecontent.IDIn(ids...)).
				Modify(func(s *sql.Selector) { s.Select(s.C(pagecontent.FieldID)).ForUpdate() }).Strings(ctx); err != nil {
				return err
			}
		}
		// A new statement: it sees the pages those writers committed.
		var err error
		contents, err = tx.PageContent.Delete().Where(pagecontent.IDIn(ids...), func(s *sql.Selector) {
			pages := sql.Table(page.Table)
			s.Where(sql.NotExists(sql.Select(pages.C(page.FieldID)).From(pages).
				Where(sql.ColumnsEQ(pages.C(page.FieldContentHash), s.C(pagecontent.FieldID)))))
		}).Exec(ctx)
		if err != nil {
			return err
		}
		derived, err = tx.PageDerived.Delete().Where(pagederived.ContentHashIn(ids...), bodyGone()).Exec(ctx)
		return err
	})
	return contents, derived, err
}

// bodyGone holds for derived rows whose body is no longer stored.
func bodyGone() func(*sql.Selector) {
	return func(s *sql.Selector) {
		bodies := sql.Table(pagecontent.Table)
		s.Where(sql.NotExists(sql.Select(bodies.C(pagecontent.FieldID)).From(bodies).
			Where(sql.ColumnsEQ(bodies.C(pagecontent.FieldID), s.C(pagederived.FieldContentHash)))))
	}
}

// without is all minus the values of some, in all's order.
func without(all, some []string) []string {
	drop := make(map[string]bool, len(some))
	for _, v := range some {
		drop[v] = true
	}
	var out []string
	for _, v := range all {
		if !drop[v] {
			out = append(out, v)
		}
	}
	return out
}
