package customization

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

func TestDefaultIsValid(t *testing.T) {
	if _, err := Check([]byte(Default)); err != nil {
		t.Fatal(err)
	}
}

func TestCheckNamesTheField(t *testing.T) {
	for _, c := range []struct{ doc, field string }{
		{strings.Replace(Default, `"theme":"clean"`, `"theme":"loud"`, 1), "styling.theme"},
		{strings.Replace(Default, `"light":"#346ddb"`, `"light":"blue"`, 1), "styling.primaryColor.light"},
		{strings.Replace(Default, `"pdf":{"enabled":true},`, ``, 1), "pdf"},
		{`{}`, ""},
		{`[]`, ""},
	} {
		_, err := Check([]byte(c.doc))
		e, ok := err.(*Error)
		if !ok || e.Field != c.field {
			t.Errorf("%.60s: %v, want field %q", c.doc, err, c.field)
		}
	}
}

func decode(t *testing.T, raw []byte) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// at reads a value by its dotted path.
func at(m map[string]any, path string) any {
	var v any = m
	for _, k := range strings.Split(path, ".") {
		o, _ := v.(map[string]any)
		v = o[k]
	}
	return v
}

func TestApplyMerges(t *testing.T) {
	stored, err := Apply(nil, []byte(`{"title":"Docs","header":{"logo":{"light":"https://x.test/l.png","dark":"https://x.test/d.png"}},"favicon":{"icon":{"light":"https://x.test/f.png","dark":"https://x.test/f.png"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		patch string
		want  map[string]any // path → value after the patch
	}{
		// Objects merge at any depth; everything else is kept.
		{`{"themes":{"default":"dark"}}`, map[string]any{"themes.default": "dark", "themes.toggeable": true, "title": "Docs"}},
		{`{"styling":{"codeTheme":{"default":{"light":"github-light","dark":"github-dark"}}}}`, map[string]any{
			"styling.codeTheme.default.light": "github-light", "styling.codeTheme.openapi.light": "default-light",
			"styling.theme": "clean", "header.logo.light": "https://x.test/l.png"}},
		// Arrays replace.
		{`{"header":{"links":[{"title":"Home","to":{"kind":"url","url":"https://x.test"},"links":[]}]}}`, map[string]any{"header.preset": "default"}},
		// A oneOf value replaces: the emoji favicon keeps no icon.
		{`{"favicon":{"emoji":"1f600"}}`, map[string]any{"favicon.emoji": "1f600", "favicon.icon": nil}},
		// null removes an optional property.
		{`{"header":{"logo":null}}`, map[string]any{"header.logo": nil, "header.preset": "default"}},
	} {
		out, err := Apply(stored, []byte(c.patch))
		if err != nil {
			t.Fatalf("%s: %v", c.patch, err)
		}
		m := decode(t, out)
		for p, v := range c.want {
			if got := at(m, p); !reflect.DeepEqual(got, v) {
				t.Errorf("%s: %s = %v, want %v", c.patch, p, got, v)
			}
		}
	}
}

func TestApplyNamesTheField(t *testing.T) {
	for _, c := range []struct{ patch, field string }{
		{`{"themes":{"default":"sepia"}}`, "themes.default"},
		{`{"themes":{"default":null}}`, "themes.default"},
		{`{"socialAccounts":[{"platform":"myspace","handle":"x","display":{"footer":true,"header":false}}]}`, "socialAccounts.0.platform"},
		{`{"styling":{"codeTheme":{"default":{"light":"neon"}}}}`, "styling.codeTheme.default.light"},
		{`{"pageActions":{"items":["print"]}}`, "pageActions.items.0"},
		{`{"socialAccounts":"@acme"}`, "socialAccounts"},
		{`[]`, ""},
	} {
		_, err := Apply(nil, []byte(c.patch))
		e, ok := err.(*Error)
		if !ok || e.Field != c.field {
			t.Errorf("%s: %v, want field %q", c.patch, err, c.field)
		}
	}
}

func TestPageActionsStayInLine(t *testing.T) {
	out, err := Apply(nil, []byte(`{"pageActions":{"items":["pdf","git"]}}`))
	if err != nil {
		t.Fatal(err)
	}
	m := decode(t, out)
	if at(m, "pageActions.markdown") != false || at(m, "pageActions.externalAI") != false || at(m, "pdf.enabled") != true ||
		at(m, "git.showEditLink") != true {
		t.Fatalf("booleans from items: %s", out)
	}
	// 0.143.2's whole body: the booleans it sets edit the list, order kept.
	old := strings.Replace(strings.Replace(Default, `"items":["markdown","external-ai","mcp","pdf"],`, ``, 1),
		`"mcp":true`, `"mcp":false`, 1)
	out, err = Apply(out, []byte(strings.Replace(old, `"showEditLink":false`, `"showEditLink":true`, 1)))
	if err != nil {
		t.Fatal(err)
	}
	m = decode(t, out)
	if got := at(m, "pageActions.items"); !reflect.DeepEqual(got, []any{"pdf", "git", "external-ai", "markdown"}) {
		t.Fatalf("items from booleans: %v", got)
	}
}

func TestEffectiveCompletesOldSettings(t *testing.T) {
	// As 0.143.2's client stored them: no socialAccounts, codeTheme nor items.
	old := strings.Replace(Default, `"socialAccounts":[],`, ``, 1)
	old = strings.Replace(old, `"themes":{"default":"system"`, `"themes":{"default":"dark"`, 1)
	old = strings.Replace(old, `"items":["markdown","external-ai","mcp","pdf"],`, ``, 1)
	old = strings.Replace(old, `"mcp":true`, `"mcp":false`, 1)
	m := decode(t, Effective([]byte(old)))
	if at(m, "themes.default") != "dark" || !reflect.DeepEqual(at(m, "socialAccounts"), []any{}) ||
		!reflect.DeepEqual(at(m, "pageActions.items"), []any{"markdown", "external-ai", "pdf"}) {
		t.Fatalf("effective: %v", m)
	}
	if _, err := Check(Effective([]byte(old))); err != nil {
		t.Fatal(err)
	}
}
