package rest

import (
	"net/http"
	"strconv"

	"github.com/go-chi/chi/v5"

	"github.com/folio/folio/graph"
	"github.com/folio/folio/internal/apperr"
)

// Area `documents` (issue 29, the renderer's reads): a page's JSON document
// in a revision, evaluated for the caller's visitor claims, and a page's
// meta links in a space, a change request or a revision.
func (a *API) documentRoutes(r chi.Router) {
	const revisions = "/spaces/{spaceId}/revisions/{revisionId}"
	r.Method("GET", revisions+"/page/{pageId}/document", handler(a.getPageDocument))
	r.Method("GET", revisions+"/page/{pageId}/meta-links", handler(func(w http.ResponseWriter, r *http.Request) error {
		l, err := a.res.RevisionIDPageMetaLinks(r.Context(), chi.URLParam(r, "spaceId"), chi.URLParam(r, "revisionId"), chi.URLParam(r, "pageId"))
		return a.writeMetaLinks(w, l, err)
	}))
	r.Method("GET", "/spaces/{spaceId}/content/page/{pageId}/meta-links", handler(func(w http.ResponseWriter, r *http.Request) error {
		l, err := a.res.SpacePageMetaLinks(r.Context(), chi.URLParam(r, "spaceId"), chi.URLParam(r, "pageId"))
		return a.writeMetaLinks(w, l, err)
	}))
	r.Method("GET", "/spaces/{spaceId}/change-requests/{changeRequestId}/content/page/{pageId}/meta-links", handler(func(w http.ResponseWriter, r *http.Request) error {
		l, err := a.res.ChangeRequestPageMetaLinks(r.Context(), chi.URLParam(r, "spaceId"), chi.URLParam(r, "changeRequestId"), chi.URLParam(r, "pageId"))
		return a.writeMetaLinks(w, l, err)
	}))
}

// documentOptions reads ?evaluated= (true, false or deterministic-only)
// and ?dereferenced= (true, false or reusable-contents).
func documentOptions(r *http.Request) (graph.DocumentOptions, error) {
	opt := graph.DocumentOptions{Evaluated: graph.EvaluateNone}
	if v := queryString(r, "evaluated"); v != nil {
		if *v == string(graph.EvaluateDeterministic) {
			opt.Evaluated = graph.EvaluateDeterministic
		} else if b, err := strconv.ParseBool(*v); err == nil {
			if b {
				opt.Evaluated = graph.EvaluateAll
			}
		} else {
			return opt, apperr.InvalidField("evaluated", "must be true, false or deterministic-only")
		}
	}
	if v := queryString(r, "dereferenced"); v != nil {
		if *v == "reusable-contents" {
			opt.Dereferenced = true
		} else if b, err := strconv.ParseBool(*v); err == nil {
			opt.Dereferenced = b
		} else {
			return opt, apperr.InvalidField("dereferenced", "must be true, false or reusable-contents")
		}
	}
	return opt, nil
}

func (a *API) getPageDocument(w http.ResponseWriter, r *http.Request) error {
	opt, err := documentOptions(r)
	if err != nil {
		return err
	}
	doc, err := a.res.RevisionPageDocument(r.Context(), chi.URLParam(r, "spaceId"), chi.URLParam(r, "revisionId"), chi.URLParam(r, "pageId"), opt)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, doc)
}

func (a *API) writeMetaLinks(w http.ResponseWriter, l *graph.PageMetaLinks, err error) error {
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, presentMetaLinks(l))
}

// presentMetaLinks is GitBook's RevisionPageMetaLinks (canonical,
// alternates) with the neighbours its operations describe: previous, next
// and parent, each present when there is one.
func presentMetaLinks(l *graph.PageMetaLinks) map[string]any {
	alts := make([]map[string]any, len(l.Alternates))
	for i, t := range l.Alternates {
		alts[i] = presentMetaTarget(t)
	}
	out := map[string]any{"canonical": presentMetaTarget(l.Canonical), "alternates": alts}
	for name, t := range map[string]*graph.MetaLinkTarget{"previous": l.Previous, "next": l.Next, "parent": l.Up} {
		if t != nil {
			out[name] = presentMetaTarget(*t)
		}
	}
	return out
}

// presentMetaTarget is a ContentRefPage or a ContentRefURL.
func presentMetaTarget(t graph.MetaLinkTarget) map[string]any {
	if t.URL != "" {
		return map[string]any{"kind": "url", "url": t.URL}
	}
	out := map[string]any{"kind": "page", "page": t.Page}
	if t.Space != "" {
		out["space"] = t.Space
	}
	return out
}
