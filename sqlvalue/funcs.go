package sqlvalue

import (
	"fmt"
	"maps"
	"slices"
	"time"
)

// The SQL functions are listed in one table, funcTable: each is an arity, a type rule and a pure
// evaluator over already-evaluated argument values (nil is NULL; int64, float64, bool, string,
// time.Time otherwise). The planner (package translate) looks a name up with Lookup, runs the
// entry's Type rule once when it compiles the call (Check: what is known before any row) and calls
// Eval per row with the Call it compiled. Everything about a function's MySQL meaning lives in its
// entry (funcs_string.go, funcs_num.go, funcs_date.go, funcs_time.go, funcs_cast.go,
// funcs_control.go, funcs_json.go, funcs_regexp.go and funcs_system.go).

// Func is one SQL function.
type Func struct {
	Min, Max int // number of arguments; Max -1: any number
	// Type checks the arguments and gives the result type. It may set fc.Param for functions
	// that need a compile-time parameter, and fc.Nullable.
	Type func(fc *Check) (Type, error)
	// Eval computes the result from the argument values. Unless NullArgs is set, it is only called
	// when no argument is NULL: a NULL argument gives NULL, as for most MySQL functions. An error
	// value is the statement's error (MySQL refuses the arguments: an invalid regular expression).
	Eval     func(e *Call, v []any) any
	NullArgs bool
	// MayBeNull: the result can be NULL even when no argument is (an invalid date, SQRT(-1), …).
	MayBeNull bool
	// Nullable, when set, says whether the result can be NULL (COALESCE: only when every argument
	// can be); otherwise it can when an argument can, or MayBeNull.
	Nullable func(args []Arg) bool
}

// Arg is what is known of an argument when its call is compiled.
type Arg struct {
	Type     Type
	Nullable bool
	Const    bool // a constant: Value is its value
	Value    any
	SQL      string // its SQL text, for messages
	// Fsp is the fraction digits MySQL gives the argument's DATETIME type (a field is DATETIME(3));
	// -1 when the type does not say (a constant, NOW()): the value's own fraction is written then.
	Fsp int
}

// Check is a call being compiled, as its function's type rule sees it.
type Check struct {
	Name string // the function's name as called, upper case
	SQL  string // the SQL text of the call
	Args []Arg
	// Param is the call's compile-time parameter (a CAST's length, a compiled regular expression,
	// NOW()'s value): given by the planner or set by the type rule, handed to Eval as Call.Param.
	Param any
	// Nullable: the result can be NULL for these arguments even when none is (set by the type
	// rule: a date function given text, which may not read as a date).
	Nullable bool
	Env      Env
}

// Env is what a type rule may ask of the statement being compiled.
type Env interface {
	Now() time.Time        // the statement's clock, UTC: NOW() is fixed per statement
	Database() string      // the session's database, "" for none (DATABASE() is NULL)
	User() (string, error) // what USER() answers
	ConnectionID() int64   // CONNECTION_ID()
	WeekFormat() int64     // the session's default_week_format
}

// Errorf is an error about the call, naming it.
func (fc *Check) Errorf(format string, a ...any) error {
	return fmt.Errorf("translate: %s: %s", fc.SQL, fmt.Sprintf(format, a...))
}

// Call is a compiled call as its evaluator sees it.
type Call struct {
	Name  string // the entry's name
	SQL   string // the SQL text of the call, for messages
	Type  Type   // the result type
	Args  []Arg
	Param any // Check.Param
}

// Describe names an argument in a message: its SQL text.
func Describe(a Arg) string {
	if a.SQL != "" {
		return a.SQL
	}
	return "an expression"
}

// Text is v, a value of the argument, as MySQL writes it: a DATETIME with the argument's
// fraction digits.
func (a Arg) Text(v any) string { return FormatFsp(v, a.Type, a.Fsp) }

// textArg is argument i of a call as text, rendered by its SQL type.
func textArg(e *Call, v []any, i int) string { return e.Args[i].Text(v[i]) }

// convertArg is Convert of argument i, whose value is v, to the call's type; a time converted to
// text is written with the argument's fraction digits.
func convertArg(e *Call, i int, v any) any {
	a := e.Args[i]
	if v != nil && (e.Type == Text || e.Type == JSON) && a.Type != e.Type {
		return a.Text(v)
	}
	return Convert(v, a.Type, e.Type)
}

// Apply evaluates the call over its argument values: NULL when an argument is NULL (unless the
// function reads NULLs), an error when MySQL refuses the values at run time.
func (f *Func) Apply(e *Call, vals []any) (any, error) {
	if !f.NullArgs {
		for _, v := range vals {
			if v == nil {
				return nil, nil
			}
		}
	}
	v := f.Eval(e, vals)
	if err, ok := v.(error); ok {
		return nil, err // a value MySQL refuses at run time (an invalid regular expression)
	}
	return v, nil
}

// funcAliases maps other names of a function to the one its entry is under.
var funcAliases = map[string]string{
	"LCASE":             "LOWER",
	"UCASE":             "UPPER",
	"CHARACTER_LENGTH":  "CHAR_LENGTH",
	"OCTET_LENGTH":      "LENGTH",
	"SUBSTR":            "SUBSTRING",
	"MID":               "SUBSTRING",
	"DAYOFMONTH":        "DAY",
	"CURRENT_TIMESTAMP": "NOW",
	"LOCALTIMESTAMP":    "NOW",
	"LOCALTIME":         "NOW",
	"SYSDATE":           "NOW",
	"CURRENT_DATE":      "CURDATE",
	"CURRENT_TIME":      "CURTIME",
	"CEILING":           "CEIL",
	"POW":               "POWER",
	"ADDDATE":           "DATE_ADD",
	"SUBDATE":           "DATE_SUB",
	"SCHEMA":            "DATABASE",
	"SESSION_USER":      "USER",
	"SYSTEM_USER":       "USER",
	"POSITION IN":       "LOCATE",
}

// funcTable holds every function: the tables of the funcs_*.go files (stringFuncs, …).
var funcTable = map[string]*Func{}

func init() {
	for _, table := range []map[string]*Func{stringFuncs, numberFuncs, dateFuncs, timeFuncs, castFuncs, controlFuncs,
		jsonFuncs, regexpFuncs, systemFuncs, textNumberFuncs, groupingFuncs} {
		for name, f := range table {
			register(name, f)
		}
	}
}

func register(name string, def *Func) {
	if _, dup := funcTable[name]; dup {
		panic("sqlvalue: function " + name + " registered twice")
	}
	funcTable[name] = def
}

// Names lists the names of the table's entries, sorted.
func Names() []string {
	return slices.Sorted(maps.Keys(funcTable))
}

// Lookup finds a function by its SQL name (upper case) and gives the name of its entry.
func Lookup(name string) (*Func, string, bool) {
	if alias, ok := funcAliases[name]; ok {
		name = alias
	}
	def, ok := funcTable[name]
	return def, name, ok
}

// Argument type rules shared by several functions.

func typeOf(t Type) func(*Check) (Type, error) {
	return func(*Check) (Type, error) { return t, nil }
}
