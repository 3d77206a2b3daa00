package visitor

import (
	"encoding/base64"
	"encoding/json"
	"net/url"
	"strings"
)

// unsigned gathers the visitor's unsigned claims: the cookies' (GitBook's,
// then ours over it), then the URL's `visitor.<name>` parameters over both,
// each checked against the schema. When the URL brought some, the result is
// remembered in our cookie.
func (g *gate) unsigned(q map[string][]string) map[string]any {
	if g.s.Schema == nil {
		return nil
	}
	stored := map[string]any{}
	if c, err := g.r.Cookie(GitBookUnsignedCookie); err == nil {
		if raw, err := url.QueryUnescape(c.Value); err == nil {
			merge(stored, decodeObject([]byte(raw)))
		}
	}
	if c, err := g.r.Cookie(UnsignedCookie); err == nil {
		if raw, err := base64.RawURLEncoding.DecodeString(c.Value); err == nil {
			merge(stored, decodeObject(raw))
		}
	}
	fromURL := false
	for name := range q {
		if strings.HasPrefix(name, UnsignedPrefix) {
			fromURL = true
			break
		}
	}
	claims := g.s.Schema.UnsignedClaims(func(path string) (any, bool) {
		if vs, ok := q[UnsignedPrefix+path]; ok && len(vs) > 0 {
			return urlValue(vs), true
		}
		v := find(stored, strings.Split(path, "."))
		return v, v != nil
	})
	if fromURL && claims != nil {
		if b, err := json.Marshal(claims); err == nil {
			if v := base64.RawURLEncoding.EncodeToString(b); len(v) <= maxUnsignedCookie {
				g.setCookie(UnsignedCookie, v, UnsignedCookieMaxAge)
			}
		}
	}
	return claims
}

// urlValue reads a parameter's values: one value that is a JSON array is
// that array (GitBook passes values as JSON), several values are an array,
// one value is itself (text; the schema's types coerce it).
func urlValue(vs []string) any {
	if len(vs) == 1 {
		if strings.HasPrefix(strings.TrimSpace(vs[0]), "[") {
			var arr []any
			if json.Unmarshal([]byte(vs[0]), &arr) == nil {
				return arr
			}
		}
		return vs[0]
	}
	out := make([]any, len(vs))
	for i, v := range vs {
		out[i] = v
	}
	return out
}

func decodeObject(b []byte) map[string]any {
	var m map[string]any
	if json.Unmarshal(b, &m) != nil {
		return nil
	}
	return m
}

// find reads a nested value by its path of names; nil when absent.
func find(m map[string]any, names []string) any {
	var cur any = m
	for _, n := range names {
		obj, ok := cur.(map[string]any)
		if !ok {
			return nil
		}
		cur = obj[n]
	}
	return cur
}
