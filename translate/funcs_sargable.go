package translate

import (
	"time"

	"github.com/airsql/airsql/sqlvalue"
)

// dateRanges rewrites, for the formula only, the comparisons of DATE(x) with a constant date into
// ranges on x itself, which the service compares exactly: WHERE DATE(createdTime) = CURDATE() is
// then one request for today's records instead of a scan of the table checked locally. The
// rewriting keeps SQL's value, NULLs included (DATE(NULL) is NULL, and so is a comparison of NULL),
// so the local check (Keep) reads the original expression.
func dateRanges(e *expr) *expr {
	switch e.kind {
	case exAnd, exOr, exNot, exIsTrue:
		var args []*expr
		for i, a := range e.args {
			r := dateRanges(a)
			if r != a && args == nil {
				args = append([]*expr(nil), e.args...)
			}
			if args != nil {
				args[i] = r
			}
		}
		if args == nil {
			return e
		}
		out := *e
		out.args = args
		return &out
	case exCompare:
		return dateRange(e)
	case exIn:
		// DATE(x) IN (day, …): one range per day (NOT IN: none of them).
		var ranges []*expr
		for _, item := range e.args[1:] {
			r := dateRange(&expr{kind: exCompare, typ: typeCond, op: "=", nullable: true, args: []*expr{e.args[0], item}})
			if r.kind == exCompare {
				return e // not a constant day
			}
			ranges = append(ranges, r)
		}
		in := &expr{kind: exOr, typ: typeCond, nullable: true, args: ranges}
		if e.negated {
			return &expr{kind: exNot, typ: typeCond, nullable: true, args: []*expr{in}}
		}
		return in
	}
	return e
}

// dateRange rewrites DATE(x) op day, or day op DATE(x), with day a constant date (midnight).
func dateRange(e *expr) *expr {
	op, call, day := e.op, e.args[0], e.args[1]
	if call.kind != exFunc {
		call, day = day, call
		op = map[string]string{"=": "=", "<>": "<>", "<": ">", "<=": ">=", ">": "<", ">=": "<="}[op]
	}
	if call.kind != exFunc || call.op != "DATE" || len(call.args) != 1 || day.kind != exConst {
		return e
	}
	x := call.args[0]
	d, ok := day.val.(time.Time)
	if !ok || !x.typ.Temporal() || !d.Equal(d.Truncate(24*time.Hour)) {
		return e
	}
	next, ok := sqlvalue.AddInterval(d, sqlvalue.Interval{Micros: 86400_000_000}, 1)
	if !ok {
		return e
	}
	at := func(t time.Time) *expr {
		return &expr{kind: exConst, typ: x.typ, val: t, sql: sqlvalue.Format(t, typeDate)}
	}
	cmp := func(op string, t time.Time) *expr {
		return &expr{kind: exCompare, typ: typeCond, op: op, nullable: true, args: []*expr{x, at(t)}}
	}
	switch op {
	case "=": // d <= x < d+1
		return &expr{kind: exAnd, typ: typeCond, nullable: true, args: []*expr{cmp(">=", d), cmp("<", next)}}
	case "<>":
		return &expr{kind: exOr, typ: typeCond, nullable: true, args: []*expr{cmp("<", d), cmp(">=", next)}}
	case "<":
		return cmp("<", d)
	case "<=":
		return cmp("<", next)
	case ">":
		return cmp(">=", next)
	case ">=":
		return cmp(">=", d)
	}
	return e
}
