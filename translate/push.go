package translate

import (
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/airsql/airsql/formula"
)

// Formulas for filterByFormula are built here. A record passes a formula when its result is truthy
// (reference §5.3); the service's values are not SQL's: a blank number is 0 and blank text is "",
// nothing propagates NULL. So every SQL condition is written as two formulas (pred): t, truthy for
// the rows where the condition is TRUE, and f, truthy where it is FALSE; NULL rows pass neither. NOT
// swaps them, AND and OR combine them as three-valued logic does. Each comes with exact: whether it
// selects exactly those rows. An inexact formula is always a superset, and the rows are checked again
// locally (Plan.Keep).

// formulaAll is the formula that keeps every record: no filter at all.
const formulaAll = ""

// formulaNone keeps no record.
const formulaNone = "FALSE()"

type pred struct {
	t, f           string
	tExact, fExact bool
}

// unknownPred is a condition the service cannot evaluate: every row may be TRUE and every row may be
// FALSE, so both formulas keep everything and neither is exact.
var unknownPred = pred{t: formulaAll, f: formulaAll}

// fAnd is the conjunction of formulas: formulaAll drops out, and any formulaNone makes it formulaNone.
func fAnd(parts ...string) string { return joinFormulas("AND", formulaAll, formulaNone, parts) }

// fOr is the disjunction of formulas: formulaNone drops out, and any formulaAll makes it formulaAll.
func fOr(parts ...string) string { return joinFormulas("OR", formulaNone, formulaAll, parts) }

// joinFormulas writes fn(parts...), fn being AND or OR, flattened by appendFlat. A part equal to
// identity changes nothing and is left out; a part equal to absorbing decides the whole. With no
// part left the result is identity, with one it is that part.
func joinFormulas(fn, identity, absorbing string, parts []string) string {
	var kept []string
	for _, p := range parts {
		switch p {
		case identity:
			continue
		case absorbing:
			return absorbing
		}
		kept = appendFlat(kept, fn, p)
	}
	switch len(kept) {
	case 0:
		return identity
	case 1:
		return kept[0]
	}
	return fn + "(" + strings.Join(kept, ", ") + ")"
}

// appendFlat appends a formula to the arguments of fn (AND or OR): the arguments of a nested call of
// the same function are spliced in, and an argument already present is not repeated. Both keep the
// formula's meaning, since AND and OR are associative and idempotent.
func appendFlat(args []string, fn, p string) []string {
	items := []string{p}
	if inner, ok := callArgs(p, fn); ok {
		items = inner
	}
	for _, it := range items {
		if !slices.Contains(args, it) {
			args = append(args, it)
		}
	}
	return args
}

// callArgs splits "FN(a, b, …)" into its top-level arguments, as written by fAnd and fOr. It reports
// false when p is not one call of fn. Quoted strings and braced names are skipped whole, so a comma
// or parenthesis inside a literal never splits.
func callArgs(p, fn string) ([]string, bool) {
	if !strings.HasPrefix(p, fn+"(") || !strings.HasSuffix(p, ")") {
		return nil, false
	}
	var args []string
	depth, start := 0, len(fn)+1
	for i := len(fn); i < len(p); i++ {
		switch c := p[i]; c {
		case '\'', '"', '{':
			end := byte('}')
			if c != '{' {
				end = c
			}
			for i++; i < len(p) && p[i] != end; i++ {
				if p[i] == '\\' {
					i++
				}
			}
		case '(':
			depth++
		case ')':
			depth--
			if depth == 0 {
				if i != len(p)-1 {
					return nil, false // FN(…) is only the start of p
				}
				args = append(args, p[start:i])
			}
		case ',':
			if depth == 1 {
				args = append(args, p[start:i])
				start = i + 2 // ", "
			}
		}
	}
	return args, depth == 0 && len(args) > 0
}

func fNot(p string) string {
	switch p {
	case formulaAll:
		return formulaNone
	case formulaNone:
		return formulaAll
	}
	return "NOT(" + p + ")"
}

// nullMode says how far a value's NULL test can be trusted.
type nullMode uint8

const (
	nullNone     nullMode = iota // cannot be written
	nullSuperset                 // truthy for every NULL row, maybe for others too
	nullExact                    // truthy exactly for the NULL rows
)

// fx is a value written as a formula.
type fx struct {
	src   string  // the formula for the value, meaningful where the SQL value is not NULL
	typ   sqlType // its SQL type
	exact bool    // src equals the SQL value on every non-NULL row (service semantics)
	// isNull is truthy for the rows where the SQL value is NULL ("" when it never is, see nullable).
	nullable     bool
	isNull       string
	isNullMode   nullMode
	notNull      string // truthy for every row where the value is not NULL (exactly, when notNullExact)
	notNullExact bool
	// blank is the value src takes on a NULL row, when known (0 for numbers, "" for text): used to
	// leave out NULL guards a comparison makes redundant.
	blank any
	// constant: the SQL value, for constants.
	constant bool
	val      any
}

// pusher writes a statement's conditions as formulas.
type pusher struct{}

// ref is a field reference: {Name}, or {fldID} when the name cannot be written safely.
func (p *pusher) ref(f *Field) string {
	if r, err := formula.FieldRef(f.Name); err == nil {
		return r
	}
	return "{" + f.ID + "}"
}

// number writes a number so that the formula parser reads back exactly the same float64: shortest
// round-trip decimal, never an exponent, negative numbers in parentheses.
func number(f float64) (string, bool) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return "", false
	}
	s := strconv.FormatFloat(f, 'f', -1, 64)
	if f < 0 || (f == 0 && math.Signbit(f)) {
		return "(" + s + ")", true
	}
	return s, true
}

// exactFloat: the int64 survives the service's float64 numbers unchanged.
func exactFloat(n int64) bool { return n >= -(1<<53) && n <= 1<<53 }

// isoMillis writes a time as the service writes dateTime cells.
func isoMillis(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z") }

// value writes an expression as a formula, or reports that it cannot.
func (p *pusher) value(e *expr) (fx, bool) {
	switch e.kind {
	case exConst:
		out := fx{typ: e.typ, exact: true, constant: true, val: e.val, nullable: e.val == nil, isNullMode: nullExact, notNullExact: true}
		switch v := e.val.(type) {
		case nil:
			out.src, out.isNull, out.notNull = "BLANK()", formulaAll, formulaNone
			return out, true
		case string:
			if e.typ == typeJSON {
				return fx{}, false
			}
			out.src = formula.Quote(v)
		case int64:
			if !exactFloat(v) {
				return fx{}, false
			}
			out.src = strconv.FormatInt(v, 10)
			if v < 0 {
				out.src = "(" + out.src + ")"
			}
		case float64:
			s, ok := number(v)
			if !ok {
				return fx{}, false
			}
			out.src = s
		case bool:
			out.src = "FALSE()"
			if v {
				out.src = "TRUE()"
			}
		case time.Time:
			out.src = "DATETIME_PARSE(" + formula.Quote(isoMillis(v)) + ")"
		default:
			return fx{}, false
		}
		out.isNull, out.notNull = formulaNone, formulaAll
		return out, true
	case exRecordID:
		return fx{src: "RECORD_ID()", typ: typeText, exact: true, isNull: formulaNone, isNullMode: nullExact, notNull: formulaAll, notNullExact: true}, true
	case exCreatedTime:
		return fx{src: "CREATED_TIME()", typ: typeDateTime, exact: true, isNull: formulaNone, isNullMode: nullExact, notNull: formulaAll, notNullExact: true}, true
	case exField:
		return p.fieldValue(e), true
	case exArith:
		if e.op != "+" && e.op != "-" && e.op != "*" && e.op != "/" {
			return fx{}, false // DIV and % have no formula with MySQL's signs and rounding
		}
		a, okA := p.value(e.args[0])
		b, okB := p.value(e.args[1])
		if !okA || !okB || !a.typ.numeric() || !b.typ.numeric() || a.typ == typeBool || b.typ == typeBool {
			return fx{}, false
		}
		out := combineNulls(e.typ, a, b)
		out.src = "(" + a.src + " " + e.op + " " + b.src + ")"
		out.exact = a.exact && b.exact
		if e.op == "/" {
			// Division by zero is NULL in SQL and an error in a formula: add it to the NULL test.
			if !(b.constant && b.val != nil && floatOf(b.val) != 0) {
				zero := b.src + "=0"
				out.isNull = fOr(out.isNull, zero)
				out.notNull = fAnd(out.notNull, fNot(zero))
				out.nullable = true
			}
		}
		return out, true
	case exNeg:
		a, ok := p.value(e.args[0])
		if !ok || !a.typ.numeric() || a.typ == typeBool {
			return fx{}, false
		}
		out := a
		out.src, out.constant, out.blank = "(-"+a.src+")", false, nil
		return out, true
	case exFunc:
		return p.function(e)
	}
	return fx{}, false
}

// fieldValue writes a column. Its NULL test depends on the field type: text is blank exactly when it
// reads as ""; for others, "{F}&”" is "" exactly when the cell is empty (a number 0 reads "0").
func (p *pusher) fieldValue(e *expr) fx {
	ref := p.ref(e.field)
	out := fx{src: ref, typ: e.typ, exact: !e.info.computed, nullable: e.nullable}
	if !e.nullable {
		out.isNull, out.isNullMode, out.notNull, out.notNullExact = formulaNone, nullExact, formulaAll, true
		return out
	}
	switch e.typ {
	case typeText:
		out.isNull, out.notNull = ref+"=''", ref+"!=''"
		out.blank = ""
	case typeInt, typeFloat:
		out.isNull, out.notNull = ref+"&''=''", ref+"&''!=''"
		out.blank = float64(0)
	default:
		out.isNull, out.notNull = ref+"&''=''", ref+"&''!=''"
	}
	out.isNullMode, out.notNullExact = nullExact, true
	switch {
	case e.typ == typeJSON:
		// Arrays and objects: an empty one reads as blank, but so might a list of blank values, and
		// a link reads as the linked records' primary values. The NULL test keeps every NULL row
		// and maybe more; the NOT NULL test cannot be trusted.
		out.isNullMode, out.notNull, out.notNullExact = nullSuperset, formulaAll, false
		out.exact = false
	case e.info.computed:
		// Formula and rollup cells can be errors or NaN, NULL here but not blank in a formula.
		out.isNull, out.isNullMode = formulaAll, nullNone
		out.notNullExact = false
		out.blank = nil
	}
	return out
}

// combineNulls gives the NULL tests of an expression that is NULL when any operand is.
func combineNulls(typ sqlType, args ...fx) fx {
	out := fx{typ: typ, isNullMode: nullExact, notNullExact: true, isNull: formulaNone, notNull: formulaAll}
	for _, a := range args {
		if !a.nullable {
			continue
		}
		out.nullable = true
		out.isNull = fOr(out.isNull, a.isNull)
		out.notNull = fAnd(out.notNull, a.notNull)
		out.isNullMode = min(out.isNullMode, a.isNullMode)
		out.notNullExact = out.notNullExact && a.notNullExact
	}
	if out.isNullMode == nullNone {
		out.isNull = formulaAll
	}
	return out
}

// function writes the functions whose formula twins agree with SQL on every non-NULL value.
// LENGTH, SUBSTRING, TRIM and ROUND are not among them: the service counts text in UTF-16 units and
// trims other white space, and its ROUND rounds halves up rather than away from zero.
func (p *pusher) function(e *expr) (fx, bool) {
	args := make([]fx, len(e.args))
	for i, a := range e.args {
		v, ok := p.value(a)
		if !ok {
			return fx{}, false
		}
		args[i] = v
	}
	exact := true
	for _, a := range args {
		exact = exact && a.exact
	}
	switch e.op {
	case "LOWER", "UPPER":
		if args[0].typ != typeText {
			return fx{}, false
		}
		out := combineNulls(typeText, args[0])
		out.src, out.exact = e.op+"("+args[0].src+")", exact
		if args[0].blank == "" {
			out.blank = ""
		}
		return out, true
	case "CONCAT":
		srcs := make([]string, len(args))
		for i, a := range args {
			if a.typ != typeText {
				return fx{}, false // numbers and times would be written the service's way
			}
			srcs[i] = a.src
		}
		out := combineNulls(typeText, args...)
		out.src, out.exact = "("+strings.Join(srcs, " & ")+")", exact
		return out, true
	case "ABS":
		if !args[0].typ.numeric() || args[0].typ == typeBool {
			return fx{}, false
		}
		out := combineNulls(e.typ, args[0])
		out.src, out.exact = "ABS("+args[0].src+")", exact
		return out, true
	case "COALESCE", "IFNULL":
		// IF(a is NULL, rest, a), from the last argument back.
		var out fx
		for i := len(args) - 1; i >= 0; i-- {
			a := args[i]
			if a.typ != e.typ && a.typ != typeNull && !(a.typ.numeric() && e.typ.numeric()) {
				return fx{}, false
			}
			if i == len(args)-1 {
				out = a
				continue
			}
			if !a.nullable {
				out = a
				continue
			}
			if a.isNull == formulaAll {
				continue // always NULL (the NULL literal): COALESCE moves on to the rest
			}
			if a.isNullMode != nullExact {
				return fx{}, false
			}
			next := out
			out = fx{
				typ:          e.typ,
				src:          "IF(" + a.isNull + ", " + next.src + ", " + a.src + ")",
				exact:        a.exact && next.exact,
				nullable:     next.nullable,
				isNull:       fAnd(a.isNull, next.isNull),
				isNullMode:   min(nullExact, next.isNullMode),
				notNull:      fOr(a.notNull, next.notNull),
				notNullExact: a.notNullExact && next.notNullExact,
			}
			if !next.nullable {
				out.isNull, out.notNull = formulaNone, formulaAll
			}
		}
		out.constant, out.blank = false, nil
		return out, true
	case "YEAR", "MONTH", "DAY", "HOUR", "MINUTE", "SECOND":
		if !args[0].typ.temporal() {
			return fx{}, false
		}
		out := combineNulls(typeInt, args[0])
		out.src, out.exact = e.op+"("+args[0].src+")", exact
		return out, true
	}
	return fx{}, false
}

// condition writes a condition as a pred.
func (p *pusher) condition(e *expr) pred {
	switch e.kind {
	case exAnd, exOr:
		var ts, fs []string
		tExact, fExact := true, true
		for _, a := range e.args {
			c := p.condition(a)
			ts, fs = append(ts, c.t), append(fs, c.f)
			tExact, fExact = tExact && c.tExact, fExact && c.fExact
		}
		if e.kind == exAnd {
			return pred{t: fAnd(ts...), f: fOr(fs...), tExact: tExact, fExact: fExact}
		}
		return pred{t: fOr(ts...), f: fAnd(fs...), tExact: tExact, fExact: fExact}
	case exNot:
		c := p.condition(e.args[0])
		return pred{t: c.f, f: c.t, tExact: c.fExact, fExact: c.tExact}
	case exIsTrue:
		c := p.condition(e.args[0])
		if e.op == "false" {
			c = pred{t: c.f, f: c.t, tExact: c.fExact, fExact: c.tExact}
		}
		// IS TRUE is never UNKNOWN: its FALSE rows are the complement of its TRUE rows, which only
		// an exact formula can give.
		out := pred{t: c.t, tExact: c.tExact, f: formulaAll}
		if c.tExact {
			out.f, out.fExact = fNot(c.t), true
		}
		if e.negated {
			out = pred{t: out.f, f: out.t, tExact: out.fExact, fExact: out.tExact}
		}
		return out
	case exIsNull:
		v, ok := p.value(e.args[0])
		if !ok {
			return unknownPred
		}
		if !v.nullable {
			v.isNull, v.isNullMode, v.notNull, v.notNullExact = formulaNone, nullExact, formulaAll, true
		}
		isNull := pred{t: v.isNull, tExact: v.isNullMode == nullExact, f: v.notNull, fExact: v.notNullExact}
		if v.isNullMode == nullNone {
			isNull.t = formulaAll
		}
		if !v.notNullExact && v.notNull == "" {
			isNull.f = formulaAll
		}
		if e.negated {
			return pred{t: isNull.f, f: isNull.t, tExact: isNull.fExact, fExact: isNull.tExact}
		}
		return isNull
	case exTruth:
		v, ok := p.value(e.args[0])
		if !ok || !v.typ.numeric() {
			return unknownPred
		}
		// A blank field reads as 0 and so is falsy, as a NULL condition must be; an expression over
		// blanks may not be (blank - 1 is -1), so it is guarded.
		guard := v.notNull
		guardExact := v.notNullExact
		if !v.nullable {
			guard, guardExact = formulaAll, true
		}
		t := fAnd(guard, v.src)
		if v.blank == float64(0) && v.isNullMode == nullExact {
			t = v.src
		}
		f := fAnd(guard, "NOT("+v.src+")")
		return pred{t: t, f: f, tExact: v.exact && guardExact, fExact: v.exact && guardExact}
	case exCompare:
		return p.compare(e.op, e.args[0], e.args[1])
	case exIn:
		var ts, fs []string
		tExact, fExact := true, true
		for _, item := range e.args[1:] {
			c := p.compare("=", e.args[0], item)
			ts, fs = append(ts, c.t), append(fs, c.f)
			tExact, fExact = tExact && c.tExact, fExact && c.fExact
		}
		in := pred{t: fOr(ts...), f: fAnd(fs...), tExact: tExact, fExact: fExact}
		if e.negated {
			return pred{t: in.f, f: in.t, tExact: in.fExact, fExact: in.tExact}
		}
		return in
	case exLike:
		return p.like(e)
	case exConst:
		switch v := e.val.(type) {
		case nil:
			return pred{t: formulaNone, f: formulaNone, tExact: true, fExact: true}
		case bool:
			if v {
				return pred{t: formulaAll, f: formulaNone, tExact: true, fExact: true}
			}
			return pred{t: formulaNone, f: formulaAll, tExact: true, fExact: true}
		}
	}
	return unknownPred
}

var inverseOp = map[string]string{"=": "!=", "<>": "=", "<": ">=", "<=": ">", ">": "<=", ">=": "<"}
var formulaOp = map[string]string{"=": "=", "<>": "!=", "<": "<", "<=": "<=", ">": ">", ">=": ">="}

// compare writes a op b. TRUE needs both sides non-NULL and the comparison true; FALSE both sides
// non-NULL and the comparison false (written with the inverse operator).
func (p *pusher) compare(op string, left, right *expr) pred {
	a, okA := p.value(left)
	b, okB := p.value(right)
	if !okA || !okB {
		return unknownPred
	}
	if a.constant && a.val == nil || b.constant && b.val == nil {
		// Comparing with NULL is never TRUE and never FALSE.
		return pred{t: formulaNone, f: formulaNone, tExact: true, fExact: true}
	}
	if a.typ == typeBool || b.typ == typeBool {
		return p.compareBool(op, a, b)
	}
	if a.typ == typeJSON || b.typ == typeJSON {
		return unknownPred
	}
	var lhs, rhs string
	switch {
	case a.typ.numeric() && b.typ.numeric():
		lhs, rhs = a.src, b.src
	case a.typ == typeText && b.typ == typeText:
		// Equality is case-sensitive in the service (reference §5.4, its recommended default);
		// how it orders text is not known, so only = and <> are written.
		if op != "=" && op != "<>" {
			return unknownPred
		}
		lhs, rhs = a.src, b.src
	case a.typ.temporal() && b.typ.temporal():
		// Times compare as their difference in milliseconds, exact for the service's
		// millisecond times (DATETIME_DIFF(a, b) is a - b).
		lhs, rhs = "DATETIME_DIFF("+a.src+", "+b.src+", 'milliseconds')", "0"
		a.blank, b.blank = nil, nil
	default:
		return unknownPred
	}
	exact := a.exact && b.exact
	cmpT := lhs + formulaOp[op] + rhs
	cmpF := lhs + inverseOp[op] + rhs
	guard := func(cmpHolds func(x, y any) bool) string {
		var guards []string
		for _, side := range []struct {
			v, other fx
			left     bool
		}{{a, b, true}, {b, a, false}} {
			if !side.v.nullable {
				continue
			}
			// A blank operand reads as its blank value; when the comparison cannot hold for it, the
			// comparison itself already rejects the NULL rows.
			if side.v.blank != nil && side.other.constant && side.v.isNullMode == nullExact {
				x, y := side.v.blank, side.other.val
				if !side.left {
					x, y = y, x
				}
				if !cmpHolds(x, y) {
					continue
				}
			}
			guards = append(guards, side.v.notNull)
		}
		return fAnd(guards...)
	}
	holds := func(o string) func(x, y any) bool {
		return func(x, y any) bool { return compareHolds(o, compareValues(x, y)) }
	}
	inv := map[string]string{"=": "<>", "<>": "=", "<": ">=", "<=": ">", ">": "<=", ">=": "<"}[op]
	guardExact := (!a.nullable || a.notNullExact) && (!b.nullable || b.notNullExact)
	return pred{
		t: fAnd(guard(holds(op)), cmpT), tExact: exact && guardExact,
		f: fAnd(guard(holds(inv)), cmpF), fExact: exact && guardExact,
	}
}

// compareBool writes a comparison with a checkbox or boolean: with a constant, it is the value or its
// negation; anything else is checked locally.
func (p *pusher) compareBool(op string, a, b fx) pred {
	if a.constant {
		a, b = b, a
	}
	if !b.constant || (op != "=" && op != "<>") || a.nullable {
		return unknownPred
	}
	want := truth(b.val)
	if op == "<>" {
		want = !want
	}
	switch v := b.val.(type) {
	case bool:
	case int64:
		if v != 0 && v != 1 {
			// true = 1 and false = 0: comparing with 2 is FALSE for every row.
			if op == "=" {
				return pred{t: formulaNone, f: formulaAll, tExact: a.exact, fExact: a.exact}
			}
			return pred{t: formulaAll, f: formulaNone, tExact: a.exact, fExact: a.exact}
		}
	default:
		return unknownPred
	}
	if want {
		return pred{t: a.src, f: "NOT(" + a.src + ")", tExact: a.exact, fExact: a.exact}
	}
	return pred{t: "NOT(" + a.src + ")", f: a.src, tExact: a.exact, fExact: a.exact}
}

// like writes LIKE on text as REGEX_MATCH with an anchored RE2 pattern: % is .*, _ is one character,
// ASCII letters match both cases ([aA]), everything else is quoted.
func (p *pusher) like(e *expr) pred {
	a, okA := p.value(e.args[0])
	pat, okP := p.value(e.args[1])
	if !okA || !okP || a.typ != typeText || !pat.constant {
		return unknownPred
	}
	pattern, ok := pat.val.(string)
	if !ok {
		if pat.val == nil {
			return pred{t: formulaNone, f: formulaNone, tExact: true, fExact: true}
		}
		return unknownPred
	}
	re := likeRegexp(pattern, e.escape)
	match := "REGEX_MATCH(" + a.src + ", " + formula.Quote(re) + ")"
	var guard string
	if a.nullable {
		guard = a.notNull
	}
	exact := a.exact && (!a.nullable || a.notNullExact)
	// A blank text reads as "", which the pattern may match: guard both sides.
	t := fAnd(guard, match)
	if a.blank == "" && a.isNullMode == nullExact && !likeMatch(pattern, "", e.escape) {
		t = match
	}
	out := pred{t: t, f: fAnd(guard, "NOT("+match+")"), tExact: exact, fExact: exact}
	if e.negated {
		return pred{t: out.f, f: out.t, tExact: out.fExact, fExact: out.tExact}
	}
	return out
}

// likeRegexp converts a LIKE pattern into an RE2 expression matching the same strings.
func likeRegexp(pattern string, escape rune) string {
	var b strings.Builder
	b.WriteString("^(?s:")
	runes := []rune(pattern)
	for i := 0; i < len(runes); i++ {
		c := runes[i]
		switch {
		case c == escape && i+1 < len(runes):
			i++
			writeLiteral(&b, runes[i])
		case c == '%':
			b.WriteString(".*")
		case c == '_':
			b.WriteString(".")
		default:
			writeLiteral(&b, c)
		}
	}
	b.WriteString(")$")
	return b.String()
}

func writeLiteral(b *strings.Builder, c rune) {
	switch {
	case c >= 'a' && c <= 'z':
		b.WriteString("[" + string(c-'a'+'A') + string(c) + "]")
	case c >= 'A' && c <= 'Z':
		b.WriteString("[" + string(c) + string(c-'A'+'a') + "]")
	default:
		b.WriteString(regexp.QuoteMeta(string(c)))
	}
}
