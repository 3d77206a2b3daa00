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

// writeJSON answers v with status. The body is encoded before anything is
// written, so a value that cannot be encoded is still answered as an error.
func writeJSON(w http.ResponseWriter, status int, v any) error {
	body, err := json.Marshal(v)
	if err != nil {
		return err
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	_, _ = w.Write(append(body, '\n'))
	return nil
}

// writeOne answers the result of an application call: its error, or the
// object presented. A 201 carries the new object's API URL in Location when
// location is given.
func writeOne[T, X any](w http.ResponseWriter, r *http.Request, status int, v T, err error,
	present func(context.Context, T) (X, error), location func(T) string) error {
	if err != nil {
		return err
	}
	body, err := present(r.Context(), v)
	if err != nil {
		return err
	}
	if status == http.StatusCreated && location != nil {
		w.Header().Set("Location", location(v))
	}
	return writeJSON(w, status, body)
}

// writeStatus answers an empty body (204, 205).
func writeStatus(w http.ResponseWriter, status int) error {
	w.WriteHeader(status)
	return nil
}

// decodeJSON reads a required JSON object body into dst. Unknown fields are
// ignored; a known field of the wrong type is a 400 naming it.
func decodeJSON(r *http.Request, dst any) error {
	body, err := readBody(r)
	if err != nil {
		return err
	}
	if len(body) == 0 {
		return apperr.Invalidf("request body is required: send a JSON object")
	}
	return unmarshalObject(body, dst)
}

// decodeOptionalJSON is decodeJSON for the operations whose body may be left
// out: an empty body, or one of only whitespace, leaves dst as it is however
// it was framed (no Content-Length, Content-Length: 0, or chunked with no
// bytes). A body that is there must still be a JSON object.
func decodeOptionalJSON(r *http.Request, dst any) error {
	body, err := readBody(r)
	if err != nil || len(body) == 0 {
		return err
	}
	return unmarshalObject(body, dst)
}

// readBody reads the whole body, without surrounding whitespace.
func readBody(r *http.Request) ([]byte, error) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			return nil, &apperr.Error{Kind: apperr.TooLarge, Message: "request body is too large"}
		}
		return nil, apperr.Invalidf("could not read the request body")
	}
	return bytes.TrimSpace(body), nil
}

// unmarshalObject decodes a body that must be a JSON object into dst.
func unmarshalObject(body []byte, dst any) error {
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
