package translate

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/xwb1989/sqlparser"

	"github.com/airsql/airsql/sqlvalue"
)

func fmtErr(format string, a ...any) error { return fmt.Errorf("translate: "+format, a...) }

// callRegistered compiles a call of a function of the library (sqlvalue): op is its entry's name,
// name the name it was called by, param a compile-time parameter (a CAST's target).
func (s *scope) callRegistered(def *sqlvalue.Func, op, name string, args []*expr, text string, param any) (*expr, error) {
	if len(args) < def.Min || (def.Max >= 0 && len(args) > def.Max) {
		want := strconv.Itoa(def.Min)
		switch {
		case def.Max < 0:
			want = "at least " + want
		case def.Max != def.Min:
			want = fmt.Sprintf("%d to %d", def.Min, def.Max)
		}
		return nil, fmt.Errorf("translate: %s: wrong number of arguments to %s: %d given, %s expected", text, name, len(args), want)
	}
	anyNull := false
	for _, a := range args {
		anyNull = anyNull || a.nullable || a.typ == typeNull
	}
	fc := &sqlvalue.Check{Name: name, SQL: text, Args: argsOf(args), Param: param, Env: statementEnv{s}}
	typ, err := def.Type(fc)
	if err != nil {
		return nil, err
	}
	out := &expr{kind: exFunc, op: op, typ: typ, args: args, sql: text, val: fc.Param}
	out.nullable = anyNull || def.MayBeNull || fc.Nullable
	if def.Nullable != nil {
		out.nullable = def.Nullable(fc.Args)
	}
	out.call = newCall(out, def, fc.Args)
	// Fold a call of constants into a constant: it is then written into formulas as a value, and
	// evaluated once rather than per row. Every function is deterministic within a statement (NOW()
	// and the system functions too, as in MySQL).
	for _, a := range out.args {
		if a.kind != exConst {
			return out, nil
		}
	}
	v, err := out.evalFunc(&Row{})
	if err != nil {
		return nil, err
	}
	return &expr{kind: exConst, typ: typ, val: v, nullable: v == nil, sql: text}, nil
}

// compiledCall is an exFunc's call as the library evaluates it, made once when it is compiled.
type compiledCall struct {
	fn   *sqlvalue.Func
	call *sqlvalue.Call
	args []*expr // the arguments call describes
}

func newCall(e *expr, fn *sqlvalue.Func, args []sqlvalue.Arg) *compiledCall {
	return &compiledCall{fn: fn, args: e.args,
		call: &sqlvalue.Call{Name: e.op, SQL: e.sql, Type: e.typ, Args: args, Param: e.val}}
}

// libraryExpr is a call of a library function the planner builds itself (no SQL text calls it by
// this name: text read as a number, GROUPING's rollup test, LOWER of a name), compiled as
// callRegistered compiles one.
func libraryExpr(op string, typ sqlType, nullable bool, args []*expr, sql string) *expr {
	e := &expr{kind: exFunc, op: op, typ: typ, nullable: nullable, args: args, sql: sql}
	e.call = newCall(e, libraryFunc(op), argsOf(args))
	return e
}

// argsOf describes compiled arguments for the library.
func argsOf(args []*expr) []sqlvalue.Arg {
	out := make([]sqlvalue.Arg, len(args))
	for i, a := range args {
		out[i] = argOf(a)
	}
	return out
}

// argOf describes a compiled expression as the library sees an argument.
func argOf(a *expr) sqlvalue.Arg {
	return sqlvalue.Arg{Type: a.typ, Nullable: a.nullable, Const: a.kind == exConst, Value: a.val, SQL: a.sql, Fsp: datetimeFsp(a)}
}

// libraryCall is e's compiled call, or one made now when e was built or rewritten after it was
// compiled (its arguments replaced: a slot of the engine's rows for a column).
func (e *expr) libraryCall() (*compiledCall, error) {
	if c := e.call; c != nil && c.describes(e) {
		return c, nil
	}
	fn, _, ok := sqlvalue.Lookup(e.op)
	if !ok {
		return nil, fmt.Errorf("translate: internal error: no evaluator for %s", e.op)
	}
	return newCall(e, fn, argsOf(e.args)), nil
}

func (c *compiledCall) describes(e *expr) bool {
	if len(c.args) != len(e.args) || c.call.Type != e.typ || c.call.Name != e.op {
		return false
	}
	for i, a := range c.args {
		if a != e.args[i] {
			return false
		}
	}
	return true
}

// libraryFunc is the library's entry of an internal name this package calls.
func libraryFunc(name string) *sqlvalue.Func {
	fn, _, ok := sqlvalue.Lookup(name)
	if !ok {
		panic("translate: the function library has no " + name)
	}
	return fn
}

// valueText is the text of v, the value of e, as MySQL writes it: a DATETIME with the fraction
// digits of e's type (see datetimeFsp).
func valueText(e *expr, v any) string { return sqlvalue.FormatFsp(v, e.typ, datetimeFsp(e)) }

// datetimeFsp is the fractional-second precision of a DATETIME expression's type, as MySQL types
// it: a field or createdTime is DATETIME(3) (information_schema's datetime(3)), also through a
// derived table or WITH; DATE_ADD/DATE_SUB,
// IF, CASE, COALESCE, IFNULL, NULLIF, GREATEST and LEAST keep the largest of their time arguments'
// (a DATE's is 0). -1 when the type does not say (a constant, NOW()): the value's own fraction
// is written then.
func datetimeFsp(e *expr) int {
	switch e.typ {
	case typeDate:
		return 0
	case typeDateTime:
	default:
		return -1
	}
	switch e.kind {
	case exField, exCreatedTime:
		return 3
	case exDerived:
		return e.fsp
	case exFunc:
		switch e.op {
		case "DATE_ADD", "DATE_SUB", "IF", "CASE", "COALESCE", "IFNULL", "NULLIF", "GREATEST", "LEAST":
			fsp := -1
			for _, a := range e.args {
				if a.typ.Temporal() {
					fsp = max(fsp, datetimeFsp(a))
				}
			}
			return fsp
		}
	}
	return -1
}

// convert compiles CAST(x AS type), CONVERT(x, type) and CONVERT(x USING charset).
func (s *scope) convert(e sqlparser.Expr) (*expr, error) {
	text := sqlparser.String(e)
	var inner sqlparser.Expr
	var ct *sqlparser.ConvertType
	switch c := e.(type) {
	case *sqlparser.ConvertExpr:
		inner, ct = c.Expr, c.Type
	case *sqlparser.ConvertUsingExpr:
		if !sqlvalue.UTF8Charset(c.Type) {
			return nil, unsupported("CONVERT … USING "+c.Type, text, "the driver's text is UTF-8: use USING utf8mb4")
		}
		x, err := s.compile(c.Expr)
		if err != nil {
			return nil, err
		}
		return s.callRegistered(libraryFunc("CAST CHAR"), "CAST CHAR", "CONVERT", []*expr{x}, text, sqlvalue.CastTarget{Length: -1})
	}
	x, err := s.compile(inner)
	if err != nil {
		return nil, err
	}
	length := int64(-1)
	if ct.Length != nil {
		n, err := strconv.ParseInt(string(ct.Length.Val), 10, 64)
		if err != nil || n < 0 {
			return nil, fmtErr("%s: the length %s is not a number", text, ct.Length.Val)
		}
		length = n
	}
	if ct.Charset != "" && !sqlvalue.UTF8Charset(ct.Charset) && !strings.EqualFold(ct.Charset, "binary") {
		return nil, unsupported("the character set "+ct.Charset, text, "the driver's text is UTF-8: use utf8mb4 or leave the character set out")
	}
	param := sqlvalue.CastTarget{Length: length}
	op := ""
	switch typ := strings.ToLower(ct.Type); typ {
	case "signed", "signed integer":
		op = "CAST SIGNED"
	case "unsigned", "unsigned integer":
		op = "CAST UNSIGNED"
	case "char", "nchar":
		op = "CAST CHAR"
	case "binary":
		op = "CAST BINARY"
	case "date":
		op = "CAST DATE"
	case "datetime":
		op = "CAST DATETIME"
		if length > 6 {
			return nil, fmtErr("%s: DATETIME takes a precision of 0 to 6 digits, not %d", text, length)
		}
	case "decimal":
		op = "CAST DECIMAL"
		param = sqlvalue.CastTarget{Length: 10}
		if ct.Length != nil {
			param.Length = length
		}
		if ct.Scale != nil {
			n, err := strconv.ParseInt(string(ct.Scale.Val), 10, 64)
			if err != nil || n < 0 {
				return nil, fmtErr("%s: the scale %s is not a number", text, ct.Scale.Val)
			}
			param.Scale = n
		}
		switch {
		case param.Length < 1 || param.Length > 65:
			return nil, fmtErr("%s: DECIMAL takes a precision of 1 to 65 digits, not %d", text, param.Length)
		case param.Scale > 30:
			return nil, fmtErr("%s: DECIMAL takes a scale of at most 30 digits, not %d", text, param.Scale)
		case param.Scale > param.Length:
			return nil, fmtErr("%s: DECIMAL(M, D) needs M >= D", text)
		}
	default:
		return nil, unsupported("CAST to "+strings.ToUpper(ct.Type), text, "supported: SIGNED, UNSIGNED, DECIMAL(p, s), DOUBLE, CHAR(n), BINARY(n), DATE and DATETIME")
	}
	return s.callRegistered(libraryFunc(op), op, "CAST", []*expr{x}, text, param)
}

// jsonArrow compiles col->'path' as JSON_EXTRACT(col, 'path') and col->>'path' as
// JSON_UNQUOTE(JSON_EXTRACT(col, 'path')).
func (s *scope) jsonArrow(e *sqlparser.BinaryExpr) (*expr, error) {
	doc, err := s.compile(e.Left)
	if err != nil {
		return nil, err
	}
	path, err := s.compile(e.Right)
	if err != nil {
		return nil, err
	}
	text := sqlparser.String(e)
	x, err := s.call("JSON_EXTRACT", []*expr{doc, path}, text)
	if err != nil || e.Operator == sqlparser.JSONExtractOp {
		return x, err
	}
	return s.call("JSON_UNQUOTE", []*expr{x}, text)
}

// jsonScalarCompare refuses a comparison of a JSON function's result (JSON_EXTRACT, col->'$.p', …)
// with a value that is not JSON: MySQL compares them as JSON values (the JSON string "x" equals the
// text 'x', an array equals no text), which comparing the JSON's text would not give. A list or
// object column compared with text keeps its meaning (its text; links: membership), and a JSON
// constant (a bound list, a call of constants) is refused by listArgument.
func jsonScalarCompare(op string, left, right *expr) error {
	for _, pair := range [][2]*expr{{left, right}, {right, left}} {
		j, other := pair[0], pair[1]
		if j.kind != exFunc || j.typ != typeJSON || other.typ == typeJSON || other.typ == typeNull {
			continue
		}
		return unsupported("comparing a JSON value with "+other.typ.String(), describe(j)+" "+op+" "+describe(other),
			"MySQL compares them as JSON values; compare the unquoted value: col->>'$.path' or JSON_UNQUOTE(JSON_EXTRACT(…)) "+op+" …")
	}
	return nil
}

// regexpOperator compiles a [NOT] REGEXP b and a [NOT] RLIKE b: REGEXP_LIKE(a, b), negated.
func (s *scope) regexpOperator(left *expr, e *sqlparser.ComparisonExpr) (*expr, error) {
	right, err := s.compile(e.Right)
	if err != nil {
		return nil, err
	}
	x, err := s.call("REGEXP_LIKE", []*expr{left, right}, sqlString(e))
	if err != nil || e.Operator != sqlparser.NotRegexpStr {
		return x, err
	}
	return &expr{kind: exNot, typ: typeCond, nullable: x.nullable, args: []*expr{x}, sql: sqlString(e)}, nil
}
