package engine

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/xwb1989/sqlparser"

	"github.com/airsql/airsql/formula"
	"github.com/airsql/airsql/translate"
)

// testTable is the table the tests plan against: a text, a precision-0 number, a decimal number,
// a checkbox, a date and a single select.
var testTable = &translate.Table{
	ID: "tblT", Name: "T", PrimaryFieldID: "fldName",
	Fields: []translate.Field{
		{ID: "fldName", Name: "Name", Type: "singleLineText"},
		{ID: "fldN", Name: "N", Type: "number", Options: map[string]any{"precision": float64(0)}},
		{ID: "fldX", Name: "X", Type: "number", Options: map[string]any{"precision": float64(2)}},
		{ID: "fldDone", Name: "Done", Type: "checkbox"},
		{ID: "fldDay", Name: "Day", Type: "date"},
		{ID: "fldStatus", Name: "Status", Type: "singleSelect"},
	},
}

type testSchema struct{}

func (testSchema) Table(name string) (*translate.Table, bool) {
	if strings.EqualFold(name, "T") || name == "tblT" {
		return testTable, true
	}
	return nil, false
}

// row builds a record: nil values are left out, as the service leaves out empty cells.
func row(id string, kv ...any) translate.Row {
	f := map[string]any{}
	for i := 0; i < len(kv); i += 2 {
		if kv[i+1] != nil {
			f[kv[i].(string)] = kv[i+1]
		}
	}
	return translate.Row{ID: id, CreatedTime: time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC), Fields: f}
}

// testRows: N has a NULL and a repeat, Status a NULL, Name two cases.
var testRows = []translate.Row{
	row("rec01", "Name", "apple", "N", 3.0, "X", 1.5, "Day", "2024-01-03", "Status", "a"),
	row("rec02", "Name", "Banana", "N", 1.0, "X", 2.25, "Done", true, "Day", "2024-01-01", "Status", "b"),
	row("rec03", "Name", "cherry", "N", nil, "X", nil, "Status", "a"),
	row("rec04", "Name", "apple", "N", 2.0, "X", 0.25, "Done", true, "Day", "2024-02-01"),
	row("rec05", "Name", nil, "N", 3.0, "X", 4.0, "Status", "b"),
}

// memSource serves rows in pages of pageSize, applying nothing but the plan's record ids: the
// engine re-checks the WHERE clause itself when the plan is not exact, and tests plan exact
// requests only where the rows already satisfy them.
type memSource struct {
	rows     []translate.Row
	pageSize int
	scans    []*translate.Plan
	pulled   int // pages handed out
	closed   int
}

// Scan answers the request as the service would: the formula (with the formula package's
// evaluator), the sort, maxRecords and record ids; a split plan's two requests in SQL's order.
func (m *memSource) Scan(ctx context.Context, plan *translate.Plan) (Pages, error) {
	m.scans = append(m.scans, plan)
	if plan.Request.Formula == "" && plan.RecordIDs == nil && len(plan.Request.Sort) == 0 && plan.Request.MaxRecords == 0 && plan.Split == nil {
		return &memPages{src: m, rows: m.rows}, nil // the whole table, as it is
	}
	rows, err := m.answer(plan, plan.Request)
	if err != nil || plan.Split == nil {
		return &memPages{src: m, rows: rows}, err
	}
	blanks, err := m.answer(plan, plan.Split.Blanks)
	if err != nil {
		return nil, err
	}
	if plan.Split.BlanksFirst {
		rows, blanks = blanks, rows
	}
	rows = append(rows, blanks...)
	if plan.Limit >= 0 && len(rows) > plan.Limit {
		rows = rows[:plan.Limit]
	}
	return &memPages{src: m, rows: rows}, nil
}

// answer is the records one list request selects, in its order.
func (m *memSource) answer(plan *translate.Plan, req translate.Request) ([]translate.Row, error) {
	var rows []translate.Row
	var prog *formula.Program
	if req.Formula != "" {
		p, err := formula.Compile(req.Formula, formulaSchema{plan.Table})
		if err != nil {
			return nil, err
		}
		prog = p
	}
	for _, r := range m.rows {
		if plan.RecordIDs != nil && !slices.Contains(plan.RecordIDs, r.ID) {
			continue
		}
		if prog != nil && !prog.Match(formulaRecord{plan.Table, r}, &formula.Env{}) {
			continue
		}
		rows = append(rows, r)
	}
	if len(req.Sort) > 0 {
		slices.SortStableFunc(rows, func(a, b translate.Row) int {
			for _, k := range req.Sort {
				c := compareCells(a.Fields[k.Field], b.Fields[k.Field])
				if k.Desc {
					c = -c
				}
				if c != 0 {
					return c
				}
			}
			return 0
		})
	}
	if n := req.MaxRecords; n > 0 && n < len(rows) {
		rows = rows[:n]
	}
	return rows, nil
}

func compareCells(a, b any) int {
	fa, aNum := a.(float64)
	fb, bNum := b.(float64)
	if aNum && bNum {
		return cmp.Compare(fa, fb)
	}
	return cmp.Compare(fmt.Sprint(a), fmt.Sprint(b))
}

type formulaSchema struct{ t *translate.Table }

func (s formulaSchema) LookupField(name string) (formula.FieldInfo, bool) {
	for _, f := range s.t.Fields {
		if f.Name == name || f.ID == name {
			return formula.FieldInfo{ID: f.ID, Name: f.Name, Type: f.Type, Options: f.Options}, true
		}
	}
	return formula.FieldInfo{}, false
}

type formulaRecord struct {
	t *translate.Table
	r translate.Row
}

func (f formulaRecord) RecordID() string            { return f.r.ID }
func (f formulaRecord) CreatedTime() time.Time      { return f.r.CreatedTime }
func (f formulaRecord) LastModifiedTime() time.Time { return f.r.CreatedTime }
func (f formulaRecord) Cell(fi formula.FieldInfo) formula.Value {
	return formula.FromCell(fi, f.r.Fields[fi.Name])
}

type memPages struct {
	src  *memSource
	rows []translate.Row
	pos  int
}

func (p *memPages) Next(ctx context.Context) ([]translate.Row, error) {
	if p.pos >= len(p.rows) {
		return nil, io.EOF
	}
	n := p.src.pageSize
	if n <= 0 {
		n = 100
	}
	end := min(p.pos+n, len(p.rows))
	page := p.rows[p.pos:end]
	p.pos = end
	p.src.pulled++
	return page, nil
}

func (p *memPages) Close() { p.src.closed++ }

func plan(t testing.TB, query string, args ...any) *translate.Query {
	t.Helper()
	q, err := planQuery(query, args...)
	if err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	return q
}

func planQuery(query string, args ...any) (*translate.Query, error) {
	ast, err := translate.Parse(query)
	if err != nil {
		return nil, err
	}
	sel, ok := ast.(*sqlparser.Select)
	if !ok {
		return nil, fmt.Errorf("not a SELECT")
	}
	return translate.NewQuery(sel, testSchema{}, translate.Args{Positional: args})
}

// run plans a query, runs it over rows and writes each output row as "v|v|…".
func run(t testing.TB, rows []translate.Row, query string, args ...any) []string {
	t.Helper()
	out, err := runErr(rows, 0, query, args...)
	if err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	return out
}

func runErr(rows []translate.Row, maxRows int, query string, args ...any) ([]string, error) {
	q, err := planQuery(query, args...)
	if err != nil {
		return nil, err
	}
	op, err := Build(q, Options{Source: &memSource{rows: rows, pageSize: 2}, MaxRows: maxRows})
	if err != nil {
		return nil, err
	}
	got, err := Drain(context.Background(), op)
	if err != nil {
		return nil, err
	}
	return rowStrings(got), nil
}

// rowStrings writes each row as "v|v|…" (NULL, dates as 2006-01-02).
func rowStrings(got []translate.Row) []string {
	var out []string
	for _, r := range got {
		parts := make([]string, len(r.Values))
		for i, v := range r.Values {
			switch x := v.(type) {
			case nil:
				parts[i] = "NULL"
			case time.Time:
				parts[i] = x.Format("2006-01-02")
			default:
				parts[i] = fmt.Sprint(x)
			}
		}
		out = append(out, strings.Join(parts, "|"))
	}
	return out
}

func TestQueries(t *testing.T) {
	tests := []struct {
		query string
		args  []any
		want  []string
	}{
		// Aggregates: NULLs form one group (first), aggregates skip NULL.
		{"SELECT N, COUNT(*), COUNT(X), SUM(X), MIN(Name), MAX(Name) FROM T GROUP BY N",
			[]any{}, []string{"NULL|1|0|NULL|cherry|cherry", "1|1|1|2.25|Banana|Banana", "2|1|1|0.25|apple|apple", "3|2|2|5.5|apple|apple"}},
		{"SELECT COUNT(*), COUNT(N), COUNT(DISTINCT N), SUM(N), AVG(N), MIN(Day), MAX(Day), SUM(Done) FROM T", nil,
			[]string{"5|4|3|9|2.25|2024-01-01|2024-02-01|2"}},
		{"SELECT COUNT(DISTINCT Name, N) FROM T", nil, []string{"3"}},
		{"SELECT SUM(DISTINCT N), AVG(DISTINCT N) FROM T", nil, []string{"6|2"}},
		{"SELECT COUNT(*), SUM(N), AVG(N), MIN(N), GROUP_CONCAT(Name) FROM T WHERE N > 100", nil, []string{"0|NULL|NULL|NULL|NULL"}},
		{"SELECT Status, GROUP_CONCAT(Name ORDER BY N DESC, Name SEPARATOR '/') FROM T GROUP BY Status", nil,
			[]string{"NULL|apple", "a|apple/cherry", "b|Banana"}},
		{"SELECT GROUP_CONCAT(DISTINCT Name ORDER BY Name) FROM T", nil, []string{"Banana,apple,cherry"}},
		{"SELECT GROUP_CONCAT(Name, '=', N) FROM T", nil, []string{"apple=3,Banana=1,apple=2"}},
		// GROUP BY expressions, aliases and positions; HAVING with aggregates not selected.
		{"SELECT N % 2 AS odd, COUNT(*) FROM T GROUP BY odd", nil, []string{"NULL|1", "0|1", "1|3"}},
		{"SELECT N % 2, COUNT(*) FROM T GROUP BY 1 HAVING SUM(X) > 3", nil, []string{"1|3"}},
		{"SELECT YEAR(Day), MONTH(Day), COUNT(*) FROM T GROUP BY YEAR(Day), MONTH(Day)", nil, []string{"NULL|NULL|2", "2024|1|2", "2024|2|1"}},
		{"SELECT Status, COUNT(*) AS c FROM T GROUP BY Status HAVING c > 1 ORDER BY c DESC, Status", nil, []string{"a|2", "b|2"}},
		{"SELECT Status, MAX(N) - MIN(N) FROM T GROUP BY Status ORDER BY MAX(N) - MIN(N) DESC, 1", nil, []string{"b|2", "NULL|0", "a|0"}},
		{"SELECT COUNT(*) FROM T HAVING COUNT(*) > 10", nil, nil},
		{"SELECT Name, COUNT(*) FROM T GROUP BY id ORDER BY id LIMIT 2", nil, []string{"apple|1", "Banana|1"}},
		{"SELECT ANY_VALUE(Name), COUNT(*) FROM T WHERE Status = 'b'", nil, []string{"Banana|2"}},
		// DISTINCT: NULLs equal, first occurrence kept.
		{"SELECT DISTINCT Name FROM T", nil, []string{"apple", "Banana", "cherry", "NULL"}},
		{"SELECT DISTINCT N, Status FROM T ORDER BY N DESC, Status", nil, []string{"3|a", "3|b", "2|NULL", "1|b", "NULL|a"}},
		// ORDER BY: text by code point, NULL first ascending, expressions, hidden keys.
		{"SELECT Name FROM T ORDER BY Name", nil, []string{"NULL", "Banana", "apple", "apple", "cherry"}},
		{"SELECT Name FROM T ORDER BY X * -1 LIMIT 2", nil, []string{"cherry", "NULL"}},
		{"SELECT Name FROM T ORDER BY N DESC, id DESC LIMIT 2 OFFSET 1", nil, []string{"apple", "apple"}},
		{"SELECT id FROM T ORDER BY N, id LIMIT ?, ?", []any{1, 2}, []string{"rec02", "rec04"}},
		{"SELECT id FROM T LIMIT 3, 10", nil, []string{"rec04", "rec05"}},
		{"SELECT id FROM T LIMIT 10 OFFSET 5", nil, nil},
		{"SELECT id FROM T LIMIT 18446744073709551615 OFFSET 3", nil, []string{"rec04", "rec05"}},
		{"SELECT id FROM T ORDER BY id DESC LIMIT 3, 18446744073709551615", nil, []string{"rec02", "rec01"}},
		{"SELECT Name AS n FROM T WHERE N = 3 ORDER BY n DESC", nil, []string{"apple", "NULL"}},
		{"SELECT N * 2 AS d FROM T HAVING d > 4", nil, []string{"6", "6"}},
		// No table.
		{"SELECT 1, 1 + 1, 7 / 2, 7 DIV 2, 1 / 0, 'a'", nil, []string{"1|2|3.5|3|NULL|a"}},
		{"SELECT COUNT(*), SUM(1) FROM DUAL WHERE 1 = 0", nil, []string{"0|NULL"}},
		{"SELECT ? + 1", []any{41}, []string{"42"}},
		{"SELECT 1 LIMIT 0", nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			got := run(t, testRows, tt.query, tt.args...)
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got  %q\nwant %q", got, tt.want)
			}
		})
	}
}

// TestPushdown: what goes into the scan's request, and what stays local.
func TestPushdown(t *testing.T) {
	tests := []struct {
		query      string
		fields     []string
		sort       bool
		maxRecords int
		local      bool // sorted locally
	}{
		{"SELECT Status, COUNT(*) FROM T GROUP BY Status", []string{"Status"}, false, 0, false},
		{"SELECT COUNT(*) FROM T", []string{"Done"}, false, 0, false},
		{"SELECT SUM(X) FROM T WHERE N > 1", []string{"X"}, false, 0, false},
		{"SELECT Name FROM T WHERE N IS NOT NULL ORDER BY N LIMIT 2 OFFSET 3", []string{"Name", "N"}, true, 5, false},
		// N can be NULL: two requests, the blank-N rows first (NULLs first ascending), then the rest sorted.
		{"SELECT Name FROM T ORDER BY N LIMIT 2", []string{"Name", "N"}, true, 2, false},
		{"SELECT DISTINCT Name FROM T LIMIT 2", []string{"Name"}, false, 0, false},
		{"SELECT Name FROM T WHERE N > 1 LIMIT 2", []string{"Name"}, false, 2, false},
		{"SELECT Name, N FROM T WHERE N > 1 HAVING Name = 'x' LIMIT 2", []string{"Name", "N"}, false, 0, false},
		{"SELECT N FROM T WHERE N > 1 GROUP BY N ORDER BY N LIMIT 1", []string{"N"}, false, 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			q := plan(t, tt.query)
			if !reflect.DeepEqual(q.Scan.Request.Fields, tt.fields) {
				t.Errorf("fields %q, want %q", q.Scan.Request.Fields, tt.fields)
			}
			if got := len(q.Scan.Request.Sort) > 0; got != tt.sort {
				t.Errorf("sort pushed %v (%v), want %v", got, q.Scan.Request.Sort, tt.sort)
			}
			if q.Scan.Request.MaxRecords != tt.maxRecords {
				t.Errorf("maxRecords %d, want %d", q.Scan.Request.MaxRecords, tt.maxRecords)
			}
			if q.SortLocally != tt.local {
				t.Errorf("SortLocally %v, want %v", q.SortLocally, tt.local)
			}
		})
	}
}

// TestStreaming: with nothing that holds rows, the first row comes after the first page only;
// LIMIT closes the scan without pulling the remaining pages.
func TestStreaming(t *testing.T) {
	src := &memSource{rows: testRows, pageSize: 2}
	op, err := Build(plan(t, "SELECT Name FROM T WHERE Name LIKE '%a%' LIMIT 2"), Options{Source: src})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := op.Next(ctx); err != nil {
		t.Fatal(err)
	}
	if src.pulled != 1 {
		t.Errorf("%d pages pulled before the first row, want 1", src.pulled)
	}
	if _, err := op.Next(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := op.Next(ctx); err != io.EOF {
		t.Fatalf("third row: %v, want io.EOF", err)
	}
	if src.pulled != 1 || src.closed == 0 {
		t.Errorf("pulled %d pages, closed %d: want 1 page and the scan closed at LIMIT", src.pulled, src.closed)
	}
	op.Close()
}

// TestRowLimit: holding operators fail past the budget with a *RowLimitError naming it.
func TestRowLimit(t *testing.T) {
	for _, query := range []string{
		"SELECT DISTINCT id FROM T",
		"SELECT id, COUNT(*) FROM T GROUP BY id",
		"SELECT id FROM T ORDER BY Name",
		"SELECT id FROM T ORDER BY Name LIMIT 4",
		"SELECT COUNT(DISTINCT id) FROM T",
		"SELECT GROUP_CONCAT(id) FROM T",
	} {
		_, err := runErr(testRows, 3, query)
		var rl *RowLimitError
		if !errors.As(err, &rl) || rl.Limit != 3 || !strings.Contains(err.Error(), "maxRows") {
			t.Errorf("%s: error %v, want a *RowLimitError of 3", query, err)
		}
	}
	if got, err := runErr(testRows, 3, "SELECT id FROM T ORDER BY Name LIMIT 3"); err != nil || len(got) != 3 {
		t.Errorf("top-3 within a budget of 3: %q, %v", got, err)
	}
	if got, err := runErr(testRows, 1, "SELECT id FROM T"); err != nil || len(got) != 5 {
		t.Errorf("streaming within a budget of 1: %q, %v", got, err)
	}
}

// fakeRows are rows of Values only, for the operators that read Values.
type fakeRows struct {
	rows []translate.Row
	pos  int
}

func (f *fakeRows) Next(context.Context) (translate.Row, error) {
	if f.pos >= len(f.rows) {
		return translate.Row{}, io.EOF
	}
	f.pos++
	return f.rows[f.pos-1], nil
}
func (f *fakeRows) Close()        {}
func (f *fakeRows) Explain() Node { return Node{Op: "fake"} }

func valuesRows(vals ...[]any) *fakeRows {
	f := &fakeRows{}
	for _, v := range vals {
		f.rows = append(f.rows, translate.Row{Values: v})
	}
	return f
}

func drainValues(t *testing.T, op Operator) [][]any {
	t.Helper()
	rows, err := Drain(context.Background(), op)
	if err != nil {
		t.Fatal(err)
	}
	var out [][]any
	for _, r := range rows {
		out = append(out, r.Values)
	}
	return out
}

// TestTopNMatchesSort: the heap returns what a stable sort then LIMIT returns, ties in input
// order, and never holds more than N rows.
func TestTopNMatchesSort(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := 0; trial < 200; trial++ {
		n := rng.IntN(50)
		var vals [][]any
		for i := 0; i < n; i++ {
			var k any
			if rng.IntN(5) > 0 {
				k = int64(rng.IntN(10))
			}
			vals = append(vals, []any{k, int64(i)})
		}
		keys := []SortKey{{Slot: 0, Desc: trial%2 == 0}}
		limit := rng.IntN(12)
		budget := &Budget{Limit: max(limit, 1)}
		top := drainValues(t, &topNOp{input: valuesRows(vals...), keys: keys, n: limit, budget: budget})
		all := drainValues(t, &sortOp{input: valuesRows(vals...), keys: keys, budget: &Budget{}})
		want := all[:min(limit, len(all))]
		if len(want) == 0 {
			want = nil
		}
		if !reflect.DeepEqual(top, want) {
			t.Fatalf("trial %d (limit %d): top-N %v, sort %v", trial, limit, top, want)
		}
	}
}

// slotValue is an output reading one of its input row's values, counting its reads.
type slotValue struct {
	slot  int
	reads *int
}

func (v slotValue) Value(r *translate.Row) (any, error) { *v.reads++; return r.Values[v.slot], nil }

// TestTopNAdmittedMatchesSort: under a top-N, the projection computes the second sort key only
// for rows that tie with the heap's last row on the first (or while the heap fills), and the
// rows are still those of a stable sort then LIMIT.
func TestTopNAdmittedMatchesSort(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for trial := range 200 {
		n := 200 + rng.IntN(100)
		var vals [][]any
		for i := range n {
			var k any
			if rng.IntN(8) > 0 {
				k = int64(rng.IntN(20))
			}
			vals = append(vals, []any{k, int64(rng.IntN(5)), int64(i)})
		}
		keys := []SortKey{{Slot: 0, Desc: trial%2 == 0}, {Slot: 1, Desc: trial%3 == 0}}
		limit := 1 + rng.IntN(10)
		var firstReads, secondReads, otherReads int
		project := &projectOp{input: valuesRows(vals...), names: []string{"k", "t", "i"},
			outputs: []Valuer{slotValue{0, &firstReads}, slotValue{1, &secondReads}, slotValue{2, &otherReads}}}
		top := &topNOp{input: project, keys: keys, n: limit, budget: &Budget{Limit: limit}}
		project.admitTop(top)
		got := drainValues(t, top)
		all := drainValues(t, &sortOp{input: valuesRows(vals...), keys: keys, budget: &Budget{}})
		if want := all[:limit]; !reflect.DeepEqual(got, want) {
			t.Fatalf("trial %d (limit %d): top-N %v, sort %v", trial, limit, got, want)
		}
		if firstReads != n || secondReads >= n/2 {
			t.Fatalf("trial %d: first key read %d times, second %d, for %d rows: want every row's first key and the second for a few", trial, firstReads, secondReads, n)
		}
	}
}

func TestDistinctOperator(t *testing.T) {
	in := valuesRows([]any{int64(1), "a"}, []any{1.0, "a"}, []any{nil, "a"}, []any{nil, "a"}, []any{int64(1), "A"}, []any{true, "a"})
	got := drainValues(t, &distinctOp{input: in, columns: 2, budget: &Budget{}})
	want := [][]any{{int64(1), "a"}, {nil, "a"}, {int64(1), "A"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}

func TestLimitOperator(t *testing.T) {
	for _, tc := range []struct{ offset, limit, want int }{{0, -1, 5}, {2, -1, 3}, {1, 2, 2}, {4, 5, 1}, {9, 1, 0}, {0, 0, 0}} {
		in := valuesRows([]any{1}, []any{2}, []any{3}, []any{4}, []any{5})
		got := drainValues(t, &limitOp{input: in, offset: tc.offset, limit: tc.limit})
		if len(got) != tc.want || (len(got) > 0 && got[0][0] != tc.offset+1) {
			t.Errorf("offset %d limit %d: %v", tc.offset, tc.limit, got)
		}
	}
}

type evalFunc func(r *translate.Row) (any, error)

func (f evalFunc) Eval(r *translate.Row) (any, error) { return f(r) }

func TestFilterOperator(t *testing.T) {
	in := valuesRows([]any{true}, []any{false}, []any{nil}, []any{true})
	cond := evalFunc(func(r *translate.Row) (any, error) { return r.Values[0], nil })
	if got := drainValues(t, &filterOp{input: in, cond: cond}); len(got) != 2 {
		t.Errorf("kept %v, want the two TRUE rows (FALSE and UNKNOWN dropped)", got)
	}
	boom := errors.New("boom")
	failing := evalFunc(func(*translate.Row) (any, error) { return nil, boom })
	if _, err := Drain(context.Background(), &filterOp{input: valuesRows([]any{1}), cond: failing}); !errors.Is(err, boom) {
		t.Errorf("error %v, want the condition's", err)
	}
}

// countFunc is a COUNT(*) aggregate for the operator's own test.
type countFunc struct{}
type countAcc struct{ n int64 }

func (countFunc) NewAccumulator() translate.Accumulator { return &countAcc{} }
func (c *countAcc) Add(*translate.Row) (int, error)     { c.n++; return 0, nil }
func (c *countAcc) Result() any                         { return c.n }

func TestAggregateOperator(t *testing.T) {
	key := evalFunc(func(r *translate.Row) (any, error) { return r.Values[0], nil })
	in := valuesRows([]any{"b"}, []any{nil}, []any{"a"}, []any{"b"}, []any{nil}, []any{int64(2)}, []any{2.0})
	got := drainValues(t, &aggregateOp{input: in, keys: []Evaluator{key}, aggs: []AggregateFunc{countFunc{}}, budget: &Budget{}})
	want := [][]any{{nil, int64(2)}, {int64(2), int64(2)}, {"a", int64(1)}, {"b", int64(2)}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
	// No keys: one group even over no rows.
	got = drainValues(t, &aggregateOp{input: valuesRows(), aggs: []AggregateFunc{countFunc{}}, budget: &Budget{}})
	if !reflect.DeepEqual(got, [][]any{{int64(0)}}) {
		t.Errorf("no rows: %v, want one row of 0", got)
	}
}

// TestExplainTree: every operator appears, root first, with the scan's plan at the leaf.
func TestExplainTree(t *testing.T) {
	op, err := Build(plan(t, "SELECT DISTINCT Status, COUNT(*) FROM T WHERE Name LIKE 'a%' GROUP BY Status HAVING COUNT(*) > 1 ORDER BY 2 DESC LIMIT 5 OFFSET 1"),
		Options{Source: &memSource{}})
	if err != nil {
		t.Fatal(err)
	}
	var ops []string
	var scan *translate.Plan
	for n := op.Explain(); ; n = n.Inputs[0] {
		ops = append(ops, n.Op)
		if n.Plan != nil {
			scan = n.Plan
		}
		if len(n.Inputs) == 0 {
			break
		}
	}
	want := []string{"limit", "top-N", "distinct", "project", "filter", "aggregate", "scan"}
	if !slices.Equal(ops, want) {
		t.Errorf("operators %q, want %q", ops, want)
	}
	if scan == nil || scan.Request.Formula == "" {
		t.Errorf("the scan carries no request: %+v", scan)
	}
}

// TestCatalog: information_schema tables answer like any table.
func TestCatalog(t *testing.T) {
	cat := NewCatalog(testSchema{}, []*translate.Table{testTable}, "appX")
	query := func(sql string) []string {
		t.Helper()
		ast, err := translate.Parse(sql)
		if err != nil {
			t.Fatal(err)
		}
		q, err := translate.NewQuery(ast.(*sqlparser.Select), cat, translate.Args{})
		if err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
		op, err := Build(q, Options{Catalog: cat})
		if err != nil {
			t.Fatal(err)
		}
		rows, err := Drain(context.Background(), op)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, r := range rows {
			parts := make([]string, len(r.Values))
			for i, v := range r.Values {
				parts[i] = fmt.Sprint(v)
			}
			out = append(out, strings.Join(parts, " "))
		}
		return out
	}
	if got := query("SELECT count(*) FROM information_schema.tables WHERE table_schema = 'appX' AND table_name = 'T' AND table_type = 'BASE TABLE'"); !slices.Equal(got, []string{"1"}) {
		t.Errorf("HasTable: %q", got)
	}
	got := query("SELECT column_name, is_nullable = 'YES', data_type, column_key FROM information_schema.columns WHERE table_schema = 'appX' AND table_name = 'T' ORDER BY ORDINAL_POSITION")
	want := []string{"id 0 varchar PRI", "Name 1 varchar ", "N 1 bigint ", "X 1 double ", "Done 0 tinyint ",
		"Day 1 date ", "Status 1 enum ", "createdTime 0 datetime "}
	if !slices.Equal(got, want) {
		t.Errorf("columns:\n got %q\nwant %q", got, want)
	}
	if got := query("SELECT INDEX_NAME, COLUMN_NAME, NON_UNIQUE FROM information_schema.STATISTICS WHERE TABLE_NAME = 'T'"); !slices.Equal(got, []string{"PRIMARY id 0"}) {
		t.Errorf("statistics: %q", got)
	}
	if got := query("SELECT COUNT(*) FROM information_schema.COLUMNS WHERE TABLE_NAME IN ('t', 'nope') AND COLUMN_NAME = 'NAME'"); !slices.Equal(got, []string{"1"}) {
		t.Errorf("names regardless of case: %q", got)
	}
	if got := query("SELECT SCHEMA_NAME FROM information_schema.SCHEMATA ORDER BY 1"); !slices.Equal(got, []string{"appX", "information_schema"}) {
		t.Errorf("schemata: %q", got)
	}
	if got := query("SELECT CONSTRAINT_NAME, COLUMN_NAME FROM information_schema.KEY_COLUMN_USAGE"); !slices.Equal(got, []string{"PRIMARY id"}) {
		t.Errorf("key_column_usage: %q", got)
	}
	if got := query("SELECT table_name, COUNT(*) FROM information_schema.columns GROUP BY table_name"); !slices.Equal(got, []string{"T 8"}) {
		t.Errorf("grouped: %q", got)
	}
	// No foreign keys, no routines: the tables exist, empty (JDBC's getImportedKeys joins them).
	if got := query("SELECT COUNT(*) FROM information_schema.KEY_COLUMN_USAGE k JOIN information_schema.REFERENTIAL_CONSTRAINTS r ON k.CONSTRAINT_NAME = r.CONSTRAINT_NAME"); !slices.Equal(got, []string{"0"}) {
		t.Errorf("foreign keys: %q", got)
	}
	if got := query("SELECT COUNT(*) FROM information_schema.ROUTINES"); !slices.Equal(got, []string{"0"}) {
		t.Errorf("routines: %q", got)
	}
	if _, err := translate.NewQuery(mustSelect(t, "SELECT * FROM information_schema.TRIGGERS"), cat, translate.Args{}); err == nil || !strings.Contains(err.Error(), "information_schema has TABLES") {
		t.Errorf("unknown information_schema table: %v", err)
	}
}

func mustSelect(t *testing.T, sql string) *sqlparser.Select {
	ast, err := translate.Parse(sql)
	if err != nil {
		t.Fatal(err)
	}
	return ast.(*sqlparser.Select)
}

// FuzzQuery: no input makes the planner or the operators panic. The parser's output of random SQL
// is planned against the test table and run over the test rows.
func FuzzQuery(f *testing.F) {
	for _, s := range []string{
		"SELECT Status, COUNT(*) FROM T GROUP BY Status",
		"SELECT DISTINCT N % 2 FROM T ORDER BY 1 DESC LIMIT 1, 2",
		"SELECT Name, SUM(X) s FROM T WHERE N > 1 GROUP BY Name HAVING s > 1 ORDER BY s",
		"SELECT GROUP_CONCAT(DISTINCT Name ORDER BY N SEPARATOR '-') FROM T",
		"SELECT COUNT(DISTINCT Name, N), AVG(N), MIN(Day) FROM T",
		"SELECT 1 + 1, 7 / 0 FROM DUAL",
		"SELECT * FROM T ORDER BY id LIMIT 2 OFFSET 1",
		"SELECT N FROM T GROUP BY 2",
		"SELECT COUNT(*) FROM T GROUP BY COUNT(*)",
		"SELECT MAX(MIN(N)) FROM T",
		"SELECT Name FROM T HAVING COUNT(*) > 0 ORDER BY SUM(N)",
		"SELECT ANY_VALUE(N) FROM T GROUP BY Status",
		"SELECT count(*) FROM information_schema.tables WHERE table_name = 'T'",
		"SELECT a.Name, b.N FROM T a JOIN T b ON a.N = b.N WHERE a.Status = 'x'",
		"SELECT * FROM T a LEFT JOIN T b ON a.id = b.id AND b.N > 1 RIGHT JOIN T c USING (Name)",
		"SELECT a.*, COUNT(*) FROM T a, T b WHERE a.N < b.N GROUP BY a.id ORDER BY 2",
		"SELECT Name FROM T WHERE N IN (SELECT N FROM T WHERE Status IS NULL) AND NOT EXISTS (SELECT 1 FROM T u WHERE u.N = T.N AND u.Name = 'a')",
		"SELECT (SELECT MAX(N) FROM T), Name FROM T WHERE N = (SELECT N FROM T LIMIT 1)",
		"SELECT Name FROM T UNION SELECT Status FROM T ORDER BY 1 DESC LIMIT 2",
		"WITH d AS (SELECT N, COUNT(*) c FROM T GROUP BY N) SELECT * FROM d JOIN T ON T.N = d.N",
		"SELECT d.x FROM (SELECT N + 1 AS x FROM T) d WHERE d.x > ?",
		"SELECT a.Name, (SELECT COUNT(*) FROM T b WHERE b.N = a.N) FROM T a",
		"SELECT Name FROM T a WHERE a.N > (SELECT AVG(b.N) FROM T b WHERE b.Status = a.Status) ORDER BY 1",
		"SELECT Name FROM T a WHERE a.Name IN (SELECT b.Name FROM T b WHERE b.N <> a.N LIMIT 2)",
		"SELECT Status, (SELECT MAX(b.N) FROM T b WHERE b.Status = a.Status) FROM T a GROUP BY Status",
		"SELECT Name FROM T a WHERE EXISTS (SELECT 1 FROM T b WHERE b.id = a.id AND EXISTS (SELECT 1 FROM T c WHERE c.N = a.N HAVING COUNT(*) > 1))",
		"SELECT * FROM T a JOIN T b ON a.N = b.N RIGHT JOIN T c ON c.Name = b.Name WHERE a.Status IS NULL",
		"SELECT * FROM (SELECT N, Name FROM T) a NATURAL LEFT JOIN (SELECT N, Status FROM T) b",
		"SELECT N, Name FROM T a NATURAL RIGHT JOIN T b",
		"SELECT * FROM T a JOIN T b USING (N, Name) JOIN T c USING (N)",
		"SELECT a.Name FROM T a JOIN (T b JOIN T c ON b.N = c.N) ON a.id = b.id",
		"SELECT * FROM T a LEFT JOIN T b ON b.id = a.id LEFT JOIN T c ON c.N = b.N",
		"SELECT a.Name, b.N, c.Status FROM T a LEFT JOIN (T b JOIN T c ON c.N = b.N) ON b.Name = a.Name WHERE c.id IS NULL",
		"SELECT Name, jt.* FROM T, JSON_TABLE(JSON_ARRAY(Name, N, JSON_OBJECT('k', X)), '$[*]' COLUMNS (i FOR ORDINALITY, v VARCHAR(3) PATH '$', e INT EXISTS PATH '$.k', NESTED PATH '$.k' COLUMNS (k DECIMAL(4, 1) PATH '$' DEFAULT '1' ON EMPTY ERROR ON ERROR))) AS jt",
		"SELECT jt.v, COUNT(*) FROM T LEFT JOIN JSON_TABLE(IF(N > 1, JSON_ARRAY(Status), NULL), '$[*]' COLUMNS (v TEXT PATH '$')) jt ON jt.v <> T.Name GROUP BY jt.v",
		"SELECT * FROM JSON_TABLE(?, '$' COLUMNS (d DATE PATH '$', n BIGINT UNSIGNED PATH '$', j JSON PATH '$[*]')) AS jt",
	} {
		f.Add(s)
	}
	cat := NewCatalog(testSchema{}, []*translate.Table{testTable}, "appX")
	f.Fuzz(func(t *testing.T, sql string) {
		ast, err := translate.Parse(sql)
		if err != nil {
			return
		}
		sel, ok := ast.(sqlparser.SelectStatement)
		if !ok {
			return
		}
		q, err := translate.NewQueryStatement(sel, cat, translate.Args{Positional: []any{int64(1), "a", 2.5}})
		if err != nil {
			return
		}
		op, err := Build(q, Options{Source: &memSource{rows: testRows, pageSize: 2}, Catalog: cat, MaxRows: 1000})
		if err != nil {
			return
		}
		rows, _ := Drain(context.Background(), op)
		for _, r := range rows {
			if len(r.Values) != len(q.Columns) {
				t.Fatalf("%s: a row of %d values for %d columns", sql, len(r.Values), len(q.Columns))
			}
		}
	})
}

// TestStart: Start sends the scan's request before the first Next, once.
func TestStart(t *testing.T) {
	src := &memSource{rows: testRows, pageSize: 2}
	op, err := Build(plan(t, "SELECT Status, COUNT(*) FROM T GROUP BY Status ORDER BY 2 LIMIT 1"), Options{Source: src})
	if err != nil {
		t.Fatal(err)
	}
	Start(context.Background(), op)
	if len(src.scans) != 1 {
		t.Fatalf("%d scans started, want 1", len(src.scans))
	}
	if _, err := Drain(context.Background(), op); err != nil {
		t.Fatal(err)
	}
	if len(src.scans) != 1 {
		t.Errorf("%d scans, want the one started", len(src.scans))
	}
}

// TestExpressionsMatchExactly: an expression matches a GROUP BY key, an ORDER BY key or another
// aggregate only when written the same, string literals' case included.
func TestExpressionsMatchExactly(t *testing.T) {
	for query, want := range map[string][]string{
		"SELECT YEAR(Day), COUNT(*) FROM T GROUP BY year(day)":                                  {"NULL|2", "2024|3"},
		"SELECT CONCAT(Status, 'a') FROM T GROUP BY CONCAT(Status, 'a')":                        {"NULL", "aa", "ba"},
		"SELECT GROUP_CONCAT(N SEPARATOR 'A'), GROUP_CONCAT(N SEPARATOR 'a') FROM T":            {"3A1A2A3|3a1a2a3"},
		"SELECT Name FROM T WHERE N IS NOT NULL ORDER BY CONCAT(Name, 'A') = 'appleA' DESC, id": {"apple", "apple", "Banana", "NULL"},
	} {
		if got := run(t, testRows, query); !slices.Equal(got, want) {
			t.Errorf("%s: got %q, want %q", query, got, want)
		}
	}
	if _, err := planQuery("SELECT CONCAT(Status, 'A') FROM T GROUP BY CONCAT(Status, 'a')"); err == nil || !strings.Contains(err.Error(), "only_full_group_by") {
		t.Errorf("a key written with another literal: %v, want the ONLY_FULL_GROUP_BY refusal", err)
	}
}
