package transport

import (
	"context"
	"fmt"
	"iter"

	"math/rand/v2"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/airsql/airsql/emulator"
	"github.com/airsql/airsql/formula"
)

// idRecord is a record with an id only, for evaluating partition formulas.
type idRecord string

func (r idRecord) RecordID() string                   { return string(r) }
func (idRecord) CreatedTime() time.Time               { return time.Time{} }
func (idRecord) LastModifiedTime() time.Time          { return time.Time{} }
func (idRecord) Cell(formula.FieldInfo) formula.Value { return formula.Value{} }

type noFields struct{}

func (noFields) LookupField(string) (formula.FieldInfo, bool) { return formula.FieldInfo{}, false }

// TestPartitionFormulasExact: for ids of every shape — random ids as the service issues them,
// sequential ids of a fixture, one-case ids, ids ending in characters outside the alphabet or
// outside ASCII, very short ids — each id is in exactly one partition, for every K, evaluated
// by the formula evaluator the emulator uses; and a first-page id is in none.
func TestPartitionFormulasExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	random := func(n int) string {
		b := []byte("rec")
		for range n {
			b = append(b, idAlphabet[rng.IntN(len(idAlphabet))])
		}
		return string(b)
	}
	var ids []string
	for i := range 300 {
		ids = append(ids, random(14), fmt.Sprintf("rec%014d", i), strings.ToLower(random(14)), strings.ToUpper(random(14)))
	}
	ids = append(ids, "", "rec|", "|", "rec", "r", "x", "rec-", "rec_", "rec'", `rec\`, "recé", "rec日本", "rec ", "recA", "reca", "rec0", "rec9", "recZ", "recz")
	for _, c := range idAlphabet {
		ids = append(ids, "recXXXXXXXXXXXXX"+string(c), string(c), "|"+string(c), "recXXXXXXXXXXXX|"+string(c), "recé"+string(c), "rec"+string(c)+"|")
		for _, b := range idAlphabet {
			ids = append(ids, "recXXXXXXXXXXXX"+string(b)+string(c))
		}
	}
	seen := []string{ids[0], ids[1], "rec'"}
	for k := 2; k <= maxPartitions; k++ {
		for _, sets := range [][]partSet{partitionSets(k, ids[:100]), partitionSets(k, nil), partitionSets(k, randomIDs(rng, 100))} {
			checkCover(t, k, sets)
			for _, base := range []string{"", "1", "RECORD_ID()!='recnever'"} {
				formulas := partitionFormulas(base, sets, seen)
				progs := make([]*formula.Program, k)
				for i, f := range formulas {
					p, err := formula.Compile(f, noFields{})
					if err != nil {
						t.Fatalf("K=%d partition %d: %q does not compile: %v", k, i, f, err)
					}
					progs[i] = p
				}
				for _, id := range ids {
					in := 0
					for _, p := range progs {
						if p.Match(idRecord(id), nil) {
							in++
						}
					}
					want := 1
					if slices.Contains(seen, id) {
						want = 0
					}
					if in != want {
						t.Errorf("K=%d, base %q: id %q is in %d partitions, want %d", k, base, id, in, want)
					}
				}
			}
		}
	}
	// The listing's own formula still decides: a record it rejects is in no partition.
	for i, f := range partitionFormulas("RECORD_ID()!='recA'", partitionSets(3, nil), nil) {
		p, err := formula.Compile(f, noFields{})
		if err != nil {
			t.Fatal(err)
		}
		if p.Match(idRecord("recA"), nil) {
			t.Errorf("partition %d keeps a record the listing's formula rejects", i)
		}
	}
}

// checkCover: every character of the alphabet is owned whole by exactly one set, or else each of
// its 62 two-character endings is owned by exactly one set.
func checkCover(t *testing.T, k int, sets []partSet) {
	t.Helper()
	if len(sets) != k {
		t.Fatalf("K=%d: %d sets", k, len(sets))
	}
	whole := map[rune]int{}
	pairs := map[string]int{}
	for _, s := range sets {
		for _, c := range s.last {
			whole[c]++
		}
		for _, p := range s.pairs {
			if len(p) != 2 || !strings.ContainsRune(idAlphabet, rune(p[0])) || !strings.ContainsRune(idAlphabet, rune(p[1])) {
				t.Fatalf("K=%d: ending %q is not two characters of the alphabet", k, p)
			}
			pairs[p]++
		}
	}
	for _, c := range idAlphabet {
		switch whole[c] {
		case 1:
			for _, b := range idAlphabet {
				if pairs[string(b)+string(c)] != 0 {
					t.Fatalf("K=%d: %q is owned whole and as an ending", k, string(c))
				}
			}
		case 0:
			for _, b := range idAlphabet {
				if n := pairs[string(b)+string(c)]; n != 1 {
					t.Fatalf("K=%d: ending %q is owned by %d sets", k, string(b)+string(c), n)
				}
			}
		default:
			t.Fatalf("K=%d: %q is owned whole by %d sets", k, string(c), whole[c])
		}
	}
}

func randomIDs(rng *rand.Rand, n int) []string {
	out := make([]string, n)
	for i := range out {
		b := []byte("rec")
		for range 14 {
			b = append(b, idAlphabet[rng.IntN(len(idAlphabet))])
		}
		out[i] = string(b)
	}
	return out
}

// TestAlphabetSetsBalanced: without a sample (or with one spread like the service's ids), the
// sets are equal shares of the alphabet to within one two-character ending, and the characters
// of each part of it (digits, upper case, lower case) are spread over the sets; a sample that is
// not spread like random ids (sequential fixture ids) is balanced on the sample.
func TestAlphabetSetsBalanced(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for k := 2; k <= maxPartitions; k++ {
		for _, sample := range [][]string{nil, randomIDs(rng, 100)} {
			sets := partitionSets(k, sample)
			lo, hi := 1<<30, 0
			for _, s := range sets {
				share := len(s.last)*len(idAlphabet) + len(s.pairs) // in 62ths of a character
				lo, hi = min(lo, share), max(hi, share)
				if digits := strings.IndexFunc(s.last, func(r rune) bool { return r >= '0' && r <= '9' }); digits < 0 && k <= 10 {
					t.Errorf("K=%d: set %q owns no digit", k, s.last)
				}
			}
			if hi-lo > 1 {
				t.Errorf("K=%d, sample of %d: shares from %d to %d 3844ths of the ids, want equal to one ending", k, len(sample), lo, hi)
			}
		}
		var seq []string
		for i := range 100 {
			seq = append(seq, fmt.Sprintf("rec%014d", i))
		}
		for i, s := range partitionSets(k, seq) {
			if len(s.pairs) != 0 {
				t.Errorf("K=%d: sequential sample, set %d has two-character endings %v", k, i, s.pairs)
			}
			digits := 0
			for _, c := range s.last {
				if c >= '0' && c <= '9' {
					digits++
				}
			}
			if want := 10 / k; digits < want || digits > want+1 {
				t.Errorf("K=%d: sequential sample, set %d owns %d digits, want %d or %d", k, i, digits, want, want+1)
			}
		}
	}
}

func TestPartitionCount(t *testing.T) {
	tests := []struct {
		rtt       time.Duration
		remaining int
		want      int
	}{
		{ms(100), 0, 1}, {ms(205), 0, 1}, {ms(300), 0, 4}, {ms(500), 0, 5}, {ms(1000), 0, 7}, {ms(5000), 0, 8},
		{ms(1000), 250, 3}, {ms(1000), 50, 1},
	}
	for _, tt := range tests {
		if got := partitionCount(tt.rtt, tt.remaining, 100); got != tt.want {
			t.Errorf("partitionCount(%v, %d) = %d, want %d", tt.rtt, tt.remaining, got, tt.want)
		}
	}
}

// TestPartitionsSizedByAnyRoundTrip: the round trip that sizes a listing's partitions is the last
// answered one, over a new connection too (a process's schema request dials), although such a
// round trip does not measure the path for the window. Issue 23: counting only reused
// connections, a process's first listing went unpartitioned after its schema request, and its
// first page was alone on the base for a whole round trip at 1 s of latency.
func TestPartitionsSizedByAnyRoundTrip(t *testing.T) {
	t0 := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	tests := []struct {
		name   string
		starts []testStart
		want   time.Duration
	}{
		{"nothing answered yet", []testStart{{0, -1, true, 0}}, 0},
		{"a schema request over a new connection", []testStart{{0, ms(1000), true, 0}}, ms(1000)},
		{"the last one answered", []testStart{{0, ms(1000), true, 0}, {ms(10), ms(300), false, 0}}, ms(300)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := pacerWithStarts(t0, tt.starts)
			if got := p.recentRTT(); got != tt.want {
				t.Errorf("recentRTT() = %v, want %v", got, tt.want)
			}
		})
	}
	// ... while the window still does not take a new connection's round trip as the path's.
	p := pacerWithStarts(t0, []testStart{{0, ms(1000), true, 0}})
	var buf [rttSamples + ringStarts]time.Duration
	if rtts := p.roundTripsLocked(&p.win, &buf); len(rtts) > 0 {
		t.Errorf("the path's round trips are %v after one over a new connection, want none known", rtts)
	}
}

// slowEmu is an emulator whose answers take latency on the jump clock, so that listings are
// latency-bound.
func slowEmu(t *testing.T, n int, latency time.Duration) (*emulator.Server, *Table) {
	t.Helper()
	s, tbl, _ := newEmu(t, n, emulator.WithLatency(latency))
	return s, tbl
}

func listRequests(s *emulator.Server) []emulator.Request {
	var out []emulator.Request
	for _, r := range s.Requests() {
		if r.Method == "GET" && strings.HasSuffix(r.Path, "/My%20Tasks") || strings.HasSuffix(r.Path, "/listRecords") {
			out = append(out, r)
		}
	}
	return out
}

// TestPartitionedScanOnEmulator: a latency-bound scan of 1,050 records reads the first page with
// one cursor, then K partitions whose formulas are as documented; every record comes once, and
// the requests are at most those of one cursor plus K.
func TestPartitionedScanOnEmulator(t *testing.T) {
	for _, tc := range []struct {
		name    string
		opts    ListOptions
		want    int
		latency time.Duration
	}{
		{"all", ListOptions{}, 1050, ms(600)},
		{"formula", ListOptions{Formula: "{Done}"}, 525, ms(600)},
		{"maxRecords", ListOptions{MaxRecords: 777}, 777, ms(600)},
		{"fast: one cursor", ListOptions{}, 1050, ms(50)},
		{"warm: partitioned from the first request", ListOptions{}, 1050, ms(600)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, tbl := slowEmu(t, 1050, tc.latency)
			warm := strings.HasPrefix(tc.name, "warm")
			if warm {
				if _, err := tbl.Get(bg, "rec00000000000001"); err != nil { // the base's round trip is now known
					t.Fatal(err)
				}
				s.ResetRequests()
			}
			ids := map[string]int{}
			pages := 0
			for recs, err := range tbl.Iterate(bg, tc.opts) {
				if err != nil {
					t.Fatal(err)
				}
				pages++
				for _, r := range recs {
					ids[r.ID]++
				}
			}
			if len(ids) != tc.want {
				t.Errorf("%d distinct records, want %d", len(ids), tc.want)
			}
			for id, n := range ids {
				if n != 1 {
					t.Errorf("record %s came %d times", id, n)
				}
			}
			reqs := listRequests(s)
			single := (tc.want + 99) / 100
			k := partitionCount(tc.latency, max(0, tc.opts.MaxRecords-100), 100)
			if tc.latency < spacingFor(APILimit) {
				if len(reqs) != single {
					t.Errorf("fast listing: %d requests, want %d (one cursor)", len(reqs), single)
				}
				return
			}
			if len(reqs) > single+k {
				t.Errorf("%d requests, want at most %d (one cursor) + %d (K)", len(reqs), single, k)
			}
			if warm {
				// The partitions are the alphabet's equal shares, with no first page to exclude.
				k := partitionCount(tc.latency, 0, 100)
				want := partitionFormulas("", alphabetSets(k), nil)
				formulas := map[string]bool{}
				for _, r := range reqs {
					f := queryValue(t, r, "filterByFormula")
					if !slices.Contains(want, f) {
						t.Errorf("warm: request formula %q is not one of the partitions %q", f, want)
					}
					formulas[f] = true
				}
				if len(formulas) != k {
					t.Errorf("warm: %d partitions, want K=%d", len(formulas), k)
				}
				return
			}
			// The first request is the listing itself; the next K are the partitions' first pages.
			if f := queryValue(t, reqs[0], "filterByFormula"); f != tc.opts.Formula {
				t.Errorf("first request's formula %q, want the listing's %q", f, tc.opts.Formula)
			}
			formulas := map[string]bool{}
			for _, r := range reqs[1:] {
				f := queryValue(t, r, "filterByFormula")
				if !strings.Contains(f, "FIND('|'&RIGHT(RECORD_ID(),1)&'|',") || !strings.Contains(f, "NOT(OR(RECORD_ID()=") {
					t.Errorf("partition request formula %q is not a partition formula", f)
				}
				if tc.opts.Formula != "" && !strings.HasPrefix(f, "IF("+tc.opts.Formula+",") {
					t.Errorf("partition formula %q does not keep the listing's", f)
				}
				formulas[f] = true
			}
			if len(formulas) != k {
				t.Errorf("%d distinct partition formulas, want K=%d", len(formulas), k)
			}
		})
	}
}

// TestPartitionedScanMergedBySort: a sorted latency-bound listing read as partitions comes out in
// the sort's order (k-way merge), stopping at maxRecords.
func TestPartitionedScanMergedBySort(t *testing.T) {
	s, tbl := slowEmu(t, 1050, ms(600))
	byN := func(a, b *Record) int {
		x, _ := a.Fields["N"].(float64)
		y, _ := b.Fields["N"].(float64)
		switch {
		case x > y:
			return -1
		case x < y:
			return 1
		}
		return 0
	}
	var got []float64
	for recs, err := range tbl.IterateMerged(bg, ListOptions{Sort: []string{"-N"}, MaxRecords: 640}, byN) {
		if err != nil {
			t.Fatal(err)
		}
		if len(recs) > 100 {
			t.Errorf("a merged page of %d records", len(recs))
		}
		got = append(got, nums(recs)...)
	}
	if len(got) != 640 {
		t.Fatalf("%d records, want 640", len(got))
	}
	for i, v := range got {
		if want := float64(1049 - i); v != want {
			t.Fatalf("record %d has N=%v, want %v (descending)", i, v, want)
		}
	}
	reqs := listRequests(s)
	if k := partitionCount(ms(600), 540, 100); len(reqs) > 7+k || len(reqs) < 2 {
		t.Errorf("%d requests, want a partitioned read of at most 7+%d", len(reqs), k)
	}
	for _, r := range reqs {
		if v := queryValue(t, r, "sort[0][field]"); v != "N" {
			t.Errorf("request without the sort: %s", r.Query)
		}
	}
}

func queryValue(t *testing.T, r emulator.Request, key string) string {
	t.Helper()
	for _, kv := range strings.Split(r.Query, "&") {
		k, v, _ := strings.Cut(kv, "=")
		if uk, _ := urlUnescape(k); uk == key {
			uv, _ := urlUnescape(v)
			return uv
		}
	}
	return ""
}

func urlUnescape(s string) (string, error) { return url.QueryUnescape(s) }

// TestPartitionedScanStopsCleanly: a reader that stops after two pages of a partitioned scan
// leaves no partition running.
func TestPartitionedScanStopsCleanly(t *testing.T) {
	_, tbl := slowEmu(t, 1050, ms(600))
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	pages := 0
	for _, err := range tbl.Iterate(bg, ListOptions{}) {
		if err != nil {
			t.Fatal(err)
		}
		if pages++; pages == 2 {
			break
		}
	}
}

// FuzzPartitionFormulas: for any listing formula that compiles and any id, the partition formulas
// compile and the id is in exactly one partition when the listing's formula keeps it, none
// otherwise (and none when it is among the first page's ids).
func FuzzPartitionFormulas(f *testing.F) {
	f.Add("", "recABCDEFGHIJKLMN", 3, false)
	f.Add("RECORD_ID()!='x'", "rec'\\", 5, true)
	f.Add("1", "recé", 2, false)
	f.Fuzz(func(t *testing.T, base, id string, k int, seen bool) {
		k = 2 + abs(k)%(maxPartitions-1)
		if base != "" {
			if _, err := formula.Compile(base, noFields{}); err != nil {
				return
			}
		}
		baseKeeps := true
		if base != "" {
			p, _ := formula.Compile(base, noFields{})
			baseKeeps = p.Match(idRecord(id), nil)
		}
		var first []string
		if seen {
			first = []string{id}
		}
		in := 0
		for _, src := range partitionFormulas(base, partitionSets(k, []string{id}), first) {
			p, err := formula.Compile(src, noFields{})
			if err != nil {
				t.Fatalf("%q does not compile: %v", src, err)
			}
			if p.Match(idRecord(id), nil) {
				in++
			}
		}
		want := 0
		if baseKeeps && !seen {
			want = 1
		}
		if in != want {
			t.Fatalf("base %q, id %q, K=%d, seen %v: in %d partitions, want %d", base, id, k, seen, in, want)
		}
	})
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// TestSmallListingsNotPartitioned: with the base's round trip known to be long, a listing with a
// formula sends its first page alone (a bind join's keys or WHERE Email = … select a few records:
// one request, not K), and so does a whole table that a complete listing showed to be small; a
// whole table of unknown size is partitioned from the first request.
func TestSmallListingsNotPartitioned(t *testing.T) {
	s, tbl := slowEmu(t, 150, ms(600))
	if _, err := tbl.Get(bg, "rec00000000000001"); err != nil { // the base's round trip is now known
		t.Fatal(err)
	}
	read := func(opts ListOptions) (records, requests int) {
		t.Helper()
		s.ResetRequests()
		for recs, err := range tbl.Iterate(bg, opts) {
			if err != nil {
				t.Fatal(err)
			}
			records += len(recs)
		}
		return records, len(listRequests(s))
	}
	if n, reqs := read(ListOptions{Formula: "RECORD_ID()='rec00000000000007'"}); n != 1 || reqs != 1 {
		t.Errorf("selective formula: %d records in %d requests, want 1 in 1", n, reqs)
	}
	k := partitionCount(ms(600), 0, 100)
	if n, reqs := read(ListOptions{}); n != 150 || reqs < k {
		t.Errorf("whole table of unknown size: %d records in %d requests, want 150 in at least K=%d (partitioned)", n, reqs, k)
	}
	if n, reqs := read(ListOptions{}); n != 150 || reqs != 2 {
		t.Errorf("whole table known to hold 150 records: %d records in %d requests, want 150 in 2 (one cursor)", n, reqs)
	}
}

// holdingTransport holds every request for a page after the first of one partition (by its
// formula) until release is closed.
type holdingTransport struct {
	rt      http.RoundTripper
	formula string
	release chan struct{}
}

func (h *holdingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	q := r.URL.Query()
	if q.Get("filterByFormula") == h.formula && q.Get("offset") != "" {
		select {
		case <-h.release:
		case <-r.Context().Done():
			return nil, r.Context().Err()
		}
	}
	return h.rt.RoundTrip(r)
}

// TestUnsortedPartitionsDoNotWaitOnEachOther: while one partition of an unsorted latency-bound
// scan is held after its first page, the others read to their end — through Iterate, and through
// IterateMerged without a Sort, whose comparator is then ignored. (Merged by a comparator under
// which every record ties, the reader would wait on the held partition and the others stop one
// page ahead: drained one after another, one request per round trip — issue 23, 0.22 of the
// service's rate at 1 s.)
func TestUnsortedPartitionsDoNotWaitOnEachOther(t *testing.T) {
	tie := func(a, b *Record) int { return 0 }
	for _, tc := range []struct {
		name string
		list func(ctx context.Context, tbl *Table) iter.Seq2[[]Record, error]
	}{
		{"Iterate", func(ctx context.Context, tbl *Table) iter.Seq2[[]Record, error] {
			return tbl.Iterate(ctx, ListOptions{})
		}},
		{"IterateMerged without a sort", func(ctx context.Context, tbl *Table) iter.Seq2[[]Record, error] {
			return tbl.IterateMerged(ctx, ListOptions{}, tie)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			const n = 4000
			latency := ms(600)
			clk := newJumpClock()
			s, err := emulator.New(emulator.WithFixture(emuFixture(n)), emulator.WithClock(clk), emulator.WithRate(0, 0), emulator.WithLatency(latency))
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			k := partitionCount(latency, 0, 100)
			sets := alphabetSets(k)
			hold := &holdingTransport{rt: s.Transport(), formula: partitionFormulas("", sets, nil)[0], release: make(chan struct{})}
			tbl, err := NewTable(emulator.DefaultToken, emuBase, "My Tasks", WithEndpointURL(emulator.InProcessURL),
				WithHTTPClient(&http.Client{Transport: hold}), WithClock(clk))
			if err != nil {
				t.Fatal(err)
			}
			if _, err := tbl.Get(bg, "rec00000000000001"); err != nil { // the round trip is known: partitioned from the first request
				t.Fatal(err)
			}
			held := 0 // records of partition 0 after its first page
			for i := range n {
				if id := fmt.Sprintf("rec%014d", i); strings.ContainsRune(sets[0].last, rune(id[len(id)-1])) {
					held++
				}
			}
			held -= 100
			// A serialised scan never reaches the release: the deadline ends it with an error.
			ctx, cancel := context.WithTimeout(bg, 10*time.Second)
			defer cancel()
			got, released := 0, false
			for recs, err := range tc.list(ctx, tbl) {
				if err != nil {
					t.Fatalf("after %d of %d records (partition 0 held after its first page): %v", got, n, err)
				}
				got += len(recs)
				if !released && got == n-held {
					close(hold.release)
					released = true
				}
			}
			if got != n || !released {
				t.Errorf("%d records (released: %v), want %d", got, released, n)
			}
		})
	}
}

// TestMergedPartitionsShareTies: a sorted merge gives records that tie to the partition that has
// given fewest, so that over a run of equal keys every partition is read, not one after another.
func TestMergedPartitionsShareTies(t *testing.T) {
	const n = 4000
	_, tbl := slowEmu(t, n, ms(600))
	if _, err := tbl.Get(bg, "rec00000000000001"); err != nil {
		t.Fatal(err)
	}
	byDone := func(a, b *Record) int {
		x, _ := a.Fields["Done"].(bool)
		y, _ := b.Fields["Done"].(bool)
		switch {
		case x == y:
			return 0
		case !x:
			return -1
		}
		return 1
	}
	k := partitionCount(ms(600), 0, 100)
	sets := alphabetSets(k)
	var order []string
	for recs, err := range tbl.IterateMerged(bg, ListOptions{Sort: []string{"Done"}}, byDone) {
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range recs {
			order = append(order, r.ID)
		}
	}
	if len(order) != n {
		t.Fatalf("%d records, want %d", len(order), n)
	}
	// The first 100·k records (the unchecked ones come first) come from every partition.
	from := map[int]int{}
	for _, id := range order[:100*k] {
		for p, set := range sets {
			if strings.ContainsRune(set.last, rune(id[len(id)-1])) {
				from[p]++
			}
		}
	}
	for p := range k {
		if from[p] == 0 {
			t.Errorf("none of the first %d records from partition %d (by partition: %v): ties drained one partition first", 100*k, p, from)
		}
	}
}
