package graph

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"mime"
	"net/http"
	"net/url"

	"github.com/99designs/gqlgen/graphql"

	"github.com/folio/folio/internal/apperr"
)

// wellFormed refuses, before gqlgen sees it, a request that is not a
// GraphQL request over HTTP: a POST not sent as application/json, a body or
// GET parameters that do not decode as gqlgen decodes them. gqlgen answers
// these itself with the same 400 but no extensions.code; apperr.Write gives
// one, in GraphQL's shape (the request is marked ForGraphQL here as well as
// by the app's router, so the handler answers so wherever it is mounted).
func wellFormed(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r = r.WithContext(apperr.ForGraphQL(r.Context()))
		if err := checkRequest(r); err != nil {
			apperr.Write(w, r, err)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// checkRequest reports what makes r no GraphQL request, leaving its body to
// be read again.
func checkRequest(r *http.Request) error {
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
		return decodeParam("the body", string(body), &graphql.RawParams{})
	case http.MethodGet:
		q, err := url.ParseQuery(r.URL.RawQuery)
		if err != nil {
			return apperr.Invalidf("the query string does not parse: %v", err)
		}
		for _, name := range []string{"variables", "extensions"} {
			if v := q.Get(name); v != "" {
				if err := decodeParam(name, v, &map[string]any{}); err != nil {
					return err
				}
			}
		}
	}
	return nil
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
