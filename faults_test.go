package airsql

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/airsql/airsql/emulator"
	"github.com/airsql/airsql/internal/clock"
	"github.com/airsql/airsql/transport"
)

const faultBase = "appFAULT000000001"

// faultFixture is one table of n records: Name "r<i>", Grp i%4, Tag "".
func faultFixture(n int) *emulator.Fixture {
	recs := make([]emulator.FixtureRecord, n)
	for i := range recs {
		recs[i] = emulator.FixtureRecord{ID: fmt.Sprintf("recFAULT%09d", i), Fields: map[string]any{"Name": fmt.Sprintf("r%d", i), "Grp": float64(i % 4)}}
	}
	return &emulator.Fixture{Bases: []emulator.FixtureBase{{ID: faultBase, Name: "Faults", Tables: []emulator.FixtureTable{{
		ID: "tblFAULT000000001", Name: "T",
		Fields: []emulator.FixtureField{
			{ID: "fldNAME0000000001", Name: "Name", Type: "singleLineText"},
			{ID: "fldGRP00000000001", Name: "Grp", Type: "number", Options: map[string]any{"precision": 0}},
			{ID: "fldTAG00000000001", Name: "Tag", Type: "singleLineText"},
		},
		Records: recs,
	}}}}}
}

// randomFaults queues n faults for the next n requests of the method, most of them doing nothing.
func randomFaults(srv *emulator.Server, rng *rand.Rand, method string, n int) {
	for range n {
		f := emulator.Fault{Method: method, Times: 1}
		switch p := rng.IntN(100); {
		case p < 55: // served normally
		case p < 62:
			f.Status = 429
			f.Body = `{"errors":[{"error":"RATE_LIMIT_REACHED","message":"Rate limit exceeded."}]}`
		case p < 70:
			f.Status = []int{500, 502, 503, 504}[rng.IntN(4)]
		case p < 73:
			f.Status = 422
		case p < 82:
			f.Drop = true
		case p < 94:
			f.Truncate = true
		default:
			f.Delay = time.Duration(rng.IntN(3000)) * time.Millisecond
		}
		srv.InjectFault(f)
	}
}

// tableState is every record of the table: id → Name, Grp, Tag.
type faultRecord struct {
	Name, Tag string
	Grp       int
}

func readTable(t *testing.T, db *sql.DB) map[string]faultRecord {
	t.Helper()
	rows, err := db.Query("SELECT id, Name, Grp, Tag FROM T")
	if err != nil {
		t.Fatalf("reading the table: %v", err)
	}
	defer rows.Close()
	out := map[string]faultRecord{}
	for rows.Next() {
		var id string
		var name, tag sql.NullString
		var grp sql.NullInt64
		if err := rows.Scan(&id, &name, &grp, &tag); err != nil {
			t.Fatal(err)
		}
		out[id] = faultRecord{Name: name.String, Tag: tag.String, Grp: int(grp.Int64)}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// reported is what the driver said a write did: ids written, ids or rows that may have been.
type reported struct {
	written       map[string]bool
	uncertainIDs  map[string]bool
	uncertainRows map[int]bool
	nothing       bool // failed before writing anything
}

func runWrite(ctx context.Context, t *testing.T, db *sql.DB, query string, args ...any) reported {
	t.Helper()
	r := reported{written: map[string]bool{}, uncertainIDs: map[string]bool{}, uncertainRows: map[int]bool{}}
	rows, err := db.QueryContext(ctx, query, args...)
	if err == nil {
		defer rows.Close()
		for rows.Next() {
			var vals = make([]any, 0)
			cols, _ := rows.Columns()
			for range cols {
				vals = append(vals, new(any))
			}
			if err := rows.Scan(vals...); err != nil {
				t.Fatal(err)
			}
			id := (*vals[0].(*any)).(string)
			r.written[id] = true
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		return r
	}
	var we *WriteError
	if !errors.As(err, &we) {
		r.nothing = true
		return r
	}
	for _, id := range we.Written {
		r.written[id] = true
	}
	for _, id := range we.UncertainIDs {
		r.uncertainIDs[id] = true
	}
	for _, i := range we.UncertainRows {
		r.uncertainRows[i] = true
	}
	return r
}

// faultTally counts what the driver got wrong (lost, duplicated, unreported) and right (uncertain).
type faultTally struct{ lost, duplicated, unreported, uncertain, written, failed int }

// TestWritesReportedExactlyUnderFaults runs INSERT, UPDATE … WHERE and DELETE … WHERE through
// sql.Open against the emulator with random faults (429, 5xx, 422, dropped connections, truncated
// answers, delays) and compares the table afterwards with what the driver reported: every record
// reported written is there exactly once with its values, every change it did not report is one
// it called uncertain, nothing is duplicated.
func TestWritesReportedExactlyUnderFaults(t *testing.T) {
	const runs = 24
	var total faultTally
	for seed := range runs {
		tally := faultRun(t, uint64(seed))
		total.lost += tally.lost
		total.duplicated += tally.duplicated
		total.unreported += tally.unreported
		total.uncertain += tally.uncertain
		total.written += tally.written
		total.failed += tally.failed
	}
	t.Logf("%d runs: %d records written as reported, %d reported uncertain, %d statements failed; %d lost, %d duplicated, %d unreported",
		runs, total.written, total.uncertain, total.failed, total.lost, total.duplicated, total.unreported)
	if total.lost+total.duplicated+total.unreported != 0 {
		t.Errorf("%d lost, %d duplicated, %d unreported", total.lost, total.duplicated, total.unreported)
	}
	if total.failed == 0 || total.uncertain == 0 {
		t.Errorf("the faults never made a statement fail (%d) or a record uncertain (%d): the test tests nothing", total.failed, total.uncertain)
	}
}

func faultRun(t *testing.T, seed uint64) faultTally {
	rng := rand.New(rand.NewPCG(seed, 15))
	clk := clock.NewJump(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	srv, err := emulator.New(emulator.WithFixture(faultFixture(80)), emulator.WithClock(clk), emulator.WithRate(0, 0),
		emulator.WithTokenRate(0), emulator.WithIteratorTTL(1000*time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	cfg, err := ParseDSN("airtable://" + emulator.DefaultToken + "@localhost/" + faultBase + "?tls=false&connectTimeout=0&readTimeout=0&schemaTTL=1000h&retries=3")
	if err != nil {
		t.Fatal(err)
	}
	cfg.HTTPClient = srv.Client()
	c, err := newConnector(cfg, transport.WithClock(clk))
	if err != nil {
		t.Fatal(err)
	}
	db := sql.OpenDB(c)
	defer db.Close()
	ctx := context.Background()
	before := readTable(t, db)
	var tally faultTally
	for stmt := range 6 {
		var rep reported
		var check func(after map[string]faultRecord)
		switch stmt % 3 {
		case 0: // INSERT of 1..35 rows, named for the statement
			n := 1 + rng.IntN(35)
			query := "INSERT INTO T (Name, Grp) VALUES "
			var args []any
			for i := range n {
				if i > 0 {
					query += ", "
				}
				query += "(?, ?)"
				args = append(args, fmt.Sprintf("s%d-%d", stmt, i), rng.IntN(4))
			}
			randomFaults(srv, rng, "POST", 10)
			rep = runWrite(ctx, t, db, query, args...)
			check = func(after map[string]faultRecord) {
				byName := map[string][]string{}
				for id, r := range after {
					byName[r.Name] = append(byName[r.Name], id)
				}
				for id := range rep.written {
					if _, ok := after[id]; !ok {
						tally.lost++
					}
				}
				for i := range n {
					ids := byName[fmt.Sprintf("s%d-%d", stmt, i)]
					switch {
					case len(ids) > 1:
						tally.duplicated++
					case len(ids) == 1 && rep.written[ids[0]]:
						tally.written++
					case len(ids) == 1 && rep.uncertainRows[i]:
						tally.uncertain++
					case len(ids) == 1:
						tally.unreported++
					case rep.uncertainRows[i]:
						tally.uncertain++
					}
				}
			}
		case 1: // UPDATE … WHERE Grp = g
			g := rng.IntN(4)
			tag := fmt.Sprintf("u%d", stmt)
			randomFaults(srv, rng, "", 8)
			rep = runWrite(ctx, t, db, "UPDATE T SET Tag = ? WHERE Grp = ?", tag, g)
			check = func(after map[string]faultRecord) {
				for id, r := range after {
					switch {
					case r.Tag == tag && rep.written[id]:
						tally.written++
					case r.Tag == tag && rep.uncertainIDs[id]:
						tally.uncertain++
					case r.Tag == tag:
						tally.unreported++
					case rep.written[id]:
						tally.lost++
					case rep.uncertainIDs[id]:
						tally.uncertain++
					}
				}
				for id := range rep.written {
					if _, ok := after[id]; !ok {
						tally.lost++
					}
				}
			}
		case 2: // DELETE … WHERE Grp = g
			g := rng.IntN(4)
			randomFaults(srv, rng, "", 8)
			rep = runWrite(ctx, t, db, "DELETE FROM T WHERE Grp = ?", g)
			check = func(after map[string]faultRecord) {
				for id := range before {
					_, still := after[id]
					switch {
					case !still && rep.written[id]:
						tally.written++
					case !still && rep.uncertainIDs[id]:
						tally.uncertain++
					case !still:
						tally.unreported++
					case rep.written[id]:
						tally.lost++ // reported deleted, still there
					case rep.uncertainIDs[id]:
						tally.uncertain++
					}
				}
			}
		}
		srv.ClearFaults()
		after := readTable(t, db)
		if rep.nothing || len(rep.uncertainIDs)+len(rep.uncertainRows) > 0 || len(rep.written) == 0 {
			tally.failed++
		}
		check(after)
		if rep.nothing && !sameTable(before, after) {
			t.Errorf("seed %d statement %d: the driver said nothing was written, but the table changed", seed, stmt)
		}
		before = after
	}
	return tally
}

func sameTable(a, b map[string]faultRecord) bool {
	if len(a) != len(b) {
		return false
	}
	for id, r := range a {
		if b[id] != r {
			return false
		}
	}
	return true
}
