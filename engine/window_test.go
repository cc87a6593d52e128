package engine

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"testing"

	"github.com/airsql/airsql/translate"
)

// TestWindowQueries runs window functions over testRows (N: 3, 1, NULL, 2, 3 for rec01…rec05;
// Status: a, b, a, NULL, b).
func TestWindowQueries(t *testing.T) {
	tests := []struct {
		query string
		want  []string
	}{
		{"SELECT id, ROW_NUMBER() OVER (ORDER BY N, id) FROM T ORDER BY id",
			[]string{"rec01|4", "rec02|2", "rec03|1", "rec04|3", "rec05|5"}},
		{"SELECT id, RANK() OVER (ORDER BY N), DENSE_RANK() OVER (ORDER BY N), PERCENT_RANK() OVER (ORDER BY N), CUME_DIST() OVER (ORDER BY N) FROM T ORDER BY id",
			[]string{"rec01|4|4|0.75|1", "rec02|2|2|0.25|0.4", "rec03|1|1|0|0.2", "rec04|3|3|0.5|0.6", "rec05|4|4|0.75|1"}},
		{"SELECT id, ROW_NUMBER() OVER (PARTITION BY Status ORDER BY id DESC) FROM T ORDER BY id",
			[]string{"rec01|2", "rec02|2", "rec03|1", "rec04|1", "rec05|1"}},
		{"SELECT id, NTILE(2) OVER (ORDER BY id), NTILE(4) OVER (ORDER BY id) FROM T ORDER BY id",
			[]string{"rec01|1|1", "rec02|1|1", "rec03|1|2", "rec04|2|3", "rec05|2|4"}},
		{"SELECT id, LAG(N) OVER w, LEAD(N, 2, -1) OVER w, LAG(Name, 0) OVER w FROM T WINDOW w AS (ORDER BY id) ORDER BY id",
			[]string{"rec01|NULL|NULL|apple", "rec02|3|2|Banana", "rec03|1|3|cherry", "rec04|NULL|-1|apple", "rec05|2|-1|NULL"}},
		// Running sum (RANGE to the current row's peers), whole partition, sliding ROWS frames.
		{"SELECT id, SUM(N) OVER (ORDER BY N), COUNT(*) OVER (), SUM(N) OVER (ORDER BY id ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING) FROM T ORDER BY id",
			[]string{"rec01|9|5|4", "rec02|1|5|4", "rec03|NULL|5|3", "rec04|3|5|5", "rec05|9|5|5"}},
		{"SELECT id, FIRST_VALUE(Name) OVER w, LAST_VALUE(Name) OVER w, NTH_VALUE(Name, 2) OVER w FROM T WINDOW w AS (ORDER BY id) ORDER BY id",
			[]string{"rec01|apple|apple|NULL", "rec02|apple|Banana|Banana", "rec03|apple|cherry|Banana", "rec04|apple|apple|Banana", "rec05|apple|NULL|Banana"}},
		{"SELECT id, COUNT(*) OVER (ORDER BY N RANGE BETWEEN 1 PRECEDING AND CURRENT ROW) FROM T ORDER BY id",
			[]string{"rec01|3", "rec02|1", "rec03|1", "rec04|2", "rec05|3"}},
		{"SELECT id, COUNT(*) OVER (ORDER BY Day RANGE BETWEEN INTERVAL 2 DAY PRECEDING AND INTERVAL 1 MONTH FOLLOWING) FROM T ORDER BY id",
			[]string{"rec01|3", "rec02|3", "rec03|2", "rec04|1", "rec05|2"}},
		// Over grouped rows: a running total of groups.
		{"SELECT Status, COUNT(*), SUM(COUNT(*)) OVER (ORDER BY Status) FROM T GROUP BY Status",
			[]string{"NULL|1|1", "a|2|3", "b|2|5"}},
		// In ORDER BY, and top-N per group in a derived table.
		{"SELECT id FROM T ORDER BY ROW_NUMBER() OVER (ORDER BY Name DESC, id)",
			[]string{"rec03", "rec01", "rec04", "rec02", "rec05"}},
		{"SELECT id, rn FROM (SELECT id, Status, ROW_NUMBER() OVER (PARTITION BY Status ORDER BY N DESC, id) rn FROM T) d WHERE rn <= 1 ORDER BY id",
			[]string{"rec01|1", "rec04|1", "rec05|1"}},
		{"WITH r AS (SELECT Name, RANK() OVER (ORDER BY X DESC) AS k FROM T) SELECT Name FROM r WHERE k = 1",
			[]string{"NULL"}},
		{"SELECT DISTINCT COUNT(*) OVER (PARTITION BY Status) FROM T ORDER BY 1", []string{"1", "2"}},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			got := run(t, testRows, tt.query)
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got  %q\nwant %q", got, tt.want)
			}
		})
	}
}

// TestWindowErrors: MySQL's refusals, with its error numbers.
func TestWindowErrors(t *testing.T) {
	tests := []struct {
		query string
		code  int
	}{
		{"SELECT id FROM T WHERE ROW_NUMBER() OVER () > 1", 3593},
		{"SELECT COUNT(*) FROM T GROUP BY ROW_NUMBER() OVER ()", 3593},
		{"SELECT Status FROM T GROUP BY Status HAVING RANK() OVER () > 1", 3593},
		{"SELECT SUM(ROW_NUMBER() OVER ()) OVER () FROM T", 3593},
		{"SELECT ROW_NUMBER() OVER (PARTITION BY RANK() OVER ()) FROM T", 3595},
		{"SELECT ROW_NUMBER() OVER w FROM T", 3579},
		{"SELECT ROW_NUMBER() OVER w FROM T WINDOW w AS (), w AS ()", 3591},
		{"SELECT RANK() OVER (w PARTITION BY N) FROM T WINDOW w AS ()", 3581},
		{"SELECT RANK() OVER (w ORDER BY N) FROM T WINDOW w AS (ORDER BY N ROWS CURRENT ROW)", 3582},
		{"SELECT RANK() OVER (w ORDER BY N) FROM T WINDOW w AS (ORDER BY id)", 3583},
		{"SELECT SUM(N) OVER (ORDER BY N ROWS BETWEEN UNBOUNDED FOLLOWING AND CURRENT ROW) FROM T", 3584},
		{"SELECT SUM(N) OVER (ORDER BY N ROWS BETWEEN CURRENT ROW AND UNBOUNDED PRECEDING) FROM T", 3585},
		{"SELECT SUM(N) OVER (ORDER BY N ROWS -1 PRECEDING) FROM T", 3586},
		{"SELECT SUM(N) OVER (ORDER BY N, id RANGE 1 PRECEDING) FROM T", 3587},
		{"SELECT SUM(N) OVER (ORDER BY Day RANGE 1 PRECEDING) FROM T", 3588},
		{"SELECT SUM(N) OVER (ORDER BY N RANGE INTERVAL 1 DAY PRECEDING) FROM T", 3589},
		{"SELECT SUM(N) OVER (ORDER BY N ROWS N PRECEDING) FROM T", 3590},
		{"SELECT SUM(N) OVER (ORDER BY N ROWS INTERVAL 1 DAY PRECEDING) FROM T", 3596},
		{"SELECT COUNT(DISTINCT N) OVER () FROM T", 1235},
		{"SELECT NTH_VALUE(N, 1) FROM LAST OVER () FROM T", 1235},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			_, err := runErr(testRows, 0, tt.query)
			var we *translate.WindowError
			if !errors.As(err, &we) || we.Code != tt.code {
				t.Fatalf("got %v, want MySQL error %d", err, tt.code)
			}
		})
	}
}

// TestWindowRowLimit: the window operator holds every row, counted against maxRows.
func TestWindowRowLimit(t *testing.T) {
	_, err := runErr(testRows, 4, "SELECT id, ROW_NUMBER() OVER (ORDER BY id) FROM T")
	var rl *RowLimitError
	if !errors.As(err, &rl) || rl.Limit != 4 {
		t.Fatalf("got %v, want a RowLimitError at 4 rows", err)
	}
	if _, err := runErr(testRows, 5, "SELECT id, ROW_NUMBER() OVER (ORDER BY id) FROM T"); err != nil {
		t.Fatalf("5 rows within maxRows 5: %v", err)
	}
}

// BenchmarkWindow: a running sum per partition and a rank over 10,000 rows.
func BenchmarkWindow(b *testing.B) {
	rows := make([]translate.Row, 10_000)
	for i := range rows {
		rows[i] = row(fmt.Sprintf("rec%014d", i), "N", float64(i%97), "X", float64(i%13)/4, "Status", []string{"a", "b", "c"}[i%3])
	}
	q := plan(b, "SELECT id, SUM(X) OVER (PARTITION BY Status ORDER BY N, id ROWS BETWEEN 2 PRECEDING AND CURRENT ROW), RANK() OVER (ORDER BY N) FROM T")
	b.ReportAllocs()
	for b.Loop() {
		op, err := Build(q, Options{Source: &memSource{rows: rows, pageSize: 100}})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := Drain(context.Background(), op); err != nil {
			b.Fatal(err)
		}
	}
}
