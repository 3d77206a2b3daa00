package schema

import (
	"fmt"
	"slices"
	"strings"

	"entgo.io/ent"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
)

// TranslationLanguages are the language codes translation settings accept:
// GitBook's TranslationLanguage enum.
var TranslationLanguages = []string{
	"en", "fr", "de", "es", "it", "pt", "pt-br", "ru", "ja", "zh", "yue", "ko", "ar", "hi", "nl", "pl", "tr",
	"sv", "no", "da", "fi", "el", "cs", "hu", "ro", "th", "vi", "id", "ms", "he", "uk", "sk", "bg", "hr",
	"lt", "lv", "et", "sl",
}

// TranslationSettings configures the translation of an organization's
// content into languages.
type TranslationSettings struct{ ent.Schema }

func (TranslationSettings) Mixin() []ent.Mixin { return []ent.Mixin{IDMixin{}, TimeMixin{}} }

func (TranslationSettings) Fields() []ent.Field {
	return []ent.Field{
		field.String("organization_id").Immutable(),
		field.String("title").Validate(length(1, 100)),
		field.Strings("languages").Default([]string{}).Validate(validateLanguages),
	}
}

func (TranslationSettings) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("organization", Organization.Type).Ref("translations").Field("organization_id").Unique().Required().Immutable(),
	}
}

func (TranslationSettings) Indexes() []ent.Index {
	return []ent.Index{index.Fields("organization_id", "created_at", "id")}
}

// validateLanguages accepts distinct codes of TranslationLanguages.
func validateLanguages(langs []string) error {
	seen := make(map[string]bool, len(langs))
	for i, l := range langs {
		if !slices.Contains(TranslationLanguages, l) {
			return fmt.Errorf("entry %d: %q is not a language code (one of %s)", i, l, strings.Join(TranslationLanguages, ", "))
		}
		if seen[l] {
			return fmt.Errorf("entry %d repeats %q", i, l)
		}
		seen[l] = true
	}
	return nil
}
