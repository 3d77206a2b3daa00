// Package rest is the GitBook-compatible /v1 adapter: it parses requests,
// calls the resolvers of package graph and presents their results in
// GitBook's JSON shapes. No rule and no query lives here.
package rest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/url"
	"reflect"
	"strconv"
	"strings"

	"github.com/folio/folio/internal/apperr"
	"github.com/folio/folio/internal/textcheck"
)

// writeJSON answers v with status.
func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// writeOne answers one object the resolvers returned, or their error. A 201
// carries the new object's API URL in Location when location is given.
func writeOne[T any](w http.ResponseWriter, r *http.Request, status int, v T, err error,
	present func(context.Context, T) (any, error), location func(T) string) {
	var body any
	if err == nil {
		body, err = present(r.Context(), v)
	}
	if err != nil {
		writeError(w, r, err)
		return
	}
	if status == http.StatusCreated && location != nil {
		w.Header().Set("Location", location(v))
	}
	writeJSON(w, status, body)
}

// writeStatus answers an empty body (204, 205).
func writeStatus(w http.ResponseWriter, status int) { w.WriteHeader(status) }

// decodeJSON reads a JSON object body into dst. Unknown fields are ignored;
// a known field of the wrong type is a 400 naming it.
func decodeJSON(r *http.Request, dst any) error {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			return &apperr.Error{Kind: apperr.TooLarge, Message: "request body is too large"}
		}
		return apperr.Invalidf("could not read the request body")
	}
	body = bytes.TrimSpace(body)
	if len(body) == 0 {
		return apperr.Invalidf("request body is required: send a JSON object")
	}
	if body[0] != '{' {
		return apperr.Invalidf("request body must be a JSON object")
	}
	// Before decoding: encoding/json would quietly turn invalid UTF-8 and
	// lone surrogates into U+FFFD, and NUL must not reach the database.
	if f := textcheck.JSON(body); f != nil {
		if f.Path == "" {
			return apperr.Invalidf("request body %s", f.Problem)
		}
		return apperr.InvalidField(f.Path, "%s", f.Problem)
	}
	if err := json.Unmarshal(body, dst); err != nil {
		var typeErr *json.UnmarshalTypeError
		var syntaxErr *json.SyntaxError
		switch {
		case errors.As(err, &typeErr) && typeErr.Field != "":
			return apperr.InvalidField(typeErr.Field, "must be %s, not %s", jsonKind(typeErr.Type), typeErr.Value)
		case errors.As(err, &syntaxErr):
			return apperr.Invalidf("malformed JSON at byte %d: %s", syntaxErr.Offset, syntaxErr.Error())
		case errors.As(err, &typeErr):
			return apperr.Invalidf("request body must be a JSON object")
		}
		return apperr.Invalidf("malformed JSON: %s", err.Error())
	}
	return nil
}

// jsonKind names a Go type the way a JSON user thinks of it.
func jsonKind(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "a boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64,
		reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Slice, reflect.Array:
		return "an array"
	}
	return "an object"
}

// queryInt reads an optional integer query parameter.
func queryInt(r *http.Request, name string) (*int, error) {
	raw, ok := params(r)[name]
	if !ok {
		return nil, nil
	}
	n, err := strconv.Atoi(strings.TrimSpace(raw[0]))
	if err != nil {
		return nil, apperr.InvalidField(name, "must be an integer")
	}
	return &n, nil
}

// queryString reads an optional query parameter.
func queryString(r *http.Request, name string) *string {
	raw, ok := params(r)[name]
	if !ok {
		return nil
	}
	return &raw[0]
}

// params are the request's query parameters.
func params(r *http.Request) url.Values {
	v, _ := url.ParseQuery(r.URL.RawQuery)
	return v
}
