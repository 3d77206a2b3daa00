package schemacompat

import (
	"strings"
	"testing"

	"github.com/vektah/gqlparser/v2"
	"github.com/vektah/gqlparser/v2/ast"
)

func schema(t *testing.T, sdl string) *ast.Schema {
	t.Helper()
	s, err := gqlparser.LoadSchema(&ast.Source{Name: "test.graphql", Input: sdl})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

const base = `
interface Node { id: ID! }
type Query { space(id: ID!, share: String): Space, spaces(first: Int): [Space!]! }
type Space implements Node { id: ID!, title: String!, emoji: String, tags: [String!]!, kind: Kind! }
enum Kind { a b }
union Thing = Space
input In { title: String, size: Int! }
type Mutation { make(in: In!): Space }
directive @mine on FIELD_DEFINITION
`

func TestBreaking(t *testing.T) {
	for _, c := range []struct {
		name, from, to string
		want           string // the keys reported, joined with spaces
	}{
		{"same", "", "", ""},
		{"additions are safe", "", "type Extra { x: Int }\nextend type Space { size: Int }\nextend enum Kind { c }", ""},
		{"output tightened is safe", "title: String!", "title: String!", ""},
		{"nullable output made non-null is safe", "emoji: String", "emoji: String!", ""},
		{"non-null output made nullable", "title: String!", "title: String", "Space.title"},
		{"output list elements loosened", "tags: [String!]!", "tags: [String]!", "Space.tags"},
		{"output type changed", "title: String!", "title: Int!", "Space.title"},
		{"field removed", "emoji: String,", "", "Space.emoji"},
		{"type removed", "union Thing = Space", "", "Thing"},
		{"enum value removed", "enum Kind { a b }", "enum Kind { a }", "Kind.b"},
		{"interface dropped", "type Space implements Node {", "type Space {", "Space&Node"},
		{"argument removed", "space(id: ID!, share: String)", "space(id: ID!)", "Query.space(share:)"},
		{"required argument added", "spaces(first: Int)", "spaces(first: Int, org: ID!)", "Query.spaces(org:)"},
		{"optional argument added is safe", "spaces(first: Int)", "spaces(first: Int, org: ID)", ""},
		{"argument loosened is safe", "space(id: ID!,", "space(id: ID,", ""},
		{"argument tightened", "share: String)", "share: String!)", "Query.space(share:)"},
		{"input field tightened", "title: String,", "title: String!,", "In.title"},
		{"input field loosened is safe", "size: Int!", "size: Int", ""},
		{"required input field added", "size: Int! }", "size: Int!, color: String! }", "In.color"},
		{"directive removed", "directive @mine on FIELD_DEFINITION", "", "@mine"},
	} {
		t.Run(c.name, func(t *testing.T) {
			old := schema(t, base)
			changed := base
			if c.from != "" || c.to != "" {
				if c.from == "" {
					changed += c.to
				} else {
					changed = strings.Replace(base, c.from, c.to, 1)
				}
			}
			var keys []string
			for _, ch := range Breaking(old, schema(t, changed)) {
				keys = append(keys, ch.Key)
			}
			if got := strings.Join(keys, " "); got != c.want {
				t.Errorf("breaking changes %q, want %q", got, c.want)
			}
		})
	}
}
