package markdown

import (
	"encoding/json"
	"testing"
)

// A document ToDocument wrote reads back as markdown that converts to the
// same document.
func TestFromDocumentRoundTrip(t *testing.T) {
	for _, md := range []string{
		"Hello **bold** and _it_ and `code`.\n",
		"# Title\n\nA [link](https://example.com).\n\n> quoted\n",
		"- one\n- two\n\n1. a\n2. b\n\n- [x] done\n- [ ] todo\n",
		"```go\nfmt.Println(1)\n```\n\n---\n\n![alt](https://example.com/i.png)\n",
	} {
		roundTrips(t, md)
	}
}

// roundTrips checks that md's document reads back as markdown that
// converts to the same document.
func roundTrips(t *testing.T, md string) {
	t.Helper()
	doc := ToDocument(md)
	raw, _ := json.Marshal(doc)
	back, err := FromDocument(raw)
	if err != nil {
		t.Fatalf("%q: %v", md, err)
	}
	again, _ := json.Marshal(ToDocument(back))
	if string(again) != string(raw) {
		t.Errorf("%q read back as %q:\n got %s\nwant %s", md, back, again, raw)
	}
}

func TestFromDocumentRefuses(t *testing.T) {
	for _, raw := range []string{`[]`, `{"object":"page"}`, `{"object":"document","nodes":[{"object":"block","type":"table"}]}`} {
		if _, err := FromDocument(json.RawMessage(raw)); err == nil {
			t.Errorf("%s: no error", raw)
		}
	}
}
