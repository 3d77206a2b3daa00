// Package customization checks a docs site's customization settings against
// the reference's SiteCustomizationSettings (cut, with the schemas it refers
// to, into reference_schema.json) with a real JSON Schema library, and holds
// the settings of a site that has set none.
package customization

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

//go:embed reference_schema.json
var referenceSchema []byte

var (
	once     sync.Once
	compiled *jsonschema.Schema
	compErr  error
)

func schema() (*jsonschema.Schema, error) {
	once.Do(func() {
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(referenceSchema))
		if err != nil {
			compErr = err
			return
		}
		const url = "https://folio.invalid/sites/site-customization-settings.json"
		c := jsonschema.NewCompiler()
		if err := c.AddResource(url, doc); err != nil {
			compErr = err
			return
		}
		compiled, compErr = c.Compile(url)
	})
	return compiled, compErr
}

// Default is the customization of a site that has set none: every field
// the reference requires, with GitBook's defaults.
const Default = `{"styling":{"theme":"clean","primaryColor":{"light":"#346ddb","dark":"#346ddb"},` +
	`"infoColor":{"light":"#787878","dark":"#787878"},"successColor":{"light":"#02a466","dark":"#02a466"},` +
	`"warningColor":{"light":"#fe9a00","dark":"#fe9a00"},"dangerColor":{"light":"#fb2c36","dark":"#fb2c36"},` +
	`"corners":"rounded","depth":"subtle","links":"default","font":"Inter","monospaceFont":"IBMPlexMono",` +
	`"background":"plain","icons":"regular","sidebar":{"background":"default","list":"default"},"search":"subtle"},` +
	`"internationalization":{"locale":"en"},"favicon":{},"header":{"preset":"default","links":[]},"footer":{"groups":[]},` +
	`"themes":{"default":"light","toggeable":true},"pdf":{"enabled":true},"feedback":{"enabled":false},"ai":{"mode":"search"},` +
	`"advancedCustomization":{"enabled":true},"trademark":{"enabled":true},"externalLinks":{"target":"self"},` +
	`"pagination":{"enabled":true},"pageActions":{"externalAI":true,"markdown":true,"mcp":true},"git":{"showEditLink":false},` +
	`"privacyPolicy":{},"socialPreview":{},"insights":{"trackingCookie":true}}`

// Error names what is wrong with settings: Field is the JSON path of the
// offending value ("styling.primaryColor.light"), empty for the document.
type Error struct{ Field, Message string }

func (e *Error) Error() string {
	if e.Field == "" {
		return e.Message
	}
	return e.Field + ": " + e.Message
}

// Check validates settings (raw JSON) and answers them compacted.
func Check(raw []byte) ([]byte, error) {
	s, err := schema()
	if err != nil {
		return nil, fmt.Errorf("customization: reference schema: %w", err)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, &Error{Message: "must be a JSON object"}
	}
	if _, ok := doc.(map[string]any); !ok {
		return nil, &Error{Message: "must be a JSON object"}
	}
	if err := s.Validate(doc); err != nil {
		var ve *jsonschema.ValidationError
		if errors.As(err, &ve) {
			return nil, deepest(ve)
		}
		return nil, &Error{Message: err.Error()}
	}
	var out bytes.Buffer
	if err := json.Compact(&out, raw); err != nil {
		return nil, &Error{Message: "must be a JSON object"}
	}
	return out.Bytes(), nil
}

// deepest is the first innermost cause of a validation error: the one that
// names the value at fault.
func deepest(ve *jsonschema.ValidationError) *Error {
	for len(ve.Causes) > 0 {
		ve = ve.Causes[0]
	}
	msg := ve.Error()
	if i := strings.LastIndex(msg, ": "); i >= 0 && i+2 < len(msg) {
		msg = msg[i+2:]
	}
	return &Error{Field: strings.Join(ve.InstanceLocation, "."), Message: msg}
}
