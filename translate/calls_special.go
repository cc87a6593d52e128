package translate

import (
	"strings"

	"github.com/xwb1989/sqlparser"

	"github.com/airsql/airsql/sqlvalue"
)

// The calls compiled specially, whose arguments are not all plain expressions: CASE and IF
// (conditions; both become the library's CASE: condition, result, …, else), DATE_ADD and its kin
// with INTERVAL, TIMESTAMPDIFF and TIMESTAMPADD (a unit), d ± INTERVAL n unit, LIKE BINARY. Each
// ends in a call of the function library (sqlvalue/funcs_control.go, funcs_date.go).

// truthOf makes a value a condition, as IF and WHEN read theirs: a number is TRUE when non-zero,
// text by its numeric prefix, as in MySQL.
func truthOf(x *expr) (*expr, error) {
	switch x.kind {
	case exCompare, exAnd, exOr, exNot, exIsNull, exIsTrue, exIn, exLike, exTruth:
		return x, nil
	}
	switch x.typ {
	case typeBool, typeCond, typeInt, typeFloat, typeNull, typeText:
		return &expr{kind: exTruth, typ: typeCond, nullable: x.nullable, args: []*expr{x}, sql: x.sql}, nil
	}
	return nil, fmtErr("%s is %s, not a condition; compare it, e.g. %s IS NOT NULL", describe(x), x.typ, describe(x))
}

// caseExpr compiles CASE WHEN c THEN r … ELSE x END and CASE v WHEN w THEN r … END (each WHEN
// then is v = w, with the comparison's conversions).
func (s *scope) caseExpr(e *sqlparser.CaseExpr) (*expr, error) {
	var base *expr
	if e.Expr != nil {
		b, err := s.compile(e.Expr)
		if err != nil {
			return nil, err
		}
		base = b
	}
	var args []*expr
	for _, w := range e.Whens {
		var cond *expr
		c, err := s.compile(w.Cond)
		if err != nil {
			return nil, err
		}
		if base != nil {
			cond, err = s.compare("=", base, c)
		} else {
			cond, err = truthOf(c)
		}
		if err != nil {
			return nil, err
		}
		r, err := s.compile(w.Val)
		if err != nil {
			return nil, err
		}
		args = append(args, cond, r)
	}
	elseExpr := &expr{kind: exConst, typ: typeNull, nullable: true, sql: "NULL"}
	if e.Else != nil {
		x, err := s.compile(e.Else)
		if err != nil {
			return nil, err
		}
		elseExpr = x
	}
	args = append(args, elseExpr)
	return s.callRegistered(libraryFunc("CASE"), "CASE", "CASE", args, sqlparser.String(e), nil)
}

// specialCall compiles the calls whose arguments are not all plain expressions: DATE_ADD(d,
// INTERVAL n unit) and its kin, TIMESTAMPDIFF(unit, a, b), TIMESTAMPADD(unit, n, d), IF(c, a, b)
// (c a condition). It reports false for every other call.
func (s *scope) specialCall(name string, e *sqlparser.FuncExpr) (*expr, bool, error) {
	text := sqlString(e)
	argExprs := func() ([]sqlparser.Expr, error) {
		var out []sqlparser.Expr
		for _, se := range e.Exprs {
			ae, ok := se.(*sqlparser.AliasedExpr)
			if !ok {
				return nil, unsupported(sqlparser.String(se)+" as an argument of "+name, "", "pass a column, a value or an expression")
			}
			out = append(out, ae.Expr)
		}
		return out, nil
	}
	switch name {
	case "DATE_ADD", "DATE_SUB", "ADDDATE", "SUBDATE":
		a, err := argExprs()
		if err != nil {
			return nil, true, err
		}
		if len(a) != 2 {
			return nil, true, fmtErr("%s: wrong number of arguments to %s: %d given, 2 expected", text, name, len(a))
		}
		d, err := s.compile(a[0])
		if err != nil {
			return nil, true, err
		}
		amount, unit := a[1], "DAY"
		if iv, ok := a[1].(*sqlparser.IntervalExpr); ok {
			amount, unit = iv.Expr, strings.ToUpper(iv.Unit)
		} else if name == "DATE_ADD" || name == "DATE_SUB" {
			return nil, true, fmtErr("%s: the second argument of %s is INTERVAL n unit", text, name)
		}
		n, err := s.compile(amount)
		if err != nil {
			return nil, true, err
		}
		op := "DATE_ADD"
		if name == "DATE_SUB" || name == "SUBDATE" {
			op = "DATE_SUB"
		}
		x, err := s.dateAdd(op, d, n, unit, text)
		return x, true, err
	case "TIMESTAMPDIFF", "TIMESTAMPADD":
		a, err := argExprs()
		if err != nil {
			return nil, true, err
		}
		if len(a) != 3 {
			return nil, true, fmtErr("%s: wrong number of arguments to %s: %d given, 3 expected", text, name, len(a))
		}
		col, ok := a[0].(*sqlparser.ColName)
		if !ok || !col.Qualifier.IsEmpty() || !sqlvalue.IntervalUnits[strings.ToUpper(col.Name.String())] || strings.Contains(col.Name.String(), "_") {
			return nil, true, fmtErr("%s: the first argument of %s is a unit: MICROSECOND, SECOND, MINUTE, HOUR, DAY, WEEK, MONTH, QUARTER or YEAR", text, name)
		}
		unit := strings.ToUpper(col.Name.String())
		x, err := s.compile(a[1])
		if err != nil {
			return nil, true, err
		}
		y, err := s.compile(a[2])
		if err != nil {
			return nil, true, err
		}
		if name == "TIMESTAMPADD" {
			r, err := s.dateAdd("DATE_ADD", y, x, unit, text)
			return r, true, err
		}
		u := &expr{kind: exConst, typ: typeText, val: unit, sql: unit}
		r, err := s.callRegistered(libraryFunc("TIMESTAMPDIFF"), "TIMESTAMPDIFF", name, []*expr{u, x, y}, text, nil)
		return r, true, err
	case "IF":
		a, err := argExprs()
		if err != nil {
			return nil, true, err
		}
		if len(a) != 3 {
			return nil, true, fmtErr("%s: wrong number of arguments to IF: %d given, 3 expected", text, len(a))
		}
		var args []*expr
		for i, x := range a {
			c, err := s.compile(x)
			if err != nil {
				return nil, true, err
			}
			if i == 0 {
				if c, err = truthOf(c); err != nil {
					return nil, true, err
				}
			}
			args = append(args, c)
		}
		r, err := s.callRegistered(libraryFunc("CASE"), "CASE", name, args, text, nil)
		return r, true, err
	case "LAST_INSERT_ID":
		if len(e.Exprs) > 0 {
			return nil, true, unsupported("LAST_INSERT_ID(expr)", text, "Airtable records have no AUTO_INCREMENT: read the inserted record's id from the INSERT's rows")
		}
	}
	return nil, false, nil
}

// dateAdd compiles DATE_ADD(d, INTERVAL n unit) (op DATE_ADD or DATE_SUB).
func (s *scope) dateAdd(op string, d, n *expr, unit, text string) (*expr, error) {
	if !sqlvalue.IntervalUnits[unit] {
		return nil, fmtErr("%s: %s is not an interval unit (MICROSECOND, SECOND, MINUTE, HOUR, DAY, WEEK, MONTH, QUARTER, YEAR, or a compound such as HOUR_MINUTE)", text, unit)
	}
	u := &expr{kind: exConst, typ: typeText, val: unit, sql: unit}
	return s.callRegistered(libraryFunc(op), op, op, []*expr{d, n, u}, text, nil)
}

// intervalArith compiles d + INTERVAL n unit, INTERVAL n unit + d and d - INTERVAL n unit; ok is
// false when neither side is an INTERVAL.
func (s *scope) intervalArith(e *sqlparser.BinaryExpr) (*expr, bool, error) {
	left, lok := e.Left.(*sqlparser.IntervalExpr)
	right, rok := e.Right.(*sqlparser.IntervalExpr)
	if !lok && !rok {
		return nil, false, nil
	}
	text := sqlparser.String(e)
	var iv *sqlparser.IntervalExpr
	var other sqlparser.Expr
	switch {
	case lok && rok:
		return nil, true, fmtErr("%s: an INTERVAL is added to a date, not to another INTERVAL", text)
	case e.Operator == sqlparser.PlusStr && lok:
		iv, other = left, e.Right
	case (e.Operator == sqlparser.PlusStr || e.Operator == sqlparser.MinusStr) && rok:
		iv, other = right, e.Left
	default:
		return nil, true, fmtErr("%s: INTERVAL is only added to a date (d + INTERVAL n unit) or subtracted from one (d - INTERVAL n unit)", text)
	}
	d, err := s.compile(other)
	if err != nil {
		return nil, true, err
	}
	n, err := s.compile(iv.Expr)
	if err != nil {
		return nil, true, err
	}
	op := "DATE_ADD"
	if e.Operator == sqlparser.MinusStr {
		op = "DATE_SUB"
	}
	x, err := s.dateAdd(op, d, n, strings.ToUpper(iv.Unit), text)
	return x, true, err
}

// likeBinary strips BINARY from either side of LIKE and reports whether it was there: x LIKE
// BINARY p (goqu's Like) and BINARY x LIKE p match case-sensitively.
func likeBinary(e sqlparser.Expr) (sqlparser.Expr, bool) {
	if u, ok := e.(*sqlparser.UnaryExpr); ok && (u.Operator == sqlparser.BinaryStr || u.Operator == sqlparser.UBinaryStr) {
		return u.Expr, true
	}
	return e, false
}

// likeRegexpBinary is likeRegexp matching case: letters are written as themselves.
func likeRegexpBinary(pattern string, escape rune) string {
	var b strings.Builder
	b.WriteString("^(?s:")
	runes := []rune(pattern)
	for i := 0; i < len(runes); i++ {
		c := runes[i]
		switch {
		case c == escape && i+1 < len(runes):
			i++
			b.WriteString(quoteRegexpRune(runes[i]))
		case c == '%':
			b.WriteString(".*")
		case c == '_':
			b.WriteString(".")
		default:
			b.WriteString(quoteRegexpRune(c))
		}
	}
	b.WriteString(")$")
	return b.String()
}

func quoteRegexpRune(c rune) string {
	if strings.ContainsRune(`\.+*?()|[]{}^$`, c) {
		return `\` + string(c)
	}
	return string(c)
}
