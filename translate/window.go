package translate

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/xwb1989/sqlparser"

	"github.com/airsql/airsql/frontend"
	"github.com/airsql/airsql/sqlvalue"
)

// Window functions planned: each `OVER WINDOW` call that rewriteWindows wrote (parse_window.go)
// becomes a WindowFunc of the Query, computed by the engine's window operator above the grouped
// rows (after GROUP BY and HAVING, before DISTINCT, ORDER BY and LIMIT, where MySQL 8 evaluates
// them). The function's arguments and its window's keys are compiled on the rows that operator
// reads (grouped rows when the query groups, so SUM(SUM(x)) OVER () is a running total of
// groups); its result is read from Row.Window by an exWindow expression.

// WindowFunc is one window function call.
type WindowFunc struct {
	Name string // ROW_NUMBER, RANK, DENSE_RANK, PERCENT_RANK, CUME_DIST, NTILE, LAG, LEAD, FIRST_VALUE, LAST_VALUE, NTH_VALUE, or an aggregate's
	SQL  string
	Spec *WindowSpec // shared by the calls with the same window: its rows are sorted once
	// Args: the value of LAG, LEAD, FIRST_VALUE, LAST_VALUE and NTH_VALUE.
	Args []*Expr
	// Aggregate: an aggregate OVER (…), accumulated over each row's frame.
	Aggregate *Aggregate
	N         int64 // NTILE's buckets, LAG's and LEAD's offset, NTH_VALUE's position
	Default   *Expr // LAG's and LEAD's default (nil: NULL)
}

// UsesFrame reports whether the function reads its window's frame (the ranking functions, LAG and
// LEAD read the whole partition, as in MySQL).
func (f *WindowFunc) UsesFrame() bool {
	return f.Aggregate != nil || f.Name == "FIRST_VALUE" || f.Name == "LAST_VALUE" || f.Name == "NTH_VALUE"
}

// WindowSpec is a window: the partitions, their order, and the frame of each row.
type WindowSpec struct {
	SQL       string // the specification as written, for EXPLAIN
	Partition []*Expr
	Order     []WindowKey
	Frame     Frame

	key      string // the specification's text: windows written alike share one WindowSpec
	name     string // the window's name for messages (MySQL's "<unnamed window>")
	explicit bool   // a frame clause was written
}

// WindowKey is one ORDER BY key of a window.
type WindowKey struct {
	Key  *Expr
	Desc bool
}

// Frame is the rows of a partition a frame-reading function sees for one row. Without a frame
// clause it is MySQL 8's default: with ORDER BY, RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
// (the current row's peers included); without, the whole partition.
type Frame struct {
	Rows       bool // ROWS (positions); else RANGE (order key values, peers together)
	Start, End FrameBound
}

// BoundKind is the kind of a frame bound.
type BoundKind uint8

// The frame bounds, in the order of the rows they stand for.
const (
	UnboundedPreceding BoundKind = iota
	Preceding                    // N PRECEDING
	CurrentRow
	Following // N FOLLOWING
	UnboundedFollowing
)

// FrameBound is one end of a frame.
type FrameBound struct {
	Kind BoundKind
	N    int64 // ROWS: the offset of N PRECEDING/FOLLOWING
	// RANGE: the offset, a number or an interval (for a date or datetime key).
	offset   any
	interval *sqlvalue.Interval
}

// RangeLimit is, for a RANGE frame's N PRECEDING or N FOLLOWING bound, the order key value the
// bound stands at for a row whose key is key (desc: the key is descending): key - N or key + N,
// with dates moved by the interval. nil when key is NULL (the bound is then the NULL peers).
func (b FrameBound) RangeLimit(key any, desc bool) any {
	if key == nil {
		return nil
	}
	sign := int64(1)
	if (b.Kind == Preceding) != desc {
		sign = -1
	}
	if b.interval != nil {
		t, ok := key.(time.Time)
		if !ok {
			return nil
		}
		moved, ok := sqlvalue.AddInterval(t, *b.interval, sign)
		if !ok {
			if sign < 0 {
				return time.Time{} // before year 1: every date is after it
			}
			return time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)
		}
		return moved
	}
	if k, ok := key.(int64); ok {
		if n, ok := b.offset.(int64); ok && math.Abs(float64(k)+float64(sign*n)) < 1<<62 {
			return k + sign*n
		}
	}
	k, _ := sqlvalue.ToFloat(key)
	n, _ := sqlvalue.ToFloat(b.offset)
	return k + float64(sign)*n
}

// isWindowNode reports a window call written by rewriteWindows.
func isWindowNode(e sqlparser.SQLNode) bool {
	f, ok := e.(*sqlparser.FuncExpr)
	return ok && f.Qualifier.IsEmpty() && f.Name.String() == windowCall
}

// windowCallParts splits a window call into its function call and its specification.
func windowCallParts(f *sqlparser.FuncExpr) (sqlparser.Expr, *sqlparser.FuncExpr, bool) {
	if len(f.Exprs) != 3 {
		return nil, nil, false
	}
	fn, ok1 := f.Exprs[0].(*sqlparser.AliasedExpr)
	sp, ok2 := f.Exprs[1].(*sqlparser.AliasedExpr)
	if !ok1 || !ok2 {
		return nil, nil, false
	}
	spec, ok := sp.Expr.(*sqlparser.FuncExpr)
	if !ok || spec.Name.String() != windowSpecCall {
		return nil, nil, false
	}
	return fn.Expr, spec, true
}

// windowFuncName is the upper-case name of a window call's function.
func windowFuncName(fn sqlparser.Expr) string {
	switch f := fn.(type) {
	case *sqlparser.FuncExpr:
		return strings.ToUpper(f.Name.String())
	case *sqlparser.GroupConcatExpr:
		return "GROUP_CONCAT"
	}
	return sqlparser.String(fn)
}

// windowMisuse is MySQL's error 3593 for a window function where none may be.
func windowMisuse(e sqlparser.Expr) error {
	name := "?"
	if f, ok := e.(*sqlparser.FuncExpr); ok {
		if fn, _, ok := windowCallParts(f); ok {
			name = strings.ToLower(windowFuncName(fn))
		}
	}
	return windowErrorf(3593, "You cannot use the window function '%s' in this context.' (window functions are computed after WHERE, GROUP BY and HAVING: filter on one in an outer query, SELECT * FROM (SELECT …, f() OVER (…) AS x FROM t) d WHERE x …)", name)
}

// window compiles a window call met in the select list or ORDER BY into a read of its result.
func (qp *queryPlanner) window(node *sqlparser.FuncExpr) (*expr, error) {
	switch {
	case qp.windowSpecDepth > 0:
		return nil, windowErrorf(3595, "You cannot nest a window function in the specification of window '%s'.", qp.windowName)
	case qp.clause != "SELECT list" && qp.clause != "ORDER BY clause":
		return nil, windowMisuse(node)
	}
	fnNode, specNode, ok := windowCallParts(node)
	if !ok {
		return nil, fmt.Errorf("translate: cannot read the window call %s", sqlString(node))
	}
	text := exprText(node)
	if qp.windowText == nil {
		qp.windowText = map[string]int{}
	}
	if i, ok := qp.windowText[text]; ok {
		return qp.windowRead(i), nil
	}
	spec, err := qp.windowSpec(specNode)
	if err != nil {
		return nil, err
	}
	wf := &WindowFunc{Name: windowFuncName(fnNode), SQL: sqlString(node), Spec: spec}
	// The arguments are compiled on the window's input rows; a window function inside one is
	// MySQL's 3593.
	clause := qp.clause
	qp.clause = "window function argument"
	defer func() { qp.clause = clause }()
	typ, nullable, err := qp.windowFunction(wf, fnNode)
	if err != nil {
		return nil, err
	}
	// MySQL checks a window's frame whatever the function (ROW_NUMBER ignores it, but its window
	// must still be valid).
	if err := qp.checkFrame(spec); err != nil {
		return nil, err
	}
	qp.windowText[text] = len(qp.windows)
	qp.windows = append(qp.windows, wf)
	qp.windowTypes = append(qp.windowTypes, windowType{typ, nullable})
	return qp.windowRead(len(qp.windows) - 1), nil
}

type windowType struct {
	typ      sqlType
	nullable bool
}

func (qp *queryPlanner) windowRead(i int) *expr {
	t := qp.windowTypes[i]
	return &expr{kind: exWindow, slot: i, typ: t.typ, nullable: t.nullable, sql: qp.windows[i].SQL}
}

// windowFunction compiles the function of a window call; it returns the result's type.
func (qp *queryPlanner) windowFunction(wf *WindowFunc, fnNode sqlparser.Expr) (sqlType, bool, error) {
	f, isFunc := fnNode.(*sqlparser.FuncExpr)
	if !isFunc || !f.Qualifier.IsEmpty() {
		return 0, false, unsupported(wf.Name+" as a window function", wf.SQL, "window functions: ROW_NUMBER, RANK, DENSE_RANK, PERCENT_RANK, CUME_DIST, NTILE, LAG, LEAD, FIRST_VALUE, LAST_VALUE, NTH_VALUE and the aggregates")
	}
	if isAggregateFunc(f) {
		if f.Distinct {
			return 0, false, windowErrorf(1235, "This version of MySQL doesn't yet support '<window function>(DISTINCT ..)': %s", wf.SQL)
		}
		a, nullable, err := qp.newAggregate(f, qp.s.hook)
		if err != nil {
			return 0, false, err
		}
		wf.Aggregate = a
		return a.typ, nullable, nil
	}
	args, err := qp.windowArgs(wf, f)
	if err != nil {
		return 0, false, err
	}
	switch wf.Name {
	case "ROW_NUMBER", "RANK", "DENSE_RANK":
		return typeInt, false, windowArity(wf, args, 0, 0)
	case "PERCENT_RANK", "CUME_DIST":
		return typeFloat, false, windowArity(wf, args, 0, 0)
	case "NTILE":
		if err := windowArity(wf, args, 1, 1); err != nil {
			return 0, false, err
		}
		n, err := windowConstInt(wf, args[0], 1)
		wf.N = n
		return typeInt, false, err
	case "LAG", "LEAD":
		return qp.lagLead(wf, f, args)
	case "FIRST_VALUE", "LAST_VALUE":
		if err := windowArity(wf, args, 1, 1); err != nil {
			return 0, false, err
		}
		wf.Args = []*Expr{wrap(args[0])}
		return valueType(args[0].typ), true, nil
	case "NTH_VALUE":
		if err := windowArity(wf, args, 2, 2); err != nil {
			return 0, false, err
		}
		n, err := windowConstInt(wf, args[1], 1)
		wf.Args, wf.N = []*Expr{wrap(args[0])}, n
		return valueType(args[0].typ), true, err
	}
	return 0, false, unsupported(wf.Name+" as a window function", wf.SQL, "window functions: ROW_NUMBER, RANK, DENSE_RANK, PERCENT_RANK, CUME_DIST, NTILE, LAG, LEAD, FIRST_VALUE, LAST_VALUE, NTH_VALUE and the aggregates")
}

// windowArgs compiles the arguments of a window function.
func (qp *queryPlanner) windowArgs(wf *WindowFunc, f *sqlparser.FuncExpr) ([]*expr, error) {
	args := make([]*expr, 0, len(f.Exprs))
	for _, se := range f.Exprs {
		ae, ok := se.(*sqlparser.AliasedExpr)
		if !ok {
			return nil, fmt.Errorf("translate: %s: cannot read the argument %s", wf.SQL, sqlparser.String(se))
		}
		x, err := qp.s.compile(ae.Expr)
		if err != nil {
			return nil, err
		}
		args = append(args, x)
	}
	return args, nil
}

// windowArity checks the number of a window function's arguments.
func windowArity(wf *WindowFunc, args []*expr, lo, hi int) error {
	if len(args) < lo || len(args) > hi {
		return fmt.Errorf("translate: incorrect parameter count in the call to native function '%s' (%s)", wf.Name, wf.SQL)
	}
	return nil
}

// windowConstInt reads an argument that MySQL takes as a constant integer (NTILE's, LAG's offset).
func windowConstInt(wf *WindowFunc, x *expr, min int64) (int64, error) {
	n, ok := x.val.(int64)
	if f, isFloat := x.val.(float64); isFloat && f == math.Trunc(f) {
		n, ok = int64(f), true
	}
	if x.kind != exConst || !ok || n < min {
		return 0, fmt.Errorf("translate: incorrect arguments to %s: %s needs a constant integer of at least %d (MySQL error 1210)", strings.ToLower(wf.Name), wf.SQL, min)
	}
	return n, nil
}

// lagLead compiles LAG and LEAD (x[, offset[, default]]): x and the default unified, a date and a
// text default both text.
func (qp *queryPlanner) lagLead(wf *WindowFunc, f *sqlparser.FuncExpr, args []*expr) (sqlType, bool, error) {
	if err := windowArity(wf, args, 1, 3); err != nil {
		return 0, false, err
	}
	wf.Args, wf.N = []*Expr{wrap(args[0])}, 1
	if len(args) > 1 {
		n, err := windowConstInt(wf, args[1], 0)
		if err != nil {
			return 0, false, err
		}
		wf.N = n
	}
	typ := args[0].typ
	if len(args) > 2 {
		typ = sqlvalue.Unify(args[0].typ, args[2].typ)
		if typ == typeText {
			// A date and a text default are text, the date written as MySQL writes it
			// (a DATETIME(3) field with its .000).
			for _, k := range []int{0, 2} {
				if args[k].typ != typeText && args[k].typ != typeNull {
					c, err := qp.s.callRegistered(libraryFunc("CAST CHAR"), "CAST CHAR", "CAST", []*expr{args[k]}, sqlString(f), sqlvalue.CastTarget{Length: -1})
					if err != nil {
						return 0, false, err
					}
					args[k] = c
				}
			}
			wf.Args = []*Expr{wrap(args[0])}
		}
		wf.Default = wrap(args[2])
	}
	return valueType(typ), true, nil
}

// valueType is the type of a value passed on by a window function, MIN, MAX or a unary minus: a
// checkbox's or a condition's bool is a BIGINT.
func valueType(t sqlType) sqlType {
	if t == typeBool || t == typeCond {
		return typeInt
	}
	return t
}

// windowSpec compiles a window's specification; windows written alike share one WindowSpec.
func (qp *queryPlanner) windowSpec(node *sqlparser.FuncExpr) (*WindowSpec, error) {
	text := exprText(node)
	for _, w := range qp.windows {
		if w.Spec.key == text {
			return w.Spec, nil
		}
	}
	spec := &WindowSpec{key: text}
	name := "<unnamed window>"
	if len(node.Exprs) > 0 {
		if ae, ok := node.Exprs[0].(*sqlparser.AliasedExpr); ok {
			if v, ok := ae.Expr.(*sqlparser.SQLVal); ok && len(v.Val) > 0 {
				name = string(v.Val)
			}
		}
	}
	qp.windowSpecDepth++
	qp.windowName = name
	defer func() { qp.windowSpecDepth-- }()
	var frame *sqlparser.FuncExpr
	for _, se := range node.Exprs[1:] {
		part, ok := se.(*sqlparser.AliasedExpr).Expr.(*sqlparser.FuncExpr)
		if !ok {
			return nil, fmt.Errorf("translate: cannot read the window %s", sqlString(node))
		}
		switch part.Name.String() {
		case windowPartition:
			for _, p := range part.Exprs {
				x, err := qp.s.compile(p.(*sqlparser.AliasedExpr).Expr)
				if err != nil {
					return nil, err
				}
				spec.Partition = append(spec.Partition, wrap(x))
			}
		case windowOrder:
			for _, p := range part.Exprs {
				k := p.(*sqlparser.AliasedExpr).Expr
				desc := false
				if d, ok := k.(*sqlparser.FuncExpr); ok && d.Name.String() == windowDescKey && len(d.Exprs) == 1 {
					k, desc = d.Exprs[0].(*sqlparser.AliasedExpr).Expr, true
				}
				x, err := qp.s.compile(k)
				if err != nil {
					return nil, err
				}
				spec.Order = append(spec.Order, WindowKey{Key: wrap(x), Desc: desc})
			}
		case windowRows, windowRange:
			frame = part
		}
	}
	spec.name = name
	spec.SQL = windowSpecSQL(node)
	if frame == nil {
		spec.Frame = Frame{Start: FrameBound{Kind: UnboundedPreceding}, End: FrameBound{Kind: UnboundedFollowing}}
		if len(spec.Order) > 0 {
			spec.Frame.End = FrameBound{Kind: CurrentRow}
		}
		return spec, nil
	}
	spec.Frame.Rows = frame.Name.String() == windowRows
	spec.explicit = true
	for i, se := range frame.Exprs {
		b := se.(*sqlparser.AliasedExpr).Expr.(*sqlparser.FuncExpr)
		bound, err := qp.frameBound(spec, b)
		if err != nil {
			return nil, err
		}
		if i == 0 {
			spec.Frame.Start = bound
		} else {
			spec.Frame.End = bound
		}
	}
	return spec, nil
}

// frameBound compiles one bound of a frame, with MySQL's checks of its offset.
func (qp *queryPlanner) frameBound(spec *WindowSpec, b *sqlparser.FuncExpr) (FrameBound, error) {
	var fb FrameBound
	switch b.Name.String() {
	case boundUnbPrec:
		return FrameBound{Kind: UnboundedPreceding}, nil
	case boundUnbFoll:
		return FrameBound{Kind: UnboundedFollowing}, nil
	case boundCurrent:
		return FrameBound{Kind: CurrentRow}, nil
	case boundPreceding:
		fb.Kind = Preceding
	default:
		fb.Kind = Following
	}
	off := b.Exprs[0].(*sqlparser.AliasedExpr).Expr
	illegal := windowErrorf(3586, "Window '%s': frame start or end is negative, NULL or of non-integral type", spec.name)
	if iv, ok := off.(*sqlparser.IntervalExpr); ok {
		if spec.Frame.Rows {
			return fb, windowErrorf(3596, "Window '%s': INTERVAL can only be used with RANGE frames.", spec.name)
		}
		n, err := qp.s.compile(iv.Expr)
		if err != nil {
			return fb, err
		}
		if n.kind != exConst {
			return fb, windowErrorf(3590, "Window '%s' has a non-constant frame bound.", spec.name)
		}
		unit := strings.ToUpper(iv.Unit)
		parsed, ok := sqlvalue.ParseInterval(n.val, unit)
		if n.val == nil || !ok || parsed.Months < 0 || parsed.Micros < 0 {
			return fb, illegal
		}
		fb.interval = &parsed
		return fb, nil
	}
	n, err := qp.s.compile(off)
	if err != nil {
		return fb, err
	}
	if n.kind != exConst {
		return fb, windowErrorf(3590, "Window '%s' has a non-constant frame bound.", spec.name)
	}
	switch v := n.val.(type) {
	case int64:
		if v < 0 {
			return fb, illegal
		}
		fb.N, fb.offset = v, v
	case float64:
		if v < 0 || spec.Frame.Rows && v != math.Trunc(v) {
			return fb, illegal
		}
		fb.N, fb.offset = int64(v), v
	default:
		return fb, illegal
	}
	return fb, nil
}

// checkFrame applies MySQL's rules to the frame of a window that a function reads.
func (qp *queryPlanner) checkFrame(spec *WindowSpec) error {
	if !spec.explicit {
		return nil
	}
	f := spec.Frame
	switch {
	case f.Start.Kind == UnboundedFollowing:
		return windowErrorf(3584, "Window '%s': frame start cannot be UNBOUNDED FOLLOWING.", spec.name)
	case f.End.Kind == UnboundedPreceding:
		return windowErrorf(3585, "Window '%s': frame end cannot be UNBOUNDED PRECEDING.", spec.name)
	}
	if f.Rows {
		return nil
	}
	for _, b := range []FrameBound{f.Start, f.End} {
		if b.Kind != Preceding && b.Kind != Following {
			continue
		}
		if len(spec.Order) != 1 {
			return windowErrorf(3587, "Window '%s' with RANGE N PRECEDING/FOLLOWING frame requires exactly one ORDER BY expression, of numeric or temporal type", spec.name)
		}
		t := spec.Order[0].Key.e.typ
		switch {
		case t.Temporal() && b.interval == nil:
			return windowErrorf(3588, "Window '%s' with RANGE frame has ORDER BY expression of datetime type. Only INTERVAL bound value allowed.", spec.name)
		case t.Numeric() && b.interval != nil:
			return windowErrorf(3589, "Window '%s' with RANGE frame has ORDER BY expression of numeric type, INTERVAL bound value not allowed.", spec.name)
		case !t.Numeric() && !t.Temporal() && t != typeNull:
			return windowErrorf(3587, "Window '%s' with RANGE N PRECEDING/FOLLOWING frame requires exactly one ORDER BY expression, of numeric or temporal type", spec.name)
		}
	}
	return nil
}

// windowInputs are the expressions the window operator evaluates on its input rows, for the
// fields a scan must return.
func (qp *queryPlanner) windowInputs() []*expr {
	var out []*expr
	seen := map[*WindowSpec]bool{}
	for _, w := range qp.windows {
		for _, a := range w.Args {
			out = append(out, a.e)
		}
		if w.Default != nil {
			out = append(out, w.Default.e)
		}
		if a := w.Aggregate; a != nil {
			out = append(out, a.args...)
		}
		if !seen[w.Spec] {
			seen[w.Spec] = true
			for _, p := range w.Spec.Partition {
				out = append(out, p.e)
			}
			for _, k := range w.Spec.Order {
				out = append(out, k.Key.e)
			}
		}
	}
	return out
}

// windowSpecSQL writes a window specification in its SQL form.
func windowSpecSQL(node *sqlparser.FuncExpr) string {
	buf := sqlparser.NewTrackedBuffer(formatRewritten)
	formatWindowSpec(buf, node)
	return buf.String()
}

// formatWindowCall writes a window call as SQL, as it was written (the column name of an
// unaliased call).
func formatWindowCall(buf *sqlparser.TrackedBuffer, f *sqlparser.FuncExpr) bool {
	fn, spec, ok := windowCallParts(f)
	if !ok {
		return false
	}
	if ae, ok := f.Exprs[2].(*sqlparser.AliasedExpr); ok {
		if v, ok := ae.Expr.(*sqlparser.SQLVal); ok && v.Type == sqlparser.StrVal {
			buf.Myprintf("%s", string(v.Val)) // as written
			return true
		}
	}
	buf.Myprintf("%v OVER (", fn)
	formatWindowSpec(buf, spec)
	buf.Myprintf(")")
	return true
}

func formatWindowSpec(buf *sqlparser.TrackedBuffer, spec *sqlparser.FuncExpr) {
	sep := ""
	for _, se := range spec.Exprs[1:] {
		part, ok := se.(*sqlparser.AliasedExpr).Expr.(*sqlparser.FuncExpr)
		if !ok {
			continue
		}
		buf.Myprintf("%s", sep)
		sep = " "
		switch name := part.Name.String(); name {
		case windowPartition:
			buf.Myprintf("PARTITION BY %v", part.Exprs)
		case windowOrder:
			buf.Myprintf("ORDER BY ")
			for i, k := range part.Exprs {
				if i > 0 {
					buf.Myprintf(", ")
				}
				x := k.(*sqlparser.AliasedExpr).Expr
				if d, ok := x.(*sqlparser.FuncExpr); ok && d.Name.String() == windowDescKey && len(d.Exprs) == 1 {
					buf.Myprintf("%v DESC", d.Exprs[0])
				} else {
					buf.Myprintf("%v", x)
				}
			}
		case windowRows, windowRange:
			unit := "ROWS"
			if name == windowRange {
				unit = "RANGE"
			}
			buf.Myprintf("%s BETWEEN ", unit)
			for i, b := range part.Exprs {
				if i > 0 {
					buf.Myprintf(" AND ")
				}
				bf := b.(*sqlparser.AliasedExpr).Expr.(*sqlparser.FuncExpr)
				switch bn := bf.Name.String(); bn {
				case boundPreceding, boundFollowing:
					buf.Myprintf("%v %s", bf.Exprs[0], strings.TrimPrefix(bn, "N "))
				default:
					buf.Myprintf("%s", bn)
				}
			}
		}
	}
}

// The calls the front end's window rewrite writes (frontend/parse_window.go), read back here.
const (
	windowCall      = frontend.WindowCall
	windowSpecCall  = frontend.WindowSpecCall
	windowPartition = frontend.WindowPartition
	windowOrder     = frontend.WindowOrder
	windowDescKey   = frontend.WindowDescKey
	windowRows      = frontend.WindowRows
	windowRange     = frontend.WindowRange
	boundUnbPrec    = frontend.BoundUnbPrec
	boundUnbFoll    = frontend.BoundUnbFoll
	boundCurrent    = frontend.BoundCurrent
	boundPreceding  = frontend.BoundPreceding
	boundFollowing  = frontend.BoundFollowing
)

// WindowError is a misuse of window functions that MySQL refuses with its own error number; the
// front end raises the ones it finds while reading the statement, the planner the rest.
type WindowError = frontend.WindowError

func windowErrorf(code int, format string, args ...any) error {
	return &WindowError{Code: code, Message: fmt.Sprintf(format, args...)}
}
