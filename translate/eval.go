package translate

import (
	"cmp"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// eval computes an expression for one row with SQL semantics: nil is NULL, and conditions give
// true, false or nil (UNKNOWN).
func (e *expr) eval(r *Row) (any, error) {
	switch e.kind {
	case exConst:
		return e.val, nil
	case exField:
		if e.tab > 0 && r.Sides != nil {
			if r = r.Sides[e.tab-1]; r == nil {
				return nil, nil // the NULL row of an outer join
			}
		}
		return cellValue(e.info, r.cell(e.field.Name)), nil
	case exRecordID:
		if e.tab > 0 && r.Sides != nil {
			if r = r.Sides[e.tab-1]; r == nil {
				return nil, nil
			}
		}
		return r.ID, nil
	case exCreatedTime:
		if e.tab > 0 && r.Sides != nil {
			if r = r.Sides[e.tab-1]; r == nil {
				return nil, nil
			}
		}
		return r.CreatedTime.UTC(), nil
	case exLinkHas:
		return e.evalLinkHas(r)
	case exSubquery:
		return e.evalSubquery(r)
	case exOuter:
		st := r.Env.state(e.sub)
		if st == nil || st.cur == nil {
			return nil, fmt.Errorf("translate: %s of the outer query is read outside its correlated subquery %s", e.sql, e.sub.SQL)
		}
		return st.cur[e.slot], nil
	case exDerived:
		if e.tab > 0 && r.Sides != nil {
			if r = r.Sides[e.tab-1]; r == nil {
				return nil, nil
			}
		}
		if e.slot < len(r.Values) {
			return r.Values[e.slot], nil
		}
		return nil, nil
	case exCompare:
		a, b, err := evalPair(e.args[0], e.args[1], r)
		if err != nil || a == nil || b == nil {
			return nil, err
		}
		return compareHolds(e.op, compareValues(a, b)), nil
	case exAnd, exOr:
		// Three-valued: AND is false when any operand is false, OR is true when any is true; otherwise
		// UNKNOWN if any is UNKNOWN.
		decisive := e.kind == exOr
		unknown := false
		for _, a := range e.args {
			v, err := a.eval(r)
			if err != nil {
				return nil, err
			}
			if v == nil {
				unknown = true
				continue
			}
			if v.(bool) == decisive {
				return decisive, nil
			}
		}
		if unknown {
			return nil, nil
		}
		return !decisive, nil
	case exNot:
		v, err := e.args[0].eval(r)
		if err != nil || v == nil {
			return nil, err
		}
		return !v.(bool), nil
	case exIsNull:
		v, err := e.args[0].eval(r)
		if err != nil {
			return nil, err
		}
		return (v == nil) != e.negated, nil
	case exIsTrue:
		v, err := e.args[0].eval(r)
		if err != nil {
			return nil, err
		}
		want := e.op == "true"
		is := v != nil && v.(bool) == want
		return is != e.negated, nil
	case exTruth:
		v, err := e.args[0].eval(r)
		if err != nil || v == nil {
			return nil, err
		}
		return truth(v), nil
	case exIn:
		a, err := e.args[0].eval(r)
		if err != nil || a == nil {
			return nil, err
		}
		unknown := false
		for _, item := range e.args[1:] {
			b, err := item.eval(r)
			if err != nil {
				return nil, err
			}
			if b == nil {
				unknown = true
				continue
			}
			if compareValues(a, b) == 0 {
				return !e.negated, nil
			}
		}
		if unknown {
			return nil, nil
		}
		return e.negated, nil
	case exLike:
		a, p, err := evalPair(e.args[0], e.args[1], r)
		if err != nil || a == nil || p == nil {
			return nil, err
		}
		if e.op == "binary" {
			return likeMatchBinary(valueText(e.args[1], p), valueText(e.args[0], a), e.escape) != e.negated, nil
		}
		return likeMatch(valueText(e.args[1], p), valueText(e.args[0], a), e.escape) != e.negated, nil
	case exArith:
		a, b, err := evalPair(e.args[0], e.args[1], r)
		if err != nil || a == nil || b == nil {
			return nil, err
		}
		v := arith(e.op, a, b)
		if _, isFloat := v.(float64); isFloat && e.op != "/" {
			_, aInt := intOf(a)
			_, bInt := intOf(b)
			if aInt && bInt {
				return nil, bigintOutOfRange(e)
			}
		}
		return v, nil
	case exNeg:
		v, err := e.args[0].eval(r)
		if err != nil || v == nil {
			return nil, err
		}
		switch n := v.(type) {
		case int64:
			if n == math.MinInt64 {
				return nil, bigintOutOfRange(e)
			}
			return -n, nil
		case float64:
			return -n, nil
		case bool:
			return -boolInt(n), nil
		}
		return nil, nil
	case exFunc:
		return e.evalFunc(r)
	case exWindow:
		if e.slot < len(r.Window) {
			return r.Window[e.slot], nil
		}
		return nil, fmt.Errorf("translate: internal error: window function %d of a row of %d", e.slot, len(r.Window))
	case exSlot:
		if e.slot < len(r.Values) {
			return r.Values[e.slot], nil
		}
		return nil, fmt.Errorf("translate: internal error: slot %d of a row of %d values", e.slot, len(r.Values))
	}
	return nil, fmt.Errorf("translate: internal error: cannot evaluate expression kind %d", e.kind)
}

func evalPair(x, y *expr, r *Row) (any, any, error) {
	a, err := x.eval(r)
	if err != nil {
		return nil, nil, err
	}
	b, err := y.eval(r)
	return a, b, err
}

// truth is a non-NULL value as a condition: numbers are true when non-zero.
func truth(v any) bool {
	switch v := v.(type) {
	case bool:
		return v
	case int64:
		return v != 0
	case float64:
		return v != 0
	case string:
		return numericPrefix(v) != 0 // MySQL: '1abc' is true, 'abc' false
	}
	return true
}

func compareHolds(op string, c int) bool {
	switch op {
	case "=":
		return c == 0
	case "<>":
		return c != 0
	case "<":
		return c < 0
	case "<=":
		return c <= 0
	case ">":
		return c > 0
	case ">=":
		return c >= 0
	}
	return false
}

// valueClass orders values of different kinds, as SQLite does: numbers before text; times (which
// SQLite would hold as text) after both.
func valueClass(v any) int {
	switch v.(type) {
	case int64, float64, bool:
		return 0
	case string:
		return 1
	case time.Time:
		return 2
	}
	return 3
}

// compareValues compares two non-NULL values: numbers numerically, text by code point (byte order of
// UTF-8), times chronologically.
func compareValues(a, b any) int {
	ca, cb := valueClass(a), valueClass(b)
	if ca != cb {
		return cmp.Compare(ca, cb)
	}
	switch ca {
	case 0:
		ia, aInt := intOf(a)
		ib, bInt := intOf(b)
		if aInt && bInt {
			return cmp.Compare(ia, ib)
		}
		return cmp.Compare(floatOf(a), floatOf(b))
	case 1:
		return strings.Compare(a.(string), b.(string))
	case 2:
		return a.(time.Time).Compare(b.(time.Time))
	}
	return 0
}

func intOf(v any) (int64, bool) {
	switch v := v.(type) {
	case int64:
		return v, true
	case bool:
		return boolInt(v), true
	}
	return 0, false
}

func floatOf(v any) float64 {
	switch v := v.(type) {
	case int64:
		return float64(v)
	case float64:
		return v
	case bool:
		return float64(boolInt(v))
	}
	return math.NaN()
}

// textOf renders a value as SQL text (for LIKE and CONCAT on non-text values).
func textOf(v any) string {
	switch v := v.(type) {
	case string:
		return v
	case int64:
		return strconv.FormatInt(v, 10)
	case float64:
		return formatFloat(v)
	case bool:
		return strconv.FormatInt(boolInt(v), 10)
	case time.Time:
		if v.Hour() == 0 && v.Minute() == 0 && v.Second() == 0 && v.Nanosecond() == 0 {
			return v.Format("2006-01-02")
		}
		return v.Format("2006-01-02 15:04:05.999")
	}
	return fmt.Sprint(v)
}

// bigintOutOfRange is MySQL's error 1690: integer arithmetic whose result does not fit in a BIGINT
// fails the statement rather than give a DOUBLE.
func bigintOutOfRange(e *expr) error {
	return fmt.Errorf("translate: BIGINT value is out of range in '%s' (an integer result beyond ±9223372036854775807, MySQL's error 1690): "+
		"compute it as a DOUBLE instead, e.g. multiply by 1e0 or write the constant with an exponent (1e12)", describe(e))
}

// arith is MySQL arithmetic: integers stay integers (falling back to float on overflow), / is real
// division, DIV integer division; division or modulo by zero is NULL.
func arith(op string, a, b any) any {
	ia, aInt := intOf(a)
	ib, bInt := intOf(b)
	if aInt && bInt {
		switch op {
		case "+":
			if s := ia + ib; (s > ia) == (ib > 0) {
				return s
			}
		case "-":
			if d := ia - ib; (d < ia) == (ib > 0) {
				return d
			}
		case "*":
			if ia == 0 || ib == 0 {
				return int64(0)
			}
			if p := ia * ib; p/ib == ia && !(ia == -1 && ib == math.MinInt64) && !(ib == -1 && ia == math.MinInt64) {
				return p
			}
		case "div":
			if ib == 0 {
				return nil
			}
			if !(ia == math.MinInt64 && ib == -1) {
				return ia / ib
			}
		case "%":
			if ib == 0 {
				return nil
			}
			if ib == -1 {
				return int64(0)
			}
			return ia % ib
		}
	}
	fa, fb := floatOf(a), floatOf(b)
	switch op {
	case "+":
		return fa + fb
	case "-":
		return fa - fb
	case "*":
		return fa * fb
	case "/":
		if fb == 0 {
			return nil
		}
		return fa / fb
	case "div":
		if fb == 0 {
			return nil
		}
		q := math.Trunc(fa / fb)
		if math.Abs(q) < 1<<63 {
			return int64(q)
		}
		return q
	case "%":
		if fb == 0 {
			return nil
		}
		return math.Mod(fa, fb)
	}
	return nil
}

func (e *expr) evalFunc(r *Row) (any, error) {
	vals := make([]any, len(e.args))
	for i, a := range e.args {
		v, err := a.eval(r)
		if err != nil {
			return nil, err
		}
		vals[i] = v
	}
	def, _, ok := lookupFunc(e.op)
	if !ok {
		return nil, fmt.Errorf("translate: internal error: no evaluator for %s", e.op)
	}
	v := e.evalRegistered(def, vals)
	if err, ok := v.(error); ok {
		return nil, err // a value MySQL refuses at run time (an invalid regular expression)
	}
	return v, nil
}

// substring is MySQL SUBSTRING(s, pos[, len]) on characters: pos counts from 1, or from the end when
// negative; pos 0 gives "".
func substring(s string, args []any) string {
	runes := []rune(s)
	pos, ok := intOf(args[0])
	if !ok {
		pos = int64(math.Round(floatOf(args[0])))
	}
	n := int64(len(runes))
	var start int64
	switch {
	case pos > 0:
		start = pos - 1
	case pos < 0:
		start = n + pos
		if start < 0 {
			return ""
		}
	default:
		return ""
	}
	if start >= n {
		return ""
	}
	end := n
	if len(args) > 1 {
		count, ok := intOf(args[1])
		if !ok {
			count = int64(math.Round(floatOf(args[1])))
		}
		if count <= 0 {
			return ""
		}
		if start+count < end {
			end = start + count
		}
	}
	return string(runes[start:end])
}

// likeMatch is SQL LIKE: % any run, _ one character, ASCII letters match either case, and the
// escape character makes the next character literal.
func likeMatch(pattern, s string, escape rune) bool {
	return likeMatchCase(pattern, s, escape, foldASCII)
}

// likeMatchBinary is LIKE BINARY: LIKE matching case.
func likeMatchBinary(pattern, s string, escape rune) bool {
	return likeMatchCase(pattern, s, escape, func(r rune) rune { return r })
}

// likeMatchCase is LIKE with a given folding of characters.
func likeMatchCase(pattern, s string, escape rune, fold func(rune) rune) bool {
	p := likeRunes(pattern)
	t := likeRunes(s)
	// Iterative matching with backtracking to the last %, linear in practice.
	pi, ti := 0, 0
	starP, starT := -1, 0
	for ti < len(t) {
		if pi < len(p) {
			c := p[pi]
			switch {
			case c == escape && pi+1 < len(p):
				if fold(p[pi+1]) == fold(t[ti]) {
					pi += 2
					ti++
					continue
				}
			case c == '%':
				starP, starT = pi, ti
				pi++
				continue
			case c == '_':
				pi++
				ti++
				continue
			default:
				if fold(c) == fold(t[ti]) {
					pi++
					ti++
					continue
				}
			}
		}
		if starP < 0 {
			return false
		}
		starT++
		pi, ti = starP+1, starT
	}
	for pi < len(p) && p[pi] == '%' {
		pi++
	}
	return pi == len(p)
}

// likeRunes splits text into the characters LIKE compares. A byte that is not part of valid UTF-8
// is a character of its own, distinct from every real character and from U+FFFD, which []rune
// would turn it into: 'a\xffb' LIKE 'a\uFFFDb' is FALSE, as 'a\xffb' = 'a\uFFFDb' is.
func likeRunes(s string) []rune {
	out := make([]rune, 0, len(s))
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			r = invalidByteRune + rune(s[i])
		}
		out = append(out, r)
		i += size
	}
	return out
}

// invalidByteRune + b stands for the invalid byte b in likeRunes: past the last code point.
const invalidByteRune = utf8.MaxRune + 1

func foldASCII(r rune) rune {
	if r >= 'A' && r <= 'Z' {
		return r + 'a' - 'A'
	}
	return r
}
