package engine

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"testing"

	"github.com/airsql/airsql/translate"
)

// TestJSONTable runs JSON tables over in-memory rows: a leaf made once, and lateral joins made per
// row so far — inner, LEFT with and without matches, the JSON table's own conditions, an ON that
// reads both sides — in the order of the rows so far and of each document.
func TestJSONTable(t *testing.T) {
	for _, tt := range []struct {
		name, query string
		want        []string
	}{
		{"leaf", "SELECT * FROM JSON_TABLE('[10, 20]', '$[*]' COLUMNS (k FOR ORDINALITY, v INT PATH '$')) jt",
			[]string{"1|10", "2|20"}},
		{"lateral, comma", "SELECT Name, jt.k, jt.v FROM T, JSON_TABLE(JSON_ARRAY(Name, N), '$[*]' COLUMNS (k FOR ORDINALITY, v VARCHAR(10) PATH '$')) jt",
			[]string{"apple|1|apple", "apple|2|3", "Banana|1|Banana", "Banana|2|1", "cherry|1|cherry", "cherry|2|NULL", "apple|1|apple", "apple|2|2", "NULL|1|NULL", "NULL|2|3"}},
		{"lateral, the JSON table's own condition", "SELECT Name, jt.v FROM T JOIN JSON_TABLE(JSON_ARRAY(Name, N), '$[*]' COLUMNS (v VARCHAR(10) PATH '$')) jt WHERE jt.v = 'apple'",
			[]string{"apple|apple", "apple|apple"}},
		{"LEFT JOIN ON TRUE: a NULL document", "SELECT Name, jt.v FROM T LEFT JOIN JSON_TABLE(IF(N > 2, JSON_ARRAY(N, X), NULL), '$[*]' COLUMNS (v DOUBLE PATH '$')) jt ON TRUE",
			[]string{"apple|3", "apple|1.5", "Banana|NULL", "cherry|NULL", "apple|NULL", "NULL|3", "NULL|4"}},
		{"LEFT JOIN: an ON reading both sides", "SELECT Name, jt.v FROM T LEFT JOIN JSON_TABLE('[1, 2, 3]', '$[*]' COLUMNS (v INT PATH '$')) jt ON jt.v < T.N WHERE Name IS NOT NULL",
			[]string{"apple|1", "apple|2", "Banana|NULL", "cherry|NULL", "apple|1"}},
		{"a hash join with a JSON table that reads no table", "SELECT Name, jt.v FROM T JOIN JSON_TABLE('[1, 3]', '$[*]' COLUMNS (v INT PATH '$')) jt ON jt.v = T.N",
			[]string{"apple|3", "Banana|1", "NULL|3"}},
		{"aggregate over a lateral join", "SELECT jt.v, COUNT(*) FROM T, JSON_TABLE(JSON_ARRAY(Status), '$[*]' COLUMNS (v VARCHAR(3) PATH '$')) jt GROUP BY jt.v",
			[]string{"NULL|1", "a|2", "b|2"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := run(t, testRows, tt.query)
			if tt.name == "aggregate over a lateral join" || tt.name == "a hash join with a JSON table that reads no table" {
				slices.Sort(got)
				slices.Sort(tt.want)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
}

// TestJSONTableRowLimit: a document's rows and a lateral join's rows count against maxRows.
func TestJSONTableRowLimit(t *testing.T) {
	for _, q := range []string{
		"SELECT * FROM JSON_TABLE('[1, 2, 3, 4]', '$[*]' COLUMNS (v INT PATH '$')) jt",
		"SELECT jt.v FROM T, JSON_TABLE('[1]', '$[*]' COLUMNS (v INT PATH '$')) jt",
	} {
		_, err := runErr(testRows, 3, q)
		var rl *RowLimitError
		if !errors.As(err, &rl) || rl.Limit != 3 {
			t.Errorf("%s: got %v, want a RowLimitError of 3", q, err)
		}
	}
}

// BenchmarkLateralJSONTable unnests a 20-item list for each of 500 rows (10,000 joined rows).
func BenchmarkLateralJSONTable(b *testing.B) {
	var rows []translate.Row
	for i := range 500 {
		rows = append(rows, row(fmt.Sprintf("rec%03d", i), "Name", `["a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l", "m", "n", "o", "p", "q", "r", "s", "t"]`, "N", float64(i)))
	}
	q := plan(b, "SELECT T.N, jt.k, jt.v FROM T, JSON_TABLE(Name, '$[*]' COLUMNS (k FOR ORDINALITY, v VARCHAR(5) PATH '$')) jt")
	b.ReportAllocs()
	for b.Loop() {
		op, err := Build(q, Options{Source: &memSource{rows: rows, pageSize: 100}})
		if err != nil {
			b.Fatal(err)
		}
		n := 0
		for {
			_, err := op.Next(context.Background())
			if err == io.EOF {
				break
			}
			if err != nil {
				b.Fatal(err)
			}
			n++
		}
		op.Close()
		if n != 10000 {
			b.Fatalf("%d rows, want 10000", n)
		}
	}
}
