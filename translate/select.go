package translate

import (
	"fmt"
	"math"
	"strings"

	"github.com/xwb1989/sqlparser"

	"github.com/airsql/airsql/sqlvalue"
)

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
		// db.table: a table of one of the bases the schema serves (the driver's catalog), which
		// may be another base than the default's.
		qs, ok := schema.(QualifiedSchema)
		if !ok {
			return nil, unsupported("a database-qualified table name", sqlparser.String(tn), "the base is the DSN's: name the table alone")
		}
		table, ok := qs.TableIn(tn.Qualifier.String(), tn.Name.String())
		if !ok || table == nil {
			return nil, unknownTablef("%s.%s (SHOW TABLES FROM %s lists that base's tables)", tn.Qualifier.String(), tn.Name.String(), tn.Qualifier.String())
		}
		return table, nil
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
	if s.table.JSONTable != nil {
		return jsonTableStar(s.table)
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

// columnName is the output name of an unaliased expression: a column's own name, else the SQL text.
func columnName(src sqlparser.Expr, e *expr) string {
	if c, ok := src.(*sqlparser.ColName); ok {
		if e.tab > 0 { // a column of a join is named as its field, without the table (as in MySQL)
			switch e.kind {
			case exField:
				return e.field.Name
			case exRecordID:
				return "id"
			case exCreatedTime:
				return "createdTime"
			case exDerived: // a derived or JSON table's column, as written
				return c.Name.String()
			}
		}
		return e.sql
	}
	return sqlString(src)
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
		if def, _, ok := sqlvalue.Lookup(e.op); ok && !def.NullArgs {
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
