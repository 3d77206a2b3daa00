// Package schemacompat compares two GraphQL schemas and tells which changes
// break clients: a query, variables or generated types that worked against
// the old schema and fail (or read wrong) against the new one. Folio's CI
// compares the schema with a snapshot committed when the API was last
// released (schema/compat), so a breaking change lands only when it is
// acknowledged there; fields are deprecated with @deprecated(reason:) long
// before they go.
package schemacompat

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/vektah/gqlparser/v2/ast"
)

// Change is one difference between two schemas that breaks clients. Key
// names it stably, for acknowledgements: "Type", "Type.field",
// "Type.field(arg:)", "Enum.VALUE", "Union|Member", "Type&Interface" or
// "@directive".
type Change struct {
	Key    string
	Reason string
}

func (c Change) String() string { return c.Key + ": " + c.Reason }

// Breaking lists what breaks clients of old when the schema becomes new:
// types, fields, arguments, input fields, enum values, union members,
// interfaces and directives removed; output types loosened (non-null to
// nullable, another type, list-ness); input types tightened (nullable to
// non-null, another type); required arguments and input fields added.
// Additions of anything optional, and tightened outputs or loosened inputs,
// are not listed. The result is sorted by key.
func Breaking(old, new *ast.Schema) []Change {
	var out []Change
	add := func(key, format string, args ...any) {
		out = append(out, Change{Key: key, Reason: fmt.Sprintf(format, args...)})
	}
	for name, ot := range old.Types {
		if ot.BuiltIn || strings.HasPrefix(name, "__") {
			continue
		}
		nt := new.Types[name]
		switch {
		case nt == nil:
			add(name, "%s %s was removed", strings.ToLower(string(ot.Kind)), name)
			continue
		case nt.Kind != ot.Kind:
			add(name, "changed from %s to %s", strings.ToLower(string(ot.Kind)), strings.ToLower(string(nt.Kind)))
			continue
		}
		switch ot.Kind {
		case ast.Object, ast.Interface:
			compareFields(name, ot, nt, add)
			for _, iface := range ot.Interfaces {
				if !slices.Contains(nt.Interfaces, iface) {
					add(name+"&"+iface, "%s no longer implements %s", name, iface)
				}
			}
		case ast.InputObject:
			compareInputFields(name, ot, nt, add)
		case ast.Enum:
			for _, v := range ot.EnumValues {
				if nt.EnumValues.ForName(v.Name) == nil {
					add(name+"."+v.Name, "enum value %s.%s was removed", name, v.Name)
				}
			}
		case ast.Union:
			for _, m := range ot.Types {
				if !slices.Contains(nt.Types, m) {
					add(name+"|"+m, "%s was removed from union %s", m, name)
				}
			}
		}
	}
	for name, od := range old.Directives {
		if od.Position != nil && od.Position.Src != nil && od.Position.Src.BuiltIn {
			continue
		}
		if new.Directives[name] == nil {
			add("@"+name, "directive @%s was removed", name)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Key < out[j].Key })
	return out
}

func compareFields(typ string, ot, nt *ast.Definition, add func(key, format string, args ...any)) {
	for _, of := range ot.Fields {
		if strings.HasPrefix(of.Name, "__") {
			continue
		}
		key := typ + "." + of.Name
		nf := nt.Fields.ForName(of.Name)
		if nf == nil {
			add(key, "field was removed (deprecate it first: @deprecated(reason:))")
			continue
		}
		if !outputCompatible(of.Type, nf.Type) {
			add(key, "type changed from %s to %s, which old clients may not read", of.Type, nf.Type)
		}
		for _, oa := range of.Arguments {
			akey := key + "(" + oa.Name + ":)"
			na := nf.Arguments.ForName(oa.Name)
			if na == nil {
				add(akey, "argument was removed")
				continue
			}
			if !inputCompatible(oa.Type, na.Type, na.DefaultValue != nil) {
				add(akey, "type changed from %s to %s, which old values may not satisfy", oa.Type, na.Type)
			}
		}
		for _, na := range nf.Arguments {
			if of.Arguments.ForName(na.Name) == nil && na.Type.NonNull && na.DefaultValue == nil {
				add(key+"("+na.Name+":)", "required argument %s was added", na.Type)
			}
		}
	}
}

func compareInputFields(typ string, ot, nt *ast.Definition, add func(key, format string, args ...any)) {
	for _, of := range ot.Fields {
		key := typ + "." + of.Name
		nf := nt.Fields.ForName(of.Name)
		if nf == nil {
			add(key, "input field was removed")
			continue
		}
		if !inputCompatible(of.Type, nf.Type, nf.DefaultValue != nil) {
			add(key, "type changed from %s to %s, which old values may not satisfy", of.Type, nf.Type)
		}
	}
	for _, nf := range nt.Fields {
		if ot.Fields.ForName(nf.Name) == nil && nf.Type.NonNull && nf.DefaultValue == nil {
			add(typ+"."+nf.Name, "required input field %s was added", nf.Type)
		}
	}
}

// outputCompatible: every value of type new is one old clients expect of
// type old. Only nullability may tighten (a nullable field may become
// non-null), at any level.
func outputCompatible(old, new *ast.Type) bool {
	if old.NonNull && !new.NonNull {
		return false
	}
	if (old.Elem == nil) != (new.Elem == nil) {
		return false
	}
	if old.Elem != nil {
		return outputCompatible(old.Elem, new.Elem)
	}
	return old.NamedType == new.NamedType
}

// inputCompatible: every value old clients send for type old is valid for
// type new. Only nullability may loosen (a non-null input may become
// nullable); a top-level nullable input may become non-null only with a
// default.
func inputCompatible(old, new *ast.Type, hasDefault bool) bool {
	if !old.NonNull && new.NonNull && !hasDefault {
		return false
	}
	if (old.Elem == nil) != (new.Elem == nil) {
		return false
	}
	if old.Elem != nil {
		return inputCompatible(old.Elem, new.Elem, false)
	}
	return old.NamedType == new.NamedType
}
