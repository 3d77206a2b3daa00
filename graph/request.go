package graph

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strings"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/parser"

	"github.com/folio/folio/internal/apperr"
)

// wellFormed refuses, before gqlgen sees it, a request that is not a
// GraphQL request over HTTP: an upgrade (to WebSocket), a POST not sent as
// application/json, a body or GET parameters that do not decode as gqlgen
// decodes them, a batch (a JSON array) empty or larger than MaxBatch
// (400), a mutation over GET, persisted or not (405, as GraphQL over HTTP
// asks). gqlgen answers these itself, with no extensions.code (and 406 for
// the mutation); apperr.Write gives one, in GraphQL's shape (the request is
// marked ForGraphQL here as well as by the app's router, so the handler
// answers so wherever it is mounted). cache is the executor's query cache,
// persisted its persisted queries.
func wellFormed(cache graphql.Cache[*ast.QueryDocument], persisted graphql.Cache[string], next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r = r.WithContext(apperr.ForGraphQL(r.Context()))
		if err := checkRequest(r, cache, persisted); err != nil {
			if r.Method == http.MethodGet {
				cacheHeaders(w.Header(), r.Context(), false)
			}
			apperr.Write(w, r, err)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// checkRequest reports what makes r no GraphQL request, leaving its body to
// be read again.
func checkRequest(r *http.Request, cache graphql.Cache[*ast.QueryDocument], persisted graphql.Cache[string]) error {
	if up := r.Header.Get("Upgrade"); up != "" {
		// A WebSocket carries subscriptions; its messages are checked as
		// they come (the transport bounds their size, the extensions the
		// rest).
		if IsWebSocket(r) && r.Method == http.MethodGet {
			// Checked here, so that a refusal has GraphQL's shape (the
			// library would answer in its own, and log outside ours).
			if r.Header.Get("Sec-WebSocket-Version") != "13" || r.Header.Get("Sec-WebSocket-Key") == "" ||
				!strings.Contains(strings.ToLower(r.Header.Get("Connection")), "upgrade") {
				return apperr.Invalidf("a WebSocket upgrade needs Connection: Upgrade, Sec-WebSocket-Version: 13 and a Sec-WebSocket-Key")
			}
			return nil
		}
		return apperr.Invalidf("GraphQL is served over HTTP requests and WebSockets, not %s", up)
	}
	switch r.Method {
	case http.MethodPost:
		if mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); mt != "application/json" {
			return apperr.Invalidf("a GraphQL request is a POST with Content-Type: application/json")
		}
		body, err := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		if err != nil {
			return apperr.Invalidf("could not read the request body")
		}
		if isBatch(body) {
			var ops []*graphql.RawParams
			if err := decodeParam("the body", string(body), &ops); err != nil {
				return err
			}
			return checkBatchSize(len(ops))
		}
		return decodeParam("the body", string(body), &graphql.RawParams{})
	case http.MethodGet:
		q, err := url.ParseQuery(r.URL.RawQuery)
		if err != nil {
			return apperr.Invalidf("the query string does not parse: %v", err)
		}
		var variables, extensions map[string]any
		for _, p := range []struct {
			name string
			into *map[string]any
		}{{"variables", &variables}, {"extensions", &extensions}} {
			if v := q.Get(p.name); v != "" {
				if err := decodeParam(p.name, v, p.into); err != nil {
					return err
				}
			}
		}
		query := q.Get("query")
		if hash := persistedHash(extensions); query == "" && hash != "" {
			query, _ = persisted.Get(r.Context(), hash) // unknown: the executor says so
		}
		if op := operation(r, cache, query, q.Get("operationName")); op != nil && op.Operation != ast.Query {
			return &apperr.Error{Kind: apperr.MethodNotAllowed, Message: "a " + string(op.Operation) + " is sent with POST, not GET"}
		}
	}
	return nil
}

// operation is the operation of query that a request names, if query
// parses (if not, gqlgen reports why); like documentBounds, it parses only
// queries not in cache.
func operation(r *http.Request, cache graphql.Cache[*ast.QueryDocument], query, name string) *ast.OperationDefinition {
	doc, ok := cache.Get(r.Context(), query)
	if !ok {
		var err error
		if doc, err = parser.ParseQueryWithTokenLimit(&ast.Source{Input: query}, MaxTokens); err != nil {
			return nil
		}
	}
	return doc.Operations.ForName(name)
}

// decodeParam decodes what as gqlgen's transports do, and says what is
// wrong in the API's terms rather than Go's.
func decodeParam(what, raw string, into any) error {
	dec := json.NewDecoder(bytes.NewReader([]byte(raw)))
	dec.UseNumber()
	err := dec.Decode(into)
	var typeErr *json.UnmarshalTypeError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &typeErr) && typeErr.Field != "":
		return apperr.InvalidField(typeErr.Field, "is a JSON %s, which it cannot be", typeErr.Value)
	case errors.As(err, &typeErr):
		return apperr.Invalidf("%s must be a JSON object, not %s", what, typeErr.Value)
	}
	return apperr.Invalidf("%s is not JSON: %v", what, err)
}
