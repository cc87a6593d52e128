package translate

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/xwb1989/sqlparser"
)

// Select translates a SELECT on one table into a Plan. What it cannot run exactly it refuses with an
// error naming the construct.
func Select(stmt *sqlparser.Select, schema Schema, args Args) (*Plan, error) {
	if stmt == nil {
		return nil, fmt.Errorf("translate: no SELECT statement")
	}
	switch {
	case stmt.Distinct != "":
		return nil, unsupported("SELECT DISTINCT", "", "select the columns and drop the duplicates in Go")
	case len(stmt.GroupBy) > 0:
		return nil, unsupported("GROUP BY", sqlparser.String(stmt.GroupBy), hintAggregate)
	case stmt.Having != nil:
		return nil, unsupported("HAVING", sqlparser.String(stmt.Having), hintAggregate)
	case stmt.Lock != "":
		return nil, unsupported("locking reads ("+strings.TrimSpace(stmt.Lock)+")", "", "Airtable has no transactions or locks: leave the lock clause out")
	}
	table, alias, view, err := fromClause(stmt.From, schema)
	if err != nil {
		return nil, err
	}
	s := newScope(table, alias, args)
	plan := &Plan{Table: table, Limit: -1, Request: Request{View: view}}

	// The select list.
	output := map[string]*expr{} // output names and aliases, for ORDER BY
	var countOf *expr
	for _, se := range stmt.SelectExprs {
		switch se := se.(type) {
		case *sqlparser.StarExpr:
			if q := se.TableName; !q.IsEmpty() && q.Name.String() != alias && q.Name.String() != table.Name {
				return nil, &UnsupportedError{Construct: "JOIN", SQL: sqlparser.String(se),
					Hint: fmt.Sprintf("it names a table other than %q; %s", alias, hintJoin)}
			}
			for _, e := range s.star() {
				plan.outputs = append(plan.outputs, e)
				plan.Columns = append(plan.Columns, columnFor(e.sql, e))
				output[strings.ToLower(e.sql)] = e
			}
		case *sqlparser.AliasedExpr:
			if f, ok := se.Expr.(*sqlparser.FuncExpr); ok && strings.EqualFold(f.Name.String(), "count") {
				if len(stmt.SelectExprs) != 1 {
					return nil, unsupported("COUNT together with other columns", "", "run SELECT COUNT(*) on its own, or count the selected rows in Go")
				}
				if countOf, err = s.countArg(f); err != nil {
					return nil, err
				}
				name := sqlparser.String(f)
				if !se.As.IsEmpty() {
					name = se.As.String()
				}
				if label, ok := s.args.Labels[se]; ok {
					name = label
				}
				plan.Count = true
				plan.Columns = []Column{{Name: name, DatabaseType: "INT64", ScanType: scanType(typeInt, false)}}
				continue
			}
			e, err := s.compile(se.Expr)
			if err != nil {
				return nil, err
			}
			name := columnName(se.Expr, e)
			if !se.As.IsEmpty() {
				name = se.As.String()
			}
			plan.outputs = append(plan.outputs, e)
			output[strings.ToLower(name)] = e
			if label, ok := s.args.Labels[se]; ok {
				name = label
			}
			plan.Columns = append(plan.Columns, columnFor(name, e))
		default:
			return nil, unsupported(sqlparser.String(se)+" in the select list", "", "select *, columns or expressions")
		}
	}

	// WHERE.
	if stmt.Where != nil {
		if plan.where, err = s.condition(stmt.Where.Expr); err != nil {
			return nil, err
		}
	}
	if countOf != nil {
		notNull := &expr{kind: exIsNull, typ: typeBool, negated: true, args: []*expr{countOf}}
		if plan.where == nil {
			plan.where = notNull
		} else {
			plan.where = &expr{kind: exAnd, typ: typeBool, nullable: true, args: []*expr{plan.where, notNull}}
		}
	}

	// ORDER BY.
	for _, o := range stmt.OrderBy {
		e, err := s.orderKey(o.Expr, plan.outputs, output)
		if err != nil {
			return nil, err
		}
		desc := o.Direction == sqlparser.DescScr
		plan.order = append(plan.order, orderKey{e: e, desc: desc})
		plan.Order = append(plan.Order, Order{Column: e.sql, Desc: desc})
	}

	// LIMIT.
	if stmt.Limit != nil {
		if stmt.Limit.Offset != nil && !isZeroLiteral(stmt.Limit.Offset) {
			return nil, unsupported("OFFSET", "", "page with WHERE on an ordered column (WHERE Priority > ? ORDER BY Priority LIMIT n), or skip the rows in Go")
		}
		n, err := s.limit(stmt.Limit.Rowcount)
		if err != nil {
			return nil, err
		}
		plan.Limit = n
	}

	if args.LocalOnly {
		plan.Exact = plan.where == nil
		plan.SortLocally = len(plan.order) > 0
		plan.Request.Fields = plan.neededFields()
		if err := s.unusedArgs(); err != nil {
			return nil, err
		}
		return plan, nil
	}
	plan.pushWhere(&pusher{})
	plan.pushOrder()
	if plan.Limit >= 0 && plan.Exact && !plan.SortLocally && plan.RecordIDs == nil && !plan.Count {
		plan.Request.MaxRecords = plan.Limit
	}
	plan.Request.Fields = plan.neededFields()
	plan.finishSplit()
	if err := s.unusedArgs(); err != nil {
		return nil, err
	}
	return plan, nil
}

// fromClause resolves FROM: one table, by name or id, with an optional view as USE INDEX (`view`).
func fromClause(from sqlparser.TableExprs, schema Schema) (*Table, string, string, error) {
	if len(from) != 1 {
		return nil, "", "", unsupported("JOIN (more than one table in FROM)", sqlparser.String(from), hintJoin)
	}
	var ate *sqlparser.AliasedTableExpr
	switch te := from[0].(type) {
	case *sqlparser.AliasedTableExpr:
		ate = te
	case *sqlparser.JoinTableExpr:
		return nil, "", "", unsupported("JOIN", sqlparser.String(te), hintJoin)
	case *sqlparser.ParenTableExpr:
		return nil, "", "", unsupported("parenthesised table expressions", sqlparser.String(te), "name one table in FROM")
	default:
		return nil, "", "", unsupported("the FROM clause", sqlparser.String(te), "name one table in FROM")
	}
	tn, ok := ate.Expr.(sqlparser.TableName)
	if !ok {
		return nil, "", "", unsupported("a subquery in FROM", sqlparser.String(ate.Expr), "name the table itself in FROM")
	}
	table, err := lookupTable(tn, schema)
	if err != nil {
		return nil, "", "", err
	}
	alias := table.Name
	if !ate.As.IsEmpty() {
		alias = ate.As.String()
	} else {
		alias = tn.Name.String()
	}
	if len(ate.Partitions) > 0 {
		return nil, "", "", unsupported("PARTITION", "", "Airtable tables have no partitions; to read part of a table, use WHERE or a view: FROM t USE INDEX (`view`)")
	}
	var view string
	if h := ate.Hints; h != nil {
		if h.Type == sqlparser.IgnoreStr || len(h.Indexes) != 1 {
			return nil, "", "", fmt.Errorf("translate: read through a view with USE INDEX (`view name`), one view; got %s", sqlparser.String(h))
		}
		name := h.Indexes[0].String()
		found := false
		var names []string
		for _, v := range table.Views {
			names = append(names, v.Name)
			if v.Name == name || v.ID == name {
				view, found = v.Name, true
				if v.ID != "" && v.ID == name {
					view = v.ID
				}
				break
			}
		}
		if !found {
			return nil, "", "", fmt.Errorf("translate: table %q has no view %q (its views: %s)", table.Name, name, strings.Join(names, ", "))
		}
	}
	return table, alias, view, nil
}

func lookupTable(tn sqlparser.TableName, schema Schema) (*Table, error) {
	if !tn.Qualifier.IsEmpty() {
		return nil, unsupported("a database-qualified table name", sqlparser.String(tn), "the base is the DSN's: name the table alone")
	}
	name := tn.Name.String()
	table, ok := schema.Table(name)
	if (!ok || table == nil) && strings.EqualFold(name, "dual") {
		return nil, unsupported("a statement without a table", "", "name one in FROM")
	}
	if !ok || table == nil {
		return nil, unknownTablef("%q in the base (SHOW TABLES lists them)", name)
	}
	return table, nil
}

// star is SELECT *: id, the fields in schema order, then createdTime; a field named id or
// createdTime takes the place of the pseudo-column (RECORD_ID() and CREATED_TIME() still reach the
// record's own).
func (s *scope) star() []*expr {
	if s.table.Derived != nil {
		return derivedStar(s.table)
	}
	var out []*expr
	has := map[string]bool{}
	for i := range s.table.Fields {
		has[strings.ToLower(s.table.Fields[i].Name)] = true
	}
	local := s.table.Local // an in-memory table has its columns only, no record id or createdTime
	if !has["id"] && !local {
		out = append(out, &expr{kind: exRecordID, typ: typeText, sql: "id"})
	}
	for i := range s.table.Fields {
		out = append(out, s.fieldExpr(&s.table.Fields[i]))
	}
	if !has["createdtime"] && !local {
		out = append(out, &expr{kind: exCreatedTime, typ: typeDateTime, sql: "createdTime"})
	}
	return out
}

// countArg reads COUNT(*) (nil) or COUNT(column).
func (s *scope) countArg(f *sqlparser.FuncExpr) (*expr, error) {
	if f.Distinct {
		return nil, unsupported("COUNT(DISTINCT …)", sqlparser.String(f), "select the column and count the distinct values in Go")
	}
	if len(f.Exprs) != 1 {
		return nil, fmt.Errorf("translate: %s: COUNT takes one argument", sqlparser.String(f))
	}
	switch a := f.Exprs[0].(type) {
	case *sqlparser.StarExpr:
		return nil, nil
	case *sqlparser.AliasedExpr:
		e, err := s.compile(a.Expr)
		if err != nil {
			return nil, err
		}
		if e.kind == exConst {
			if e.val == nil {
				return &expr{kind: exConst, typ: typeNull, nullable: true}, nil
			}
			return nil, nil // COUNT(1)
		}
		return e, nil
	}
	return nil, unsupported(sqlparser.String(f), "", "write COUNT(*) or COUNT(column)")
}

// columnName is the output name of an unaliased expression: a column's own name, else the SQL text.
func columnName(src sqlparser.Expr, e *expr) string {
	if _, ok := src.(*sqlparser.ColName); ok {
		if e.tab > 0 { // a column of a join is named as its field, without the table (as in MySQL)
			switch e.kind {
			case exField:
				return e.field.Name
			case exRecordID:
				return "id"
			case exCreatedTime:
				return "createdTime"
			}
		}
		return e.sql
	}
	return sqlString(src)
}

// orderKey resolves an ORDER BY key: a column, an output alias or position naming a column.
func (s *scope) orderKey(key sqlparser.Expr, outputs []*expr, aliases map[string]*expr) (*expr, error) {
	var e *expr
	switch k := key.(type) {
	case *sqlparser.ColName:
		if k.Qualifier.IsEmpty() {
			if a, ok := aliases[strings.ToLower(k.Name.String())]; ok {
				e = a
				break
			}
		}
		c, err := s.compile(k)
		if err != nil {
			return nil, err
		}
		e = c
	case *sqlparser.SQLVal:
		if k.Type == sqlparser.IntVal {
			n, err := strconv.Atoi(string(k.Val))
			if err != nil || n < 1 || n > len(outputs) {
				return nil, fmt.Errorf("translate: ORDER BY %s: there is no output column %s", k.Val, k.Val)
			}
			e = outputs[n-1]
			break
		}
		return nil, unsupported("ORDER BY on an expression", sqlparser.String(key), "order by a column, or select the rows and sort them in Go")
	default:
		return nil, unsupported("ORDER BY on an expression", sqlparser.String(key), "order by a column, or select the rows and sort them in Go")
	}
	switch e.kind {
	case exField, exRecordID, exCreatedTime:
		return e, nil
	}
	return nil, unsupported("ORDER BY on an expression", sqlparser.String(key), "order by a column, or select the rows and sort them in Go")
}

// isZeroLiteral reports an OFFSET written as 0, which skips nothing (paging code asks for its
// first page so). Only a literal: a placeholder's position depends on the LIMIT form.
func isZeroLiteral(e sqlparser.Expr) bool {
	v, ok := e.(*sqlparser.SQLVal)
	return ok && v.Type == sqlparser.IntVal && strings.Trim(string(v.Val), "0") == ""
}

// limit reads LIMIT's row count: a non-negative integer, literal or bound.
func (s *scope) limit(e sqlparser.Expr) (int, error) {
	x, err := s.compile(e)
	if err != nil {
		return 0, err
	}
	n, ok := x.val.(int64)
	if f, isFloat := x.val.(float64); isFloat && f == math.Trunc(f) && math.Abs(f) <= 1<<31 {
		n, ok = int64(f), true // a bound float64 such as 10.0
	}
	if x.kind != exConst || !ok || n < 0 || n > 1<<31 {
		return 0, fmt.Errorf("translate: LIMIT needs a non-negative integer, got %s", sqlparser.String(e))
	}
	return int(n), nil
}

// pushWhere writes the WHERE clause into the request (or the record ids to fetch) and sets Exact.
func (plan *Plan) pushWhere(p *pusher) {
	if plan.where == nil {
		plan.Exact = true
		return
	}
	conjuncts := []*expr{plan.where}
	if plan.where.kind == exAnd {
		conjuncts = plan.where.args
	}
	// A single record id: fetch it directly. Keep checks the whole WHERE clause again.
	for _, c := range conjuncts {
		ids, ok := recordIDsOf(c)
		if !ok || len(ids) > 1 {
			continue
		}
		plan.RecordIDs = ids
		plan.Exact = len(conjuncts) == 1
		if len(ids) == 0 {
			plan.NoRows, plan.Exact = true, true
		}
		return
	}
	c := p.condition(dateRanges(plan.where))
	plan.Request.Formula = c.t
	plan.Exact = c.tExact
	if c.t == formulaNone {
		plan.Request.Formula = ""
		plan.NoRows = true
		plan.Exact = true // no row can be TRUE (formulaNone is only ever exact)
	}
}

// recordIDsOf recognises id = 'rec…' and id IN ('rec…', …) with constants. Ids that cannot be record
// ids (rec + 14 letters or digits) are dropped: no record has them.
func recordIDsOf(c *expr) ([]string, bool) {
	var items []*expr
	switch {
	case c.kind == exCompare && c.op == "=":
		switch {
		case c.args[0].kind == exRecordID:
			items = c.args[1:]
		case c.args[1].kind == exRecordID:
			items = c.args[:1]
		default:
			return nil, false
		}
	case c.kind == exIn && !c.negated && c.args[0].kind == exRecordID:
		items = c.args[1:]
	default:
		return nil, false
	}
	ids := []string{}
	seen := map[string]bool{}
	for _, it := range items {
		if it.kind != exConst {
			return nil, false
		}
		id, ok := it.val.(string)
		if it.val == nil {
			continue
		}
		if !ok {
			return nil, false
		}
		if isRecordID(id) && !seen[id] {
			seen[id] = true
			ids = append(ids, id)
		}
	}
	return ids, true
}

func isRecordID(s string) bool {
	if len(s) != 17 || !strings.HasPrefix(s, "rec") {
		return false
	}
	for _, c := range s[3:] {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// pushOrder sends ORDER BY to the service when its order is SQL's: every key a number or time field
// whose kept rows cannot be NULL (never blank, or rejected by a top-level WHERE condition). Otherwise
// the rows are sorted locally and LIMIT is not pushed.
func (plan *Plan) pushOrder() {
	if len(plan.order) == 0 {
		return
	}
	nonNull := map[string]bool{}
	if plan.where != nil {
		conjuncts := []*expr{plan.where}
		if plan.where.kind == exAnd {
			conjuncts = plan.where.args
		}
		for _, c := range conjuncts {
			nullRejected(c, nonNull)
		}
	}
	var sorts []Sort
	split := false // the first key can be NULL: try two requests (nullsplit.go)
	for i, k := range plan.order {
		e := k.e
		if e.kind != exField || !e.info.sortable {
			plan.SortLocally = true
			return
		}
		if e.info.nullable && !nonNull[e.field.Name] {
			if i > 0 {
				plan.SortLocally = true
				return
			}
			split = true
		}
		sorts = append(sorts, Sort{Field: e.field.Name, Desc: k.desc})
	}
	if plan.RecordIDs != nil || split && !plan.splitOrder(sorts) {
		plan.SortLocally = true
		return
	}
	plan.Request.Sort = sorts
}

// nullRejected records the fields that a condition cannot be TRUE without.
func nullRejected(c *expr, into map[string]bool) {
	switch c.kind {
	case exCompare, exIn, exLike, exTruth:
		for _, a := range c.args[:min(len(c.args), 2)] {
			strictFields(a, into)
		}
	case exIsNull:
		if c.negated {
			strictFields(c.args[0], into)
		}
	case exAnd:
		for _, a := range c.args {
			nullRejected(a, into)
		}
	}
}

// strictFields records the fields whose NULL makes the expression NULL.
func strictFields(e *expr, into map[string]bool) {
	switch e.kind {
	case exField:
		into[e.field.Name] = true
	case exArith, exNeg:
		for _, a := range e.args {
			strictFields(a, into)
		}
	case exFunc:
		// Only functions that are NULL whenever an argument is (not CASE, COALESCE, CONCAT_WS, …).
		if def, _, ok := lookupFunc(e.op); ok && !def.nullArgs {
			for _, a := range e.args {
				strictFields(a, into)
			}
		}
	}
}

// neededFields lists the fields the request must return, in schema order: what the output reads,
// plus what Keep and the local sort read. nil asks for every field (SELECT *). When nothing is needed
// (COUNT(*), SELECT id) one small field is asked for, since an empty fields[] returns them all.
func (plan *Plan) neededFields() []string {
	need := map[string]bool{}
	for _, e := range plan.outputs {
		e.fields(need)
	}
	if !plan.Exact {
		plan.where.fields(need)
	}
	if plan.SortLocally {
		for _, k := range plan.order {
			k.e.fields(need)
		}
	}
	var out []string
	for _, f := range plan.Table.Fields {
		if need[f.Name] {
			out = append(out, f.Name)
		}
	}
	if len(out) == len(plan.Table.Fields) && len(out) > 0 {
		return nil
	}
	if len(out) == 0 {
		if f := smallestField(plan.Table); f != "" {
			return []string{f}
		}
	}
	return out
}

// smallestField picks the field with the smallest cells: a checkbox, a number, else the primary.
func smallestField(t *Table) string {
	rank := func(typ string) int {
		switch typ {
		case "checkbox":
			return 0
		case "number", "currency", "percent", "rating", "duration", "autoNumber", "count":
			return 1
		case "date", "singleSelect":
			return 2
		case "singleLineText", "dateTime", "email", "phoneNumber":
			return 3
		}
		return 9
	}
	best, bestRank := "", 10
	for _, f := range t.Fields {
		r := rank(f.Type)
		if f.ID == t.PrimaryFieldID && r > 3 {
			r = 4
		}
		if r < bestRank {
			best, bestRank = f.Name, r
		}
	}
	return best
}
