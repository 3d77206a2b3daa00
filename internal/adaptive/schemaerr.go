package adaptive

import (
	"fmt"
	"sort"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

var printer = message.NewPrinter(language.English)

// explain turns the library's tree of validation errors into one *Error
// naming the field. The tree holds, for every `oneOf` of the reference (a
// claim is a boolean, or a string, or an enum, …), the failure of every
// branch; only one branch is what the author meant. A claim's "type" says
// which: the branches that fail on "type" itself are the ones not meant, so
// explain follows the others, and when every branch fails on "type" it is
// the type that is wrong, and the message lists the types the branches take.
func explain(ve *jsonschema.ValidationError, doc any) *Error {
	ls := leaves(ve)
	if len(ls) == 0 {
		return &Error{Message: ve.ErrorKind.LocalizedString(printer)}
	}
	// One error, the first in document order; with it, every other leaf at
	// the same place, so that enum failures of several branches merge.
	sort.SliceStable(ls, func(i, j int) bool {
		return strings.Join(ls[i].InstanceLocation, "\x00") < strings.Join(ls[j].InstanceLocation, "\x00")
	})
	first := ls[0]
	var same []*jsonschema.ValidationError
	for _, l := range ls {
		if equalPath(l.InstanceLocation, first.InstanceLocation) {
			same = append(same, l)
		}
	}
	field := fieldOf(first.InstanceLocation, doc)
	if allEnums(same) {
		var want []string
		seen := map[string]bool{}
		for _, l := range same {
			for _, w := range l.ErrorKind.(*kind.Enum).Want {
				s := display(w)
				if !seen[s] {
					seen[s] = true
					want = append(want, s)
				}
			}
		}
		if len(want) == 1 {
			return &Error{Field: field, Message: "must be " + want[0]}
		}
		return &Error{Field: field, Message: "must be one of " + strings.Join(want, ", ")}
	}
	switch k := first.ErrorKind.(type) {
	case *kind.Required:
		return &Error{Field: joinField(field, k.Missing[0]), Message: "is required"}
	case *kind.AdditionalProperties:
		return &Error{Field: joinField(field, k.Properties[0]), Message: "is not allowed"}
	case *kind.Type:
		return &Error{Field: field, Message: fmt.Sprintf("must be %s, not %s", article(strings.Join(k.Want, " or ")), k.Got)}
	}
	return &Error{Field: field, Message: first.ErrorKind.LocalizedString(printer)}
}

// leaves flattens the error tree to the failures that explain it, choosing
// one branch of each oneOf (see explain).
func leaves(ve *jsonschema.ValidationError) []*jsonschema.ValidationError {
	if _, ok := ve.ErrorKind.(*kind.OneOf); ok && len(ve.Causes) > 0 {
		typeLoc := append(append([]string(nil), ve.InstanceLocation...), "type")
		var best []*jsonschema.ValidationError
		var atType []*jsonschema.ValidationError
		for _, branch := range ve.Causes {
			ls := leaves(branch)
			if failsAt(ls, typeLoc) {
				for _, l := range ls {
					if equalPath(l.InstanceLocation, typeLoc) {
						atType = append(atType, l)
					}
				}
				continue
			}
			if best == nil || better(ls, best) {
				best = ls
			}
		}
		if best != nil {
			return best
		}
		return atType
	}
	if len(ve.Causes) == 0 {
		return []*jsonschema.ValidationError{ve}
	}
	var out []*jsonschema.ValidationError
	for _, c := range ve.Causes {
		out = append(out, leaves(c)...)
	}
	return out
}

// better prefers the branch that fails deeper in the document (it got
// further with what the author wrote: an enum whose values are wrong is
// meant as an enum), then the one with fewer failures (each missing or
// extra property counts: a string claim without description is a plain
// string missing one key, not an enum missing two).
func better(a, b []*jsonschema.ValidationError) bool {
	if da, db := maxDepth(a), maxDepth(b); da != db {
		return da > db
	}
	return weight(a) < weight(b)
}

func weight(ls []*jsonschema.ValidationError) int {
	w := 0
	for _, l := range ls {
		switch k := l.ErrorKind.(type) {
		case *kind.Required:
			w += len(k.Missing)
		case *kind.AdditionalProperties:
			w += len(k.Properties)
		default:
			w++
		}
	}
	return w
}

func maxDepth(ls []*jsonschema.ValidationError) int {
	d := 0
	for _, l := range ls {
		d = max(d, len(l.InstanceLocation))
	}
	return d
}

func failsAt(ls []*jsonschema.ValidationError, loc []string) bool {
	for _, l := range ls {
		if equalPath(l.InstanceLocation, loc) {
			return true
		}
	}
	return false
}

func equalPath(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func allEnums(ls []*jsonschema.ValidationError) bool {
	for _, l := range ls {
		if _, ok := l.ErrorKind.(*kind.Enum); !ok {
			return false
		}
	}
	return true
}

// fieldOf spells an instance location as a field path, telling array
// indexes from keys by looking at the document.
func fieldOf(loc []string, doc any) string {
	parts := make([]pathPart, 0, len(loc))
	v := doc
	for _, tok := range loc {
		switch x := v.(type) {
		case []any:
			parts = append(parts, pathPart{name: tok, index: true})
			var i int
			fmt.Sscan(tok, &i)
			if i >= 0 && i < len(x) {
				v = x[i]
			} else {
				v = nil
			}
		case map[string]any:
			parts = append(parts, pathPart{name: tok})
			v = x[tok]
		default:
			parts = append(parts, pathPart{name: tok})
			v = nil
		}
	}
	return joinPath(parts)
}

func joinField(field, name string) string {
	if field == "" {
		return name
	}
	return field + "." + name
}

func display(v any) string {
	if s, ok := v.(string); ok {
		return fmt.Sprintf("%q", s)
	}
	return fmt.Sprint(v)
}

func article(t string) string {
	switch {
	case t == "":
		return t
	case strings.ContainsRune("aeiou", rune(t[0])):
		return "an " + t
	}
	return "a " + t
}
