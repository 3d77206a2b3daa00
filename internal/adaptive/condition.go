package adaptive

import (
	"fmt"
	"strings"

	"github.com/expr-lang/expr"
	"github.com/expr-lang/expr/ast"
	"github.com/expr-lang/expr/conf"
	"github.com/expr-lang/expr/parser"
	"github.com/expr-lang/expr/types"
	"github.com/expr-lang/expr/vm"

	"github.com/folio/folio/internal/exprpos"
	"github.com/folio/folio/internal/textcheck"
)

// Condition is a compiled condition: its source, the claims it reads and
// the program that runs it.
type Condition struct {
	src     string
	program *vm.Program
	reads   []*claimNode // leaf claims read, sorted by path
}

// Source is the condition as written.
func (c *Condition) Source() string { return c.src }

// Claims lists, sorted, the paths of the claims the condition reads
// ("plan", "unsigned.isBeta"): what RemovedClaims is compared with.
func (c *Condition) Claims() []string {
	out := make([]string, len(c.reads))
	for i, n := range c.reads {
		out[i] = n.path
	}
	return out
}

// builtins are the only functions a condition may call: none iterates over
// more than one value, so a condition's cost is bounded by its size and the
// length of the claims it reads. The iterating builtins (all, any, filter,
// map, reduce, …), ranges (1..n) and user functions are refused.
var builtins = []string{"len", "lower", "upper", "trim", "abs", "ceil", "floor", "round"}

// operators a condition may use. The range operator `..` (which builds an
// array as long as its bounds say) and the pipe (a function call) are not
// among them.
var operators = map[string]bool{
	"==": true, "!=": true, "<": true, ">": true, "<=": true, ">=": true,
	"&&": true, "||": true, "and": true, "or": true, "??": true,
	"in": true, "contains": true, "startsWith": true, "endsWith": true, "matches": true,
	"+": true, "-": true, "*": true, "/": true, "%": true, "**": true, "^": true,
}

// Compile checks a condition against the schema and compiles it: a syntax
// error, a name other than visitor.claims.<claim>, an unknown claim, a type
// error (`visitor.claims.plan > 3` for a string plan) or a result that is not
// a boolean is an *Error with Field "condition" whose Message names the line
// and column. A nil schema is the empty one.
func Compile(src string, s *Schema) (*Condition, error) {
	if s == nil {
		s = EmptySchema()
	}
	if len(src) > MaxConditionLength {
		return nil, condErr(fmt.Sprintf("is longer than %d bytes", MaxConditionLength))
	}
	if p := textcheck.Problem(src); p != "" {
		return nil, condErr(p)
	}
	if strings.TrimSpace(src) == "" {
		return nil, condErr("is empty")
	}
	cfg := conf.CreateNew()
	cfg.MaxNodes = MaxConditionNodes
	tree, err := parser.ParseWithConfig(src, cfg)
	if err != nil {
		return nil, fromExpr(src, err)
	}
	w := &walker{src: src, schema: s, reads: map[string]*claimNode{}}
	if err := w.visit(tree.Node); err != nil {
		return nil, err
	}
	opts := []expr.Option{
		expr.Env(envType(s.root)),
		expr.AsBool(),
		expr.MaxNodes(MaxConditionNodes),
		expr.DisableAllBuiltins(),
	}
	for _, b := range builtins {
		opts = append(opts, expr.EnableBuiltin(b))
	}
	program, err := expr.Compile(src, opts...)
	if err != nil {
		return nil, fromExpr(src, err)
	}
	c := &Condition{src: src, program: program}
	for _, path := range sortedNames(w.reads) {
		c.reads = append(c.reads, w.reads[path])
	}
	return c, nil
}

func condErr(msg string) *Error { return &Error{Field: "condition", Message: msg} }

// at is an *Error naming the position of a rune offset of src.
func at(src string, from int, msg string) *Error {
	return condErr(exprpos.At(src, from, msg))
}

// fromExpr turns an error of expr's parser or checker into an *Error.
func fromExpr(src string, err error) error {
	from, msg := exprpos.Of(src, err)
	if strings.Contains(msg, "exceeds maximum allowed nodes") {
		msg = fmt.Sprintf("has more than %d terms", MaxConditionNodes)
	}
	return at(src, from, msg)
}

// envType is the type of the environment a condition is checked against:
// `visitor.claims` holds the schema's claims with their types, as strict
// maps, so that expr's checker refuses type errors too.
func envType(root *claimNode) types.Map {
	return types.Map{"visitor": types.Map{"claims": objectType(root)}}
}

func objectType(n *claimNode) types.Map {
	m := types.Map{}
	for name, c := range n.children {
		m[name] = claimType(c)
	}
	return m
}

func claimType(c *claimNode) types.Type {
	switch c.typ {
	case TypeBoolean:
		return types.Bool
	case TypeString:
		return types.String
	case TypeNumber:
		return types.Float64
	case TypeArray:
		return types.Array(claimType(c.items))
	case TypeObject:
		return objectType(c)
	}
	return types.Any
}

// walker checks a condition's syntax tree before expr compiles it: the only
// name is visitor, read as visitor.claims.<claim> down to a leaf claim the
// schema has; only the operators and builtins above. It records the claims
// read.
type walker struct {
	src    string
	schema *Schema
	reads  map[string]*claimNode
}

func (w *walker) errAt(n ast.Node, format string, args ...any) error {
	return at(w.src, n.Location().From, fmt.Sprintf(format, args...))
}

func (w *walker) visit(n ast.Node) error {
	switch n := n.(type) {
	case nil:
		return nil
	case *ast.NilNode, *ast.BoolNode, *ast.IntegerNode, *ast.FloatNode, *ast.StringNode, *ast.ConstantNode:
		return nil
	case *ast.IdentifierNode:
		if n.Value == "visitor" {
			return w.errAt(n, "visitor alone is not a value; read a claim: visitor.claims.<name>")
		}
		return w.errAt(n, "unknown name %q; a condition reads claims: visitor.claims.<name>", n.Value)
	case *ast.MemberNode:
		return w.member(n)
	case *ast.ChainNode:
		return w.visit(n.Node)
	case *ast.UnaryNode:
		return w.visit(n.Node)
	case *ast.BinaryNode:
		if !operators[n.Operator] {
			return w.errAt(n, "operator %s is not allowed in a condition", n.Operator)
		}
		if n.Operator == "matches" {
			if _, ok := n.Right.(*ast.StringNode); !ok {
				return w.errAt(n.Right, "the pattern of matches must be a string literal")
			}
		}
		if err := w.visit(n.Left); err != nil {
			return err
		}
		return w.visit(n.Right)
	case *ast.ConditionalNode:
		for _, x := range []ast.Node{n.Cond, n.Exp1, n.Exp2} {
			if err := w.visit(x); err != nil {
				return err
			}
		}
		return nil
	case *ast.ArrayNode:
		for _, x := range n.Nodes {
			if err := w.visit(x); err != nil {
				return err
			}
		}
		return nil
	case *ast.BuiltinNode:
		allowed := false
		for _, b := range builtins {
			allowed = allowed || b == n.Name
		}
		if !allowed {
			return w.errAt(n, "function %s is not allowed in a condition (allowed: %s)", n.Name, strings.Join(builtins, ", "))
		}
		for _, x := range n.Arguments {
			if err := w.visit(x); err != nil {
				return err
			}
		}
		return nil
	case *ast.CallNode:
		name := "calls"
		if id, ok := n.Callee.(*ast.IdentifierNode); ok {
			name = id.Value
		}
		return w.errAt(n, "function %s is not allowed in a condition (allowed: %s)", name, strings.Join(builtins, ", "))
	case *ast.PredicateNode, *ast.PointerNode:
		return w.errAt(n, "predicates are not allowed in a condition")
	case *ast.VariableDeclaratorNode:
		return w.errAt(n, "variables (let) are not allowed in a condition")
	case *ast.SequenceNode:
		return w.errAt(n, "sequences (;) are not allowed in a condition")
	case *ast.MapNode, *ast.PairNode:
		return w.errAt(n, "map literals are not allowed in a condition")
	case *ast.SliceNode:
		return w.errAt(n, "slices are not allowed in a condition")
	}
	return w.errAt(n, "%s is not allowed in a condition", n.String())
}

// member checks a chain of member accesses. Under visitor it must be
// visitor.claims.<name>[.<name>…] down to a leaf claim, then, for an array
// claim, an index.
func (w *walker) member(n *ast.MemberNode) error {
	// The chain from the root outwards: visitor, claims, plan, …
	var chain []*ast.MemberNode
	var root ast.Node = n
	for {
		switch m := root.(type) {
		case *ast.MemberNode:
			chain = append(chain, m)
			root = m.Node
			continue
		case *ast.ChainNode:
			root = m.Node
			continue
		}
		break
	}
	for i, j := 0, len(chain)-1; i < j; i, j = i+1, j-1 {
		chain[i], chain[j] = chain[j], chain[i]
	}
	id, ok := root.(*ast.IdentifierNode)
	if !ok || id.Value != "visitor" {
		// A member of a literal ([1, 2][0]) or of an unknown name.
		if err := w.visit(root); err != nil {
			return err
		}
		for _, m := range chain {
			if err := w.visit(m.Property); err != nil {
				return err
			}
		}
		return nil
	}
	if name, ok := propertyName(chain[0]); !ok || name != "claims" {
		return w.errAt(chain[0], "visitor has only claims: visitor.claims.<name>")
	}
	if len(chain) == 1 {
		return w.errAt(chain[0], "visitor.claims is not a value; read a claim: visitor.claims.<name>")
	}
	cur := w.schema.root
	path := "visitor.claims"
	var leaf *claimNode
	for _, m := range chain[1:] {
		switch {
		case cur.typ == TypeObject:
			name, ok := propertyName(m)
			if !ok {
				return w.errAt(m, "a claim must be named: %s.<name> or %s[\"<name>\"]", path, path)
			}
			path += "." + name
			next := cur.children[name]
			if next == nil {
				if near := w.nearest(name); near != "" {
					return w.errAt(m, "unknown claim %s; did you mean visitor.claims.%s?", path, near)
				}
				return w.errAt(m, "unknown claim %s", path)
			}
			cur = next
		case cur.typ == TypeArray && cur == leaf:
			// An index into an array claim: visitor.claims.roles[0].
			if err := w.visit(m.Property); err != nil {
				return err
			}
			path += "[]"
			cur = cur.items
			continue
		default:
			return w.errAt(m, "%s is a %s claim; it has no members", path, cur.typ)
		}
		if cur.typ != TypeObject {
			leaf = cur
		}
	}
	if leaf == nil {
		return w.errAt(chain[len(chain)-1], "%s is an object of claims; read one of them: %s.<name>", path, path)
	}
	w.reads[leaf.path] = leaf
	return nil
}

// nearest finds a claim of the schema named like an unknown one, ignoring
// case, elsewhere in the tree (isBeta for unsigned.isBeta, the usual slip).
func (w *walker) nearest(name string) string {
	for _, c := range w.schema.Claims() {
		last := c.Path[strings.LastIndexByte(c.Path, '.')+1:]
		if strings.EqualFold(last, name) {
			return c.Path
		}
	}
	return ""
}

// propertyName is the name a member access reads when it is written out
// (visitor.claims.plan, visitor.claims["plan"]).
func propertyName(m *ast.MemberNode) (string, bool) {
	s, ok := m.Property.(*ast.StringNode)
	if !ok {
		return "", false
	}
	return s.Value, true
}
