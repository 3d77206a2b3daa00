package rest

import (
	"net/http"

	"github.com/go-chi/chi/v5"

	"github.com/folio/folio/graph"
	"github.com/folio/folio/internal/apperr"
)

// API is the /v1 adapter over the resolvers.
type API struct {
	res *graph.Resolver
}

// Routes mounts every /v1 operation on r, which the caller has already put
// behind authentication.
func Routes(r chi.Router, res *graph.Resolver) {
	a := &API{res: res}
	r = r.With(a.boundary)
	a.organizationRoutes(r)
	a.samlProviderRoutes(r)
	a.webhookRoutes(r)
	a.customFieldRoutes(r)
	a.translationRoutes(r)
	a.inviteRoutes(r)
	a.peopleRoutes(r)
	a.auditRoutes(r)
	a.memberRoutes(r)
	a.sharingAggregateRoutes(r)
	a.teamRoutes(r)
	a.siteRoutes(r)
	a.hostnameRoutes(r)
	a.sitePublishingRoutes(r)
	a.spaceRoutes(r)
	a.collectionRoutes(r)
	a.sharingRoutes(r)
	a.spaceFieldRoutes(r)
	a.contentRoutes(r)
	a.contentChangesRoutes(r)
	a.changeRequestRoutes(r)
	a.reviewRoutes(r)
	a.redirectRoutes(r)
	a.commentRoutes(r)
	a.contributorRoutes(r)
	a.organizationReadRoutes(r)
	a.searchRoutes(r)
	a.insightRoutes(r)
	a.linkRoutes(r)
	a.importRoutes(r)
	a.gitSyncRoutes(r)
	a.pdfRoutes(r)
	a.openAPIRoutes(r)
	a.urlRoutes(r)
	a.documentRoutes(r)
	a.embedRoutes(r)
}

// Downloads mounts the file downloads, outside /v1 and its authentication.
func Downloads(r chi.Router, res *graph.Resolver) {
	a := &API{res: res}
	r = r.With(checkPathMiddleware)
	a.fileDownloads(r)
	a.generatedDownloads(r)
	a.openAPIContent(r)
}

// handler is how every REST operation is written: parse the request, call
// the application, present its answer, and return the error if any. Errors
// are written in one place, ServeHTTP.
type handler func(w http.ResponseWriter, r *http.Request) error

func (h handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if err := h(w, r); err != nil {
		writeError(w, r, err)
	}
}

// writeError answers err in the GitBook error shape. A refusal of the
// request's input reaches only callers who may see the path's objects
// (boundary.go): authorization comes before validation.
func writeError(w http.ResponseWriter, r *http.Request, err error) {
	if e, ok := apperr.As(err); ok && (e.Kind == apperr.Invalid || e.Kind == apperr.TooLarge) {
		if refusal := targetRefusal(r); refusal != nil {
			err = refusal
		}
	}
	apperr.Write(w, r, err)
}

// NotFound answers unknown routes in the error shape.
func NotFound(w http.ResponseWriter, r *http.Request) {
	writeError(w, r, apperr.NotFoundf("no route for %s %s", r.Method, r.URL.Path))
}

// MethodNotAllowed answers a known route called with the wrong method.
func MethodNotAllowed(w http.ResponseWriter, r *http.Request) {
	writeError(w, r, &apperr.Error{Kind: apperr.MethodNotAllowed, Message: "method " + r.Method + " is not allowed on " + r.URL.Path})
}
