package basic

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/expr-lang/expr"
	"github.com/expr-lang/expr/ast"
	"github.com/expr-lang/expr/conf"
	"github.com/expr-lang/expr/file"
	"github.com/expr-lang/expr/parser"
	"github.com/threadbot/threadbot/internal/core/executor"
)

// Limits of the calculator. An accepted expression has no loops, variables
// or user functions, so its evaluation is bounded by its size.
const (
	// MaxExpressionLen is the longest expression accepted, in bytes.
	MaxExpressionLen = 1000
	// maxNodes bounds the syntax tree.
	maxNodes = 500
)

var calcSchema = json.RawMessage(`{
  "type": "object",
  "properties": {
    "expression": {
      "type": "string",
      "minLength": 1,
      "maxLength": 1000,
      "description": "Arithmetic expression, e.g. \"(1.5 + 2) * 3^2 / sqrt(16)\". Operators: + - * / % (remainder) ^ or ** (power), parentheses. Functions: sqrt cbrt abs min max round floor ceil trunc exp pow log ln log2 log10 sin cos tan asin acos atan atan2 hypot. Constants: pi, e. No variables or text."
    }
  },
  "required": ["expression"],
  "additionalProperties": false
}`)

func calcTool() *executor.Tool {
	return &executor.Tool{
		Name:        ToolCalculate,
		Description: "Evaluate an arithmetic expression exactly as written and return its numeric value. Use it for any calculation instead of doing arithmetic yourself. Angles are in radians.",
		Parameters:  calcSchema,
		Permission:  executor.Permission{Execution: executor.Auto, Result: executor.Never},
		Run: func(ctx context.Context, call executor.Call, args map[string]any) (executor.Output, error) {
			in, _ := args["expression"].(string)
			v, err := Calculate(in)
			if err != nil {
				return executor.Output{}, err
			}
			text := strings.TrimSpace(in) + " = " + FormatNumber(v)
			return executor.Output{Data: text, Title: text}, nil
		},
	}
}

// mathFunc is one function the calculator offers.
type mathFunc struct {
	minArgs, maxArgs int // maxArgs < 0: any number
	usage            string
	fn               func(x []float64) (float64, error)
}

func unary(name string, f func(float64) float64, domain func(float64) string) mathFunc {
	return mathFunc{1, 1, name + "(x)", func(x []float64) (float64, error) {
		if domain != nil {
			if msg := domain(x[0]); msg != "" {
				return 0, fmt.Errorf("%s(%s) is undefined: %s", name, FormatNumber(x[0]), msg)
			}
		}
		return f(x[0]), nil
	}}
}

func binary(name string, f func(a, b float64) float64) mathFunc {
	return mathFunc{2, 2, name + "(x, y)", func(x []float64) (float64, error) { return f(x[0], x[1]), nil }}
}

func nonNegative(x float64) string {
	if x < 0 {
		return "the argument must not be negative"
	}
	return ""
}

func positive(x float64) string {
	if x <= 0 {
		return "the argument must be greater than 0"
	}
	return ""
}

func unitRange(x float64) string {
	if x < -1 || x > 1 {
		return "the argument must be between -1 and 1"
	}
	return ""
}

// functions are the calculator's functions, by name.
var functions = map[string]mathFunc{
	"sqrt":  unary("sqrt", math.Sqrt, nonNegative),
	"cbrt":  unary("cbrt", math.Cbrt, nil),
	"abs":   unary("abs", math.Abs, nil),
	"floor": unary("floor", math.Floor, nil),
	"ceil":  unary("ceil", math.Ceil, nil),
	"trunc": unary("trunc", math.Trunc, nil),
	"exp":   unary("exp", math.Exp, nil),
	"ln":    unary("ln", math.Log, positive),
	"log2":  unary("log2", math.Log2, positive),
	"log10": unary("log10", math.Log10, positive),
	"sin":   unary("sin", math.Sin, nil),
	"cos":   unary("cos", math.Cos, nil),
	"tan":   unary("tan", math.Tan, nil),
	"asin":  unary("asin", math.Asin, unitRange),
	"acos":  unary("acos", math.Acos, unitRange),
	"atan":  unary("atan", math.Atan, nil),
	"atan2": binary("atan2", math.Atan2),
	"hypot": binary("hypot", math.Hypot),
	"pow":   binary("pow", math.Pow),
	"min": {1, -1, "min(x, y, ...)", func(x []float64) (float64, error) {
		m := x[0]
		for _, v := range x[1:] {
			m = math.Min(m, v)
		}
		return m, nil
	}},
	"max": {1, -1, "max(x, y, ...)", func(x []float64) (float64, error) {
		m := x[0]
		for _, v := range x[1:] {
			m = math.Max(m, v)
		}
		return m, nil
	}},
	"round": {1, 2, "round(x) or round(x, digits)", func(x []float64) (float64, error) {
		if len(x) == 1 {
			return math.Round(x[0]), nil
		}
		d := x[1]
		if d != math.Trunc(d) || d < -15 || d > 15 {
			return 0, fmt.Errorf("round(x, digits): digits must be a whole number from -15 to 15, got %s", FormatNumber(d))
		}
		p := math.Pow(10, d)
		return math.Round(x[0]*p) / p, nil
	}},
	"log": {1, 2, "log(x) (natural) or log(x, base)", func(x []float64) (float64, error) {
		if x[0] <= 0 {
			return 0, fmt.Errorf("log(%s) is undefined: the argument must be greater than 0", FormatNumber(x[0]))
		}
		if len(x) == 1 {
			return math.Log(x[0]), nil
		}
		if x[1] <= 0 || x[1] == 1 {
			return 0, fmt.Errorf("log(x, %s) is undefined: the base must be greater than 0 and not 1", FormatNumber(x[1]))
		}
		return math.Log(x[0]) / math.Log(x[1]), nil
	}},
}

// constants are the calculator's named constants.
var constants = map[string]float64{"pi": math.Pi, "e": math.E}

// Internal functions the arithmetic operators are rewritten to; the names
// cannot be written by users because check accepts only known names.
const (
	divFunc = "__div"
	modFunc = "__mod"
)

// ErrDivisionByZero is returned by Calculate for x/0 and x%0.
var ErrDivisionByZero = errors.New("division by zero is undefined")

func div(x []float64) (float64, error) {
	if x[1] == 0 {
		return 0, fmt.Errorf("%s / 0: %w", FormatNumber(x[0]), ErrDivisionByZero)
	}
	return x[0] / x[1], nil
}

func mod(x []float64) (float64, error) {
	if x[1] == 0 {
		return 0, fmt.Errorf("%s %% 0: %w (%% is the remainder)", FormatNumber(x[0]), ErrDivisionByZero)
	}
	return math.Mod(x[0], x[1]), nil
}

// exprOptions configures expr for arithmetic only: no builtins, no
// environment, the functions above, every number a float64 and the
// division operators checked for zero.
func exprOptions() []expr.Option {
	opts := []expr.Option{
		expr.DisableAllBuiltins(),
		expr.Env(map[string]any{}),
		expr.MaxNodes(maxNodes),
		expr.Patch(arithmetic{}),
	}
	add := func(name string, f mathFunc) {
		opts = append(opts, expr.Function(name, func(params ...any) (any, error) {
			xs := make([]float64, len(params))
			for i, p := range params {
				v, ok := p.(float64)
				if !ok {
					return nil, fmt.Errorf("%s: argument %d is not a number", name, i+1)
				}
				xs[i] = v
			}
			return f.fn(xs)
		}))
	}
	for name, f := range functions {
		add(name, f)
	}
	add(divFunc, mathFunc{2, 2, "", div})
	add(modFunc, mathFunc{2, 2, "", mod})
	return opts
}

// Calculate evaluates an arithmetic expression. It returns an error that
// says what to change for an empty or too long expression, a syntax error,
// an unknown name, a non-arithmetic construct (strings, comparisons,
// variables), a wrong number of function arguments, a division by zero
// (ErrDivisionByZero), a function outside its domain, or a result that is
// not a finite number.
func Calculate(input string) (float64, error) {
	in := normalize(input)
	if in == "" {
		return 0, errors.New("the expression is empty; write one such as \"2 * (3 + 4)\"")
	}
	if len(in) > MaxExpressionLen {
		return 0, fmt.Errorf("the expression is %d bytes long; the limit is %d: split the calculation into steps", len(in), MaxExpressionLen)
	}
	opts := exprOptions()
	cfg := conf.CreateNew()
	for _, o := range opts {
		o(cfg)
	}
	for name := range cfg.Disabled {
		delete(cfg.Builtins, name)
	}
	tree, err := parser.ParseWithConfig(in, cfg)
	if err != nil {
		return 0, fmt.Errorf("syntax error in the expression: %v", err)
	}
	if err := check(tree.Node); err != nil {
		return 0, err
	}
	prog, err := expr.Compile(in, opts...)
	if err != nil {
		return 0, fmt.Errorf("invalid expression: %v", err)
	}
	out, err := expr.Run(prog, map[string]any{})
	if err != nil {
		return 0, runError(err)
	}
	v, ok := out.(float64)
	if !ok {
		return 0, fmt.Errorf("the expression did not produce a number (got %T); use only numbers and arithmetic", out)
	}
	switch {
	case math.IsNaN(v):
		return 0, errors.New("the result is not a real number (for example infinity minus infinity); check the expression")
	case math.IsInf(v, 0):
		return 0, errors.New("the result is infinite or too large to represent (beyond ±1.8e308); check the expression or use smaller numbers")
	}
	return v, nil
}

// runError unwraps expr's runtime error to the error of the function that
// failed, which already says what went wrong.
func runError(err error) error {
	var fe *file.Error
	if errors.As(err, &fe) && fe.Prev != nil {
		return fe.Prev
	}
	return err
}

// normalize trims the input and maps common typographic operators to ASCII.
func normalize(s string) string {
	return strings.TrimSpace(strings.NewReplacer("×", "*", "÷", "/", "−", "-", "·", "*").Replace(s))
}

// check accepts only numbers, the named constants, unary + and -, the
// arithmetic operators and calls of the known functions with the right
// number of arguments.
func check(n ast.Node) error {
	switch n := n.(type) {
	case *ast.IntegerNode, *ast.FloatNode:
		return nil
	case *ast.IdentifierNode:
		if _, ok := constants[n.Value]; ok {
			return nil
		}
		if _, ok := functions[n.Value]; ok {
			return fmt.Errorf("%s is a function: call it as %s", n.Value, functions[n.Value].usage)
		}
		return fmt.Errorf("unknown name %q: the calculator has no variables; the only constants are pi and e", n.Value)
	case *ast.UnaryNode:
		if n.Operator != "-" && n.Operator != "+" {
			return fmt.Errorf("operator %q is not supported; the calculator only does arithmetic", n.Operator)
		}
		return check(n.Node)
	case *ast.BinaryNode:
		switch n.Operator {
		case "+", "-", "*", "/", "%", "^", "**":
		default:
			return fmt.Errorf("operator %q is not supported; use + - * / %% ^ and parentheses", n.Operator)
		}
		if err := check(n.Left); err != nil {
			return err
		}
		return check(n.Right)
	case *ast.CallNode:
		id, ok := n.Callee.(*ast.IdentifierNode)
		if !ok {
			return errors.New("only the listed math functions can be called")
		}
		f, ok := functions[id.Value]
		if !ok {
			return fmt.Errorf("unknown function %q; available: %s", id.Value, functionList())
		}
		if len(n.Arguments) < f.minArgs || f.maxArgs >= 0 && len(n.Arguments) > f.maxArgs {
			return fmt.Errorf("%s takes %s; got %d argument(s): write %s", id.Value, arity(f), len(n.Arguments), f.usage)
		}
		for _, a := range n.Arguments {
			if err := check(a); err != nil {
				return err
			}
		}
		return nil
	case *ast.BuiltinNode:
		return fmt.Errorf("unknown function %q; available: %s", n.Name, functionList())
	case *ast.StringNode, *ast.BytesNode:
		return errors.New("text is not supported; the calculator only works with numbers")
	case *ast.BoolNode, *ast.NilNode:
		return errors.New("true, false and nil are not supported; the calculator only works with numbers")
	case *ast.ConditionalNode:
		return errors.New("conditions are not supported; the calculator only does arithmetic")
	case *ast.VariableDeclaratorNode, *ast.SequenceNode:
		return errors.New("variables and statements are not supported; write one arithmetic expression")
	default:
		return fmt.Errorf("this construct (%s) is not supported; use numbers, + - * / %% ^, parentheses and the math functions", nodeKind(n))
	}
}

func nodeKind(n ast.Node) string {
	switch n.(type) {
	case *ast.ArrayNode:
		return "list"
	case *ast.MapNode, *ast.PairNode:
		return "map"
	case *ast.MemberNode, *ast.ChainNode:
		return "member access"
	case *ast.SliceNode:
		return "slice"
	case *ast.PointerNode, *ast.PredicateNode:
		return "predicate"
	}
	return fmt.Sprintf("%T", n)
}

func arity(f mathFunc) string {
	switch {
	case f.maxArgs < 0:
		return fmt.Sprintf("at least %d argument(s)", f.minArgs)
	case f.minArgs == f.maxArgs:
		return fmt.Sprintf("%d argument(s)", f.minArgs)
	}
	return fmt.Sprintf("%d to %d arguments", f.minArgs, f.maxArgs)
}

func functionList() string {
	return "sqrt cbrt abs min max round floor ceil trunc exp pow log ln log2 log10 sin cos tan asin acos atan atan2 hypot"
}

// arithmetic rewrites the checked tree for evaluation: integers become
// float64 (so 7/2 is 3.5 and nothing wraps around), the constants become
// numbers, and / and % become calls that refuse a zero divisor.
type arithmetic struct{}

// Visit implements ast.Visitor.
func (arithmetic) Visit(node *ast.Node) {
	switch n := (*node).(type) {
	case *ast.IntegerNode:
		ast.Patch(node, &ast.FloatNode{Value: float64(n.Value)})
	case *ast.IdentifierNode:
		if v, ok := constants[n.Value]; ok {
			ast.Patch(node, &ast.FloatNode{Value: v})
		}
	case *ast.BinaryNode:
		name := ""
		switch n.Operator {
		case "/":
			name = divFunc
		case "%":
			name = modFunc
		default:
			return
		}
		ast.Patch(node, &ast.CallNode{
			Callee:    &ast.IdentifierNode{Value: name},
			Arguments: []ast.Node{n.Left, n.Right},
		})
	}
}

// FormatNumber renders a result: whole numbers exactly (up to 2^53), other
// values with 15 significant digits, which hides binary rounding noise such
// as 0.1+0.2 = 0.30000000000000004.
func FormatNumber(v float64) string {
	if v == 0 {
		v = 0 // no "-0"
	}
	if v == math.Trunc(v) && math.Abs(v) < 1<<53 {
		return strconv.FormatFloat(v, 'f', -1, 64)
	}
	return strconv.FormatFloat(v, 'g', 15, 64)
}
