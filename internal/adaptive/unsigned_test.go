package adaptive

import (
	"reflect"
	"testing"
)

func TestUnsignedClaims(t *testing.T) {
	s, err := ParseSchema([]byte(`{"type":"object","properties":{
		"plan":{"type":"string","description":"signed"},
		"unsigned":{"type":"object","description":"Unsigned claims of the site visitor.","properties":{
			"isBeta":{"type":"boolean","description":"b"},
			"lang":{"type":"string","description":"l","enum":["en","fr"]},
			"seats":{"type":"number","description":"n"},
			"tags":{"type":"array","description":"t","items":{"type":"string","description":"i"}},
			"team":{"type":"object","description":"o","properties":{"admin":{"type":"boolean","description":"a"}},"additionalProperties":false}
		},"additionalProperties":false}},"additionalProperties":false}`))
	if err != nil {
		t.Fatal(err)
	}
	sent := map[string]any{"isBeta": "true", "lang": "de", "seats": "12", "tags": []any{"a", "b"},
		"team.admin": "yes", "plan": "pro", "unknown": "x"}
	got := s.UnsignedClaims(func(p string) (any, bool) { v, ok := sent[p]; return v, ok })
	want := map[string]any{"isBeta": true, "seats": float64(12), "tags": []any{"a", "b"}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %#v, want %#v", got, want)
	}
	got = s.UnsignedClaims(func(p string) (any, bool) { return true, p == "team.admin" })
	if !reflect.DeepEqual(got, map[string]any{"team": map[string]any{"admin": true}}) {
		t.Fatalf("nested: %#v", got)
	}
	if got := EmptySchema().UnsignedClaims(func(string) (any, bool) { return "x", true }); got != nil {
		t.Fatalf("empty schema: %#v", got)
	}
	var none *Schema
	if got := none.UnsignedClaims(func(string) (any, bool) { return "x", true }); got != nil {
		t.Fatalf("nil schema: %#v", got)
	}
}
