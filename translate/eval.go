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
	case exField:
		if e.tab > 0 && r.Sides != nil {
			if r = r.Sides[e.tab-1]; r == nil {
				return nil, nil // the NULL row of an outer join
			}
		}
		return cellValue(e.info, r.Fields[e.field.Name]), nil
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
		return sqlvalue.CompareHolds(e.op, sqlvalue.Compare(a, b)), nil
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
		return sqlvalue.Truth(v), nil
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
			if sqlvalue.Compare(a, b) == 0 {
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
			return sqlvalue.LikeBinary(valueText(e.args[1], p), valueText(e.args[0], a), e.escape) != e.negated, nil
		}
		return sqlvalue.Like(valueText(e.args[1], p), valueText(e.args[0], a), e.escape) != e.negated, nil
	case exArith:
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
			return -sqlvalue.BoolInt(n), nil
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

// bigintOutOfRange is MySQL's error 1690: integer arithmetic whose result does not fit in a BIGINT
// fails the statement rather than give a DOUBLE.
func bigintOutOfRange(e *expr) error {
	return fmt.Errorf("translate: BIGINT value is out of range in '%s' (an integer result beyond ±9223372036854775807, MySQL's error 1690): "+
		"compute it as a DOUBLE instead, e.g. multiply by 1e0 or write the constant with an exponent (1e12)", describe(e))
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
