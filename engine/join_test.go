package engine

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/airsql/airsql/translate"
	"github.com/xwb1989/sqlparser"
)

// joinRows runs a statement over testRows (every table is T) and returns its rows as text.
func joinRows(t *testing.T, src *memSource, sql string, maxRows int) ([]string, error) {
	t.Helper()
	return joinRowsFrom(t, src, sql, maxRows)
}

// joinRowsFrom is joinRows over any source.
func joinRowsFrom(t *testing.T, src Source, sql string, maxRows int) ([]string, error) {
	t.Helper()
	return joinRowsPlanned(t, src, sql, maxRows, translate.Args{})
}

// joinRowsPlanned is joinRowsFrom with the planner's args (LocalOnly: as the replica plans).
func joinRowsPlanned(t *testing.T, src Source, sql string, maxRows int, args translate.Args) ([]string, error) {
	t.Helper()
	ast, err := translate.Parse(sql)
	if err != nil {
		t.Fatal(err)
	}
	q, err := translate.NewQueryStatement(ast.(sqlparser.SelectStatement), testSchema{}, args)
	if err != nil {
		return nil, err
	}
	op, err := Build(q, Options{Source: src, MaxRows: maxRows})
	if err != nil {
		return nil, err
	}
	rows, err := Drain(context.Background(), op)
	var out []string
	for _, r := range rows {
		parts := make([]string, len(r.Values))
		for i, v := range r.Values {
			parts[i] = fmt.Sprint(v)
			if v == nil {
				parts[i] = "NULL"
			}
		}
		out = append(out, strings.Join(parts, "|"))
	}
	slices.Sort(out)
	return out, err
}

// TestHashJoin: inner and left joins on numbers and text (NULL never matches), a residual ON
// condition, and the bind join's formula as the fake service evaluates it.
func TestHashJoin(t *testing.T) {
	for _, tc := range []struct {
		sql  string
		want []string
	}{
		{"SELECT a.id, b.id FROM T a JOIN T b ON a.N = b.N", []string{"rec01|rec01", "rec01|rec05", "rec02|rec02", "rec04|rec04", "rec05|rec01", "rec05|rec05"}},
		{"SELECT a.id, b.id FROM T a LEFT JOIN T b ON a.N = b.N AND b.id <> a.id", []string{"rec01|rec05", "rec02|NULL", "rec03|NULL", "rec04|NULL", "rec05|rec01"}},
		{"SELECT a.id, b.id FROM T a JOIN T b ON a.Name = b.Name WHERE a.id <= b.id", []string{"rec01|rec01", "rec01|rec04", "rec02|rec02", "rec03|rec03", "rec04|rec04"}},
		{"SELECT a.id, COUNT(*) FROM T a, T b WHERE a.X < b.X GROUP BY a.id", []string{"rec01|2", "rec02|1", "rec04|3"}},
		{"SELECT a.id FROM T a RIGHT JOIN T b ON a.id = b.id AND a.Done WHERE b.Status = 'b'", []string{"NULL", "rec02"}},
	} {
		got, err := joinRows(t, &memSource{rows: testRows, pageSize: 2}, tc.sql, 0)
		if err != nil || !slices.Equal(got, tc.want) {
			t.Errorf("%s:\n got %v %v\nwant %v", tc.sql, got, err, tc.want)
		}
	}

	// The filtered table is read first and its ids are pushed into the other's formula.
	src := &memSource{rows: testRows, pageSize: 2}
	got, err := joinRows(t, src, "SELECT a.Name FROM T a JOIN T b ON a.id = b.id WHERE b.Status = 'a'", 0)
	if err != nil || !slices.Equal(got, []string{"apple", "cherry"}) {
		t.Fatalf("bind join: %v %v", got, err)
	}
	if len(src.scans) != 2 || src.scans[0].Request.Formula != "{Status}='a'" ||
		src.scans[1].Request.Formula != "OR(RECORD_ID()='rec01', RECORD_ID()='rec03')" {
		for _, s := range src.scans {
			t.Logf("scan %q", s.Request.Formula)
		}
		t.Fatal("want the filtered scan, then the other by id")
	}

	// No key on one side of an inner join: the other table is not read at all.
	src = &memSource{rows: testRows, pageSize: 2}
	if got, err := joinRows(t, src, "SELECT a.Name FROM T a JOIN T b ON a.id = b.id WHERE b.Status = 'none'", 0); err != nil || len(got) != 0 || len(src.scans) != 1 {
		t.Fatalf("empty side: %v %v, %d scans", got, err, len(src.scans))
	}

	// Past maxRows: an error naming the join and the limit.
	_, err = joinRows(t, &memSource{rows: testRows, pageSize: 2}, "SELECT COUNT(*) FROM T a, T b, T c", 20)
	if err == nil || !strings.Contains(err.Error(), "the join of T a, T b with T c") || !strings.Contains(err.Error(), "maxRows") {
		t.Fatalf("row limit: %v", err)
	}
}
