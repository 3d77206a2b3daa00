// Package customization keeps a docs site's customization settings: the
// settings of a site that has set none, partial updates merged onto the
// stored settings (merge.go), and the check of the result against the
// reference with a real JSON Schema library.
//
// reference_schema.json is GitBook 0.202.0's SiteCustomizationSettingsInput
// cut, with the schemas it refers to, from
// ../shared/reference/gitbook-openapi-v0.202.0-subset.json, plus the
// properties 0.143.2 requires and 0.202.0 dropped (`pdf`, `git`,
// `pageActions.externalAI|markdown|mcp`), declared in
// SiteCustomizationSettingsBase and required: the stored settings carry both
// versions' shapes, so both clients read a complete answer.
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
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
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
// either reference version requires, with GitBook's defaults, in both
// shapes (0.143.2's `pdf`, `git` and page-action booleans, 0.202.0's
// `pageActions.items`, `styling.codeTheme` and `socialAccounts`).
// themes.default is `system`: a new site follows the visitor's system.
const Default = `{"styling":{"theme":"clean","primaryColor":{"light":"#346ddb","dark":"#346ddb"},` +
	`"infoColor":{"light":"#787878","dark":"#787878"},"successColor":{"light":"#02a466","dark":"#02a466"},` +
	`"warningColor":{"light":"#fe9a00","dark":"#fe9a00"},"dangerColor":{"light":"#fb2c36","dark":"#fb2c36"},` +
	`"corners":"rounded","depth":"subtle","links":"default","font":"Inter","monospaceFont":"IBMPlexMono",` +
	`"codeTheme":{"default":{"light":"default-light","dark":"default-dark"},"openapi":{"light":"default-light","dark":"default-dark"}},` +
	`"background":"plain","icons":"regular","sidebar":{"background":"default","list":"default"},"search":"subtle"},` +
	`"internationalization":{"locale":"en"},"favicon":{},"header":{"preset":"default","links":[]},"footer":{"groups":[]},` +
	`"themes":{"default":"system","toggeable":true},"pdf":{"enabled":true},"feedback":{"enabled":false},"ai":{"mode":"search"},` +
	`"advancedCustomization":{"enabled":true},"trademark":{"enabled":true},"externalLinks":{"target":"self"},` +
	`"pagination":{"enabled":true},"pageActions":{"items":["markdown","external-ai","mcp","pdf"],"externalAI":true,"markdown":true,"mcp":true},` +
	`"git":{"showEditLink":false},"privacyPolicy":{},"socialPreview":{},"socialAccounts":[],"insights":{"trackingCookie":true}}`

// Error names what is wrong with settings: Field is the JSON path of the
// offending value ("styling.primaryColor.light"), empty for the document.
type Error struct{ Field, Message string }

func (e *Error) Error() string {
	if e.Field == "" {
		return e.Message
	}
	return e.Field + ": " + e.Message
}

// Check validates complete settings (raw JSON) and answers them compacted.
func Check(raw []byte) ([]byte, error) {
	doc, err := decodeObject(raw)
	if err != nil {
		return nil, err
	}
	if err := validate(doc); err != nil {
		return nil, err
	}
	var out bytes.Buffer
	if err := json.Compact(&out, raw); err != nil {
		return nil, &Error{Message: "must be a JSON object"}
	}
	return out.Bytes(), nil
}

// decodeObject reads a JSON object, numbers kept as written.
func decodeObject(raw []byte) (map[string]any, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, &Error{Message: "must be a JSON object"}
	}
	m, ok := doc.(map[string]any)
	if !ok {
		return nil, &Error{Message: "must be a JSON object"}
	}
	return m, nil
}

// validate checks a whole settings document against the reference.
func validate(doc map[string]any) error {
	s, err := schema()
	if err != nil {
		return fmt.Errorf("customization: reference schema: %w", err)
	}
	if err := s.Validate(doc); err != nil {
		var ve *jsonschema.ValidationError
		if errors.As(err, &ve) {
			return deepest(ve)
		}
		return &Error{Message: err.Error()}
	}
	return nil
}

// deepest is the first innermost cause of a validation error: the one that
// names the value at fault. A missing property is named itself, not its
// parent, so that `{"themes": {"default": null}}` answers `themes.default`.
func deepest(ve *jsonschema.ValidationError) *Error {
	for len(ve.Causes) > 0 {
		ve = ve.Causes[0]
	}
	path := append([]string(nil), ve.InstanceLocation...)
	if r, ok := ve.ErrorKind.(*kind.Required); ok && len(r.Missing) == 1 {
		return &Error{Field: strings.Join(append(path, r.Missing[0]), "."), Message: "is required"}
	}
	msg := ve.Error()
	if i := strings.LastIndex(msg, ": "); i >= 0 && i+2 < len(msg) {
		msg = msg[i+2:]
	}
	return &Error{Field: strings.Join(path, "."), Message: msg}
}
