package transport

import (
	"errors"
	"fmt"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/airsql/airsql/emulator"
)

const emuBase = "appEMUTEST0000001"

// emuFixture is a base with one table of n records: Name "task i", N i, Done for even i.
func emuFixture(n int) *emulator.Fixture {
	recs := make([]emulator.FixtureRecord, n)
	for i := range recs {
		f := map[string]any{"Name": fmt.Sprintf("task %d", i), "N": float64(i)} // the emulator takes JSON numbers only
		if i%2 == 0 {
			f["Done"] = true
		}
		recs[i] = emulator.FixtureRecord{ID: fmt.Sprintf("rec%014d", i), Fields: f}
	}
	return &emulator.Fixture{Bases: []emulator.FixtureBase{{ID: emuBase, Name: "Emu", Tables: []emulator.FixtureTable{{
		ID: "tblTASKS000000001", Name: "My Tasks",
		Fields: []emulator.FixtureField{
			{ID: "fldNAME0000000001", Name: "Name", Type: "singleLineText"},
			{ID: "fldN0000000000001", Name: "N", Type: "number", Options: map[string]any{"precision": 0}},
			{ID: "fldDONE0000000001", Name: "Done", Type: "checkbox"},
		},
		Views:   []emulator.FixtureView{{Name: "Open", FilterByFormula: "NOT({Done})", Sort: []emulator.FixtureSort{{Field: "N", Direction: "desc"}}}},
		Records: recs,
	}}}}}
}

// newEmu starts an emulator on a jump clock shared with the client, so nothing sleeps. The jump
// clock does not model requests in flight together (a pacing wait moves time past requests
// still being answered), so the rate limit is off unless opts turn it on for sequential calls;
// TestEmulatorPacingRealClock checks pacing against the limit in real time.
func newEmu(t testing.TB, n int, opts ...emulator.Option) (*emulator.Server, *Table, *jumpClock) {
	t.Helper()
	clk := newJumpClock()
	s, err := emulator.New(append([]emulator.Option{emulator.WithFixture(emuFixture(n)), emulator.WithClock(clk), emulator.WithRate(0, 0)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	tbl, err := NewTable(emulator.DefaultToken, emuBase, "My Tasks",
		WithEndpointURL(emulator.InProcessURL), WithHTTPClient(s.Client()), WithClock(clk))
	if err != nil {
		t.Fatal(err)
	}
	return s, tbl, clk
}

func emuLines(s *emulator.Server) []string {
	var out []string
	for _, r := range s.Requests() {
		line := fmt.Sprintf("%d %s %s", r.Status, r.Method, r.Path)
		if r.Query != "" {
			line += "?" + r.Query
		}
		if len(r.Body) > 0 {
			line += " " + string(r.Body)
		}
		out = append(out, line)
	}
	return out
}

func no429(t *testing.T, s *emulator.Server) {
	t.Helper()
	for _, r := range s.Requests() {
		if r.Status == 429 {
			t.Fatalf("the emulator answered 429 to %s %s: pacing failed", r.Method, r.Path)
		}
	}
}

func TestEmulatorListing(t *testing.T) {
	s, tbl, _ := newEmu(t, 250, emulator.WithRate(5, 30*time.Second)) // sequential: the limit applies
	var sizes []int
	for recs, err := range tbl.Iterate(bg, ListOptions{Fields: []string{"N"}, Sort: []string{"N"}}) {
		if err != nil {
			t.Fatal(err)
		}
		sizes = append(sizes, len(recs))
	}
	if !reflect.DeepEqual(sizes, []int{100, 100, 50}) {
		t.Errorf("pages %v, want [100 100 50]", sizes)
	}
	reqs := s.Requests()
	if len(reqs) != 3 || reqs[0].Query != "fields%5B%5D=N&sort%5B0%5D%5Bfield%5D=N&sort%5B0%5D%5Bdirection%5D=asc" ||
		!strings.HasPrefix(reqs[1].Query, reqs[0].Query+"&offset=") || reqs[0].Path != "/v0/"+emuBase+"/My%20Tasks" {
		t.Errorf("requests:\n%s", strings.Join(emuLines(s), "\n"))
	}

	// Options reach the emulator as meant: view order and filter, formula, max records, page size.
	recs, err := tbl.All(bg, ListOptions{View: "Open", MaxRecords: 3, PageSize: 2, Fields: []string{"N", "Name"}})
	if err != nil {
		t.Fatal(err)
	}
	if got := nums(recs); !reflect.DeepEqual(got, []float64{249, 247, 245}) {
		t.Errorf("view Open, 3 records: got %v", got)
	}
	recs, err = tbl.All(bg, ListOptions{Formula: "AND({N} >= 10, {N} < 13)", Sort: []string{"-N"}})
	if err != nil || !reflect.DeepEqual(nums(recs), []float64{12, 11, 10}) {
		t.Errorf("formula and sort: got %v, %v", nums(recs), err)
	}
	rec, err := tbl.First(bg, ListOptions{Formula: "{Name} = 'task 7'"})
	if err != nil || rec == nil || rec.ID != "rec00000000000007" {
		t.Errorf("First: got %v, %v", rec, err)
	}
	rec, err = tbl.First(bg, ListOptions{Formula: "{Name} = 'nobody'"})
	if err != nil || rec != nil {
		t.Errorf("First without match: got %v, %v", rec, err)
	}
	recs, err = tbl.All(bg, ListOptions{Formula: "{N} = 3", ReturnFieldsByFieldID: true})
	if err != nil || len(recs) != 1 || recs[0].Fields["fldN0000000000001"] != 3.0 {
		t.Errorf("by field id: got %v, %v", recs, err)
	}
	last := s.Requests()[len(s.Requests())-1]
	if last.Query != "filterByFormula=%7BN%7D+%3D+3&returnFieldsByFieldId=true" {
		t.Errorf("query %q", last.Query)
	}
	no429(t, s)
}

func nums(recs []Record) []float64 {
	var out []float64
	for _, r := range recs {
		n, _ := r.Fields["N"].(float64)
		out = append(out, n)
	}
	return out
}

func TestEmulatorListingByPost(t *testing.T) {
	s, tbl, _ := newEmu(t, 120)
	// A formula past 16,000 characters that selects N in 0..59.
	var terms []string
	for i := 0; i < 60; i++ {
		terms = append(terms, fmt.Sprintf("{N} = %d", i))
	}
	for len(strings.Join(terms, ", ")) < 17000 {
		terms = append(terms, "{Name} = 'no such task, only padding to pass the URL limit'")
	}
	formula := "OR(" + strings.Join(terms, ", ") + ")"
	recs, err := tbl.All(bg, ListOptions{Formula: formula, PageSize: 25, Sort: []string{"N"}})
	if err != nil {
		t.Fatal(err)
	}
	want := make([]float64, 60)
	for i := range want {
		want[i] = float64(i)
	}
	if !reflect.DeepEqual(nums(recs), want) {
		t.Errorf("got %v", nums(recs))
	}
	reqs := s.Requests()
	if len(reqs) != 3 {
		t.Fatalf("got %d requests, want 3 pages", len(reqs))
	}
	for i, r := range reqs {
		if r.Method != "POST" || r.Path != "/v0/"+emuBase+"/My%20Tasks/listRecords" || r.Status != 200 {
			t.Errorf("request %d: %d %s %s", i, r.Status, r.Method, r.Path)
		}
		if hasOffset := strings.Contains(string(r.Body), `"offset":`); hasOffset != (i > 0) {
			t.Errorf("request %d: offset in body %v", i, hasOffset)
		}
	}
}

func TestEmulatorWrites(t *testing.T) {
	s, tbl, _ := newEmu(t, 5)
	rec, err := tbl.Create(bg, map[string]any{"Name": "new", "N": "42"}, WriteOptions{Typecast: true})
	if err != nil || rec.Fields["N"] != 42.0 || rec.ID == "" {
		t.Fatalf("create: %v, %v", rec, err)
	}
	got, err := tbl.Get(bg, rec.ID)
	if err != nil || !reflect.DeepEqual(got, rec) {
		t.Errorf("get after create: %v, %v; want %v", got, err, rec)
	}
	upd, err := tbl.Update(bg, rec.ID, map[string]any{"Done": true}, WriteOptions{})
	if err != nil || upd.Fields["Name"] != "new" || upd.Fields["Done"] != true {
		t.Errorf("patch: %v, %v", upd, err)
	}
	upd, err = tbl.Update(bg, rec.ID, map[string]any{"Name": "only"}, WriteOptions{Replace: true})
	if err != nil || !reflect.DeepEqual(upd.Fields, map[string]any{"Name": "only"}) {
		t.Errorf("put: %v, %v", upd, err)
	}
	del, err := tbl.Delete(bg, rec.ID)
	if err != nil || !del.Deleted || del.ID != rec.ID {
		t.Errorf("delete: %v, %v", del, err)
	}
	_, err = tbl.Get(bg, rec.ID)
	var apiErr *APIError
	if !errors.As(err, &apiErr) || apiErr.StatusCode < 400 {
		t.Errorf("get after delete: %v", err)
	}

	// Batches: 25 creates in 3 chunks, updated, upserted, deleted.
	s.ResetRequests()
	in := make([]map[string]any, 25)
	for i := range in {
		in[i] = map[string]any{"Name": fmt.Sprintf("b%02d", i), "N": 100 + i}
	}
	created, err := tbl.BatchCreate(bg, in, WriteOptions{})
	if err != nil || len(created) != 25 {
		t.Fatalf("batch create: %d, %v", len(created), err)
	}
	for i, r := range created {
		if r.Fields["N"] != float64(100+i) {
			t.Fatalf("created[%d] = %v: not in input order", i, r.Fields)
		}
	}
	var chunkSizes []int
	for _, r := range s.Requests() {
		if r.Method != "POST" || r.Path != "/v0/"+emuBase+"/My%20Tasks" || r.Status != 200 {
			t.Errorf("batch create request %d %s %s", r.Status, r.Method, r.Path)
		}
		chunkSizes = append(chunkSizes, strings.Count(string(r.Body), `"fields"`))
	}
	slices.Sort(chunkSizes)
	if !reflect.DeepEqual(chunkSizes, []int{5, 10, 10}) {
		t.Errorf("chunks %v", chunkSizes)
	}
	updates := make([]Record, len(created))
	for i, r := range created {
		updates[i] = Record{ID: r.ID, Fields: map[string]any{"Done": true}}
	}
	updated, err := tbl.BatchUpdate(bg, updates, WriteOptions{})
	if err != nil || len(updated) != 25 || updated[24].Fields["Done"] != true || updated[24].Fields["Name"] != "b24" {
		t.Fatalf("batch update: %v", err)
	}
	upserted, err := tbl.BatchUpsert(bg, []Record{
		{Fields: map[string]any{"Name": "b03", "N": 3000}},
		{Fields: map[string]any{"Name": "brand new", "N": 1}},
		{ID: created[0].ID, Fields: map[string]any{"N": 0}},
	}, []string{"Name"}, WriteOptions{})
	if err != nil || len(upserted) != 3 || upserted[0].ID != created[3].ID || upserted[0].Fields["N"] != 3000.0 ||
		upserted[1].ID == "" || slices.ContainsFunc(created, func(r Record) bool { return r.ID == upserted[1].ID }) || upserted[2].ID != created[0].ID {
		t.Fatalf("batch upsert: %v, %v", upserted, err)
	}
	ids := []string{upserted[1].ID}
	for _, r := range created {
		ids = append(ids, r.ID)
	}
	deleted, err := tbl.BatchDelete(bg, ids)
	if err != nil || len(deleted) != 26 || deleted[0].ID != ids[0] || !deleted[25].Deleted {
		t.Fatalf("batch delete: %d, %v", len(deleted), err)
	}
	left, err := tbl.All(bg, ListOptions{})
	if err != nil || len(left) != 5 {
		t.Errorf("after the batches: %d records, %v; want the 5 of the fixture", len(left), err)
	}
	no429(t, s)
}

func TestEmulatorErrors(t *testing.T) {
	s, tbl, _ := newEmu(t, 5)
	_, err := tbl.All(bg, ListOptions{Formula: "{No such field} = 1"})
	var apiErr *APIError
	if !errors.As(err, &apiErr) || apiErr.StatusCode != 422 || apiErr.Type != "INVALID_FILTER_BY_FORMULA" || apiErr.Message == "" {
		t.Errorf("bad formula: %v", err)
	}
	_, err = tbl.Create(bg, map[string]any{"Nope": 1}, WriteOptions{})
	if !errors.As(err, &apiErr) || apiErr.Type != "UNKNOWN_FIELD_NAME" {
		t.Errorf("unknown field: %v", err)
	}
	bad, _ := NewTable("patWRONG.token", emuBase, "My Tasks", WithEndpointURL(emulator.InProcessURL), WithHTTPClient(s.Client()), WithClock(tbl.c.clock))
	_, err = bad.Get(bg, "rec00000000000001")
	if !errors.As(err, &apiErr) || apiErr.StatusCode != 401 || strings.Contains(err.Error(), "patWRONG") {
		t.Errorf("bad token: %v", err)
	}
	_, err = tbl.Base().Table("No Such Table").All(bg, ListOptions{})
	if !errors.As(err, &apiErr) || apiErr.StatusCode/100 != 4 {
		t.Errorf("unknown table: %v", err)
	}
	no429(t, s)
}

func TestEmulatorFaultsAndRetries(t *testing.T) {
	tests := []struct {
		name     string
		fault    emulator.Fault
		do       func(*Table) error
		wantSent int
		wantErr  bool
	}{
		{"GET 503 twice: retried", emulator.Fault{Method: "GET", Status: 503, Times: 2}, func(t *Table) error { _, err := t.All(bg, ListOptions{}); return err }, 3, false},
		{"dropped GET: retried", emulator.Fault{Method: "GET", Drop: true, Times: 1}, func(t *Table) error { _, err := t.Get(bg, "rec00000000000001"); return err }, 2, false},
		{"truncated GET: retried", emulator.Fault{Method: "GET", Truncate: true, Times: 1}, func(t *Table) error { _, err := t.All(bg, ListOptions{}); return err }, 2, false},
		{"POST 503: not retried", emulator.Fault{Method: "POST", Status: 503, Times: 1}, func(t *Table) error {
			_, err := t.Create(bg, map[string]any{"Name": "x"}, WriteOptions{})
			return err
		}, 1, true},
		{"dropped POST: not retried", emulator.Fault{Method: "POST", Drop: true, Times: 1}, func(t *Table) error {
			_, err := t.BatchCreate(bg, []map[string]any{{"Name": "x"}}, WriteOptions{})
			return err
		}, 1, true},
		{"POST 429: retried", emulator.Fault{Method: "POST", Status: 429, Times: 1, Body: `{"error":{"type":"RATE_LIMIT_REACHED","message":"Rate limit exceeded. Please try again later"}}`}, func(t *Table) error {
			_, err := t.Create(bg, map[string]any{"Name": "x"}, WriteOptions{})
			return err
		}, 2, false},
		{"PATCH 502: retried", emulator.Fault{Method: "PATCH", Status: 502, Times: 1}, func(t *Table) error {
			_, err := t.Update(bg, "rec00000000000001", map[string]any{"Name": "x"}, WriteOptions{})
			return err
		}, 2, false},
		{"listRecords POST 500: retried", emulator.Fault{Method: "POST", Status: 500, Times: 1}, func(t *Table) error {
			_, err := t.All(bg, ListOptions{Formula: "OR(" + strings.Repeat("{N}=1,", 3000) + "FALSE())"})
			return err
		}, 2, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, _, clk := newEmu(t, 3)
			tbl, _ := NewTable(emulator.DefaultToken, emuBase, "My Tasks", WithEndpointURL(emulator.InProcessURL), WithHTTPClient(s.Client()),
				WithClock(clk), WithRetryStrategy(RetryStrategy()))
			s.InjectFault(tt.fault)
			err := tt.do(tbl)
			if (err != nil) != tt.wantErr {
				t.Errorf("error %v, want error %v", err, tt.wantErr)
			}
			if n := len(s.Requests()); n != tt.wantSent {
				t.Errorf("%d requests:\n%s\nwant %d", n, strings.Join(emuLines(s), "\n"), tt.wantSent)
			}
		})
	}
}

func TestEmulatorRateLimitPenaltyHonoured(t *testing.T) {
	// Another client ignoring the pace draws a 429 for the base; our client then holds its
	// requests for the 30 s penalty instead of drawing more.
	s, tbl, clk := newEmu(t, 3, emulator.WithRate(5, 30*time.Second))
	rude := s.Client()
	for range 6 {
		req, _ := http.NewRequest("GET", emulator.InProcessURL+"/v0/"+emuBase+"/My%20Tasks", nil)
		req.Header.Set("Authorization", "Bearer "+emulator.DefaultToken)
		res, err := rude.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
	}
	polite, _ := NewTable(emulator.DefaultToken, emuBase, "My Tasks", WithEndpointURL(emulator.InProcessURL), WithHTTPClient(s.Client()),
		WithClock(clk), WithRetryStrategy(RetryStrategy()))
	start := clk.Now()
	if _, err := polite.All(bg, ListOptions{}); err != nil {
		t.Fatal(err)
	}
	var ours []emulator.Request
	for _, r := range s.Requests()[6:] {
		ours = append(ours, r)
	}
	if len(ours) != 2 || ours[0].Status != 429 || ours[1].Status != 200 {
		t.Fatalf("our requests:\n%s", strings.Join(emuLines(s)[6:], "\n"))
	}
	if gap := ours[1].Time.Sub(ours[0].Time); gap < 30*time.Second {
		t.Errorf("retried %v after the 429, want the 30 s penalty", gap)
	}
	_ = start
	_ = tbl
}

func TestEmulatorMetadata(t *testing.T) {
	s, tbl, _ := newEmu(t, 1)
	api, _ := NewAPI(emulator.DefaultToken, WithEndpointURL(emulator.InProcessURL), WithHTTPClient(s.Client()), WithClock(tbl.c.clock))
	bases, err := api.Bases(bg)
	if err != nil || len(bases) != 1 || bases[0].ID != emuBase || bases[0].Name != "Emu" {
		t.Fatalf("bases: %v, %v", bases, err)
	}
	schema, err := api.Base(emuBase).Schema(bg)
	if err != nil || len(schema.Tables) != 1 {
		t.Fatalf("schema: %v, %v", schema, err)
	}
	tb := schema.Tables[0]
	if tb.ID != "tblTASKS000000001" || tb.Name != "My Tasks" || tb.PrimaryFieldID != "fldNAME0000000001" || len(tb.Fields) != 3 ||
		tb.Fields[1].Type != "number" || tb.Fields[1].Options["precision"] != 0.0 || len(tb.Views) != 1 || tb.Views[0].Name != "Open" {
		t.Errorf("table schema: %+v", tb)
	}
	// The table is reachable by id as well as by name.
	byID, err := api.Table(emuBase, tb.ID).All(bg, ListOptions{})
	if err != nil || len(byID) != 1 {
		t.Errorf("by table id: %v, %v", byID, err)
	}
}

func TestEmulatorPacingRealClock(t *testing.T) {
	if testing.Short() {
		t.Skip("takes about 2 s of real time")
	}
	// 60 records in 6 chunks and 4 pages of reads, at 5 requests/s: two
	// objects of the base at once, and not one 429.
	s, err := emulator.New(emulator.WithFixture(emuFixture(40)), emulator.WithRate(5, 30*time.Second)) // no latency: a loaded machine wakes timers late, bunching admissions
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	opts := []Option{WithEndpointURL(emulator.InProcessURL), WithHTTPClient(s.Client())}
	writer, _ := NewTable(emulator.DefaultToken, emuBase, "My Tasks", opts...)
	reader, _ := NewBase(emulator.DefaultToken, emuBase, opts...)
	done := make(chan error, 1)
	go func() {
		_, err := reader.All(bg, "My Tasks", ListOptions{PageSize: 10})
		done <- err
	}()
	if _, err := writer.BatchCreate(bg, manyFields(60), WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	no429(t, s)
	// Reads may see some of the new records, so there are 4 or more pages.
	if n := len(s.Requests()); n < 10 {
		t.Errorf("%d requests, want at least 10", n)
	}
}
