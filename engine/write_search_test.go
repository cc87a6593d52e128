package engine

import (
	"context"
	"slices"
	"testing"

	"github.com/xwb1989/sqlparser"

	"github.com/airsql/airsql/translate"
)

// TestWriteSearch: a DELETE's search (translate.Search, a SELECT of id) run by Build finds the
// records the WHERE selects, with the requests the plan says (none for a WHERE that is never true).
func TestWriteSearch(t *testing.T) {
	for _, c := range []struct {
		sql      string
		want     []string // record ids, in order
		requests int
	}{
		{"DELETE FROM T WHERE N > 1", []string{"rec01", "rec04", "rec05"}, 1},
		{"DELETE FROM T WHERE LOWER(Name) = 'apple'", []string{"rec01", "rec04"}, 1},
		{"DELETE FROM T WHERE Status = 'b' OR N IS NULL", []string{"rec02", "rec03", "rec05"}, 1},
		{"DELETE FROM T WHERE id = 'rec01' AND id = 'rec02'", nil, 0},
	} {
		t.Run(c.sql, func(t *testing.T) {
			ast, err := translate.Parse(c.sql)
			if err != nil {
				t.Fatal(err)
			}
			plan, err := translate.Delete(ast.(*sqlparser.Delete), testSchema{}, translate.Args{})
			if err != nil {
				t.Fatal(err)
			}
			src := &memSource{rows: testRows, pageSize: 2}
			op, err := Build(plan.Search.Query, Options{Source: src})
			if err != nil {
				t.Fatal(err)
			}
			rows, err := Drain(context.Background(), op)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, r := range rows {
				got = append(got, r.Values[0].(string))
			}
			if !slices.Equal(got, c.want) || len(src.scans) != c.requests {
				t.Errorf("got %v with %d request(s), want %v with %d", got, len(src.scans), c.want, c.requests)
			}
		})
	}
}
