package engine

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
)

// TestOnePlanRunConcurrently: a plan is a value — what its subqueries find and the outer row a
// correlated one reads live in each run's environment — so one planned query run by several
// goroutines at once gives each the same rows as a run alone. Run with -race.
func TestOnePlanRunConcurrently(t *testing.T) {
	queries := []string{
		// correlated scalar subquery, per outer row
		"SELECT Name, (SELECT COUNT(*) FROM T i WHERE i.N < o.N) AS below FROM T o ORDER BY Name",
		// correlated EXISTS and an uncorrelated IN in one WHERE
		"SELECT o.Name FROM T o WHERE EXISTS (SELECT 1 FROM T i WHERE i.Status = o.Status AND i.N > o.N) AND o.N IN (SELECT N FROM T WHERE Done) ORDER BY o.Name",
		// a join with GROUP BY and HAVING
		"SELECT a.Status, COUNT(*), SUM(b.X) FROM T a JOIN T b ON a.Status = b.Status GROUP BY a.Status HAVING COUNT(*) > 1 ORDER BY a.Status",
		// GROUP BY over a correlated subquery's value, and a scalar subquery in HAVING
		"SELECT (SELECT MAX(i.X) FROM T i WHERE i.Status = o.Status) AS m, COUNT(*) FROM T o GROUP BY m HAVING COUNT(*) >= (SELECT COUNT(*) FROM T WHERE N = 2) ORDER BY m",
		// library functions, each call compiled once into the plan and shared by the runs
		"SELECT UPPER(Name), CONCAT(Name, '-', COALESCE(Status, '?')), DATE_FORMAT(Day, '%D %M %Y'), ROUND(X * N, 1) FROM T WHERE LOWER(Name) LIKE '%a%' ORDER BY Name, X",
	}
	const goroutines, runs = 8, 10
	for _, query := range queries {
		t.Run(query, func(t *testing.T) {
			q := plan(t, query)
			runOnce := func() ([]string, error) {
				op, err := Build(q, Options{Source: &memSource{rows: testRows, pageSize: 2}})
				if err != nil {
					return nil, err
				}
				defer op.Close()
				rows, err := Drain(context.Background(), op)
				return rowStrings(rows), err
			}
			want, err := runOnce()
			if err != nil {
				t.Fatal(err)
			}
			if len(want) == 0 {
				t.Fatalf("the query returns no rows: the test would compare nothing")
			}
			var wg sync.WaitGroup
			errs := make(chan string, goroutines*runs)
			for range goroutines {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for range runs {
						got, err := runOnce()
						if err != nil {
							errs <- err.Error()
							return
						}
						if !slices.Equal(got, want) {
							errs <- fmt.Sprintf("got %q, want %q", got, want)
							return
						}
					}
				}()
			}
			wg.Wait()
			close(errs)
			for e := range errs {
				t.Error(e)
			}
		})
	}
}
