package translate

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/xwb1989/sqlparser"
)

// testSchema is a Schema over tables read from testdata/schema.json.
type testSchema []*Table

func (s testSchema) Table(nameOrID string) (*Table, bool) {
	for _, t := range s {
		if t.Name == nameOrID || t.ID == nameOrID {
			return t, true
		}
	}
	return nil, false
}

type jsonTable struct {
	ID, Name, PrimaryFieldID string
	Fields                   []struct {
		ID, Name, Type string
		Options        map[string]any
	}
	Views []struct{ ID, Name string }
}

func loadSchema(t testing.TB) testSchema {
	t.Helper()
	data, err := os.ReadFile("testdata/schema.json")
	if err != nil {
		t.Fatal(err)
	}
	var tables []jsonTable
	if err := json.Unmarshal(data, &tables); err != nil {
		t.Fatal(err)
	}
	var out testSchema
	for _, jt := range tables {
		table := &Table{ID: jt.ID, Name: jt.Name, PrimaryFieldID: jt.PrimaryFieldID}
		for _, f := range jt.Fields {
			table.Fields = append(table.Fields, Field{ID: f.ID, Name: f.Name, Type: f.Type, Options: f.Options})
		}
		for _, v := range jt.Views {
			table.Views = append(table.Views, View{ID: v.ID, Name: v.Name})
		}
		out = append(out, table)
	}
	return out
}

// testNow is NOW() in every test.
var testNow = time.Date(2024, 3, 1, 12, 0, 0, 0, time.UTC)

func parseSelect(t testing.TB, sql string) *sqlparser.Select {
	t.Helper()
	stmt, err := Parse(sql)
	if err != nil {
		t.Fatalf("parse %q: %v", sql, err)
	}
	sel, ok := stmt.(*sqlparser.Select)
	if !ok {
		t.Fatalf("%q is not a SELECT", sql)
	}
	return sel
}

// translateAny translates any statement kind and renders the result for golden files.
func translateAny(sql string, schema Schema, args Args) string {
	stmt, err := Parse(sql)
	if err != nil {
		return "parse error: " + err.Error() + "\n"
	}
	switch stmt := stmt.(type) {
	case *sqlparser.Select, *sqlparser.Union, *sqlparser.ParenSelect:
		// What the driver runs: the planner of SELECT and UNION, whose tree the engine runs.
		q, err := NewQueryStatement(stmt.(sqlparser.SelectStatement), schema, args)
		if err != nil {
			return "error: " + err.Error() + "\n"
		}
		return renderQuery(q)
	case *sqlparser.Insert:
		p, err := Insert(stmt, schema, args)
		if err != nil {
			return "error: " + err.Error() + "\n"
		}
		var b strings.Builder
		fmt.Fprintf(&b, "insert into: %s\n", p.Table.Name)
		if p.Upsert != nil {
			fmt.Fprintf(&b, "upsert on: %s\n", jsonOf(p.Upsert))
		}
		for _, r := range p.Rows {
			fmt.Fprintf(&b, "row: %s\n", jsonOf(r))
		}
		return b.String()
	case *sqlparser.Update:
		p, err := Update(stmt, schema, args)
		if err != nil {
			return "error: " + err.Error() + "\n"
		}
		var b strings.Builder
		fmt.Fprintf(&b, "update: %s\n", p.Table.Name)
		for _, c := range p.set {
			fmt.Fprintf(&b, "set: %s = %s\n", c.target.field.Name, p.Search.Query.Outputs[c.slot].e.describeTree())
		}
		b.WriteString("find:\n")
		b.WriteString(indent(renderQuery(p.Search.Query)))
		return b.String()
	case *sqlparser.Delete:
		p, err := Delete(stmt, schema, args)
		if err != nil {
			return "error: " + err.Error() + "\n"
		}
		return "delete from: " + p.Table.Name + "\nfind:\n" + indent(renderQuery(p.Search.Query))
	}
	return fmt.Sprintf("not a statement translate handles: %T\n", stmt)
}

func indent(s string) string {
	lines := strings.SplitAfter(s, "\n")
	var b strings.Builder
	for _, l := range lines {
		if l != "" {
			b.WriteString("  " + l)
		}
	}
	return b.String()
}

func jsonOf(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return err.Error()
	}
	return string(b)
}

// renderRequest writes one table's request and what is re-checked locally.
func renderRequest(p *Plan) string {
	var b strings.Builder
	fmt.Fprintf(&b, "table: %s\n", p.Table.Name)
	r := p.Request
	if r.View != "" {
		fmt.Fprintf(&b, "view: %s\n", r.View)
	}
	if r.Formula != "" {
		fmt.Fprintf(&b, "filterByFormula: %s\n", r.Formula)
	}
	if r.Fields != nil {
		fmt.Fprintf(&b, "fields: %s\n", jsonOf(r.Fields))
	} else {
		b.WriteString("fields: (all)\n")
	}
	for _, s := range r.Sort {
		dir := "asc"
		if s.Desc {
			dir = "desc"
		}
		fmt.Fprintf(&b, "sort: %s %s\n", s.Field, dir)
	}
	if r.MaxRecords != 0 {
		fmt.Fprintf(&b, "maxRecords: %d\n", r.MaxRecords)
	}
	if p.RecordIDs != nil {
		fmt.Fprintf(&b, "recordIDs: %s\n", jsonOf(p.RecordIDs))
	}
	fmt.Fprintf(&b, "exact: %v\n", p.Exact)
	if p.NoRows {
		b.WriteString("noRows: true\n")
	}
	if p.Limit >= 0 {
		fmt.Fprintf(&b, "limit: %d\n", p.Limit)
	}
	for _, o := range p.Order {
		dir := "asc"
		if o.Desc {
			dir = "desc"
		}
		fmt.Fprintf(&b, "order: %s %s\n", o.Column, dir)
	}
	if p.SortLocally {
		b.WriteString("sortLocally: true\n")
	}
	if sp := p.Split; sp != nil {
		fmt.Fprintf(&b, "split: blanks first %v: filterByFormula: %s; fields: %s; sort: %s; maxRecords: %d\n",
			sp.BlanksFirst, sp.Blanks.Formula, jsonOf(sp.Blanks.Fields), jsonOf(sp.Blanks.Sort), sp.Blanks.MaxRecords)
	}
	return b.String()
}

func renderPlan(p *Plan) string { return renderRequest(p) + renderColumns(p.Columns) }

// renderColumns writes the output columns of a plan.
func renderColumns(cols []Column) string {
	var b strings.Builder
	for _, c := range cols {
		field := ""
		if c.Field != nil {
			field = " field=" + c.Field.ID
		}
		null := ""
		if c.Nullable {
			null = " NULL"
		}
		fmt.Fprintf(&b, "column: %q %s%s scan=%v%s\n", c.Name, c.DatabaseType, null, c.ScanType, field)
	}
	return b.String()
}

// describeTree renders an expression for golden files.
func (e *expr) describeTree() string {
	switch e.kind {
	case exConst:
		return fmt.Sprintf("%#v", e.val)
	case exField:
		return "{" + e.field.Name + "}"
	case exRecordID:
		return "id"
	case exCreatedTime:
		return "createdTime"
	}
	var parts []string
	for _, a := range e.args {
		parts = append(parts, a.describeTree())
	}
	name := map[exprKind]string{exCompare: "cmp", exAnd: "and", exOr: "or", exNot: "not", exIsNull: "isnull",
		exIsTrue: "is", exIn: "in", exLike: "like", exTruth: "truth", exArith: "arith", exNeg: "neg", exFunc: "fn"}[e.kind]
	return fmt.Sprintf("%s[%s](%s)", name, e.op, strings.Join(parts, ", "))
}

// goldenArgs reads the args line of a golden input: a JSON array whose items are numbers, strings,
// booleans, null, {"time": RFC3339}, {"strings": [...]} or {"json": any}.
func goldenArgs(t testing.TB, line string) []any {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(line))
	dec.UseNumber()
	var raw []any
	if err := dec.Decode(&raw); err != nil {
		t.Fatalf("args %q: %v", line, err)
	}
	out := make([]any, len(raw))
	for i, v := range raw {
		switch v := v.(type) {
		case json.Number:
			if n, err := v.Int64(); err == nil {
				out[i] = n
			} else {
				f, _ := v.Float64()
				out[i] = f
			}
		case map[string]any:
			switch {
			case v["time"] != nil:
				tm, err := time.Parse(time.RFC3339Nano, v["time"].(string))
				if err != nil {
					t.Fatal(err)
				}
				out[i] = tm
			case v["strings"] != nil:
				var ss []string
				for _, s := range v["strings"].([]any) {
					ss = append(ss, s.(string))
				}
				out[i] = ss
			case v["json"] != nil:
				out[i] = json.RawMessage(jsonOf(v["json"]))
			}
		default:
			out[i] = v
		}
	}
	return out
}

// renderQuery writes the plan of a SELECT or a UNION: the request of each table (renderPlan), the
// join steps, the subqueries run first, and what is left to do locally.
func renderQuery(q *Query) string {
	var b strings.Builder
	for _, sq := range q.Subqueries {
		fmt.Fprintf(&b, "subquery: %s\n", sq.SQL)
		b.WriteString(indent(renderQuery(sq.Query)))
	}
	switch {
	case q.Scan != nil:
		b.WriteString(renderRequest(q.Scan))
	case q.Join != nil:
		for _, jt := range q.Join.Tables {
			fmt.Fprintf(&b, "join table %s:\n", jt.Alias)
			b.WriteString(indent(renderRequest(jt.Plan)))
		}
		for _, st := range q.Join.Steps {
			fmt.Fprintf(&b, "join step: %s %s", st.Kind, q.Join.Tables[st.Table].Alias)
			if len(st.Keys) > 0 {
				fmt.Fprintf(&b, " on %d key(s)", len(st.Keys))
			}
			if st.Bind != nil || st.BindInner != nil {
				b.WriteString(" (bind)")
			}
			b.WriteString("\n")
		}
	case q.Union != nil:
		for i, br := range q.Union.Branches {
			fmt.Fprintf(&b, "union branch %d (all: %v):\n", i+1, q.Union.All)
			b.WriteString(indent(renderQuery(br)))
		}
	default:
		b.WriteString("table: none\n")
	}
	if q.Where != nil {
		fmt.Fprintf(&b, "where: %s\n", q.Where)
	}
	if q.Grouped {
		keys := make([]string, len(q.GroupBy))
		for i, k := range q.GroupBy {
			keys[i] = k.String()
		}
		fmt.Fprintf(&b, "group by: [%s], %d aggregate(s)\n", strings.Join(keys, ", "), len(q.Aggregates))
	}
	if q.Having != nil {
		fmt.Fprintf(&b, "having: %s\n", q.Having)
	}
	if q.Distinct {
		b.WriteString("distinct\n")
	}
	for _, k := range q.Order {
		dir := "asc"
		if k.Desc {
			dir = "desc"
		}
		fmt.Fprintf(&b, "sort rows: %s %s\n", k.SQL, dir)
	}
	if q.Offset > 0 {
		fmt.Fprintf(&b, "rows offset: %d\n", q.Offset)
	}
	if q.Limit >= 0 {
		fmt.Fprintf(&b, "rows limit: %d\n", q.Limit)
	}
	b.WriteString(renderColumns(q.Columns))
	return b.String()
}

// selectedPlan is a single-table SELECT planned by the one planner (NewQuery): its scan's request
// (the embedded Plan), its output columns, and its output values computed on one record.
type selectedPlan struct {
	*Plan
	Columns []Column
	q       *Query
}

// selectPlan plans a SELECT of one table with NewQuery, for tests of a scan's request and of the
// values of expressions on one record.
func selectPlan(stmt *sqlparser.Select, schema Schema, args Args) (*selectedPlan, error) {
	q, err := NewQuery(stmt, schema, args)
	if err != nil {
		return nil, err
	}
	if q.Scan == nil || q.Grouped || len(q.Subqueries) > 0 {
		// Its values are not computed on one record (no table, groups, subqueries the engine runs).
		return nil, fmt.Errorf("selectPlan: %s reads no one table row by row", sqlparser.String(stmt))
	}
	return &selectedPlan{Plan: q.Scan, Columns: q.Columns, q: q}, nil
}

// Values computes the output columns on one record, as the engine's projection does.
func (p *selectedPlan) Values(r Row, dest []any) error {
	for i := range dest {
		v, err := p.q.Outputs[i].Value(&r)
		if err != nil {
			return err
		}
		dest[i] = v
	}
	return nil
}
