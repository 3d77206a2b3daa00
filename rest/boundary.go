package rest

import (
	"context"
	"net/http"
	"strings"

	"github.com/go-chi/chi/v5"

	"github.com/folio/folio/graph"
	"github.com/folio/folio/internal/apperr"
	"github.com/folio/folio/internal/textcheck"
)

// The boundary of /v1: what no handler needs to think about.
//
//   - Text is valid UTF-8 without NUL (package textcheck): a path segment
//     that is not answers 404 like any unknown id, a query parameter or a
//     body string that is not answers 400 naming it (bodies: decodeJSON).
//   - Authorization comes before validation: a 400 (or 413) reaches only a
//     caller who may see the objects the path names, and, for a write, who
//     may change something there; anyone else gets the 404 (or 403) the
//     resolvers would have given them. The check runs only on the way to a
//     refusal, so valid requests cost no statement more.

type apiKey struct{}

type openTargetKey struct{}

// boundary is the middleware of every /v1 route. chi runs a group's
// middlewares once the route is matched, so the path's parameters are known.
func (a *API) boundary(next http.Handler) http.Handler {
	checked := handler(func(w http.ResponseWriter, r *http.Request) error {
		if err := checkPath(r); err != nil {
			return err
		}
		if err := apperr.Deferred(r.Context()); err != nil {
			return err // an oversize body (limitBody), answered once the target is checked
		}
		if err := checkQuery(r); err != nil {
			return err
		}
		next.ServeHTTP(w, r)
		return nil
	})
	// The API goes into the context first: a refused query parameter is
	// hidden behind a 404 from callers who may not see the path's objects.
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		checked.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), apiKey{}, a)))
	})
}

// anyCaller marks an operation that any authenticated user may call on a
// path naming objects they cannot see yet (joining through an invite link):
// its refusals are not hidden behind a 404.
func anyCaller(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), openTargetKey{}, true)))
	})
}

// checkPath answers 404 for a path segment that is not acceptable text: no
// object has such an id, and the database must not be asked (PostgreSQL
// fails on NUL and invalid UTF-8 where SQLite would just find nothing).
func checkPath(r *http.Request) error {
	rc := chi.RouteContext(r.Context())
	if rc == nil {
		return nil
	}
	for i, key := range rc.URLParams.Keys {
		if textcheck.Problem(rc.URLParams.Values[i]) != "" {
			name := strings.TrimSuffix(key, "Id")
			if name == "*" {
				name = "path"
			}
			return apperr.NotFoundf("%s not found", name)
		}
	}
	return nil
}

// checkQuery refuses query parameters, names or values, that are not
// acceptable text, naming the first in alphabetical order.
func checkQuery(r *http.Request) error {
	name, problem, inName := textcheck.Query(r.URL.RawQuery)
	switch {
	case problem == "":
		return nil
	case inName:
		return apperr.Invalidf("the name of a query parameter %s", problem)
	}
	return apperr.InvalidField(name, "%s", problem)
}

// targetRefusal is the 404 that replaces a refusal for a caller who may not
// see the path's objects, or the 403 for one who may see them but may not
// change anything there with a write; nil when neither applies (or the route
// names no object).
func targetRefusal(r *http.Request) error {
	a, _ := r.Context().Value(apiKey{}).(*API)
	if a == nil || r.Context().Value(openTargetKey{}) != nil {
		return nil
	}
	p := func(name string) string { return chi.URLParam(r, name) }
	return a.res.TargetRefusal(r.Context(), graph.Target{
		OrganizationID:  p("organizationId"),
		TeamID:          p("teamId"),
		SpaceID:         p("spaceId"),
		ShareKey:        queryString(r, "shareKey"),
		ChangeRequestID: p("changeRequestId"),
		CollectionID:    p("collectionId"),
		SiteID:          p("siteId"),
		SiteChildID:     first(p("siteSpaceId"), p("siteSectionId"), p("siteSectionGroupId"), p("shareLinkId")),
		Change:          r.Method != http.MethodGet && r.Method != http.MethodHead,
	})
}

// checkPathMiddleware is checkPath for routes outside /v1 (downloads).
func checkPathMiddleware(next http.Handler) http.Handler {
	return handler(func(w http.ResponseWriter, r *http.Request) error {
		if err := checkPath(r); err != nil {
			return err
		}
		next.ServeHTTP(w, r)
		return nil
	})
}

// first is the first non-empty value.
func first(vals ...string) string {
	for _, v := range vals {
		if v != "" {
			return v
		}
	}
	return ""
}
