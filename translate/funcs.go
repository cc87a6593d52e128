package translate

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// The SQL functions are listed in one table, funcTable: each is an arity, a type rule and a pure
// evaluator over already-evaluated argument values (nil is NULL; int64, float64, bool, string,
// time.Time otherwise). scope.call looks a name up here; expr.evalFunc evaluates the arguments and
// hands them to the evaluator. Everything about a function's MySQL meaning lives in its entry (in
// funcs_string.go, funcs_num.go, funcs_date.go, funcs_cast.go, funcs_control.go and sysvars.go).

// funcDef is one SQL function.
type funcDef struct {
	min, max int // number of arguments; max -1: any number
	// typ checks the arguments and gives the result type. It may replace arguments (a constant
	// converted once) and set fc.out.val for functions that need a compile-time parameter.
	typ func(fc *funcCall) (sqlType, error)
	// eval computes the result from the argument values. Unless nullArgs is set, it is only called
	// when no argument is NULL: a NULL argument gives NULL, as for most MySQL functions. An error
	// value is the statement's error (MySQL refuses the arguments: an invalid regular expression).
	eval     func(e *expr, v []any) any
	nullArgs bool
	// mayBeNull: the result can be NULL even when no argument is (an invalid date, SQRT(-1), …).
	mayBeNull bool
	// nullable, when set, says whether the result can be NULL (COALESCE: only when every argument
	// can be); otherwise it can when an argument can, or mayBeNull.
	nullable func(args []*expr) bool
}

// funcCall is a call being compiled.
type funcCall struct {
	s    *scope
	name string // the SQL name as called, upper case
	text string // the SQL text of the call
	args []*expr
	out  *expr
	// nullable: the result can be NULL for these arguments even when none is (set by typ: a date
	// function given text, which may not read as a date).
	nullable bool
}

func fmtErr(format string, a ...any) error { return fmt.Errorf("translate: "+format, a...) }

// errorf is an error about the call, naming it.
func (fc *funcCall) errorf(format string, a ...any) error {
	return fmt.Errorf("translate: %s: %s", fc.text, fmt.Sprintf(format, a...))
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

// funcTable holds every function; filled by the init functions of the funcs_*.go files.
var funcTable = map[string]*funcDef{}

func register(name string, def *funcDef) {
	if _, dup := funcTable[name]; dup {
		panic("translate: function " + name + " registered twice")
	}
	funcTable[name] = def
}

// lookupFunc finds a function by its SQL name (upper case) and gives the name of its entry.
func lookupFunc(name string) (*funcDef, string, bool) {
	if alias, ok := funcAliases[name]; ok {
		name = alias
	}
	def, ok := funcTable[name]
	return def, name, ok
}

// callRegistered compiles a call of a function of funcTable.
// param is a compile-time parameter of the function (a CAST's length), kept in the call's val.
func (s *scope) callRegistered(def *funcDef, op, name string, args []*expr, text string, param any) (*expr, error) {
	if len(args) < def.min || (def.max >= 0 && len(args) > def.max) {
		want := strconv.Itoa(def.min)
		switch {
		case def.max < 0:
			want = "at least " + want
		case def.max != def.min:
			want = fmt.Sprintf("%d to %d", def.min, def.max)
		}
		return nil, fmt.Errorf("translate: %s: wrong number of arguments to %s: %d given, %s expected", text, name, len(args), want)
	}
	anyNull := false
	for _, a := range args {
		anyNull = anyNull || a.nullable || a.typ == typeNull
	}
	out := &expr{kind: exFunc, op: op, args: args, sql: text, val: param}
	fc := &funcCall{s: s, name: name, text: text, args: args, out: out}
	typ, err := def.typ(fc)
	if err != nil {
		return nil, err
	}
	out.typ, out.args = typ, fc.args
	out.nullable = anyNull || def.mayBeNull || fc.nullable
	if def.nullable != nil {
		out.nullable = def.nullable(out.args)
	}
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

// evalRegistered evaluates a call of a function of funcTable over its argument values.
func (e *expr) evalRegistered(def *funcDef, vals []any) any {
	if !def.nullArgs {
		for _, v := range vals {
			if v == nil {
				return nil
			}
		}
	}
	return def.eval(e, vals)
}

// Argument type rules shared by several functions.

func typeOf(t sqlType) func(*funcCall) (sqlType, error) {
	return func(*funcCall) (sqlType, error) { return t, nil }
}

// unifyTypes is the type of a result that can be any of several values (CASE, IF, COALESCE,
// GREATEST): numbers stay numbers (integer unless one is not), times stay times (a date with a
// datetime is a datetime), any other mix is text, as in MySQL.
func unifyTypes(types ...sqlType) sqlType {
	out := typeNull
	for _, t := range types {
		switch {
		case t == typeNull || t == out:
		case out == typeNull:
			out = t
		case out.numeric() && t.numeric():
			if out == typeFloat || t == typeFloat {
				out = typeFloat
			} else {
				out = typeInt
			}
		case out.temporal() && t.temporal():
			out = typeDateTime
		default:
			out = typeText
		}
	}
	return out
}

// convertValue converts a value of type from to type to (a result type of unifyTypes).
func convertValue(v any, from, to sqlType) any {
	if v == nil || from == to {
		return v
	}
	switch to {
	case typeText, typeJSON:
		return sqlText(v, from)
	case typeFloat:
		f, _ := toFloat(v)
		return f
	case typeInt:
		if b, ok := v.(bool); ok {
			return boolInt(b)
		}
	case typeDateTime, typeDate:
		if t, ok := toTime(v); ok {
			return t
		}
		return nil
	}
	return v
}

// sqlText renders a value as MySQL shows it, given its SQL type: a date as 2006-01-02, a datetime
// as 2006-01-02 15:04:05 (with its fraction of a second when it has one), TRUE as 1.
func sqlText(v any, typ sqlType) string { return sqlTextFsp(v, typ, -1) }

// valueText is the text of v, the value of e, as MySQL writes it: a DATETIME with the fraction
// digits of e's type (see datetimeFsp).
func valueText(e *expr, v any) string { return sqlTextFsp(v, e.typ, datetimeFsp(e)) }

// sqlTextFsp is sqlText with fsp fraction digits for a DATETIME (MySQL writes a DATETIME(3) column
// as 2024-01-05 00:00:00.000); fsp -1 writes the fraction only when there is one.
func sqlTextFsp(v any, typ sqlType, fsp int) string {
	if t, ok := v.(time.Time); ok {
		t = t.UTC()
		if typ == typeDate {
			return t.Format(time.DateOnly)
		}
		if fsp > 0 {
			return t.Format(time.DateTime + "." + strings.Repeat("0", min(fsp, 6)))
		}
		if t.Nanosecond() != 0 && fsp < 0 {
			return t.Format("2006-01-02 15:04:05.999999")
		}
		return t.Format(time.DateTime)
	}
	if f, ok := v.(float64); ok {
		return mysqlFloat(f)
	}
	return textOf(v)
}

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
				if a.typ.temporal() {
					fsp = max(fsp, datetimeFsp(a))
				}
			}
			return fsp
		}
	}
	return -1
}

// convertArg is convertValue of e's argument i, whose value is v, to e's type; a time converted to
// text is written with the argument's fraction digits.
func convertArg(e *expr, i int, v any) any {
	a := e.args[i]
	if v != nil && (e.typ == typeText || e.typ == typeJSON) && a.typ != e.typ {
		return valueText(a, v)
	}
	return convertValue(v, a.typ, e.typ)
}

// mysqlFloat writes a float as MySQL writes a DOUBLE (my_gcvt): the shortest decimal that reads
// back, positional from 1e-15 up to 1e15 (1000000000000, 0.00000015), with an exponent beyond
// (1e15, 1e-16); -0 is 0. The MariaDB oracle holds it to these bounds.
func mysqlFloat(f float64) string {
	if f == 0 {
		return "0"
	}
	if a := math.Abs(f); a >= 1e15 || a < 1e-15 {
		s := strconv.FormatFloat(f, 'e', -1, 64)
		s = strings.Replace(s, "e+", "e", 1)
		// MySQL writes 1e-07 as 1e-7 and 1e+21 as 1e21.
		if i := strings.Index(s, "e-0"); i >= 0 {
			s = s[:i+2] + s[i+3:]
		}
		if i := strings.Index(s, "e0"); i >= 0 {
			s = s[:i+1] + s[i+2:]
		}
		return s
	}
	return strconv.FormatFloat(f, 'f', -1, 64)
}

// toFloat reads a value as a number, as MySQL does in a numeric context: text by its longest
// numeric prefix (" 12abc" is 12, "abc" is 0), a date as YYYYMMDD, a datetime as YYYYMMDDhhmmss.
// It reports false for NULL.
func toFloat(v any) (float64, bool) {
	switch v := v.(type) {
	case int64:
		return float64(v), true
	case float64:
		return v, true
	case bool:
		return float64(boolInt(v)), true
	case string:
		return numericPrefix(v), true
	case time.Time:
		v = v.UTC()
		d := float64(v.Year()*10000 + int(v.Month())*100 + v.Day())
		if v.Hour() == 0 && v.Minute() == 0 && v.Second() == 0 && v.Nanosecond() == 0 {
			return d, true
		}
		return d*1e6 + float64(v.Hour()*10000+v.Minute()*100+v.Second()) + float64(v.Nanosecond())/1e9, true
	}
	return 0, false
}

// toInt reads a value as an integer argument (a length, a position, a count of digits): numbers
// round half away from zero, as MySQL does for such arguments; out-of-range values saturate.
func toInt(v any) int64 {
	switch v := v.(type) {
	case int64:
		return v
	case bool:
		return boolInt(v)
	case string:
		v = strings.TrimSpace(v)
		if n, err := strconv.ParseInt(v, 10, 64); err == nil {
			return n
		}
	}
	f, _ := toFloat(v)
	return saturate(math.Round(f))
}

// saturate converts a float to int64, clamping to the int64 range.
func saturate(f float64) int64 {
	switch {
	case math.IsNaN(f):
		return 0
	case f >= math.MaxInt64:
		return math.MaxInt64
	case f <= math.MinInt64:
		return math.MinInt64
	}
	return int64(f)
}

// numericPrefix is MySQL's reading of text as a number: leading spaces, then the longest prefix
// that is a decimal number (sign, digits, point, exponent); 0 when there is none.
func numericPrefix(s string) float64 {
	s = strings.TrimLeft(s, " \t\n\r")
	end, digits := 0, false
	if end < len(s) && (s[end] == '+' || s[end] == '-') {
		end++
	}
	for end < len(s) && s[end] >= '0' && s[end] <= '9' {
		end, digits = end+1, true
	}
	if end < len(s) && s[end] == '.' {
		end++
		for end < len(s) && s[end] >= '0' && s[end] <= '9' {
			end, digits = end+1, true
		}
	}
	if !digits {
		return 0
	}
	if end < len(s) && (s[end] == 'e' || s[end] == 'E') {
		k := end + 1
		if k < len(s) && (s[k] == '+' || s[k] == '-') {
			k++
		}
		if k < len(s) && s[k] >= '0' && s[k] <= '9' {
			for k < len(s) && s[k] >= '0' && s[k] <= '9' {
				k++
			}
			end = k
		}
	}
	f, err := strconv.ParseFloat(s[:end], 64)
	if err != nil { // out of range: ParseFloat gives ±Inf
		if math.IsInf(f, 0) {
			return math.Copysign(math.MaxFloat64, f)
		}
		return 0
	}
	return f
}

// textArg is argument i of a call as text, rendered by its SQL type.
func textArg(e *expr, v []any, i int) string { return valueText(e.args[i], v[i]) }
