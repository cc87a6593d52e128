package transport

import (
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/airsql/airsql/emulator"
)

// newEmuRetrying is newEmu with the seed's retry strategy.
func newEmuRetrying(t *testing.T, n int) (*emulator.Server, *Table) {
	t.Helper()
	clk := newJumpClock()
	s, err := emulator.New(emulator.WithFixture(emuFixture(n)), emulator.WithClock(clk), emulator.WithRate(0, 0))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	tbl, err := NewTable(emulator.DefaultToken, emuBase, "My Tasks", WithEndpointURL(emulator.InProcessURL),
		WithHTTPClient(s.Client()), WithClock(clk), WithRetryStrategy(RetryStrategy()))
	if err != nil {
		t.Fatal(err)
	}
	return s, tbl
}

func emuIDs(lo, hi int) []string {
	var ids []string
	for i := lo; i < hi; i++ {
		ids = append(ids, fmt.Sprintf("rec%014d", i))
	}
	return ids
}

// A batch DELETE whose answer was lost is retried; the retry finds the records gone (403 for a
// personal access token). The records were deleted: they must be reported so.
func TestBatchDeleteRetryAfterLostAnswerReportsDeleted(t *testing.T) {
	s, tbl := newEmuRetrying(t, 20)
	s.InjectFault(emulator.Fault{Method: "DELETE", Truncate: true, Times: 1})
	res, err := tbl.BatchDelete(bg, emuIDs(0, 10))
	if err != nil {
		t.Fatalf("BatchDelete: %v", err)
	}
	if len(res) != 10 || !res[0].Deleted || res[0].ID != "rec00000000000000" {
		t.Fatalf("results %+v", res)
	}
	if got := len(s.Requests()); got != 2 {
		t.Errorf("%d requests, want 2 (the lost one and its retry)", got)
	}
}

func TestDeleteRetryAfterLostAnswerReportsDeleted(t *testing.T) {
	s, tbl := newEmuRetrying(t, 3)
	s.InjectFault(emulator.Fault{Method: "DELETE", Drop: false, Truncate: true, Times: 1})
	res, err := tbl.Delete(bg, "rec00000000000001")
	if err != nil || !res.Deleted || res.ID != "rec00000000000001" {
		t.Fatalf("Delete: %+v, %v", res, err)
	}
}

// A batch PATCH whose answer was lost, then refused with 429 until the retries run out: the
// first try may have written the records, so they are uncertain, not "not written".
func TestBatchUpdateFinal429AfterLostAnswerIsUncertain(t *testing.T) {
	s, tbl := newEmuRetrying(t, 30)
	var recs []Record
	for _, id := range emuIDs(0, 20) {
		recs = append(recs, Record{ID: id, Fields: map[string]any{"Name": "x"}})
	}
	// The first chunk succeeds; the second's answer is lost and every retry meets 429.
	s.InjectFault(emulator.Fault{Method: "PATCH", Truncate: true, Times: 1})
	s.InjectFault(emulator.Fault{Method: "PATCH", Status: 429, Body: `{"errors":[{"error":"RATE_LIMIT_REACHED","message":"Rate limit exceeded."}]}`, Times: 100})
	_, err := tbl.BatchUpdate(bg, recs[:10], WriteOptions{})
	var be *BatchError
	if !errors.As(err, &be) {
		t.Fatalf("want a *BatchError, got %v", err)
	}
	if !slices.Equal(be.Uncertain, []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}) || len(be.Written) != 0 {
		t.Fatalf("written %v, uncertain %v: the truncated first try may have written all 10", be.Written, be.Uncertain)
	}
	var earlier *EarlierTryError
	var apiErr *APIError
	if !errors.As(err, &earlier) || !errors.As(err, &apiErr) || apiErr.StatusCode != 429 {
		t.Errorf("the error should carry the last 429 and the earlier try: %v", err)
	}
}

// A 4xx on the only try still means "not written".
func TestBatchUpdateRefusedIsNotUncertain(t *testing.T) {
	s, tbl := newEmuRetrying(t, 10)
	s.InjectFault(emulator.Fault{Method: "PATCH", Status: 422, Times: 1})
	_, err := tbl.BatchUpdate(bg, []Record{{ID: "rec00000000000001", Fields: map[string]any{"Name": "x"}}}, WriteOptions{})
	var be *BatchError
	if !errors.As(err, &be) || len(be.Uncertain) != 0 {
		t.Fatalf("want a BatchError with nothing uncertain, got %v", err)
	}
}
