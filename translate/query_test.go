package translate

import (
	"testing"

	"github.com/xwb1989/sqlparser"
)

// TestQueryLocalOnly: with nothing pushed, the request lists the whole table and every WHERE,
// ORDER BY and LIMIT is left to the engine.
func TestQueryLocalOnly(t *testing.T) {
	schema := loadSchema(t)
	ast, err := Parse("SELECT Name FROM Tasks WHERE Priority IS NOT NULL ORDER BY Priority LIMIT 2 OFFSET 1")
	if err != nil {
		t.Fatal(err)
	}
	sel := ast.(*sqlparser.Select)
	pushed, err := NewQuery(sel, schema, Args{})
	if err != nil {
		t.Fatal(err)
	}
	if pushed.Scan.Request.Formula == "" || len(pushed.Scan.Request.Sort) == 0 || pushed.Scan.Request.MaxRecords != 3 || pushed.SortLocally {
		t.Fatalf("pushed plan: %+v, SortLocally %v", pushed.Scan.Request, pushed.SortLocally)
	}
	local, err := newQuery(sel, schema, Args{}, true)
	if err != nil {
		t.Fatal(err)
	}
	r := local.Scan.Request
	if r.Formula != "" || len(r.Sort) != 0 || r.MaxRecords != 0 || local.Scan.Exact || !local.SortLocally {
		t.Errorf("local-only plan: %+v, Exact %v, SortLocally %v", r, local.Scan.Exact, local.SortLocally)
	}
	if len(r.Fields) != 2 {
		t.Errorf("fields %q, want Name and Priority (the local re-check reads Priority)", r.Fields)
	}
}
