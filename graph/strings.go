package graph

import (
	"context"
	"fmt"
	"sort"
	"strconv"

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
