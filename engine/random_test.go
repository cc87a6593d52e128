package engine

import (
	"context"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/xwb1989/sqlparser"

	"github.com/airsql/airsql/translate"
)

// randomSelect writes a random SELECT over the test table from the pieces the engine runs (and
// some it refuses): the parser's output of it is what TestRandomQueries plans and runs.
func randomSelect(rng *rand.Rand) string {
	pick := func(xs ...string) string { return xs[rng.IntN(len(xs))] }
	cols := []string{"Name", "N", "X", "Done", "Day", "Status", "id", "createdTime", "N", "X", "Nope"}
	scalar := func() string {
		switch rng.IntN(6) {
		case 0:
			return pick(cols...)
		case 1:
			return pick("1", "0", "NULL", "'a'", "2.5", "?", "TRUE")
		case 2:
			return pick("N", "X", "1") + " " + pick("+", "-", "*", "/", "%", "DIV") + " " + pick("N", "X", "0", "2")
		case 3:
			return pick("LOWER", "UPPER", "LENGTH", "YEAR", "ABS", "COALESCE") + "(" + pick(cols...) + ")"
		case 4:
			return pick(cols...) + " " + pick("=", "<>", "<", ">=", "IS NULL", "LIKE 'a%'", "IN (1, 2)")
		}
		return "(" + pick(cols...) + ")"
	}
	agg := func() string {
		switch rng.IntN(4) {
		case 0:
			return pick("COUNT(*)", "COUNT(1)", "COUNT(DISTINCT "+pick(cols...)+")")
		case 1:
			return pick("SUM", "AVG", "MIN", "MAX", "ANY_VALUE", "STDDEV") + "(" + pick("", "DISTINCT ") + scalar() + ")"
		case 2:
			return "GROUP_CONCAT(" + pick("", "DISTINCT ") + pick(cols...) + pick("", " ORDER BY "+pick(cols...)+pick("", " DESC")) + pick("", " SEPARATOR '-'") + ")"
		}
		return pick("SUM", "MAX") + "(" + pick("COUNT(*)", "N") + ")"
	}
	expr := func() string {
		if rng.IntN(3) == 0 {
			return agg()
		}
		return scalar()
	}
	var b strings.Builder
	b.WriteString("SELECT ")
	if rng.IntN(4) == 0 {
		b.WriteString("DISTINCT ")
	}
	n := 1 + rng.IntN(3)
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteString(", ")
		}
		if rng.IntN(10) == 0 {
			b.WriteString("*")
			continue
		}
		b.WriteString(expr())
		if rng.IntN(3) == 0 {
			b.WriteString(" AS " + pick("a", "b", "n", "N", "Status"))
		}
	}
	b.WriteString(pick(" FROM T", " FROM T", " FROM T", " FROM DUAL", " FROM information_schema.COLUMNS", ""))
	if rng.IntN(2) == 0 {
		b.WriteString(" WHERE " + pick(scalar(), scalar()+" AND "+scalar(), agg()+" > 1"))
	}
	if rng.IntN(2) == 0 {
		b.WriteString(" GROUP BY " + pick(pick(cols...), "1", "2", "a", scalar(), agg()))
	}
	if rng.IntN(3) == 0 {
		b.WriteString(" HAVING " + pick(agg()+" > 1", scalar(), "a > 0", "n IS NOT NULL"))
	}
	if rng.IntN(2) == 0 {
		b.WriteString(" ORDER BY " + pick(expr(), "1", "2", "a", "n") + pick("", " DESC") + pick("", ", "+expr()))
	}
	if rng.IntN(2) == 0 {
		b.WriteString(" LIMIT " + pick("0", "1", "3", "?") + pick("", " OFFSET "+pick("0", "1", "4")))
	}
	return b.String()
}

// TestRandomQueries plans and runs thousands of random SELECTs: none may panic, and every row has
// one value per column.
func TestRandomQueries(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	cat := NewCatalog(testSchema{}, []*translate.Table{testTable}, "appX")
	ran := 0
	for i := 0; i < 5000; i++ {
		query := randomSelect(rng)
		func() {
			defer func() {
				if r := recover(); r != nil {
					t.Fatalf("%s: panic %v", query, r)
				}
			}()
			ast, err := translate.Parse(query)
			if err != nil {
				return
			}
			sel, ok := ast.(*sqlparser.Select)
			if !ok {
				return
			}
			var args translate.Args
			for range strings.Count(query, "?") {
				args.Positional = append(args.Positional, int64(2))
			}
			q, err := translate.NewQuery(sel, cat, args)
			if err != nil {
				if strings.Contains(err.Error(), "internal") {
					t.Errorf("%s: %v", query, err)
				}
				if testing.Verbose() && rng.IntN(50) == 0 {
					t.Logf("refused: %s: %v", query, err)
				}
				return
			}
			op, err := Build(q, Options{Source: &memSource{rows: testRows, pageSize: 2}, Catalog: cat, MaxRows: 1000})
			if err != nil {
				t.Fatalf("%s: Build: %v", query, err)
			}
			rows, err := Drain(context.Background(), op)
			if err != nil {
				if strings.Contains(err.Error(), "internal") {
					t.Errorf("%s: %v", query, err)
				}
				return
			}
			ran++
			for _, r := range rows {
				if len(r.Values) != len(q.Columns) {
					t.Fatalf("%s: a row of %d values for %d columns", query, len(r.Values), len(q.Columns))
				}
			}
		}()
	}
	if ran < 250 {
		t.Errorf("only %d of 5000 random queries ran: the generator writes too few valid ones", ran)
	}
	t.Logf("%d of 5000 random queries ran", ran)
}
