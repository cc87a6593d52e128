package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/airsql/airsql/sqlvalue"
	"github.com/airsql/airsql/translate"
)

// explainText is every operator's detail of an EXPLAIN tree, one per line.
func explainText(n Node) string {
	s := n.Op + ": " + n.Detail + "\n"
	for _, in := range n.Inputs {
		s += explainText(in)
	}
	return s
}

// TestKeyedAggregate runs correlated aggregate subqueries that depend on the outer row through one
// key (aggregated per key in one pass) and the same subqueries with LIMIT 5 added, which changes
// nothing in their one row but makes them run per outer value through the index: the results must
// be the same, the first shape must say it runs per key, and each table is read once.
func TestKeyedAggregate(t *testing.T) {
	rows := append(slices.Clone(testRows),
		row("rec06", "Name", "2", "N", 2.0, "X", 3.5, "Status", "a", "Day", "2024-01-03"),
		row("rec07", "Name", "3.0", "N", 3.0, "X", -1.0, "Status", "b", "Done", true),
		row("rec08", "Name", "apple", "N", 9.0, "Status", "c"))
	tests := []struct{ name, query string }{
		{"count", "SELECT o.Name, (SELECT COUNT(*) FROM T a WHERE a.N = o.N) FROM T o"},
		{"key on the right", "SELECT o.Name, (SELECT COUNT(*) FROM T a WHERE o.N = a.N) FROM T o"},
		{"several aggregates", "SELECT o.id, (SELECT CONCAT(COUNT(a.X), '/', SUM(a.X), '/', AVG(a.X), '/', MIN(a.Day), '/', MAX(a.Name)) FROM T a WHERE a.Status = o.Status) FROM T o"},
		{"distinct and group_concat", "SELECT o.id, (SELECT CONCAT(COUNT(DISTINCT a.N), ':', GROUP_CONCAT(a.Name ORDER BY a.Name DESC SEPARATOR ',')) FROM T a WHERE a.Status = o.Status) FROM T o"},
		{"the rest of the WHERE", "SELECT o.id, (SELECT SUM(a.X) FROM T a WHERE a.N = o.N AND a.X > 0 AND NOT a.Done) FROM T o"},
		{"the rest of the WHERE, checked here", "SELECT o.id, (SELECT SUM(a.X) FROM T a WHERE a.N = o.N AND JSON_LENGTH(JSON_ARRAY(a.Name, a.Status)) > 1 AND a.Name REGEXP '^[a-c]') FROM T o"},
		{"HAVING", "SELECT o.id, (SELECT COUNT(*) FROM T a WHERE a.N = o.N HAVING COUNT(*) > 1) FROM T o"},
		{"an expression of aggregates", "SELECT o.id, (SELECT COUNT(*) * 10 + MAX(a.X) FROM T a WHERE a.Name = o.Name) FROM T o"},
		{"text against a number", "SELECT o.id, (SELECT COUNT(*) FROM T a WHERE a.Name = o.N) FROM T o"},
		{"in WHERE", "SELECT o.id FROM T o WHERE o.X >= (SELECT AVG(a.X) FROM T a WHERE a.Status = o.Status)"},
		{"IN", "SELECT o.id FROM T o WHERE o.N IN (SELECT MAX(a.N) FROM T a WHERE a.Status = o.Status)"},
		{"in ORDER BY", "SELECT o.id FROM T o ORDER BY (SELECT COUNT(*) FROM T a WHERE a.N = o.N), o.id"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			general := strings.Replace(tt.query, ") FROM T o", " LIMIT 5) FROM T o", 1)
			if general == tt.query {
				general = strings.Replace(tt.query, "o.Status)", "o.Status LIMIT 5)", 1)
				general = strings.Replace(general, "o.N),", "o.N LIMIT 5),", 1)
			}
			if general == tt.query {
				t.Fatalf("no LIMIT added to %s", tt.query)
			}
			got, keyed, reads := runExplained(t, rows, tt.query)
			want, keyedGeneral, _ := runExplained(t, rows, general)
			if !slices.Equal(got, want) {
				t.Errorf("got %q, want %q (from %s)", got, want, general)
			}
			if !keyed || keyedGeneral {
				t.Errorf("aggregated per key: %v and %v, want true (%s) and false (%s)", keyed, keyedGeneral, tt.query, general)
			}
			if reads != 2 {
				t.Errorf("got %d scans, want 2: the outer table and the subquery's, once each", reads)
			}
		})
	}
}

// TestKeyedAggregateRowLimit: past maxRows, a keyed aggregate's groups fail with a RowLimitError
// that names its subquery and key, and the statement's own GROUP BY with "GROUP BY". testRows
// has 5 rows: the subquery's kept rows (5) fit in 6 and 8, with their groups they do not.
func TestKeyedAggregateRowLimit(t *testing.T) {
	tests := []struct {
		query   string
		maxRows int
		want    string
	}{
		{"SELECT o.Name, (SELECT COUNT(*) FROM T a WHERE a.Name = o.Name) FROM T o", 6,
			"engine: the groups of the correlated subquery (select COUNT(*) from T as a where a.Name = o.Name) (grouped by a.Name = o.Name) would hold more than 6 rows"},
		{"SELECT o.Name FROM T o WHERE o.N > (SELECT AVG(a.N) FROM T a WHERE a.Name = o.Name)", 8,
			"engine: the groups of the correlated subquery (select AVG(a.N) from T as a where a.Name = o.Name) (grouped by a.Name = o.Name) would hold more than 8 rows"},
		{"SELECT id, COUNT(*) FROM T GROUP BY id", 4, "engine: GROUP BY would hold more than 4 rows"},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			_, err := runErr(testRows, tt.maxRows, tt.query)
			var rl *RowLimitError
			if !errors.As(err, &rl) || rl.Limit != tt.maxRows || !strings.HasPrefix(err.Error(), tt.want) {
				t.Errorf("got %v, want a RowLimitError of %d starting %q", err, tt.maxRows, tt.want)
			}
		})
	}
}

// runExplained runs a query over rows: its rows, whether EXPLAIN says a correlated subquery is
// aggregated per key, and how many scans it sent.
func runExplained(t *testing.T, rows []translate.Row, query string) ([]string, bool, int) {
	t.Helper()
	src := &memSource{rows: rows, pageSize: 2}
	op, err := Build(plan(t, query), Options{Source: src})
	if err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	keyed := strings.Contains(explainText(op.Explain()), "aggregated per value of its inner side in one pass")
	got, err := Drain(context.Background(), op)
	if err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	return rowStrings(got), keyed, len(src.scans)
}

// TestGroupValueKeysAsTheInnerValue: the value a keyed aggregate groups a row by has the
// AppendKey of the key's inner value, whatever the cell holds (GroupValue returns a number's
// cell as read, not boxed again).
func TestGroupValueKeysAsTheInnerValue(t *testing.T) {
	for _, field := range []string{"N", "X"} { // precision 0 and precision 2
		q := plan(t, "SELECT (SELECT COUNT(*) FROM T a WHERE a."+field+" = o."+field+") FROM T o")
		key, _, ok := q.Subqueries[0].KeyedAggregate()
		if !ok {
			t.Fatalf("%s: not a keyed aggregate", field)
		}
		for _, cell := range []any{nil, 3.0, -0.0, 2.5, 1e300, math.NaN(), json.Number("7"), "12", true, map[string]any{"specialValue": "NaN"}} {
			t.Run(fmt.Sprintf("%s=%v", field, cell), func(t *testing.T) {
				r := row("rec1", field, cell)
				got, err := key.GroupValue(&r)
				if err != nil {
					t.Fatal(err)
				}
				inner, err := key.InnerValues(&r)
				if err != nil {
					t.Fatal(err)
				}
				want := []byte(nil)
				if len(inner) == 1 {
					want = sqlvalue.AppendKey(nil, inner[0])
				}
				if got == nil && want != nil || got != nil && !bytes.Equal(sqlvalue.AppendKey(nil, got), want) {
					t.Errorf("got %v (key %x), want the key %x of %v", got, sqlvalue.AppendKey(nil, got), want, inner)
				}
			})
		}
	}
}
