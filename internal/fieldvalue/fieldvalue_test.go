package fieldvalue

import (
	"strings"
	"testing"
)

func TestCheck(t *testing.T) {
	opts := []string{"draft", "final"}
	good := []struct {
		typ string
		v   any
	}{
		{"text", "hello"}, {"number", 4.5}, {"boolean", false}, {"tags", []any{"a", "b"}},
		{"select:single", "final"}, {"select:multi", []any{"draft", "final"}}, {"select:multi", []any{}},
	}
	for _, g := range good {
		if _, err := Check(g.typ, opts, g.v); err != nil {
			t.Errorf("%s %v: %v", g.typ, g.v, err)
		}
	}
	bad := []struct {
		typ string
		v   any
	}{
		{"text", 5}, {"text", strings.Repeat("x", 257)}, {"number", "5"}, {"boolean", "true"},
		{"tags", "a"}, {"tags", []any{"a", 1}}, {"tags", []any{"a", "a"}}, {"select:single", "other"},
		{"select:single", []any{"draft"}}, {"select:multi", []any{"draft", "other"}}, {"mystery", "x"},
	}
	for _, b := range bad {
		if _, err := Check(b.typ, opts, b.v); err == nil {
			t.Errorf("%s %v accepted", b.typ, b.v)
		}
	}
}
