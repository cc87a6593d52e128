package translate

// Exact ORDER BY pushdown on a column that can be NULL.
//
// The service orders the non-blank values of a number or date field as SQL does, but where it
// puts blanks is not something to rely on. So a plan whose first ORDER BY key can be NULL is split
// into two requests, each exact: the rows whose key is not blank, sorted by every key, and the
// rows whose key is blank, sorted by the other keys (within the blanks the first key ties). MySQL
// puts NULLs first ascending and last descending, so the blank rows are read first or last; both
// requests carry maxRecords = LIMIT, and the second is sent only when the first has not reached
// it (with maxRecords lowered to what is left). WHERE Shipped = TRUE ORDER BY Price DESC LIMIT 3
// is then one request of 3 records when 3 priced rows exist, instead of reading the table.
//
// Text keys are not split: the service's order of text (case, accents) is not SQL's code-point
// order, so they stay sorted locally, as EXPLAIN says.

// Split is the second request of a plan whose first sort key can be NULL: the rows where it is
// NULL (blank), sorted by the other keys.
type Split struct {
	Blanks      Request // the rows whose first key is blank; MaxRecords as Request's
	BlanksFirst bool    // ascending: the blank rows come before Request's rows
}

// splitOrder tries the split for the order keys; it reports whether the plan's requests are now
// Request (non-blank rows) and Split.Blanks. Only when the WHERE clause was pushed exactly (so
// the requests' records are the SQL rows) and the blank guard pushes exactly too.
func (plan *Plan) splitOrder(sorts []Sort) bool {
	if !plan.Exact || plan.RecordIDs != nil || plan.NoRows || len(plan.order) == 0 {
		return false
	}
	if plan.Limit < 0 {
		// Without LIMIT every row is read anyway: one request and a local sort cost a request
		// less than two requests (and the blank rows' listing would always be sent).
		return false
	}
	first := plan.order[0].e
	isNull := (&pusher{}).condition(&expr{kind: exIsNull, typ: typeCond, args: []*expr{first}})
	if !isNull.tExact || !isNull.fExact || isNull.t == formulaAll || isNull.f == formulaAll {
		return false
	}
	where := plan.Request.Formula
	plan.Split = &Split{
		Blanks:      Request{View: plan.Request.View, Formula: fAnd(where, isNull.t), Sort: sorts[1:]},
		BlanksFirst: !plan.order[0].desc,
	}
	plan.Request.Formula = fAnd(where, isNull.f)
	plan.Request.Sort = sorts
	return true
}

// finishSplit gives the blank rows' request the fields and maxRecords of the main one.
func (plan *Plan) finishSplit() {
	if plan.Split == nil {
		return
	}
	plan.Split.Blanks.Fields = plan.Request.Fields
	plan.Split.Blanks.MaxRecords = plan.Request.MaxRecords
}
