package graph_test

import (
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/vektah/gqlparser/v2/ast"

	"github.com/folio/folio/graph/generated"
)

// TestSchemaDescriptions holds the schema to what a front-end developer
// reads in GraphiQL or codegen: every type, field, argument, input field and
// enum value the API defines says what it is. Built-in scalars, directives
// and introspection types are gqlparser's, not ours.
func TestSchemaDescriptions(t *testing.T) {
	missing := undocumented(generated.NewExecutableSchema(generated.Config{}).Schema())
	if len(missing) > 0 {
		t.Errorf("%d schema definitions have no description; add a \"...\" line above each in schema/*.graphql:\n  %s",
			len(missing), strings.Join(missing, "\n  "))
	}
}

func undocumented(s *ast.Schema) []string {
	var missing []string
	lacks := func(desc, what string) {
		if strings.TrimSpace(desc) == "" {
			missing = append(missing, what)
		}
	}
	for name, def := range s.Types {
		if def.BuiltIn || strings.HasPrefix(name, "__") {
			continue
		}
		lacks(def.Description, fmt.Sprintf("%s %s", strings.ToLower(string(def.Kind)), name))
		for _, f := range def.Fields {
			if strings.HasPrefix(f.Name, "__") {
				continue
			}
			lacks(f.Description, name+"."+f.Name)
			for _, a := range f.Arguments {
				lacks(a.Description, fmt.Sprintf("%s.%s(%s:)", name, f.Name, a.Name))
			}
		}
		for _, v := range def.EnumValues {
			lacks(v.Description, name+"."+v.Name)
		}
	}
	for name, d := range s.Directives {
		if d.Position != nil && d.Position.Src != nil && d.Position.Src.BuiltIn {
			continue
		}
		lacks(d.Description, "directive @"+name)
	}
	sort.Strings(missing)
	return missing
}
