package adaptive

import "strings"

// UnsignedClaims reads a visitor's unsigned claims — values anyone can set,
// from `?visitor.<name>=` or a cookie — against the schema's `unsigned`
// object, the only place GitBook lets them live (conditions read them as
// visitor.claims.unsigned.<name>).
//
// lookup answers the raw value of a claim by its path under `unsigned`
// (dotted for nested objects: "isBeta", "group.role"), or false when the
// visitor sent none. Values are coerced as Eval coerces them: text "true" /
// "false" for a boolean, a decimal string for a number, a string inside a
// string claim's enum, an array whose every item fits. A value that does not
// fit, or a name the schema does not declare, is dropped: unsigned claims
// never make a request fail. The answer is nested like the claims
// (map[path-part]…), ready to stand under "unsigned"; nil when nothing is
// left.
func (s *Schema) UnsignedClaims(lookup func(path string) (any, bool)) map[string]any {
	if s == nil || s.root == nil {
		return nil
	}
	u := s.root.children["unsigned"]
	if u == nil || u.typ != TypeObject {
		return nil
	}
	var out map[string]any
	eachLeaf(u, func(c *claimNode) {
		raw, ok := lookup(strings.TrimPrefix(c.path, u.path+"."))
		if !ok {
			return
		}
		v, ok := coerce(c, raw)
		if !ok {
			return
		}
		if out == nil {
			out = map[string]any{}
		}
		put(out, c.names[len(u.names):], v)
	})
	return out
}
