package reader

import (
	"net/http"
	"strings"

	"github.com/folio/folio/internal/published"
)

// notFoundOrRedirect answers a path of a site that has no page: through
// the site's live redirect that applies to it (the path as asked, then its
// canonical form, where the default section and site space are left out),
// else 404. A permanent redirect is 308 for public live traffic, 307
// elsewhere (a member's preview, a site that is not public), as GitBook
// serves them; a temporary one is 307.
func (h *Handler) notFoundOrRedirect(w http.ResponseWriter, r *http.Request, s *published.Site, v *published.View, prefix, rest string) {
	target, permanent, ok, err := h.res.ReaderRedirect(r.Context(), s, rest)
	if err == nil && !ok {
		if pl, found := v.Resolve(rest); found && pl.SiteSpace != nil {
			canonical := strings.TrimPrefix(v.SpaceURL(pl.Section, pl.SiteSpace), prefix) + pl.PagePath
			if strings.Trim(canonical, "/") != strings.Trim(rest, "/") {
				target, permanent, ok, err = h.res.ReaderRedirect(r.Context(), s, canonical)
			}
		}
	}
	if err != nil {
		h.fail(w, r, err)
		return
	}
	if !ok {
		h.notFound(w, r)
		return
	}
	if strings.HasPrefix(target, "/") {
		target = prefix + strings.TrimPrefix(target, "/")
	}
	status := http.StatusTemporaryRedirect
	if permanent && !s.Preview && s.Visibility == "public" {
		status = http.StatusPermanentRedirect
	}
	if status == http.StatusTemporaryRedirect {
		w.Header().Set("Cache-Control", "no-store")
	}
	http.Redirect(w, r, target, status)
}
