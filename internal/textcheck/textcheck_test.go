package textcheck

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestJSON(t *testing.T) {
	cases := []struct {
		doc           string
		path, problem string // path "-" means acceptable
	}{
		{`{"title":"Handbook"}`, "-", ""},
		{`{"title":"caf\u00e9 \ud83d\ude00"}`, "-", ""},
		{`{"title":"back\\u0000slash"}`, "-", ""},
		{`{"title":"a\u0000b"}`, "title", "contains a NUL character"},
		{"{\"title\":\"a\x00b\"}", "title", "contains a NUL character"},
		{"{\"title\":\"a\xffb\"}", "title", "is not valid UTF-8"},
		{`{"title":"\ud800"}`, "title", "is not valid UTF-8: it escapes a lone UTF-16 surrogate"},
		{`{"title":"\udc00\ud800"}`, "title", "is not valid UTF-8: it escapes a lone UTF-16 surrogate"},
		{`{"changes":[{"operation":"insert"},{"document":{"markdown":"x\u0000"}}]}`, "changes[1].document.markdown", "contains a NUL character"},
		{`{"values":{"tier":{"value":["a","\u0000"]}}}`, "values.tier.value[1]", "contains a NUL character"},
		{`{"values":{"ti\u0000er":{"value":1}}}`, "values", "has a key that contains a NUL character"},
		{`{"a\u0000":1}`, "", "has a key that contains a NUL character"},
		{`{"a":{"b":1},"c":[1,{"d":"\u0000"}]}`, "c[1].d", "contains a NUL character"},
		{`{"title":`, "-", ""},
	}
	for _, c := range cases {
		f := JSON([]byte(c.doc))
		switch {
		case c.path == "-" && f != nil:
			t.Errorf("%s: refused %+v", c.doc, *f)
		case c.path != "-" && (f == nil || f.Path != c.path || f.Problem != c.problem):
			t.Errorf("%s: got %+v, want %s %s", c.doc, f, c.path, c.problem)
		}
	}
}

func TestProblem(t *testing.T) {
	if Problem("ok é") != "" || Problem("a\x00") == "" || Problem("a\xff") == "" {
		t.Fatal("Problem")
	}
}

// FuzzJSON holds that whatever JSON finds acceptable decodes to strings
// Problem accepts, and that JSON never panics.
func FuzzJSON(f *testing.F) {
	f.Add([]byte(`{"a":["b",{"c":"\u0000"}]}`))
	f.Add([]byte(`{"a":"\ud800\udc00"}`))
	f.Fuzz(func(t *testing.T, doc []byte) {
		if JSON(doc) != nil {
			return
		}
		var v any
		if json.Unmarshal(doc, &v) != nil {
			return
		}
		var check func(any)
		check = func(v any) {
			switch v := v.(type) {
			case string:
				if p := Problem(v); p != "" {
					t.Fatalf("%q passed but holds %q (%s)", doc, v, p)
				}
			case []any:
				for _, e := range v {
					check(e)
				}
			case map[string]any:
				for k, e := range v {
					check(k)
					check(e)
				}
			}
		}
		check(v)
	})
}

// benchDoc is a change-request body with a markdown page of about 1 MB.
func benchDoc(text string) []byte {
	doc, _ := json.Marshal(map[string]any{"changes": []any{map[string]any{
		"operation": "insert_page", "document": map[string]any{"markdown": strings.Repeat(text, 1<<20/len(text))}}}})
	return doc
}

// BenchmarkJSONClean is the cost every body pays: one scan.
func BenchmarkJSONClean(b *testing.B) {
	doc := benchDoc("Some prose, café and 😀 too.\n")
	b.SetBytes(int64(len(doc)))
	for b.Loop() {
		if JSON(doc) != nil {
			b.Fatal("refused")
		}
	}
}

// BenchmarkJSONEscaped is a body of \u escapes (as ASCII-only encoders
// write them), which pays for the token walk.
func BenchmarkJSONEscaped(b *testing.B) {
	doc := []byte(strings.ReplaceAll(string(benchDoc("Some prose, café and 😀 too.\n")), "é", `\u00e9`))
	doc = []byte(strings.ReplaceAll(string(doc), "😀", `\ud83d\ude00`))
	b.SetBytes(int64(len(doc)))
	for b.Loop() {
		if JSON(doc) != nil {
			b.Fatal("refused")
		}
	}
}
