package translate

import (
	"fmt"
	"math"

	"github.com/airsql/airsql/sqlvalue"
)

// eval computes an expression for one row with SQL semantics: nil is NULL, and conditions give
// true, false or nil (UNKNOWN).
func (e *expr) eval(r *Row) (any, error) {
	switch e.kind {
	case exConst:
		return e.val, nil
	case exField, exRecordID, exCreatedTime, exDerived:
		return e.evalColumn(r)
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
	case exCompare:
		// MySQL's comparator reads the right operand only when the left is not NULL: NULL >
		// Seq * 1000000000000 is NULL without the product's error 1690.
		a, err := e.args[0].eval(r)
		if err != nil || a == nil {
			return nil, err
		}
		b, err := e.args[1].eval(r)
		if err != nil || b == nil {
			return nil, err
		}
		return sqlvalue.CompareHolds(e.op, sqlvalue.Compare(a, b)), nil
	case exAnd, exOr:
		return e.evalAndOr(r)
	case exNot, exIsNull, exIsTrue, exTruth:
		return e.evalTest(r)
	case exIn:
		return e.evalIn(r)
	case exLike:
		return e.evalLike(r)
	case exArith:
		return e.evalArith(r)
	case exNeg:
		return e.evalNeg(r)
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

// evalColumn reads a column of the row: a field, the record's id or createdTime, or a derived
// table's column; of table tab of a join (NULL on an outer join's NULL row).
func (e *expr) evalColumn(r *Row) (any, error) {
	if e.tab > 0 && r.Sides != nil {
		if r = r.Sides[e.tab-1]; r == nil {
			return nil, nil // the NULL row of an outer join
		}
	}
	switch e.kind {
	case exField:
		return cellValue(e.info, r.cell(e.field.Name)), nil
	case exRecordID:
		return r.ID, nil
	case exCreatedTime:
		return r.CreatedTime.UTC(), nil
	}
	if e.slot < len(r.Values) { // exDerived
		return r.Values[e.slot], nil
	}
	return nil, nil
}

// evalAndOr is three-valued AND and OR: AND is false when any operand is false, OR is true when
// any is true; otherwise UNKNOWN if any is UNKNOWN. An AND of a WHERE (topLevel) stops at UNKNOWN
// as at FALSE, and is FALSE, never UNKNOWN. A BETWEEN (op "between") evaluates both of its
// comparisons, as MySQL evaluates all three operands: 5 BETWEEN 10 AND Budget * 1000000000000
// raises error 1690 where the product does.
func (e *expr) evalAndOr(r *Row) (any, error) {
	decisive := e.kind == exOr
	unknown, decided := false, false
	for _, a := range e.args {
		v, err := a.eval(r)
		if err != nil {
			return nil, err
		}
		switch {
		case v == nil && e.topLevel && e.kind == exAnd:
			return false, nil // UNKNOWN is FALSE here: MySQL reads no further operand
		case v == nil:
			unknown = true
		case v.(bool) == decisive && e.op != "between":
			return decisive, nil
		case v.(bool) == decisive:
			decided = true
		}
	}
	if decided {
		return decisive, nil
	}
	if unknown {
		return nil, nil
	}
	return !decisive, nil
}

// evalTest is NOT, IS [NOT] NULL, IS [NOT] TRUE/FALSE and a value used as a condition.
func (e *expr) evalTest(r *Row) (any, error) {
	v, err := e.args[0].eval(r)
	if err != nil {
		return nil, err
	}
	switch e.kind {
	case exIsNull:
		return (v == nil) != e.negated, nil
	case exIsTrue:
		want := e.op == "true"
		is := v != nil && v.(bool) == want
		return is != e.negated, nil
	}
	if v == nil {
		return nil, nil
	}
	if e.kind == exNot {
		return !v.(bool), nil
	}
	return sqlvalue.Truth(v), nil // exTruth
}

// evalIn is [NOT] IN (list): UNKNOWN when no item matches and one is NULL.
func (e *expr) evalIn(r *Row) (any, error) {
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
		if sqlvalue.Compare(a, b) == 0 {
			return !e.negated, nil
		}
	}
	if unknown {
		return nil, nil
	}
	return e.negated, nil
}

// evalLike is [NOT] LIKE [BINARY], each side read as text by its type.
func (e *expr) evalLike(r *Row) (any, error) {
	a, p, err := evalPair(e.args[0], e.args[1], r)
	if err != nil || a == nil || p == nil {
		return nil, err
	}
	if e.op == "binary" {
		return sqlvalue.LikeBinary(valueText(e.args[1], p), valueText(e.args[0], a), e.escape) != e.negated, nil
	}
	return sqlvalue.Like(valueText(e.args[1], p), valueText(e.args[0], a), e.escape) != e.negated, nil
}

// evalArith is + - * / DIV %: an integer result out of BIGINT's range is MySQL's error 1690.
func (e *expr) evalArith(r *Row) (any, error) {
	a, b, err := evalPair(e.args[0], e.args[1], r)
	if err != nil || a == nil || b == nil {
		return nil, err
	}
	v := sqlvalue.Arith(e.op, a, b)
	if _, isFloat := v.(float64); isFloat && e.op != "/" {
		_, aInt := sqlvalue.IntOf(a)
		_, bInt := sqlvalue.IntOf(b)
		if aInt && bInt {
			return nil, bigintOutOfRange(e)
		}
	}
	return v, nil
}

// evalNeg is unary minus.
func (e *expr) evalNeg(r *Row) (any, error) {
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
		return -sqlvalue.BoolInt(n), nil
	}
	return nil, nil
}

func evalPair(x, y *expr, r *Row) (any, any, error) {
	a, err := x.eval(r)
	if err != nil {
		return nil, nil, err
	}
	b, err := y.eval(r)
	return a, b, err
}

// bigintOutOfRange is MySQL's error 1690: integer arithmetic whose result does not fit in a BIGINT
// fails the statement rather than give a DOUBLE.
func bigintOutOfRange(e *expr) error { return &OutOfRangeError{Expr: describe(e)} }

// OutOfRangeError is integer arithmetic whose result does not fit in a BIGINT: MySQL's error 1690.
type OutOfRangeError struct{ Expr string }

func (e *OutOfRangeError) Error() string {
	return fmt.Sprintf("translate: BIGINT value is out of range in '%s' (an integer result beyond ±9223372036854775807, MySQL's error 1690): "+
		"compute it as a DOUBLE instead, e.g. multiply by 1e0 or write the constant with an exponent (1e12)", e.Expr)
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
	c, err := e.libraryCall()
	if err != nil {
		return nil, err
	}
	return c.fn.Apply(c.call, vals)
}
