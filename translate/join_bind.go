package translate

import (
	"unicode/utf8"

	"github.com/airsql/airsql/formula"
)

// BindBatchChars is the most characters of key conditions written into one request's formula in a
// bind join. A list request whose URL passes 16,000 characters goes as POST …/listRecords (the
// transport does that by itself), so a batch never fails for its length; keeping each batch near
// that size keeps the request a plain GET when its text is mostly ids.
const BindBatchChars = 12000

// Bind is how a step pushes keys into the first table's request (a "bind join"): the step's table
// is read first, its distinct non-NULL key values are written into the first table's formula as
// OR(RECORD_ID()='rec…', …) for ids or OR({Email}='…', …) for fields, and only the matching records
// are read. A linked-record field reads in a formula as its linked records' primary values, not
// their ids, so a link key is pushed as OR(FIND('primary value', {Link}&”), …): a superset (a name
// may be part of another) that the join checks again by id.
type Bind struct {
	Key     int    // the step's key pushed
	Mode    string // "id", "field" or "link"
	Exact   bool   // the formula selects exactly the matching records
	outer   *expr  // the key of the table whose request is narrowed (the first table's; reverse: the step's)
	primary *expr  // Mode link: the primary field of the table the values come from
	// reverse: the values come from the rows so far and narrow the step's table (BindInner).
	reverse bool
	// plan: an IN subquery's Bind narrows this scan (a subquery's subqueries are run by the
	// statement, whose own scan is another).
	plan *Plan
}

// Narrows reports whether an IN subquery's Bind is for this scan.
func (b *Bind) Narrows(plan *Plan) bool { return b.plan == plan }

// Values are what a row of the step's table (reverse: a row so far) contributes to the pushed
// formula (none for NULL); ok
// is false when the row's value cannot be written (a link to a record whose primary value is not
// text): then nothing is pushed.
func (b *Bind) Values(step JoinStep, inner *Row) (vals []any, ok bool, err error) {
	if b.Mode == "link" {
		v, err := b.primary.eval(inner)
		if err != nil {
			return nil, false, err
		}
		s, isText := v.(string)
		if !isText || s == "" {
			return nil, false, nil
		}
		return []any{s}, true, nil
	}
	if b.reverse {
		vals, err = step.Keys[b.Key].OuterValues(inner)
	} else {
		vals, err = step.Keys[b.Key].InnerValues(inner)
	}
	return vals, err == nil, err
}

// Formulas writes distinct values as formulas, each at most about maxChars characters; ok is false
// when a value cannot be written (then the table is scanned instead).
func (b *Bind) Formulas(vals []any, maxChars int) (formulas []string, ok bool) {
	var batch []string
	size := 0
	flush := func() {
		if len(batch) > 0 {
			formulas = append(formulas, fOr(batch...))
			batch, size = nil, 0
		}
	}
	p := &pusher{}
	for _, v := range vals {
		var cond string
		switch b.Mode {
		case "id":
			s, isText := v.(string)
			if !isText || !utf8.ValidString(s) {
				return nil, false
			}
			cond = "RECORD_ID()=" + formula.Quote(s)
		case "link":
			s := v.(string)
			if !utf8.ValidString(s) {
				return nil, false
			}
			cond = "FIND(" + formula.Quote(s) + "," + p.ref(b.outer.field) + "&'')"
		default:
			c := constOf(v)
			if c == nil {
				return nil, false
			}
			pr := p.compare("=", b.outer, c)
			if pr.t == formulaAll || pr.t == "" || !pr.tExact {
				return nil, false
			}
			cond = pr.t
		}
		if size+len(cond) > maxChars {
			flush()
		}
		batch = append(batch, cond)
		size += len(cond) + 1
	}
	flush()
	return formulas, true
}

func constOf(v any) *expr {
	switch x := v.(type) {
	case string:
		return &expr{kind: exConst, typ: typeText, val: x}
	case int64:
		return &expr{kind: exConst, typ: typeInt, val: x}
	case float64:
		return &expr{kind: exConst, typ: typeFloat, val: x}
	}
	return nil
}

// WithFormula is the plan with one more condition ANDed into its formula (a bind join's batch).
func (plan *Plan) WithFormula(f string) *Plan {
	c := *plan
	c.Request.Formula = fAnd(plan.Request.Formula, f)
	if plan.Request.Formula == "" {
		c.Request.Formula = f
	}
	c.Request.MaxRecords = 0
	c.Limit = -1
	return &c
}

// bindFor decides whether step i's keys can be pushed into the first table's request.
func (qp *queryPlanner) bindFor(j *Join, i int) *Bind {
	st := j.Steps[i]
	first := j.Tables[j.Steps[0].Table].Plan
	if i != 1 || st.Kind != "inner" || first.Table.Local || qp.localOnly || first.RecordIDs != nil || first.NoRows {
		return nil
	}
	inner := j.Tables[st.Table].Plan.Table
	for ki, k := range st.Keys {
		o := k.Outer.e
		switch {
		case k.OuterLink:
			linked, _ := o.field.Options["linkedTableId"].(string)
			if linked == "" || linked != inner.ID || k.Inner.e.kind != exRecordID || inner.PrimaryFieldID == "" {
				continue
			}
			for fi := range inner.Fields {
				f := &inner.Fields[fi]
				if f.ID == inner.PrimaryFieldID && fieldInfoOf(f).typ == typeText {
					primary := (&scope{table: inner}).fieldExpr(f)
					primary.tab = st.Table + 1
					return &Bind{Key: ki, Mode: "link", outer: o, primary: primary}
				}
			}
		case o.kind == exRecordID:
			return &Bind{Key: ki, Mode: "id", Exact: true, outer: o}
		case o.kind == exField && (o.typ == typeText || o.typ == typeInt || o.typ == typeFloat) && !o.info.computed:
			return &Bind{Key: ki, Mode: "field", Exact: true, outer: o}
		}
	}
	return nil
}

// bindInnerFor decides whether the keys of the rows so far can be pushed into step i's table's
// request: its key is its record id, a stored text or number field, or a link to the table whose
// id the rows so far hold (pushed as their primary values, a superset).
func (qp *queryPlanner) bindInnerFor(j *Join, i int) *Bind {
	st := j.Steps[i]
	plan := j.Tables[st.Table].Plan
	if st.Group != nil || st.Kind != "inner" && st.Kind != "left" || plan.Table.Local || qp.localOnly || plan.RecordIDs != nil || plan.NoRows {
		return nil
	}
	for ki, k := range st.Keys {
		in, o := k.Inner.e, k.Outer.e
		switch {
		case k.InnerLink:
			if o.kind != exRecordID || o.tab == 0 || k.OuterLink {
				continue
			}
			from := j.Tables[o.tab-1].Plan.Table
			linked, _ := in.field.Options["linkedTableId"].(string)
			if linked == "" || linked != from.ID || from.PrimaryFieldID == "" || from.Local {
				continue
			}
			for fi := range from.Fields {
				f := &from.Fields[fi]
				if f.ID == from.PrimaryFieldID && fieldInfoOf(f).typ == typeText {
					primary := (&scope{table: from}).fieldExpr(f)
					primary.tab = o.tab
					return &Bind{Key: ki, Mode: "link", outer: in, primary: primary, reverse: true}
				}
			}
		case in.kind == exRecordID:
			return &Bind{Key: ki, Mode: "id", Exact: true, outer: in, reverse: true}
		case in.kind == exField && (in.typ == typeText || in.typ == typeInt || in.typ == typeFloat) && !in.info.computed:
			return &Bind{Key: ki, Mode: "field", Exact: true, outer: in, reverse: true}
		}
	}
	return nil
}

// Field is the formula reference of the first table's key ({Email}, {Assignee}, RECORD_ID()).
func (b *Bind) Field() string {
	if b.outer.kind == exRecordID {
		return "RECORD_ID()"
	}
	return (&pusher{}).ref(b.outer.field)
}
