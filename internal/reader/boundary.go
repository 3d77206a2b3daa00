package reader

import (
	"net/http"

	"github.com/folio/folio/internal/textcheck"
)

// The reader's boundary, as /v1 has its own (rest/boundary.go): every
// address it serves is acceptable text — valid UTF-8 without NUL
// (package textcheck) — before anything reads it. A path that is not is a
// 404 like any unknown page (no site or page can be named so), a query
// parameter (name or value) that is not is a 400 naming it. Neither reaches
// the database: PostgreSQL fails on such text where SQLite would find
// nothing, which made the same address a 404 on one and a 500 on the other.

// admitURL answers the request itself, and says false, when its path or
// query is not acceptable text.
func (h *Handler) admitURL(w http.ResponseWriter, r *http.Request) bool {
	// The path as the router sees it (decoded), and as sent (an escaped
	// slash keeps RawPath; its decoded form is the same bytes).
	if textcheck.Problem(r.URL.Path) != "" || textcheck.Problem(r.URL.RawPath) != "" {
		h.notFound(w, r)
		return false
	}
	if name, problem, inName := textcheck.Query(r.URL.RawQuery); problem != "" {
		if inName {
			name = "the name of a query parameter"
		}
		h.plain(w, http.StatusBadRequest, name+": "+problem)
		return false
	}
	return true
}
