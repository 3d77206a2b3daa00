package customization

import (
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
		{strings.Replace(Default, `"pdf":{"enabled":true},`, ``, 1), ""},
		{`[]`, ""},
	} {
		_, err := Check([]byte(c.doc))
		e, ok := err.(*Error)
		if !ok || e.Field != c.field {
			t.Errorf("%.60s: %v, want field %q", c.doc, err, c.field)
		}
	}
}
