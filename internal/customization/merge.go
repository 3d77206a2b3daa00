package customization

import (
	"encoding/json"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// The merge rule of a partial update (GitBook 0.202.0's client sends
// SiteCustomizationSettingsInput with any subset of the properties; 0.143.2's
// sends them all), in the spirit of JSON Merge Patch (RFC 7386):
//
//   - a property the body leaves out is unchanged;
//   - an object merges property by property, at any depth
//     (`{"styling": {"codeTheme": {"default": …}}}` keeps every other style
//     and `codeTheme.openapi`);
//   - arrays (`socialAccounts`, `header.links`, `pageActions.items`…) and
//     scalars replace the stored value whole;
//   - a value the reference describes as one of several shapes (oneOf: the
//     favicon, a link's `to`, a custom font) replaces the stored value whole,
//     so an emoji favicon does not keep the stored icon's URLs beside it;
//   - `null` removes the property: an optional one is gone (`header.logo`),
//     a required one makes the result invalid (400 naming it).
//
// The merged document must then pass the reference's schema; if it does
// not, nothing is stored.

// Apply merges patch (a JSON object) onto the stored settings (nil for a
// site that has set none), brings the page actions' two spellings into
// line (actions.go), checks the result and answers it compacted: the
// settings to store.
func Apply(stored, patch []byte) ([]byte, error) {
	p, err := decodeObject(patch)
	if err != nil {
		return nil, err
	}
	s, err := schema()
	if err != nil {
		return nil, err
	}
	doc := effective(stored, s)
	doc = merge(doc, p, s).(map[string]any)
	alignPageActions(doc, p)
	if err := validate(doc); err != nil {
		return nil, err
	}
	return json.Marshal(doc)
}

// Effective is what a site's settings read as: the stored ones merged onto
// Default, so that settings stored before a version added a required
// property (0.202.0's `socialAccounts`, `styling.codeTheme`,
// `pageActions.items`) still answer complete.
func Effective(stored []byte) json.RawMessage {
	if stored == nil {
		return json.RawMessage(Default)
	}
	s, err := schema()
	if err != nil {
		return json.RawMessage(stored)
	}
	out, err := json.Marshal(effective(stored, s))
	if err != nil {
		return json.RawMessage(stored)
	}
	return out
}

func effective(stored []byte, s *jsonschema.Schema) map[string]any {
	doc, _ := decodeObject([]byte(Default))
	if stored == nil {
		return doc
	}
	if st, err := decodeObject(stored); err == nil {
		doc = merge(doc, st, s).(map[string]any)
		// Settings stored by 0.143.2 have booleans and no items: the
		// default items are edited from them, as a 0.143.2 body would.
		alignPageActions(doc, st)
	}
	return doc
}

// merge applies patch onto dst as the rule above says; s is the schema of
// the value (nil where the reference says nothing).
func merge(dst, patch any, s *jsonschema.Schema) any {
	pm, ok := patch.(map[string]any)
	dm, isObj := dst.(map[string]any)
	if !ok || !isObj || oneOfShapes(s) {
		return patch
	}
	out := make(map[string]any, len(dm)+len(pm))
	for k, v := range dm {
		out[k] = v
	}
	for k, v := range pm {
		if v == nil {
			delete(out, k)
			continue
		}
		out[k] = merge(out[k], v, property(s, k))
	}
	return out
}

// parts is s with the schemas it stands for: its $ref and allOf members.
func parts(s *jsonschema.Schema) []*jsonschema.Schema {
	var out []*jsonschema.Schema
	var walk func(*jsonschema.Schema)
	walk = func(s *jsonschema.Schema) {
		if s == nil || len(out) > 64 {
			return
		}
		out = append(out, s)
		walk(s.Ref)
		for _, a := range s.AllOf {
			walk(a)
		}
	}
	walk(s)
	return out
}

// oneOfShapes tells whether the reference gives a value several
// alternative shapes.
func oneOfShapes(s *jsonschema.Schema) bool {
	for _, p := range parts(s) {
		if len(p.OneOf) > 0 || len(p.AnyOf) > 0 {
			return true
		}
	}
	return false
}

// property is the schema of an object's property: a declared one, else the
// schema of additional properties (maps keyed by locale), else nil.
func property(s *jsonschema.Schema, name string) *jsonschema.Schema {
	ps := parts(s)
	for _, p := range ps {
		if c, ok := p.Properties[name]; ok {
			return c
		}
	}
	for _, p := range ps {
		if c, ok := p.AdditionalProperties.(*jsonschema.Schema); ok {
			return c
		}
	}
	return nil
}
