package mergerules

import (
	"errors"
	"fmt"
	"strings"

	"github.com/expr-lang/expr"
	"github.com/expr-lang/expr/ast"
	"github.com/expr-lang/expr/conf"
	"github.com/expr-lang/expr/parser"
	"github.com/expr-lang/expr/vm"
	lru "github.com/hashicorp/golang-lru/v2"

	"github.com/folio/folio/internal/exprpos"
	"github.com/folio/folio/internal/textcheck"
)

// MaxNodes bounds the size of an expression's syntax tree.
const MaxNodes = 200

// MaxPredicateDepth bounds how deep iterating functions nest: each level
// multiplies the work by the length of a list (filter(a, any(b, …)) visits
// every pair), so a deeper nesting could run for ever on a long list.
const MaxPredicateDepth = 2

// Functions are the only functions an expression may call. Each does work
// proportional to its arguments; the rest of expr's builtins are off, some
// because they allocate as much as a number says (repeat), some because
// they read the clock or do not belong in a rule (now, date, fromJSON, …).
var Functions = []string{
	"len", "all", "any", "none", "one", "filter", "map", "count", "find",
	"lower", "upper", "trim", "hasPrefix", "hasSuffix", "first", "last",
}

// predicates are the Functions that iterate, calling a predicate per item.
var predicates = []string{"all", "any", "none", "one", "filter", "map", "count", "find"}

// compiled is the outcome of compiling one source: a program or the error.
type compiled struct {
	program *vm.Program
	err     error
}

// programs caches compilations by source: a configuration's expressions are
// evaluated on every merge and every mergeability check, and compiling costs
// far more than running. Bounded, since sources come from users.
var programs, _ = lru.New[string, compiled](256)

// compile compiles an expression, or says why not; the message names the
// line and column when the problem has a place.
func compile(src string) (*vm.Program, error) {
	if c, ok := programs.Get(src); ok {
		return c.program, c.err
	}
	p, err := compileUncached(src)
	programs.Add(src, compiled{p, err})
	return p, err
}

func compileUncached(src string) (*vm.Program, error) {
	if len(src) > MaxExpressionLength {
		return nil, fmt.Errorf("is longer than %d bytes", MaxExpressionLength)
	}
	if p := textcheck.Problem(src); p != "" {
		return nil, errors.New(p)
	}
	if strings.TrimSpace(src) == "" {
		return nil, errors.New("is required for a custom rule")
	}
	// Parse with every builtin known, so that a call of one that is off is
	// named as such rather than as an unknown name.
	cfg := conf.CreateNew()
	cfg.MaxNodes = MaxNodes
	tree, err := parser.ParseWithConfig(src, cfg)
	if err != nil {
		return nil, fromExpr(src, err)
	}
	if err := (&walker{src: src}).visit(tree.Node, 0); err != nil {
		return nil, err
	}
	opts := []expr.Option{
		expr.Env(Context{}),
		expr.AsBool(),
		expr.MaxNodes(MaxNodes),
		expr.DisableAllBuiltins(),
	}
	for _, f := range Functions {
		opts = append(opts, expr.EnableBuiltin(f))
	}
	program, err := expr.Compile(src, opts...)
	if err != nil {
		return nil, fromExpr(src, err)
	}
	return program, nil
}

// at is an error naming the line and column of a rune offset of src.
func at(src string, from int, msg string) error {
	return errors.New(exprpos.At(src, from, msg))
}

// fromExpr turns an error of expr's parser or checker into one naming the
// line and column.
func fromExpr(src string, err error) error {
	from, msg := exprpos.Of(src, err)
	if strings.Contains(msg, "exceeds maximum allowed nodes") {
		msg = fmt.Sprintf("has more than %d terms", MaxNodes)
	}
	return at(src, from, readable(msg))
}

// goNames spells the Go types of the Context as expressions know them, and
// lists their fields where the checker says one is unknown.
var goNames = strings.NewReplacer(
	"type mergerules.ChangeRequest has no field", "changeRequest has fields subject, description, author, reviews, requestedReviewers and outdated; not",
	"type mergerules.Review has no field", "a review has fields reviewer, status and outdated; not",
	"mergerules.ChangeRequest", "changeRequest",
	"mergerules.Review", "review",
	"mergerules.Context", "the context",
)

func readable(msg string) string { return goNames.Replace(msg) }

// walker refuses, before expr compiles an expression, what its checker
// would let through: functions that are off, the range operator and
// iterating functions nested too deep. Names and types are left to the
// checker, which knows the Context.
type walker struct{ src string }

func (w *walker) errAt(n ast.Node, format string, args ...any) error {
	return at(w.src, n.Location().From, fmt.Sprintf(format, args...))
}

// visit checks n; depth is how many iterating functions enclose it.
func (w *walker) visit(n ast.Node, depth int) error {
	switch n := n.(type) {
	case nil:
		return nil
	case *ast.NilNode, *ast.BoolNode, *ast.IntegerNode, *ast.FloatNode, *ast.StringNode,
		*ast.ConstantNode, *ast.IdentifierNode, *ast.PointerNode:
		return nil
	case *ast.UnaryNode:
		return w.visit(n.Node, depth)
	case *ast.BinaryNode:
		if n.Operator == ".." {
			return w.errAt(n, "the range operator .. is not allowed")
		}
		return w.visitAll(depth, n.Left, n.Right)
	case *ast.ChainNode:
		return w.visit(n.Node, depth)
	case *ast.MemberNode:
		return w.visitAll(depth, n.Node, n.Property)
	case *ast.SliceNode:
		return w.visitAll(depth, n.Node, n.From, n.To)
	case *ast.CallNode:
		name := "calls"
		switch c := n.Callee.(type) {
		case *ast.IdentifierNode:
			name = c.Value
		case *ast.MemberNode:
			if s, ok := c.Property.(*ast.StringNode); ok {
				name = s.Value
			}
		}
		return w.errAt(n, "function %s is not allowed (allowed: %s)", name, strings.Join(Functions, ", "))
	case *ast.BuiltinNode:
		allowed := false
		for _, f := range Functions {
			allowed = allowed || f == n.Name
		}
		if !allowed {
			return w.errAt(n, "function %s is not allowed (allowed: %s)", n.Name, strings.Join(Functions, ", "))
		}
		for _, a := range n.Arguments {
			// Only a predicate runs once per item; the list an iterating
			// function reads is computed once.
			p, ok := a.(*ast.PredicateNode)
			if !ok {
				if err := w.visit(a, depth); err != nil {
					return err
				}
				continue
			}
			if depth == MaxPredicateDepth {
				return w.errAt(n, "%s inside %d iterating functions; at most %d may nest", n.Name, depth, MaxPredicateDepth)
			}
			if err := w.visit(p.Node, depth+1); err != nil {
				return err
			}
		}
		return nil
	case *ast.PredicateNode:
		// Only where a function takes one, above.
		return w.errAt(n, "a predicate is allowed only as the last argument of %s", strings.Join(predicates, ", "))
	case *ast.ConditionalNode:
		return w.visitAll(depth, n.Cond, n.Exp1, n.Exp2)
	case *ast.VariableDeclaratorNode:
		return w.visitAll(depth, n.Value, n.Expr)
	case *ast.SequenceNode:
		return w.visitAll(depth, n.Nodes...)
	case *ast.ArrayNode:
		return w.visitAll(depth, n.Nodes...)
	case *ast.MapNode:
		return w.visitAll(depth, n.Pairs...)
	case *ast.PairNode:
		return w.visitAll(depth, n.Key, n.Value)
	}
	// A node this walker does not know (a newer expr): refuse rather than
	// let an unchecked construct through.
	return w.errAt(n, "%s is not allowed", n.String())
}

func (w *walker) visitAll(depth int, nodes ...ast.Node) error {
	for _, n := range nodes {
		if err := w.visit(n, depth); err != nil {
			return err
		}
	}
	return nil
}
