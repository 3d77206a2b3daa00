package adaptive

import (
	"encoding/json"
	"math"
	"reflect"
	"strconv"
	"strings"

	"github.com/expr-lang/expr/vm"
)

// Eval runs the condition with a visitor's claims (the decoded claims of a
// visitor token, `unsigned` holding the unsigned ones as a nested map) and
// says whether it holds. It never panics and never fails: a runtime error
// (an index out of range, a division by zero) or a result other than true is
// false.
//
// Every claim the condition reads gets a value of the type the schema gives
// it. A claim that is missing, or whose value is not of that type (a number
// for a string claim, a string outside a string claim's enum, an array with
// an item of the wrong type), is the zero value of its type: false, "", 0,
// an empty array. So a missing boolean claim is false, and
// `visitor.claims.plan == "pro"` is false for a visitor without a plan.
// Unsigned claims arrive as text (from a URL or a cookie), so a boolean
// claim also takes "true" and "false", and a number claim a decimal string.
func (c *Condition) Eval(claims map[string]any) (ok bool) {
	if c == nil || c.program == nil {
		return false
	}
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	env := map[string]any{}
	for _, n := range c.reads {
		v, _ := coerce(n, find(claims, n.names))
		put(env, n.names, v)
	}
	out, err := vm.Run(c.program, map[string]any{"visitor": map[string]any{"claims": env}})
	if err != nil {
		return false
	}
	b, isBool := out.(bool)
	return isBool && b
}

// find reads a claim by its path of names; nil when any step is missing or
// not an object.
func find(claims map[string]any, names []string) any {
	var cur any = claims
	for _, name := range names {
		switch m := cur.(type) {
		case map[string]any:
			cur = m[name]
		case map[string]string:
			cur = m[name]
		default:
			return nil
		}
	}
	return cur
}

// put stores v at a path of names in env, creating the objects on the way.
func put(env map[string]any, names []string, v any) {
	for _, name := range names[:len(names)-1] {
		next, ok := env[name].(map[string]any)
		if !ok {
			next = map[string]any{}
			env[name] = next
		}
		env = next
	}
	env[names[len(names)-1]] = v
}

// coerce gives v the Go type of n's claim type (bool, string, float64,
// []any); a value that does not fit is the type's zero value and ok false.
func coerce(n *claimNode, v any) (_ any, ok bool) {
	switch n.typ {
	case TypeBoolean:
		switch x := v.(type) {
		case bool:
			return x, true
		case string:
			if x == "true" || x == "false" {
				return x == "true", true
			}
		}
		return false, false
	case TypeString:
		if s, isStr := v.(string); isStr && inEnum(n.enum, s) {
			return s, true
		}
		return "", false
	case TypeNumber:
		if f, isNum := number(v); isNum {
			return f, true
		}
		return float64(0), false
	case TypeArray:
		rv := reflect.ValueOf(v)
		if v == nil || (rv.Kind() != reflect.Slice && rv.Kind() != reflect.Array) {
			return []any{}, false
		}
		out := make([]any, rv.Len())
		for i := range out {
			item, itemOK := coerce(n.items, rv.Index(i).Interface())
			if !itemOK {
				return []any{}, false
			}
			out[i] = item
		}
		return out, true
	}
	return nil, false
}

func inEnum(enum []string, s string) bool {
	if enum == nil {
		return true
	}
	for _, e := range enum {
		if e == s {
			return true
		}
	}
	return false
}

// number reads any Go number, a json.Number or a decimal string as a finite
// float64.
func number(v any) (float64, bool) {
	var f float64
	switch x := v.(type) {
	case float64:
		f = x
	case float32:
		f = float64(x)
	case int:
		f = float64(x)
	case int8:
		f = float64(x)
	case int16:
		f = float64(x)
	case int32:
		f = float64(x)
	case int64:
		f = float64(x)
	case uint:
		f = float64(x)
	case uint8:
		f = float64(x)
	case uint16:
		f = float64(x)
	case uint32:
		f = float64(x)
	case uint64:
		f = float64(x)
	case json.Number:
		var err error
		if f, err = x.Float64(); err != nil {
			return 0, false
		}
	case string:
		var err error
		if f, err = strconv.ParseFloat(strings.TrimSpace(x), 64); err != nil {
			return 0, false
		}
	default:
		return 0, false
	}
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, false
	}
	return f, true
}
