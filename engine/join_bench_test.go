package engine

import (
	"context"
	"fmt"
	"io"
	"testing"

	"github.com/airsql/airsql/translate"
	"github.com/xwb1989/sqlparser"
)

// tablesSource serves in-memory tables by name, in pages.
type tablesSource struct {
	rows     map[string][]translate.Row
	pageSize int
}

func (s tablesSource) Scan(ctx context.Context, plan *translate.Plan) (Pages, error) {
	return &slicePages{rows: s.rows[plan.Table.Name], size: s.pageSize}, nil
}

type slicePages struct {
	rows []translate.Row
	size int
}

func (p *slicePages) Next(context.Context) ([]translate.Row, error) {
	if len(p.rows) == 0 {
		return nil, io.EOF
	}
	n := min(p.size, len(p.rows))
	page := p.rows[:n]
	p.rows = p.rows[n:]
	return page, nil
}
func (p *slicePages) Close() {}

type benchSchema map[string]*translate.Table

func (s benchSchema) Table(name string) (*translate.Table, bool) { t, ok := s[name]; return t, ok }

// big and small are the sizes of bigAndSmall's tables.
const big, small = 100_000, 10_000

// bigAndSmall is the in-memory base of the join benchmarks: Big's 100,000 rows hold the keys K of
// Small's 10,000, each 10 times.
func bigAndSmall() (benchSchema, map[string][]translate.Row) {
	fields := []translate.Field{{Name: "K", Type: "number", Options: map[string]any{"precision": 0}}, {Name: "Name", Type: "singleLineText"}}
	schema := benchSchema{
		"Big":   {ID: "tblBig", Name: "Big", Fields: fields},
		"Small": {ID: "tblSmall", Name: "Small", Fields: fields},
	}
	rows := map[string][]translate.Row{}
	for i := range big {
		rows["Big"] = append(rows["Big"], translate.Row{ID: fmt.Sprintf("recB%07d", i), Fields: map[string]any{"K": float64(i % small), "Name": "b"}})
	}
	for i := range small {
		rows["Small"] = append(rows["Small"], translate.Row{ID: fmt.Sprintf("recS%07d", i), Fields: map[string]any{"K": float64(i), "Name": "s"}})
	}
	return schema, rows
}

// runBench plans the statement and runs it over the in-memory rows, as each benchmark iteration does.
func runBench(b *testing.B, ast sqlparser.Statement, schema translate.Schema, rows map[string][]translate.Row) []translate.Row {
	q, err := translate.NewQuery(ast.(*sqlparser.Select), schema, translate.Args{})
	if err != nil {
		b.Fatal(err)
	}
	op, err := Build(q, Options{Source: tablesSource{rows: rows, pageSize: 100}})
	if err != nil {
		b.Fatal(err)
	}
	out, err := Drain(context.Background(), op)
	if err != nil {
		b.Fatal(err)
	}
	return out
}

// BenchmarkHashJoin joins 100,000 rows with 10,000 on a number key (each big row matches one
// small row) and counts the result: the hash table is built on the 10,000 rows and probed with
// the 100,000. ns/row is per probe row.
func BenchmarkHashJoin(b *testing.B) {
	schema, rows := bigAndSmall()
	ast, err := translate.Parse("SELECT COUNT(*) FROM Big a JOIN Small b ON a.K = b.K")
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if out := runBench(b, ast, schema, rows); len(out) != 1 || out[0].Values[0] != int64(big) {
			b.Fatalf("%v", out)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*big), "ns/row")
}

// BenchmarkCorrelatedSubquery: SELECT b.K, (SELECT COUNT(*) FROM Big a WHERE a.K = b.K) FROM
// Small b over 100,000 × 10,000 in-memory rows: Big is read once and indexed by K, and each of the
// 10,000 outer values runs the count over its 10 rows. ns/row is per outer row.
func BenchmarkCorrelatedSubquery(b *testing.B) {
	schema, rows := bigAndSmall()
	ast, err := translate.Parse("SELECT b.K, (SELECT COUNT(*) FROM Big a WHERE a.K = b.K) FROM Small b")
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if out := runBench(b, ast, schema, rows); len(out) != small || out[0].Values[1] != int64(big/small) {
			b.Fatalf("%d rows, %v", len(out), out[:min(1, len(out))])
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*small), "ns/row")
}
