package formula

import (
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/airsql/airsql/internal/clock"
)

// FieldInfo is a field as the compiler sees it.
type FieldInfo struct {
	ID, Name, Type string         // Type: the Airtable field type ("number", "multipleRecordLinks", ...)
	Options        map[string]any // the schema's field options (precision, choices, result, ...)
}

// Schema resolves the field names and ids a formula mentions. Braced names ({Field Name}), field
// ids ({fldXXXXXXXXXXXXXX}) and bare one-word names all go through LookupField, so the caller
// decides the rules (case, ids, a rollup's `values`).
type Schema interface {
	LookupField(nameOrID string) (FieldInfo, bool)
}

// Record is what a formula is evaluated against.
type Record interface {
	RecordID() string
	CreatedTime() time.Time
	LastModifiedTime() time.Time
	Cell(f FieldInfo) Value // the field's value as a formula operand (use FromCell)
}

// Env is the environment of an evaluation.
type Env struct {
	Clock    clock.Clock    // NOW(), TODAY(); nil means clock.Real
	Location *time.Location // time zone for date functions; nil means UTC
}

func (e *Env) now() time.Time {
	if e.Clock == nil {
		return time.Now()
	}
	return e.Clock.Now()
}

func (e *Env) location() *time.Location {
	if e.Location == nil {
		return time.UTC
	}
	return e.Location
}

var defaultEnv = &Env{}

// evalFn computes one node of a compiled formula. env is never nil; rec may be.
type evalFn func(rec Record, env *Env) Value

// Program is a compiled formula. It is immutable and safe for concurrent use.
type Program struct {
	src    string
	root   evalFn
	fields []FieldInfo
}

// Compile parses src and resolves its fields through schema (nil: no fields). An unknown field or
// function, or a call with a wrong number of arguments, is an *Error.
func Compile(src string, schema Schema) (*Program, error) {
	root, err := parse(src)
	if err != nil {
		return nil, err
	}
	c := &compiler{schema: schema, seen: map[string]bool{}, done: map[Node]evalFn{}}
	fn, err := c.compile(root)
	if err != nil {
		return nil, err
	}
	if len(c.unknown) > 0 {
		return nil, &Error{Pos: c.unknownPos, Msg: "Unknown field names: " + strings.Join(c.unknown, ", ")}
	}
	return &Program{src: src, root: fn, fields: c.fields}, nil
}

// String returns the formula's source text.
func (p *Program) String() string { return p.src }

// Fields returns the fields the formula reads, in order of first mention.
func (p *Program) Fields() []FieldInfo { return append([]FieldInfo(nil), p.fields...) }

// Eval evaluates the formula against rec. env may be nil (real clock, UTC); rec may be nil (every
// field is blank, RECORD_ID() is "").
func (p *Program) Eval(rec Record, env *Env) Value {
	if env == nil {
		env = defaultEnv
	}
	return p.root(rec, env)
}

// Match reports whether rec passes the formula as a filterByFormula: the result is not blank, 0,
// false, "", NaN, [] or #ERROR!.
func (p *Program) Match(rec Record, env *Env) bool {
	return p.Eval(rec, env).Truthy()
}

type compiler struct {
	schema     Schema
	fields     []FieldInfo
	seen       map[string]bool
	unknown    []string // fields and functions ("name()"), lower-cased, as the service reports them
	unknownPos int
	// done memoizes compiled nodes: a specialization that compiles a grandchild itself (FIND of
	// LOWER) must not make compilation exponential in the nesting depth.
	done map[Node]evalFn
}

func (c *compiler) compile(n Node) (evalFn, *Error) {
	if fn, ok := c.done[n]; ok {
		return fn, nil
	}
	fn, err := c.compileNode(n)
	if err == nil {
		c.done[n] = fn
	}
	return fn, err
}

func (c *compiler) compileNode(n Node) (evalFn, *Error) {
	switch n := n.(type) {
	case *NumberLit:
		return constant(Number(n.Value)), nil
	case *StringLit:
		return constant(Text(n.Value)), nil
	case *Reference:
		return c.reference(n), nil
	case *Unary:
		x, err := c.compile(n.X)
		if err != nil {
			return nil, err
		}
		return func(rec Record, env *Env) Value {
			v := x(rec, env)
			f, bad := toNumber(v)
			if bad.kind == KindError {
				return bad
			}
			return Number(-f)
		}, nil
	case *Binary:
		if n.Op == "&" {
			if operands := concatOperands(n); len(operands) > 2 {
				return c.concatChain(operands)
			}
		}
		l, err := c.compile(n.L)
		if err != nil {
			return nil, err
		}
		r, err := c.compile(n.R)
		if err != nil {
			return nil, err
		}
		return binary(n.Op, l, r), nil
	case *Call:
		return c.call(n)
	}
	panic("formula: unknown node type")
}

// concatOperands lists the operands of a chain of & (a & b & c … parses as a left-deep tree), in
// order, walking it without recursion.
func concatOperands(n *Binary) []Node {
	var out []Node
	stack := []Node{n}
	for len(stack) > 0 {
		top := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if b, ok := top.(*Binary); ok && b.Op == "&" {
			stack = append(stack, b.R, b.L) // L is taken first
			continue
		}
		out = append(out, top)
	}
	return out
}

// concatChain evaluates a & b & c … at once: each operand once, the text built in one buffer. As
// pairwise & would, it answers the first error from the left, and "too long" as soon as the text
// so far passes maxTextLen. Pairwise, a chain of n operands copied the growing text n times.
func (c *compiler) concatChain(operands []Node) (evalFn, *Error) {
	fns := make([]evalFn, len(operands))
	for i, o := range operands {
		f, err := c.compile(o)
		if err != nil {
			return nil, err
		}
		fns[i] = f
	}
	return func(rec Record, env *Env) Value {
		parts := make([]string, len(fns))
		total := 0
		for i, f := range fns {
			v := f(rec, env)
			if v.kind == KindError {
				return v
			}
			parts[i] = TextOf(v)
			if total += len(parts[i]); total > maxTextLen {
				return ErrorValue("&: the text is too long")
			}
		}
		var b strings.Builder
		b.Grow(total)
		for _, p := range parts {
			b.WriteString(p)
		}
		return Text(b.String())
	}, nil
}

func constant(v Value) evalFn {
	return func(Record, *Env) Value { return v }
}

func (c *compiler) reference(n *Reference) evalFn {
	var f FieldInfo
	ok := false
	if c.schema != nil {
		f, ok = c.schema.LookupField(n.Name)
	}
	if !ok {
		c.addUnknown(strings.ToLower(n.Name), n.At)
		return constant(Value{})
	}
	key := f.ID
	if key == "" {
		key = "name:" + f.Name
	}
	if !c.seen[key] {
		c.seen[key] = true
		c.fields = append(c.fields, f)
	}
	return func(rec Record, _ *Env) Value {
		if rec == nil {
			return Value{}
		}
		return rec.Cell(f)
	}
}

// addUnknown notes a name the formula uses but that does not exist, once, in order of appearance.
func (c *compiler) addUnknown(name string, pos int) {
	if len(c.unknown) == 0 {
		c.unknownPos = pos
	}
	if !c.seen["?"+name] {
		c.seen["?"+name] = true
		c.unknown = append(c.unknown, name)
	}
}

func (c *compiler) call(n *Call) (evalFn, *Error) {
	spec, ok := functions[n.Name]
	if !ok {
		// The service lists an unknown function among the unknown field names, lower-cased and
		// followed by "()" ("Unknown field names: id()", reference §2.2), so this does too; its
		// arguments are still compiled so that the list is complete.
		c.addUnknown(strings.ToLower(n.Name)+"()", n.At)
		for _, a := range n.Args {
			if _, err := c.compile(a); err != nil {
				return nil, err
			}
		}
		return constant(Value{}), nil
	}
	if len(n.Args) < spec.min || spec.max >= 0 && len(n.Args) > spec.max {
		return nil, &Error{Pos: n.At, Msg: "Wrong number of arguments to " + n.Name + ": it takes " + spec.arity() + ", got " + strconv.Itoa(len(n.Args))}
	}
	args := make([]evalFn, len(n.Args))
	for i, a := range n.Args {
		fn, err := c.compile(a)
		if err != nil {
			return nil, err
		}
		args[i] = fn
	}
	return spec.build(c, n, args)
}

// funcSpec describes a function: its argument count and how to build its evaluator.
type funcSpec struct {
	min, max int // max -1: any number
	build    func(c *compiler, call *Call, args []evalFn) (evalFn, *Error)
}

func (s funcSpec) arity() string {
	switch {
	case s.max == s.min:
		return plural(s.min)
	case s.max < 0:
		return "at least " + plural(s.min)
	case s.max == s.min+1:
		return strconv.Itoa(s.min) + " or " + plural(s.max)
	}
	return strconv.Itoa(s.min) + " to " + plural(s.max)
}

func plural(n int) string {
	if n == 1 {
		return "1 argument"
	}
	return strconv.Itoa(n) + " arguments"
}

// functions is the function table, filled by the init functions of the funcs_*.go files.
var functions = map[string]funcSpec{}

// funcEntry is one function of a funcs_*.go table: its name, how many arguments it takes (max -1:
// any number) and how a call of it is compiled.
type funcEntry struct {
	name     string
	min, max int
	build    func(c *compiler, call *Call, args []evalFn) (evalFn, *Error)
}

// registerAll adds a table of functions to functions.
func registerAll(entries []funcEntry) {
	for _, e := range entries {
		register(e.name, e.min, e.max, e.build)
	}
}

func register(name string, min, max int, build func(c *compiler, call *Call, args []evalFn) (evalFn, *Error)) {
	if _, dup := functions[name]; dup {
		panic("formula: function registered twice: " + name)
	}
	functions[name] = funcSpec{min: min, max: max, build: build}
}

// FunctionNames returns the names of every function the language knows, sorted.
func FunctionNames() []string {
	names := make([]string, 0, len(functions))
	for name := range functions {
		names = append(names, name)
	}
	sort.Strings(names)
	return names
}
