package graph

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"sort"
	"strconv"
	"strings"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"

	"github.com/folio/folio/internal/textcheck"
)

// textBoundary refuses an operation whose variables or literal string
// arguments are not acceptable text (NUL, invalid UTF-8: package
// textcheck), with BAD_USER_INPUT naming the argument, before any resolver
// runs: PostgreSQL fails on such strings where SQLite stores them, and the
// answer must not depend on the database. It walks the variables once and
// the operation's arguments once, each fragment at most once: linear in the
// request.
type textBoundary struct{}

func (textBoundary) ExtensionName() string                   { return "TextBoundary" }
func (textBoundary) Validate(graphql.ExecutableSchema) error { return nil }

func (textBoundary) MutateOperationContext(_ context.Context, oc *graphql.OperationContext) *gqlerror.Error {
	if oc.Operation == nil {
		return nil
	}
	names := make([]string, 0, len(oc.Variables))
	for name := range oc.Variables {
		names = append(names, name)
	}
	sort.Strings(names) // the same variable is named every time
	for _, name := range names {
		if path, problem := badVariable(name, oc.Variables[name]); problem != "" {
			return badText("variable $"+path, path, problem)
		}
	}
	seen := map[string]bool{}
	return badArguments(oc.Operation.SelectionSet, oc.Doc.Fragments, seen)
}

// badVariable finds an unacceptable string in a variable's JSON value.
func badVariable(path string, v any) (string, string) {
	switch v := v.(type) {
	case string:
		return path, textcheck.Problem(v)
	case []any:
		for i, e := range v {
			if p, problem := badVariable(path+"["+strconv.Itoa(i)+"]", e); problem != "" {
				return p, problem
			}
		}
	case map[string]any:
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if problem := textcheck.Problem(k); problem != "" {
				return path, "has a key that " + problem
			}
			if p, problem := badVariable(path+"."+k, v[k]); problem != "" {
				return p, problem
			}
		}
	}
	return path, ""
}

// badArguments finds an unacceptable literal string in the arguments of a
// selection set, through its fragments (each walked once).
func badArguments(set ast.SelectionSet, frags ast.FragmentDefinitionList, seen map[string]bool) *gqlerror.Error {
	for _, sel := range set {
		switch s := sel.(type) {
		case *ast.Field:
			for _, arg := range s.Arguments {
				if path, problem := badLiteral(arg.Name, arg.Value); problem != "" {
					return badText(fmt.Sprintf("argument %s of %s", path, s.Name), path, problem)
				}
			}
			if err := badArguments(s.SelectionSet, frags, seen); err != nil {
				return err
			}
		case *ast.InlineFragment:
			if err := badArguments(s.SelectionSet, frags, seen); err != nil {
				return err
			}
		case *ast.FragmentSpread:
			if seen[s.Name] {
				continue
			}
			seen[s.Name] = true
			if f := frags.ForName(s.Name); f != nil {
				if err := badArguments(f.SelectionSet, frags, seen); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// badLiteral finds an unacceptable string in a literal argument value
// (variables inside it are checked with the variables).
func badLiteral(path string, v *ast.Value) (string, string) {
	if v == nil {
		return path, ""
	}
	switch v.Kind {
	case ast.StringValue, ast.BlockValue:
		return path, textcheck.Problem(v.Raw)
	case ast.ListValue:
		for i, c := range v.Children {
			if p, problem := badLiteral(path+"["+strconv.Itoa(i)+"]", c.Value); problem != "" {
				return p, problem
			}
		}
	case ast.ObjectValue:
		for _, c := range v.Children {
			if p, problem := badLiteral(path+"."+c.Name, c.Value); problem != "" {
				return p, problem
			}
		}
	}
	return path, ""
}

func badText(what, field, problem string) *gqlerror.Error {
	err := gqlerror.Errorf("%s %s", what, problem)
	err.Extensions = map[string]any{"code": "BAD_USER_INPUT", "field": field}
	return err
}

// rawText refuses a POST body whose JSON strings are not acceptable text,
// before gqlgen decodes it: encoding/json would quietly turn invalid UTF-8
// and lone surrogate escapes into U+FFFD, and textBoundary would then see
// text the client never sent. The answer is the one textBoundary gives.
func rawText(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); r.Method != http.MethodPost || r.Body == nil || mt != "application/json" {
			next.ServeHTTP(w, r)
			return
		}
		body, err := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		f := textcheck.JSON(body)
		if err != nil || f == nil {
			// A read error (a body over the size bound) is gqlgen's to
			// report, from the same reader.
			if err != nil {
				r.Body = io.NopCloser(io.MultiReader(bytes.NewReader(body), errReader{err}))
			}
			next.ServeHTTP(w, r)
			return
		}
		var gerr *gqlerror.Error
		if name, ok := strings.CutPrefix(f.Path, "variables."); ok {
			gerr = badText("variable $"+name, name, f.Problem)
		} else {
			gerr = badText("the request's "+cmp.Or(f.Path, "body"), f.Path, f.Problem)
		}
		// A request error: errors and no data key (GraphQL over HTTP).
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"errors": gqlerror.List{gerr}})
	})
}

type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }
