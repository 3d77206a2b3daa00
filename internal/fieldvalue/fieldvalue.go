// Package fieldvalue checks a space's value of a custom field against the
// field's type and options, the one rule both APIs apply.
package fieldvalue

import (
	"fmt"
	"slices"
	"unicode/utf8"
)

// MaxText is the longest text value, and the longest entry of a list.
const MaxText = 256

// Check returns the value to store (numbers as float64, lists as []string)
// or why v does not fit a field of type typ with options.
func Check(typ string, options []string, v any) (any, error) {
	switch typ {
	case "text":
		s, ok := v.(string)
		if !ok {
			return nil, fmt.Errorf("must be a string")
		}
		return s, checkText(s)
	case "number":
		switch n := v.(type) {
		case float64:
			return n, nil
		case int:
			return float64(n), nil
		}
		return nil, fmt.Errorf("must be a number")
	case "boolean":
		b, ok := v.(bool)
		if !ok {
			return nil, fmt.Errorf("must be a boolean")
		}
		return b, nil
	case "select:single":
		s, ok := v.(string)
		if !ok {
			return nil, fmt.Errorf("must be one of the options, as a string")
		}
		if !slices.Contains(options, s) {
			return nil, fmt.Errorf("%q is not one of the options %q", s, options)
		}
		return s, nil
	case "tags", "select:multi":
		list, err := stringList(v)
		if err != nil {
			return nil, err
		}
		seen := map[string]bool{}
		for _, s := range list {
			if err := checkText(s); err != nil {
				return nil, err
			}
			if typ == "select:multi" && !slices.Contains(options, s) {
				return nil, fmt.Errorf("%q is not one of the options %q", s, options)
			}
			if seen[s] {
				return nil, fmt.Errorf("%q is given twice", s)
			}
			seen[s] = true
		}
		return list, nil
	}
	return nil, fmt.Errorf("fields of type %q take no value", typ)
}

func checkText(s string) error {
	if n := utf8.RuneCountInString(s); n > MaxText {
		return fmt.Errorf("must be at most %d characters (got %d)", MaxText, n)
	}
	return nil
}

// stringList reads a JSON array of strings.
func stringList(v any) ([]string, error) {
	switch list := v.(type) {
	case []string:
		return list, nil
	case []any:
		out := make([]string, len(list))
		for i, it := range list {
			s, ok := it.(string)
			if !ok {
				return nil, fmt.Errorf("must be an array of strings")
			}
			out[i] = s
		}
		return out, nil
	}
	return nil, fmt.Errorf("must be an array of strings")
}
