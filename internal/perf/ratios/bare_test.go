package main

import "testing"

// The bare server is the floor only while it serves Folio's JSON: any
// difference, its URLs' address aside, is found and named.
func TestFirstDifference(t *testing.T) {
	folio := map[string]any{"id": "a", "urls": map[string]any{"app": "http://127.0.0.1:1/s/a"}, "items": []any{1.0, 2.0}}
	bare := map[string]any{"id": "a", "urls": map[string]any{"app": "http://127.0.0.1:2/s/a"}, "items": []any{1.0, 2.0}}
	if at := firstDifference(rebase(folio, "http://127.0.0.1:1"), rebase(bare, "http://127.0.0.1:2"), ""); at != "" {
		t.Errorf("same answers differ at %s", at)
	}
	bare["items"] = []any{1.0, 3.0}
	if at := firstDifference(rebase(folio, "http://127.0.0.1:1"), rebase(bare, "http://127.0.0.1:2"), ""); at != "/items/1" {
		t.Errorf("difference found at %q, want /items/1", at)
	}
	bare["extra"] = true
	delete(bare, "items")
	if at := firstDifference(folio, bare, ""); at != "/items" {
		t.Errorf("difference found at %q, want /items", at)
	}
	if at := firstDifference(1.0, "1", ""); at != "/" {
		t.Errorf("different roots found at %q, want /", at)
	}
}
