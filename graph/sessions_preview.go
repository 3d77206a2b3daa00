package graph

import (
	"context"

	"github.com/folio/folio/ent"
	"github.com/folio/folio/ent/site"
	"github.com/folio/folio/internal/apperr"
	"github.com/folio/folio/internal/published"
)

// ReaderPreviewSite is the site at /s/<name>/ for a signed-in member who
// may see it in the API (visibleSite), published or not: its structure as
// published would show it, marked Preview (no visitor gate). member is
// false when the viewer may not see the site: the reader then serves it
// as to anyone.
func (r *Resolver) ReaderPreviewSite(ctx context.Context, name string) (s *published.Site, member bool, err error) {
	row, err := r.Client.Site.Query().Where(site.Or(site.Basename(name), site.And(site.ID(name), site.BasenameIsNil()))).First(ctx)
	if ent.IsNotFound(err) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	if _, _, err := visibleSite(ctx, "", row.ID); err != nil {
		if _, ok := apperr.As(err); ok {
			return nil, false, nil
		}
		return nil, false, err
	}
	if s, err = r.publishedStructure(ctx, row); err != nil {
		return nil, false, err
	}
	s.Preview = true
	return s, true, nil
}
