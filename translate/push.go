package translate

import (
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/airsql/airsql/formula"
	"github.com/airsql/airsql/sqlvalue"
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
	// raises: evaluating the condition may fail the statement (MySQL's error 1690) on rows no
	// formula can tell. t and f then keep every row where MySQL evaluates it, besides its TRUE
	// (resp. FALSE) rows, so that the local check meets the error where MySQL does rather than a
	// narrower request hiding it (the oracle's seed 9158).
	raises bool
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
	var seen map[string]bool
	if len(parts) > 16 {
		seen = map[string]bool{}
	}
	for _, p := range parts {
		switch p {
		case identity:
			continue
		case absorbing:
			return absorbing
		}
		kept = appendFlatSeen(kept, seen, fn, p)
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
	return appendFlatSeen(args, nil, fn, p)
}

// appendFlatSeen is appendFlat with the set of args already present, when the caller keeps one
// (joining thousands of parts one lookup at a time in a slice would be quadratic); seen nil: none.
func appendFlatSeen(args []string, seen map[string]bool, fn, p string) []string {
	items := []string{p}
	if inner, ok := callArgs(p, fn); ok {
		items = inner
	}
	for _, it := range items {
		if seen != nil {
			if !seen[it] {
				seen[it] = true
				args = append(args, it)
			}
		} else if !slices.Contains(args, it) {
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
	// unsafe: src may evaluate to an error (DATETIME_DIFF or YEAR of a blank date, a division by
	// zero), but only on rows where notNull is falsy (rows where the SQL value is NULL). isNull and
	// notNull themselves never evaluate to an error, on any row. AND, OR and NOT pass an error on,
	// so a formula must read an unsafe src only under IF(notNull, …): see guardedAnd and guardedOr.
	// Every value built here keeps that promise; errorfree_test.go checks it on generated
	// conditions.
	unsafe bool
}

// Errors. The service drops a record whose formula is an error, and AND/OR/NOT pass an error on:
// NOT(AND({D}&''!='', YEAR({D})=2024)) is an error for a blank {D}, although SQL keeps that row
// for OR {X}=1. So every formula the pusher writes (every pred's t and f, every isNull and notNull)
// evaluates to a value, never an error, on every record: what may error is read only where it
// cannot, behind IF, which evaluates only the branch it takes.

// guardedAnd is truthy where guard and cond both are. When cond is unsafe (it may be an error
// where guard is falsy) it is written IF(guard, cond, FALSE()), so that it is read only where
// guard holds; otherwise it is AND(guard, cond). guard must never be an error.
func guardedAnd(guard, cond string, unsafe bool) string {
	if !unsafe || guard == formulaAll || guard == formulaNone || cond == formulaAll || cond == formulaNone {
		return fAnd(guard, cond)
	}
	return "IF(" + guard + ", " + cond + ", FALSE())"
}

// guardedOr is truthy where guard or cond is. When cond is unsafe (it may be an error where guard
// is truthy) it is written IF(guard, TRUE(), cond); otherwise OR(guard, cond). guard must never be
// an error.
func guardedOr(guard, cond string, unsafe bool) string {
	if !unsafe || guard == formulaAll || guard == formulaNone || cond == formulaAll || cond == formulaNone {
		return fOr(guard, cond)
	}
	return "IF(" + guard + ", TRUE(), " + cond + ")"
}

// mayErrOnBlank marks out, a function of args built with combineNulls, as an error where one of
// args is blank: YEAR, DATETIME_DIFF, DATETIME_FORMAT… of a blank date. Conditions then read it only
// behind its NULL guard (guardedAnd), which is falsy exactly there. A function that can be an error
// on a value that is not NULL (VALUE('abc'), REGEX_* with a bad pattern) cannot be guarded so: push
// it only where SQL's answer for those values is known and written into the formula, or not at all.
func mayErrOnBlank(out *fx, args ...fx) {
	for _, a := range args {
		out.unsafe = out.unsafe || a.nullable
	}
}

// noErrors writes a computed field's reference so that it is never an error, nor a value that makes
// an error of what the pusher writes with it: a formula or rollup cell holding #ERROR!, or text or
// a list where a number or a date should be, reads as blank, as SQL reads it as NULL (false for a
// boolean). The probe is the use that would fail: arithmetic for a number, YEAR for a date (what
// YEAR reads, DATETIME_DIFF and HOUR read too).
func noErrors(ref string, typ sqlType) string {
	probe := ref
	switch {
	case typ == typeInt || typ == typeFloat:
		probe = ref + "+0"
	case typ.Temporal():
		probe = "YEAR(" + ref + ")"
	}
	return "IF(ISERROR(" + probe + "), BLANK(), " + ref + ")"
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
			if e.typ == typeJSON || !utf8.ValidString(v) {
				return fx{}, false // see invalidText
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
		if !okA || !okB || !a.typ.Numeric() || !b.typ.Numeric() || boolean(a.typ) || boolean(b.typ) {
			return fx{}, false
		}
		out := combineNulls(e.typ, a, b)
		out.src = "(" + a.src + " " + e.op + " " + b.src + ")"
		out.exact = a.exact && b.exact
		if productMayOverflow(e) {
			// A product of integers beyond BIGINT fails the statement (error 1690) where the
			// formula computes a number. Checking the rows again locally is not enough: a formula
			// that leaves out the overflowing rows hides MySQL's error (the oracle's seed 2211,
			// Budget * 1000000000000 = 137.25 matched no record). So it is not pushed, and the
			// condition holding it raises (pred.raises).
			return fx{}, false
		}
		if e.op == "/" {
			// Division by zero is NULL in SQL and Infinity, NaN or an error in a formula: add it to
			// the NULL test, and read the quotient only where the divisor is not zero.
			if !(b.constant && b.val != nil && sqlvalue.FloatOf(b.val) != 0) {
				zero := b.src + "=0"
				out.isNull = guardedOr(out.isNull, zero, b.unsafe)
				out.notNull = guardedAnd(out.notNull, fNot(zero), b.unsafe)
				out.nullable = true
				out.unsafe = true
			}
		}
		return out, true
	case exNeg:
		a, ok := p.value(e.args[0])
		if !ok || !a.typ.Numeric() || boolean(a.typ) {
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
	if e.info.computed {
		ref = noErrors(ref, e.typ)
	}
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
	// The parts are joined once: joining one at a time re-reads the growing formula every time,
	// which is quadratic in a CONCAT of thousands of columns.
	var isNull, notNull []string
	for _, a := range args {
		out.unsafe = out.unsafe || a.unsafe
		if !a.nullable {
			continue
		}
		out.nullable = true
		isNull = append(isNull, a.isNull)
		notNull = append(notNull, a.notNull)
		out.isNullMode = min(out.isNullMode, a.isNullMode)
		out.notNullExact = out.notNullExact && a.notNullExact
	}
	if out.nullable {
		out.isNull = fOr(isNull...)
		out.notNull = fAnd(notNull...)
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
		if !args[0].typ.Numeric() || boolean(args[0].typ) {
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
			if a.typ != e.typ && a.typ != typeNull && !(a.typ.Numeric() && e.typ.Numeric()) {
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
			if a.isNull == formulaAll && a.isNullMode == nullExact {
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
				// IF reads a.src where a is not NULL, next.src where it is: each errs only where
				// the whole is NULL.
				unsafe: a.unsafe || next.unsafe,
			}
			if !next.nullable {
				out.isNull, out.notNull = formulaNone, formulaAll
			}
		}
		out.constant, out.blank = false, nil
		return out, true
	case "YEAR", "MONTH", "DAY", "HOUR", "MINUTE", "SECOND":
		if !args[0].typ.Temporal() {
			return fx{}, false
		}
		out := combineNulls(typeInt, args[0])
		out.src, out.exact = e.op+"("+args[0].src+")", exact
		mayErrOnBlank(&out, args[0]) // YEAR(BLANK()) is an error
		return out, true
	}
	return fx{}, false
}

// condition writes a condition as a pred.
func (p *pusher) condition(e *expr) pred {
	if logical := (e.kind == exAnd && e.op == "") || e.kind == exOr || e.kind == exNot || e.kind == exIsTrue; !logical && mayRaise(e) {
		// Evaluated as a whole (a comparison, a BETWEEN's three operands): it may raise on any row.
		return pred{t: formulaAll, f: formulaAll, raises: true}
	}
	switch e.kind {
	case exAnd, exOr:
		return p.andOr(e)
	case exNot:
		c := p.condition(e.args[0])
		return pred{t: c.f, f: c.t, tExact: c.fExact, fExact: c.tExact, raises: c.raises}
	case exIsTrue:
		return p.isTrue(e)
	case exIsNull:
		return p.isNull(e)
	case exTruth:
		return p.truth(e)
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

// andOr is AND or OR: each operand's formulas combined; an operand that may raise makes the
// request keep every row where MySQL evaluates it (raisingAfter).
func (p *pusher) andOr(e *expr) pred {
	var ts, fs []string
	var before []pred
	tExact, fExact := true, true
	for _, a := range e.args {
		c := p.condition(a)
		if c.raises {
			return raisingAfter(e, before)
		}
		before = append(before, c)
		ts, fs = append(ts, c.t), append(fs, c.f)
		tExact, fExact = tExact && c.tExact, fExact && c.fExact
	}
	if e.kind == exAnd && e.topLevel {
		// TRUE or FALSE, never UNKNOWN (evalAndOr): its FALSE rows are the others.
		out := pred{t: fAnd(ts...), f: formulaAll, tExact: tExact}
		if tExact {
			out.f, out.fExact = fNot(out.t), true
		}
		return out
	}
	if e.kind == exAnd {
		return pred{t: fAnd(ts...), f: fOr(fs...), tExact: tExact, fExact: fExact}
	}
	return pred{t: fOr(ts...), f: fAnd(fs...), tExact: tExact, fExact: fExact}
}

// isTrue is x IS [NOT] TRUE / IS [NOT] FALSE.
func (p *pusher) isTrue(e *expr) pred {
	c := p.condition(e.args[0])
	if e.op == "false" {
		c = pred{t: c.f, f: c.t, tExact: c.fExact, fExact: c.tExact, raises: c.raises}
	}
	// IS TRUE is never UNKNOWN: its FALSE rows are the complement of its TRUE rows, which only
	// an exact formula can give.
	out := pred{t: c.t, tExact: c.tExact, f: formulaAll, raises: c.raises}
	if c.tExact {
		out.f, out.fExact = fNot(c.t), true
	}
	if e.negated {
		out = pred{t: out.f, f: out.t, tExact: out.fExact, fExact: out.tExact, raises: out.raises}
	}
	return out
}

// isNull is x IS [NOT] NULL.
func (p *pusher) isNull(e *expr) pred {
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
}

// truth is a number used as a condition (WHERE Done, WHERE Priority).
func (p *pusher) truth(e *expr) pred {
	v, ok := p.value(e.args[0])
	if !ok || !v.typ.Numeric() {
		return unknownPred
	}
	// A blank field reads as 0 and so is falsy, as a NULL condition must be; an expression over
	// blanks may not be (blank - 1 is -1), so it is guarded.
	guard := v.notNull
	guardExact := v.notNullExact
	if !v.nullable {
		guard, guardExact = formulaAll, true
	}
	t := guardedAnd(guard, v.src, v.unsafe)
	if v.blank == float64(0) && v.isNullMode == nullExact && !v.unsafe {
		t = v.src
	}
	f := guardedAnd(guard, "NOT("+v.src+")", v.unsafe)
	return pred{t: t, f: f, tExact: v.exact && guardExact, fExact: v.exact && guardExact}
}

var inverseOp = map[string]string{"=": "!=", "<>": "=", "<": ">=", "<=": ">", ">": "<=", ">=": "<"}
var formulaOp = map[string]string{"=": "=", "<>": "!=", "<": "<", "<=": "<=", ">": ">", ">=": ">="}

// productMayOverflow: a product of integers that may pass BIGINT's range (error 1690), that is
// one whose factors are not a constant of magnitude at most 1.
func productMayOverflow(e *expr) bool {
	if e.kind != exArith || e.op != "*" || e.args[0].typ != typeInt || e.args[1].typ != typeInt {
		return false
	}
	small := func(a *expr) bool {
		n, ok := a.val.(int64)
		return a.kind == exConst && ok && n >= -1 && n <= 1
	}
	return !small(e.args[0]) && !small(e.args[1])
}

// mayRaise: the expression holds a product that may overflow (productMayOverflow), which MySQL
// raises on the rows where it evaluates it. A subquery's own conditions are its own.
func mayRaise(e *expr) bool {
	if productMayOverflow(e) {
		return true
	}
	for _, a := range e.args {
		if mayRaise(a) {
			return true
		}
	}
	return false
}

// raisingAfter is the pred of an AND or OR one of whose operands raises: MySQL evaluates that
// operand only on the rows the operands before it leave undecided (not FALSE for an AND, TRUE
// for a topLevel one; not TRUE for an OR), so those rows, as far as the formulas tell them, are
// what must be fetched; what the raising operand and those after it select cannot narrow it.
func raisingAfter(e *expr, before []pred) pred {
	kind := e.kind
	var undecided []string
	for _, c := range before {
		switch {
		case kind == exAnd && e.topLevel: // it stops at UNKNOWN too: only TRUE rows go on
			undecided = append(undecided, c.t)
		case kind == exAnd && c.fExact:
			undecided = append(undecided, fNot(c.f))
		case kind == exOr && c.tExact:
			undecided = append(undecided, fNot(c.t))
		}
	}
	if kind == exAnd {
		return pred{t: fAnd(undecided...), f: formulaAll, raises: true}
	}
	return pred{t: formulaAll, f: fAnd(undecided...), raises: true}
}

// compare writes a op b. TRUE needs both sides non-NULL and the comparison true; FALSE both sides
// non-NULL and the comparison false (written with the inverse operator).
func (p *pusher) compare(op string, left, right *expr) pred {
	if op == "=" || op == "<>" {
		if c, ok := p.compareInvalidText(op, left, right); ok {
			return c
		}
	}
	a, okA := p.value(left)
	b, okB := p.value(right)
	if !okA || !okB {
		return unknownPred
	}
	if a.constant && a.val == nil || b.constant && b.val == nil {
		// Comparing with NULL is never TRUE and never FALSE.
		return pred{t: formulaNone, f: formulaNone, tExact: true, fExact: true}
	}
	if boolean(a.typ) || boolean(b.typ) {
		return p.compareBool(op, a, b)
	}
	if a.typ == typeJSON || b.typ == typeJSON {
		return unknownPred
	}
	unsafe := a.unsafe || b.unsafe
	var lhs, rhs string
	switch {
	case a.typ.Numeric() && b.typ.Numeric():
		lhs, rhs = a.src, b.src
	case a.typ == typeText && b.typ == typeText:
		// Equality is case-sensitive in the service (reference §5.4, its recommended default);
		// how it orders text is not known, so only = and <> are written.
		if op != "=" && op != "<>" {
			return unknownPred
		}
		lhs, rhs = a.src, b.src
	case a.typ.Temporal() && b.typ.Temporal():
		// Times compare as their difference in milliseconds, exact for the service's
		// millisecond times (DATETIME_DIFF(a, b) is a - b).
		lhs, rhs = "DATETIME_DIFF("+a.src+", "+b.src+", 'milliseconds')", "0"
		a.blank, b.blank = nil, nil
		// DATETIME_DIFF of a blank date is an error.
		unsafe = unsafe || a.nullable || b.nullable // as mayErrOnBlank
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
			if side.v.blank != nil && side.other.constant && side.v.isNullMode == nullExact && !unsafe {
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
		return func(x, y any) bool { return sqlvalue.CompareHolds(o, sqlvalue.Compare(x, y)) }
	}
	inv := map[string]string{"=": "<>", "<>": "=", "<": ">=", "<=": ">", ">": "<=", ">=": "<"}[op]
	guardExact := (!a.nullable || a.notNullExact) && (!b.nullable || b.notNullExact)
	return pred{
		t: guardedAnd(guard(holds(op)), cmpT, unsafe), tExact: exact && guardExact,
		f: guardedAnd(guard(holds(inv)), cmpF, unsafe), fExact: exact && guardExact,
	}
}

// boolean reports a checkbox or a condition's value (TRUE, FALSE): the formula language's TRUE()
// and FALSE(), which its arithmetic and comparisons do not take as MySQL takes 1 and 0.
func boolean(t sqlType) bool { return t == typeBool || t == typeCond }

// compareBool writes a comparison of a checkbox or boolean with a constant. A BOOL is the number 0
// or 1 (MySQL's TINYINT(1)) and compares as a number with any number, so each comparison holds for
// the false rows, the true rows, both or neither: Done <> 2 is TRUE for every row, Done = 5 for
// none, Done > 0.5 for the checked ones. Anything else is checked locally.
func (p *pusher) compareBool(op string, a, b fx) pred {
	if a.constant && b.constant {
		// Two constants (a bound argument beside a literal, TRUE IN (2, ?)): the comparison is
		// a constant too. Written as a value, the number would read as a condition (2: true).
		for _, v := range []any{a.val, b.val} {
			switch v.(type) {
			case bool, int64, float64:
			default:
				return unknownPred
			}
		}
		if sqlvalue.CompareHolds(op, sqlvalue.Compare(a.val, b.val)) {
			return pred{t: formulaAll, f: formulaNone, tExact: true, fExact: true}
		}
		return pred{t: formulaNone, f: formulaAll, tExact: true, fExact: true}
	}
	if a.constant {
		a, b = b, a
		op = flippedOp[op]
	}
	if !b.constant || a.nullable || a.unsafe {
		return unknownPred
	}
	switch b.val.(type) {
	case bool, int64, float64:
	default:
		return unknownPred
	}
	holdsFalse := sqlvalue.CompareHolds(op, sqlvalue.Compare(false, b.val))
	holdsTrue := sqlvalue.CompareHolds(op, sqlvalue.Compare(true, b.val))
	out := pred{tExact: a.exact, fExact: a.exact}
	switch {
	case holdsTrue && holdsFalse:
		return pred{t: formulaAll, f: formulaNone, tExact: true, fExact: true}
	case holdsTrue:
		out.t, out.f = a.src, "NOT("+a.src+")"
	case holdsFalse:
		out.t, out.f = "NOT("+a.src+")", a.src
	default:
		return pred{t: formulaNone, f: formulaAll, tExact: true, fExact: true}
	}
	return out
}

// flippedOp is the operator with its operands swapped: a < b is b > a.
var flippedOp = map[string]string{"=": "=", "<>": "<>", "<": ">", "<=": ">=", ">": "<", ">=": "<="}

// invalidText reports a text constant that is not valid UTF-8. No text the service holds or
// computes is (its cells are JSON), so such a constant equals nothing there, and it is never
// written into a formula, where the service might read its bytes as U+FFFD and match that.
func invalidText(e *expr) bool {
	s, ok := e.val.(string)
	return e.kind == exConst && ok && e.typ == typeText && !utf8.ValidString(s)
}

// compareInvalidText writes x = c and x <> c for a text constant c that is not valid UTF-8 and a
// text x from the service: = is FALSE and <> TRUE wherever x is not NULL.
func (p *pusher) compareInvalidText(op string, left, right *expr) (pred, bool) {
	if invalidText(left) {
		left, right = right, left
	}
	if !invalidText(right) || left.kind == exConst || left.typ != typeText {
		return pred{}, false
	}
	x, ok := p.value(left)
	if !ok {
		return pred{}, false
	}
	return notNullPred(x, op == "<>"), true
}

// notNullPred is a condition whose value on a non-NULL x is the constant holds, and UNKNOWN on a
// NULL x.
func notNullPred(x fx, holds bool) pred {
	notNull, exact := x.notNull, x.notNullExact
	if !x.nullable {
		notNull, exact = formulaAll, true
	}
	if !exact {
		notNull = formulaAll
	}
	if holds {
		return pred{t: notNull, f: formulaNone, tExact: exact, fExact: true}
	}
	return pred{t: formulaNone, f: notNull, tExact: true, fExact: exact}
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
	if !utf8.ValidString(pattern) {
		// An invalid byte in the pattern is a literal character that no text of the service
		// holds (see invalidText): the pattern matches nothing.
		out := notNullPred(a, false)
		if e.negated {
			return pred{t: out.f, f: out.t, tExact: out.fExact, fExact: out.tExact}
		}
		return out
	}
	re := likeRegexp(pattern, e.escape)
	if e.op == "binary" {
		re = likeRegexpBinary(pattern, e.escape) // LIKE BINARY: letters match their own case only
	}
	match := "REGEX_MATCH(" + a.src + ", " + formula.Quote(re) + ")"
	var guard string
	if a.nullable {
		guard = a.notNull
	}
	exact := a.exact && (!a.nullable || a.notNullExact)
	// A blank text reads as "", which the pattern may match: guard both sides.
	t := guardedAnd(guard, match, a.unsafe)
	if a.blank == "" && a.isNullMode == nullExact && !a.unsafe && !sqlvalue.Like(pattern, "", e.escape) {
		t = match
	}
	out := pred{t: t, f: guardedAnd(guard, "NOT("+match+")", a.unsafe), tExact: exact, fExact: exact}
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
