package engine

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/airsql/airsql/translate"
)

// indexSource is memSource holding one version of its rows, which it indexes as the replica
// does (Indexer) and hands over as HeldPages.
type indexSource struct {
	memSource
	indexes map[string]*HashIndex
	builds  int
	refused bool // Index answers ok false: the join builds its own hash table
}

func (s *indexSource) Index(_ context.Context, plan *translate.Plan, column string, build func([]translate.Row) (*HashIndex, error)) (*HashIndex, bool, error) {
	if s.refused || plan.Request.Formula != "" || plan.RecordIDs != nil {
		return nil, false, nil
	}
	if idx, ok := s.indexes[column]; ok {
		return idx, true, nil
	}
	idx, err := build(s.rows)
	if err != nil {
		return nil, false, err
	}
	if s.indexes == nil {
		s.indexes = map[string]*HashIndex{}
	}
	s.indexes[column] = idx
	s.builds++
	return idx, true, nil
}

func (s *indexSource) Scan(ctx context.Context, plan *translate.Plan) (Pages, error) {
	p, err := s.memSource.Scan(ctx, plan)
	if err != nil {
		return nil, err
	}
	return heldPages{p}, nil
}

type heldPages struct{ Pages }

func (heldPages) HeldRows() {}

// TestJoinIndex: a join step whose source indexes its table reads the index (one build per
// column, shared by the runs; the table is not scanned) and answers what a hash table built per
// run answers; a source that refuses gets the hash table built from the scan.
func TestJoinIndex(t *testing.T) {
	for _, tc := range []struct {
		sql     string
		indexed bool // the source's index serves the join
	}{
		{"SELECT a.id, b.id FROM T a JOIN T b ON a.N = b.N", true},
		{"SELECT a.id, b.id FROM T a LEFT JOIN T b ON a.N = b.N AND b.id <> a.id", true},
		{"SELECT a.id, b.Name FROM T a JOIN T b ON b.id = a.id", true},
		{"SELECT a.id, b.id FROM T a JOIN T b ON a.Name = b.Name WHERE a.id <= b.id", true},
		{"SELECT a.id, b.id FROM T a JOIN T b ON a.N + 1 = b.N + 1", false}, // not a column: no index
		{"SELECT a.id FROM T a RIGHT JOIN T b ON a.id = b.id AND a.Done WHERE b.Status = 'b'", false},
		{"SELECT a.id, COUNT(*) FROM T a, T b WHERE a.X < b.X GROUP BY a.id", false},
	} {
		t.Run(tc.sql, func(t *testing.T) {
			want, err := joinRows(t, &memSource{rows: testRows, pageSize: 2}, tc.sql, 0)
			if err != nil {
				t.Fatal(err)
			}
			src := &indexSource{memSource: memSource{rows: testRows, pageSize: 2}}
			for run := range 2 {
				src.scans = nil
				got, err := joinRowsFrom(t, src, tc.sql, 0)
				if err != nil || !slices.Equal(got, want) {
					t.Fatalf("run %d: got %v %v, want %v", run, got, err, want)
				}
				wantScans := 2
				if tc.indexed {
					wantScans = 1
				}
				if len(src.scans) != wantScans {
					t.Errorf("run %d: got %d scans, want %d", run, len(src.scans), wantScans)
				}
			}
			if wantBuilds := map[bool]int{true: 1, false: 0}[tc.indexed]; src.builds != wantBuilds {
				t.Errorf("indexes built by two runs: got %d, want %d", src.builds, wantBuilds)
			}

			refusing := &indexSource{memSource: memSource{rows: testRows, pageSize: 2}, refused: true}
			if got, err := joinRowsFrom(t, refusing, tc.sql, 0); err != nil || !slices.Equal(got, want) {
				t.Errorf("a source that refuses to index: got %v %v, want %v", got, err, want)
			}
		})
	}
}

// TestJoinIndexFiltered: planned as the replica plans (LocalOnly: every WHERE checked in the
// engine), a step whose table has a WHERE of its own reads the index of all its rows and checks
// the WHERE on each match: the same rows as a hash table of the rows that passed it.
func TestJoinIndexFiltered(t *testing.T) {
	local := translate.Args{LocalOnly: true}
	for _, sql := range []string{
		"SELECT a.id, b.id FROM T a JOIN T b ON a.N = b.N WHERE b.Status = 'b'",
		"SELECT a.id, b.id FROM T a LEFT JOIN T b ON a.N = b.N AND b.Status = 'b'",
		"SELECT a.id, b.id FROM T a JOIN T b ON b.id = a.id WHERE b.X > 1 AND a.Name IS NOT NULL",
		"SELECT a.Status, COUNT(*) FROM T a JOIN T b ON a.Name = b.Name WHERE b.Done GROUP BY a.Status",
	} {
		t.Run(sql, func(t *testing.T) {
			want, err := joinRowsPlanned(t, &memSource{rows: testRows, pageSize: 2}, sql, 0, local)
			if err != nil {
				t.Fatal(err)
			}
			src := &indexSource{memSource: memSource{rows: testRows, pageSize: 2}}
			got, err := joinRowsPlanned(t, src, sql, 0, local)
			if err != nil || !slices.Equal(got, want) {
				t.Fatalf("got %v %v, want %v", got, err, want)
			}
			if src.builds != 1 || len(src.scans) != 1 {
				t.Errorf("got %d index builds and %d scans, want the index (1) and the first table's scan (1)", src.builds, len(src.scans))
			}
		})
	}
}

// TestAggregateOverSharedSides: an aggregate over a join reads rows whose sides the join shares
// from row to row (shareSides); its groups must be those of the join's rows as a statement
// without an aggregate returns them (each with sides of its own): several matches per row so
// far, LEFT JOIN's NULL rows, a WHERE on the joined rows, a parenthesised join, over a source
// that holds its rows and over one that does not.
func TestAggregateOverSharedSides(t *testing.T) {
	for _, from := range []string{
		"T a JOIN T b ON a.N = b.N",
		"T a LEFT JOIN T b ON a.N = b.N AND b.id <> a.id",
		"T a JOIN T b ON a.Name = b.Name JOIN T c ON c.N = b.N WHERE a.id <= c.id",
		"T a LEFT JOIN (T b JOIN T c ON b.id = c.id) ON a.N = b.N",
		"T a, T b WHERE a.X < b.X",
	} {
		for _, src := range []Source{&memSource{rows: testRows, pageSize: 2}, &indexSource{memSource: memSource{rows: testRows, pageSize: 2}}} {
			t.Run(fmt.Sprintf("%s/%T", from, src), func(t *testing.T) {
				c := "NULL"
				if strings.Contains(from, " c ") || strings.Contains(from, " c)") {
					c = "c.id"
				}
				rows, err := joinRowsFrom(t, src, "SELECT a.id, b.id, "+c+" FROM "+from, 0)
				if err != nil {
					t.Fatal(err)
				}
				counts := map[string]int{}
				for _, r := range rows {
					counts[r]++
				}
				var want []string
				for r, n := range counts {
					want = append(want, fmt.Sprintf("%s|%d", r, n))
				}
				slices.Sort(want)
				got, err := joinRowsFrom(t, src, "SELECT a.id, b.id, "+c+", COUNT(*) FROM "+from+" GROUP BY a.id, b.id, "+c, 0)
				if err != nil || !slices.Equal(got, want) {
					t.Fatalf("got %v %v, want %v", got, err, want)
				}
			})
		}
	}
}
