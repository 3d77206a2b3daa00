package schema

import (
	"fmt"
	"regexp"
	"unicode/utf8"

	"entgo.io/ent"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
)

var customFieldName = regexp.MustCompile(`^[a-z_\-0-9]+$`)

// Bounds of a custom field's options, as GitBook's reference sets them.
const (
	CustomFieldMaxOptions      = 50
	CustomFieldMaxOptionLength = 40
)

// CustomField defines a field every space of the organization may carry a
// value for, addressed by its name.
type CustomField struct{ ent.Schema }

func (CustomField) Mixin() []ent.Mixin { return []ent.Mixin{IDMixin{}, TimeMixin{}} }

func (CustomField) Fields() []ent.Field {
	return []ent.Field{
		field.String("organization_id").Immutable(),
		field.String("name").Immutable().
			Validate(all(length(1, 50), matches(customFieldName, "lower-case letters, digits, '_' and '-'"))),
		// GitBook's CustomFieldType. text, number, boolean: a single value;
		// tags: free strings; select:single and select:multi pick one or
		// several of the options. URLs and dates are text.
		field.Enum("type").NamedValues(
			"Text", "text",
			"Number", "number",
			"Boolean", "boolean",
			"Tags", "tags",
			"SelectSingle", "select:single",
			"SelectMulti", "select:multi",
		).Immutable(),
		// GitBook always answers title, description and placeholder as
		// strings: unset is "".
		field.String("title").Default("").Validate(length(0, 100)),
		field.String("description").Default("").Validate(length(0, 200)),
		field.String("placeholder").Default("").Validate(length(0, 100)),
		// Only select:single and select:multi carry options (the resolver
		// holds that rule, which spans two fields).
		field.Strings("options").Optional().Validate(validateOptions),
	}
}

func (CustomField) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("organization", Organization.Type).Ref("custom_fields").Field("organization_id").Unique().Required().Immutable(),
	}
}

func (CustomField) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("organization_id", "name").Unique(),
		index.Fields("organization_id", "created_at", "id"),
	}
}

// validateOptions accepts 1 to 50 distinct, non-empty options of at most 40
// characters each.
func validateOptions(opts []string) error {
	if len(opts) < 1 || len(opts) > CustomFieldMaxOptions {
		return fmt.Errorf("must have 1 to %d entries (got %d)", CustomFieldMaxOptions, len(opts))
	}
	seen := make(map[string]bool, len(opts))
	for i, o := range opts {
		if n := utf8.RuneCountInString(o); n < 1 || n > CustomFieldMaxOptionLength {
			return fmt.Errorf("entry %d must be 1 to %d characters (got %d)", i, CustomFieldMaxOptionLength, n)
		}
		if seen[o] {
			return fmt.Errorf("entry %d repeats %q", i, o)
		}
		seen[o] = true
	}
	return nil
}
