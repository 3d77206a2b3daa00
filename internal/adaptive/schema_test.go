package adaptive

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/folio/folio/internal/skiplog"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// doc builds a schema document with the given claims (JSON members of
// "properties").
func doc(props string) string {
	return `{"type":"object","properties":{` + props + `},"additionalProperties":false}`
}

const unsignedOpen = `"unsigned":{"type":"object","description":"Unsigned claims of the site visitor.","properties":{`
const unsignedClose = `},"additionalProperties":false}`

// fullSchema has a claim of every type, a nested object and unsigned claims.
var fullSchema = doc(`
	"plan":{"type":"string","description":"Plan","enum":["free","pro","team"]},
	"email":{"type":"string","description":"Email"},
	"seats":{"type":"number","description":"Seats"},
	"internal":{"type":"boolean","description":"Staff"},
	"roles":{"type":"array","description":"Roles","items":{"type":"string","description":"Role"}},
	"tiers":{"type":"array","description":"Tiers","items":{"type":"string","description":"Tier","enum":["a","b"]}},
	"scores":{"type":"array","description":"Scores","items":{"type":"number","description":"Score"}},
	"flags":{"type":"array","description":"Flags","items":{"type":"boolean","description":"Flag"}},
	"org":{"type":"object","description":"Organization","properties":{
		"name":{"type":"string","description":"Name"},
		"billing":{"type":"object","description":"Billing","properties":{"paid":{"type":"boolean","description":"Paid"}},"additionalProperties":false}
	},"additionalProperties":false},
	` + unsignedOpen + `"isBeta":{"type":"boolean","description":"Beta"},"lang":{"type":"string","description":"Language"}` + unsignedClose)

func mustSchema(t *testing.T, raw string) *Schema {
	t.Helper()
	s, err := ParseSchema([]byte(raw))
	if err != nil {
		t.Fatalf("ParseSchema(%s): %v", raw, err)
	}
	return s
}

func TestParseSchemaValid(t *testing.T) {
	cases := []struct {
		name, raw string
		claims    []string
	}{
		{"empty", doc(``), nil},
		{"seed booleans with $schema and $id", `{"$schema":"http://json-schema.org/draft-07/schema#","$id":"https://example.com/site.json","type":"object","properties":{"isAdmin":{"type":"boolean","description":"Admin"},` + unsignedOpen + `"isBeta":{"type":"boolean","description":"Beta"}` + unsignedClose + `},"additionalProperties":false}`, []string{"isAdmin", "unsigned.isBeta"}},
		{"every type", fullSchema, []string{"email", "flags", "internal", "org.billing.paid", "org.name", "plan", "roles", "scores", "seats", "tiers", "unsigned.isBeta", "unsigned.lang"}},
		{"empty enum", doc(`"x":{"type":"string","description":"d","enum":[]}`), []string{"x"}},
		{"unsigned without claims", doc(unsignedOpen + unsignedClose), nil},
		{"unsigned with extra keys the reference leaves open", doc(`"unsigned":{"type":"object","description":"Unsigned claims of the site visitor.","properties":{},"additionalProperties":false,"title":"t"}`), nil},
		{"paths sorted whole", doc(`"a-b":{"type":"boolean","description":"d"},"a":{"type":"object","description":"d","properties":{"b":{"type":"boolean","description":"d"}},"additionalProperties":false}`), []string{"a-b", "a.b"}},
		{"a claim named unsigned inside an object", doc(`"o":{"type":"object","description":"d","properties":{"unsigned":{"type":"boolean","description":"d"}},"additionalProperties":false}`), []string{"o.unsigned"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := mustSchema(t, c.raw)
			var got []string
			for _, cl := range s.Claims() {
				got = append(got, cl.Path)
			}
			if !reflect.DeepEqual(got, c.claims) {
				t.Fatalf("claims %v, want %v", got, c.claims)
			}
			var want bytes.Buffer
			if err := json.Compact(&want, []byte(c.raw)); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(s.JSON(), want.Bytes()) {
				t.Fatalf("JSON %s, want %s", s.JSON(), want.Bytes())
			}
			again := mustSchema(t, string(s.JSON()))
			if !reflect.DeepEqual(again.Claims(), s.Claims()) {
				t.Fatal("JSON does not parse back to the same claims")
			}
		})
	}
}

func TestSchemaClaimsDescribeTypes(t *testing.T) {
	s := mustSchema(t, fullSchema)
	got := map[string]Claim{}
	for _, c := range s.Claims() {
		got[c.Path] = c
	}
	want := map[string]Claim{
		"plan":             {Path: "plan", Type: TypeString, Enum: []string{"free", "pro", "team"}, Description: "Plan"},
		"email":            {Path: "email", Type: TypeString, Description: "Email"},
		"seats":            {Path: "seats", Type: TypeNumber, Description: "Seats"},
		"internal":         {Path: "internal", Type: TypeBoolean, Description: "Staff"},
		"roles":            {Path: "roles", Type: TypeArray, Items: TypeString, Description: "Roles"},
		"tiers":            {Path: "tiers", Type: TypeArray, Items: TypeString, Enum: []string{"a", "b"}, Description: "Tiers"},
		"scores":           {Path: "scores", Type: TypeArray, Items: TypeNumber, Description: "Scores"},
		"flags":            {Path: "flags", Type: TypeArray, Items: TypeBoolean, Description: "Flags"},
		"org.name":         {Path: "org.name", Type: TypeString, Description: "Name"},
		"org.billing.paid": {Path: "org.billing.paid", Type: TypeBoolean, Description: "Paid"},
		"unsigned.isBeta":  {Path: "unsigned.isBeta", Type: TypeBoolean, Description: "Beta"},
		"unsigned.lang":    {Path: "unsigned.lang", Type: TypeString, Description: "Language"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("claims\n%+v\nwant\n%+v", got, want)
	}
}

func TestEmptySchema(t *testing.T) {
	e := EmptySchema()
	if string(e.JSON()) != `{"type":"object","properties":{},"additionalProperties":false}` {
		t.Fatalf("JSON %s", e.JSON())
	}
	if len(e.Claims()) != 0 {
		t.Fatal("claims")
	}
	// It is a document the reference accepts (a GET answers it).
	if _, err := ParseSchema(e.JSON()); err != nil {
		t.Fatal(err)
	}
	// JSON is a copy: changing it changes nothing.
	b := e.JSON()
	b[0] = 'x'
	if e.JSON()[0] != '{' {
		t.Fatal("JSON shares its bytes")
	}
}

func TestParseSchemaInvalid(t *testing.T) {
	deep := doc(`"a":` + strings.Repeat(`{"type":"object","description":"d","properties":{"a":`, 8) + `{"type":"boolean","description":"d"}` + strings.Repeat(`},"additionalProperties":false}`, 8))
	var many []string
	for i := 0; i <= MaxClaims; i++ {
		many = append(many, fmt.Sprintf(`"c%d":{"type":"boolean","description":"d"}`, i))
	}
	cases := []struct {
		name, raw      string
		field, message string
	}{
		{"not JSON", `{"type":`, "", "is not valid JSON: unexpected EOF"},
		{"trailing data", doc(``) + `{}`, "", "is not valid JSON: invalid character after top-level value"},
		{"not an object", `[]`, "", "must be a JSON object"},
		{"null", `null`, "", "must be a JSON object"},
		{"too large", doc(`"a":{"type":"string","description":"` + strings.Repeat("x", MaxSchemaBytes) + `"}`), "", "is larger than 65536 bytes"},
		{"too deep", deep, "properties.a.properties.a.properties.a.properties.a.properties.a.properties.a.properties.a.properties.a", "nests JSON values deeper than 16 levels"},
		{"too deep in an array", doc(`"a":{"type":"string","description":"d","enum":[` + strings.Repeat("[", 20) + strings.Repeat("]", 20) + `]}`), "properties.a.enum[0][0][0][0][0][0][0][0][0][0][0][0][0]", "nests JSON values deeper than 16 levels"},
		{"key twice", `{"type":"object","type":"array","properties":{},"additionalProperties":false}`, "type", "is given twice"},
		{"claim twice", doc(`"a":{"type":"boolean","description":"d"},"a":{"type":"string","description":"d"}`), "properties.a", "is given twice"},
		{"key twice in an array item", doc(`"a":{"type":"string","description":"d","enum":["x"]},"b":{"type":"array","description":"d","items":{"type":"string","description":"d","enum":["x",{"k":1,"k":2}]}}`), "properties.b.items.enum[1].k", "is given twice"},
		{"same key in sibling objects is fine but the enum is not", doc(`"a":{"type":"string","description":"d","enum":[{"k":1},{"k":1}]}`), "properties.a.enum[0]", "must be a string, not object"},
		{"too many claims", doc(strings.Join(many, ",")), "properties", "declares more than 200 claims"},
		{"NUL in a description", doc(`"a":{"type":"boolean","description":"x\u0000"}`), "properties.a.description", "contains a NUL character"},
		{"root type", `{"type":"array","properties":{},"additionalProperties":false}`, "type", `must be "object"`},
		{"root type missing", `{"properties":{},"additionalProperties":false}`, "type", "is required"},
		{"properties missing", `{"type":"object","additionalProperties":false}`, "properties", "is required"},
		{"additionalProperties missing", `{"type":"object","properties":{}}`, "additionalProperties", "is required"},
		{"additionalProperties true", `{"type":"object","properties":{},"additionalProperties":true}`, "additionalProperties", "must be false"},
		{"unknown root key", `{"type":"object","properties":{},"additionalProperties":false,"title":"t"}`, "title", "is not allowed"},
		{"other $schema", `{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","properties":{},"additionalProperties":false}`, "$schema", `must be "http://json-schema.org/draft-07/schema#"`},
		{"$id not a string", `{"$id":1,"type":"object","properties":{},"additionalProperties":false}`, "$id", "must be a string, not number"},
		{"claim not an object", doc(`"a":"boolean"`), "properties.a", "must be an object, not string"},
		{"unknown type", doc(`"a":{"type":"integer","description":"d"}`), "properties.a.type", `must be one of "boolean", "string", "number", "array", "object"`},
		{"type missing", doc(`"a":{"description":"d"}`), "properties.a.type", "is required"},
		{"boolean without description", doc(`"a":{"type":"boolean"}`), "properties.a.description", "is required"},
		{"string without description", doc(`"a":{"type":"string"}`), "properties.a.description", "is required"},
		{"number without description", doc(`"a":{"type":"number"}`), "properties.a.description", "is required"},
		{"description not a string", doc(`"a":{"type":"boolean","description":1}`), "properties.a.description", "must be a string, not number"},
		{"extra key", doc(`"a":{"type":"boolean","description":"d","default":true}`), "properties.a.default", "is not allowed"},
		{"enum on a boolean", doc(`"a":{"type":"boolean","description":"d","enum":["x"]}`), "properties.a.enum", "is not allowed"},
		{"enum of numbers", doc(`"a":{"type":"string","description":"d","enum":["x",2]}`), "properties.a.enum[1]", "must be a string, not number"},
		{"enum without description", doc(`"a":{"type":"string","enum":["x"]}`), "properties.a.description", "is required"},
		{"enum with an extra key", doc(`"a":{"type":"string","description":"d","enum":["x"],"default":"x"}`), "properties.a.default", "is not allowed"},
		{"description of an enum not a string", doc(`"a":{"type":"string","description":1,"enum":["x"]}`), "properties.a.description", "must be a string, not number"},
		{"enum not an array", doc(`"a":{"type":"string","description":"d","enum":"x"}`), "properties.a.enum", "must be an array, not string"},
		{"array without items", doc(`"a":{"type":"array","description":"d"}`), "properties.a.items", "is required"},
		{"array of arrays", doc(`"a":{"type":"array","description":"d","items":{"type":"array","description":"d","items":{"type":"string","description":"d"}}}`), "properties.a.items.type", `must be one of "boolean", "string", "number"`},
		{"array item without description", doc(`"a":{"type":"array","description":"d","items":{"type":"string"}}`), "properties.a.items.description", "is required"},
		{"object without additionalProperties", doc(`"a":{"type":"object","description":"d","properties":{}}`), "properties.a.additionalProperties", "is required"},
		{"object open", doc(`"a":{"type":"object","description":"d","properties":{},"additionalProperties":true}`), "properties.a.additionalProperties", "must be false"},
		{"nested claim without description", doc(`"a":{"type":"object","description":"d","properties":{"b":{"type":"boolean"}},"additionalProperties":false}`), "properties.a.properties.b.description", "is required"},
		{"unsigned description", doc(`"unsigned":{"type":"object","description":"Unsigned","properties":{},"additionalProperties":false}`), "properties.unsigned.description", `must be "Unsigned claims of the site visitor."`},
		{"unsigned not an object type", doc(`"unsigned":{"type":"boolean","description":"Unsigned claims of the site visitor.","properties":{},"additionalProperties":false}`), "properties.unsigned.type", `must be "object"`},
		{"unsigned open", doc(`"unsigned":{"type":"object","description":"Unsigned claims of the site visitor.","properties":{},"additionalProperties":true}`), "properties.unsigned.additionalProperties", "must be false"},
		{"unsigned claim bad", doc(unsignedOpen + `"isBeta":{"type":"bool","description":"d"}` + unsignedClose), "properties.unsigned.properties.isBeta.type", `must be one of "boolean", "string", "number", "array", "object"`},
		{"empty claim name", doc(`"":{"type":"boolean","description":"d"}`), "properties", `claim name "" is empty`},
		{"dotted claim name", doc(`"a.b":{"type":"boolean","description":"d"}`), "properties", `claim name "a.b" contains a dot`},
		{"long claim name", doc(`"` + strings.Repeat("n", MaxClaimNameLength+1) + `":{"type":"boolean","description":"d"}`), "properties", "claim name \"" + strings.Repeat("n", MaxClaimNameLength+1) + "\" is longer than 64 bytes"},
		{"nested dotted name", doc(unsignedOpen + `"a.b":{"type":"boolean","description":"d"}` + unsignedClose), "properties.unsigned.properties", `claim name "a.b" contains a dot`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s, err := ParseSchema([]byte(c.raw))
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("got %v, %v; want an *Error", s, err)
			}
			if e.Field != c.field || e.Message != c.message {
				t.Fatalf("got %q: %q\nwant %q: %q", e.Field, e.Message, c.field, c.message)
			}
		})
	}
}

func TestErrorString(t *testing.T) {
	if s := (&Error{Field: "properties.a", Message: "is required"}).Error(); s != "properties.a: is required" {
		t.Fatal(s)
	}
	if s := (&Error{Message: "must be a JSON object"}).Error(); s != "must be a JSON object" {
		t.Fatal(s)
	}
}

func TestRemovedClaims(t *testing.T) {
	old := mustSchema(t, fullSchema)
	cases := []struct {
		name string
		next *Schema
		want []string
	}{
		{"same", mustSchema(t, fullSchema), nil},
		{"to empty", EmptySchema(), []string{"email", "flags", "internal", "org.billing.paid", "org.name", "plan", "roles", "scores", "seats", "tiers", "unsigned.isBeta", "unsigned.lang"}},
		{"to nil", nil, []string{"email", "flags", "internal", "org.billing.paid", "org.name", "plan", "roles", "scores", "seats", "tiers", "unsigned.isBeta", "unsigned.lang"}},
		{"some kept, some gone, some changed", mustSchema(t, doc(`
			"plan":{"type":"string","description":"Plan changed","enum":["free"]},
			"email":{"type":"string","description":"Email"},
			"seats":{"type":"string","description":"now text"},
			"internal":{"type":"boolean","description":"Staff"},
			"roles":{"type":"array","description":"Roles","items":{"type":"number","description":"Role id"}},
			"tiers":{"type":"array","description":"Tiers","items":{"type":"string","description":"Tier"}},
			"scores":{"type":"array","description":"Scores","items":{"type":"number","description":"Score"}},
			"flags":{"type":"object","description":"Flags","properties":{},"additionalProperties":false},
			"org":{"type":"object","description":"Organization","properties":{"name":{"type":"string","description":"Name"}},"additionalProperties":false},
			`+unsignedOpen+`"isBeta":{"type":"boolean","description":"Beta"}`+unsignedClose)),
			[]string{"flags", "org.billing.paid", "roles", "seats", "unsigned.lang"}},
		{"unsigned claim moved to signed", mustSchema(t, doc(`"isBeta":{"type":"boolean","description":"d"}`)), []string{"email", "flags", "internal", "org.billing.paid", "org.name", "plan", "roles", "scores", "seats", "tiers", "unsigned.isBeta", "unsigned.lang"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := RemovedClaims(old, c.next); !reflect.DeepEqual(got, c.want) {
				t.Fatalf("got %v, want %v", got, c.want)
			}
		})
	}
	if got := RemovedClaims(EmptySchema(), old); got != nil {
		t.Fatalf("adding claims removes %v", got)
	}
	if got := RemovedClaims(nil, old); got != nil {
		t.Fatalf("from nil: %v", got)
	}
}

// TestReferenceSchemaIsTheReferences checks reference_schema.json against the
// reference document: the same schemas, but for the one addition ($id).
func TestReferenceSchemaIsTheReferences(t *testing.T) {
	dir := os.Getenv("FOLIO_REFERENCE_DIR")
	if dir == "" {
		dir = filepath.Join("..", "..", "..", "shared", "reference")
	}
	raw, err := os.ReadFile(filepath.Join(dir, "gitbook-openapi-v0.143.2-subset.json"))
	if err != nil {
		if os.Getenv("FOLIO_REQUIRE_REFERENCE") == "1" {
			t.Fatalf("no reference: %v (FOLIO_REQUIRE_REFERENCE=1)", err)
		}
		skiplog.Skip(t, "adaptive schema against the reference", "no reference (set FOLIO_REFERENCE_DIR): "+err.Error())
	}
	var ref struct {
		Components struct {
			Schemas map[string]any `json:"schemas"`
		} `json:"components"`
	}
	if err := json.Unmarshal(raw, &ref); err != nil {
		t.Fatal(err)
	}
	var cut struct {
		Components struct {
			Schemas map[string]any `json:"schemas"`
		} `json:"components"`
	}
	if err := json.Unmarshal(referenceSchema, &cut); err != nil {
		t.Fatal(err)
	}
	if len(cut.Components.Schemas) == 0 {
		t.Fatal("the cut holds no schemas")
	}
	for name, got := range cut.Components.Schemas {
		want, ok := ref.Components.Schemas[name]
		if !ok {
			t.Fatalf("%s is not in the reference", name)
		}
		if name == "SiteAdaptiveJSONSchema" {
			props := got.(map[string]any)["properties"].(map[string]any)
			if _, ok := props["$id"]; !ok {
				t.Fatal("the $id addition is gone: update this test")
			}
			delete(props, "$id")
		}
		if !reflect.DeepEqual(got, want) {
			g, _ := json.Marshal(got)
			w, _ := json.Marshal(want)
			t.Fatalf("%s differs from the reference:\n%s\n%s", name, g, w)
		}
	}
}

// FuzzParseSchema holds that ParseSchema never panics, refuses with an
// *Error, and that what it accepts parses back from its JSON to the same
// claims.
func FuzzParseSchema(f *testing.F) {
	f.Add([]byte(fullSchema))
	f.Add([]byte(doc(`"a":{"type":"integer","description":"d"}`)))
	f.Add([]byte(doc(`"a":{"type":"array","description":"d","items":{"type":"string","description":"d","enum":["x"]}}`)))
	f.Add([]byte(`{"type":"object","properties":{}}`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		s, err := ParseSchema(raw)
		if err != nil {
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("not an *Error: %v", err)
			}
			return
		}
		again, err := ParseSchema(s.JSON())
		if err != nil || !reflect.DeepEqual(again.Claims(), s.Claims()) {
			t.Fatalf("JSON does not parse back: %v", err)
		}
	})
}
