package transport

import (
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"reflect"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
)

// echoWrites answers as the service would: writes with the records sent, with ids; reads with a record.
func echoWrites(n int, r seenRequest) reply {
	var body struct {
		Fields  map[string]any `json:"fields"`
		Records []struct {
			ID     string         `json:"id"`
			Fields map[string]any `json:"fields"`
		} `json:"records"`
	}
	if r.Method == "GET" {
		if i := strings.LastIndex(r.Path, "/rec"); i >= 0 {
			return ok(recordJSON(r.Path[i+1:], `{}`))
		}
		return ok(`{"records":[` + recordsJSON(1, 0) + `]}`)
	}
	if r.Method == "DELETE" {
		if !strings.Contains(r.Path, "/rec") {
			var parts []string
			for _, kv := range strings.Split(r.Query, "&") {
				id := strings.TrimPrefix(kv, "records%5B%5D=")
				parts = append(parts, fmt.Sprintf(`{"id":%q,"deleted":true}`, id))
			}
			return ok(`{"records":[` + strings.Join(parts, ",") + `]}`)
		}
		id := r.Path[strings.LastIndex(r.Path, "/")+1:]
		return ok(fmt.Sprintf(`{"id":%q,"deleted":true}`, id))
	}
	if err := json.Unmarshal([]byte(r.Body), &body); err != nil {
		return reply{status: 400, body: `{"error":{"type":"INVALID_REQUEST_BODY","message":"bad json"}}`}
	}
	if body.Records == nil {
		f, _ := json.Marshal(body.Fields)
		id := fmt.Sprintf("rec%014d", n)
		if i := strings.LastIndex(r.Path, "/rec"); i >= 0 {
			id = r.Path[i+1:]
		}
		return ok(recordJSON(id, string(f)))
	}
	var parts []string
	for _, rec := range body.Records {
		f, _ := json.Marshal(rec.Fields)
		id := rec.ID
		if id == "" { // derived from the content, so that it does not depend on arrival order
			h := fnv.New64a()
			h.Write(f)
			id = fmt.Sprintf("rec%014d", h.Sum64()%1e14)
		}
		parts = append(parts, recordJSON(id, string(f)))
	}
	return ok(`{"records":[` + strings.Join(parts, ",") + `]}`)
}

func TestWriteRequests(t *testing.T) {
	const path = "/v0/appTEST0000000001/My%20Tasks"
	tests := []struct {
		name string
		do   func(t *Table) error
		want []string
	}{
		{"create", func(t *Table) error {
			_, err := t.Create(bg, map[string]any{"Name": "a"}, WriteOptions{})
			return err
		}, []string{`POST ` + path + ` {"fields":{"Name":"a"}}`}},
		{"create with options", func(t *Table) error {
			_, err := t.Create(bg, map[string]any{"Name": "a"}, WriteOptions{Typecast: true, ReturnFieldsByFieldID: true})
			return err
		}, []string{`POST ` + path + ` {"fields":{"Name":"a"},"typecast":true,"returnFieldsByFieldId":true}`}},
		{"create with no fields", func(t *Table) error {
			_, err := t.Create(bg, nil, WriteOptions{})
			return err
		}, []string{`POST ` + path + ` {"fields":{}}`}},
		{"update", func(t *Table) error {
			_, err := t.Update(bg, "recA", map[string]any{"Done": true}, WriteOptions{Typecast: true})
			return err
		}, []string{`PATCH ` + path + `/recA {"fields":{"Done":true},"typecast":true}`}},
		{"replace", func(t *Table) error {
			_, err := t.Update(bg, "recA", map[string]any{"Name": nil}, WriteOptions{Replace: true, ReturnFieldsByFieldID: true})
			return err
		}, []string{`PUT ` + path + `/recA {"fields":{"Name":null},"returnFieldsByFieldId":true}`}},
		{"delete", func(t *Table) error {
			_, err := t.Delete(bg, "recA")
			return err
		}, []string{`DELETE ` + path + `/recA`}},
		{"batch delete", func(t *Table) error {
			_, err := t.BatchDelete(bg, []string{"rec1", "rec2"})
			return err
		}, []string{`DELETE ` + path + `?records%5B%5D=rec1&records%5B%5D=rec2`}},
		{"batch update", func(t *Table) error {
			_, err := t.BatchUpdate(bg, []Record{{ID: "rec1", Fields: map[string]any{"N": 1}}, {ID: "rec2"}}, WriteOptions{Typecast: true})
			return err
		}, []string{`PATCH ` + path + ` {"records":[{"id":"rec1","fields":{"N":1}},{"id":"rec2","fields":{}}],"typecast":true}`}},
		{"batch replace", func(t *Table) error {
			_, err := t.BatchUpdate(bg, []Record{{ID: "rec1", Fields: map[string]any{"N": 1}}}, WriteOptions{Replace: true})
			return err
		}, []string{`PUT ` + path + ` {"records":[{"id":"rec1","fields":{"N":1}}]}`}},
		{"batch upsert", func(t *Table) error {
			_, err := t.BatchUpsert(bg, []Record{{ID: "rec1", Fields: map[string]any{"N": 1}}, {Fields: map[string]any{"Name": "x", "N": 2}}},
				[]string{"Name"}, WriteOptions{ReturnFieldsByFieldID: true})
			return err
		}, []string{`PATCH ` + path + ` {"records":[{"id":"rec1","fields":{"N":1}},{"fields":{"N":2,"Name":"x"}}],"performUpsert":{"fieldsToMergeOn":["Name"]},"returnFieldsByFieldId":true}`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tbl, fake, _ := newTestTable(t, echoWrites)
			if err := tt.do(tbl); err != nil {
				t.Fatal(err)
			}
			diffLines(t, fake.Lines(), tt.want)
			for _, r := range fake.Requests() {
				if got := r.Header.Get("Authorization"); got != "Bearer "+testToken {
					t.Errorf("Authorization %q", got)
				}
				if r.Body != "" && r.Header.Get("Content-Type") != "application/json" {
					t.Errorf("Content-Type %q", r.Header.Get("Content-Type"))
				}
			}
		})
	}
}

func TestBatchCreateChunksInOrder(t *testing.T) {
	tbl, fake, _ := newTestTable(t, echoWrites)
	in := make([]map[string]any, 35)
	for i := range in {
		in[i] = map[string]any{"N": i}
	}
	recs, err := tbl.BatchCreate(bg, in, WriteOptions{Typecast: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 35 {
		t.Fatalf("got %d records, want 35", len(recs))
	}
	for i, r := range recs {
		if r.Fields["N"] != float64(i) {
			t.Fatalf("record %d has N=%v: results must come back in input order", i, r.Fields["N"])
		}
	}
	var sizes []int
	for _, r := range fake.Requests() {
		var body struct {
			Records  []map[string]any `json:"records"`
			Typecast bool             `json:"typecast"`
		}
		if err := json.Unmarshal([]byte(r.Body), &body); err != nil || r.Method != "POST" || !body.Typecast {
			t.Fatalf("request %s: %v", r, err)
		}
		sizes = append(sizes, len(body.Records))
	}
	// Chunks are in flight together, so they may arrive in any order.
	slices.Sort(sizes)
	if want := []int{5, 10, 10, 10}; !reflect.DeepEqual(sizes, want) {
		t.Errorf("chunk sizes %v, want %v", sizes, want)
	}
	if recs, err := tbl.BatchCreate(bg, nil, WriteOptions{}); err != nil || len(recs) != 0 || len(fake.Requests()) != 4 {
		t.Errorf("empty batch: got %v, %v, %d requests; want nothing sent", recs, err, len(fake.Requests()))
	}
}

func TestBatchWritesRefusedBeforeSending(t *testing.T) {
	tests := []struct {
		name    string
		do      func(t *Table) error
		mention string
	}{
		{"update without id", func(t *Table) error {
			_, err := t.BatchUpdate(bg, []Record{{ID: "rec1"}, {Fields: map[string]any{"a": 1}}}, WriteOptions{})
			return err
		}, "records[1] has no ID"},
		{"upsert without key field", func(t *Table) error {
			_, err := t.BatchUpsert(bg, []Record{{ID: "rec1"}, {Fields: map[string]any{"Name": "x"}}}, []string{"Name", "Email"}, WriteOptions{})
			return err
		}, `records[1] has no ID and lacks key field "Email"`},
		{"upsert without keys", func(t *Table) error {
			_, err := t.BatchUpsert(bg, []Record{{ID: "rec1"}}, nil, WriteOptions{})
			return err
		}, "0 key fields"},
		{"upsert with four keys", func(t *Table) error {
			_, err := t.BatchUpsert(bg, []Record{{ID: "rec1"}}, []string{"a", "b", "c", "d"}, WriteOptions{})
			return err
		}, "4 key fields"},
		{"delete empty id", func(t *Table) error {
			_, err := t.BatchDelete(bg, []string{"rec1", ""})
			return err
		}, "recordIDs[1] is empty"},
		{"unencodable value", func(t *Table) error {
			_, err := t.BatchCreate(bg, []map[string]any{{"a": make(chan int)}}, WriteOptions{})
			return err
		}, "cannot be sent as JSON"},
		{"update empty id", func(t *Table) error {
			_, err := t.Update(bg, "", nil, WriteOptions{})
			return err
		}, "empty record id"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tbl, fake, _ := newTestTable(t, echoWrites)
			err := tt.do(tbl)
			if !errors.Is(err, ErrInvalidOption) || !strings.Contains(err.Error(), tt.mention) {
				t.Errorf("got %v, want an ErrInvalidOption mentioning %q", err, tt.mention)
			}
			if n := len(fake.Requests()); n != 0 {
				t.Errorf("%d requests sent, want none", n)
			}
		})
	}
}

func TestBatchFailurePartWay(t *testing.T) {
	tests := []struct {
		name          string
		failChunk     int
		failure       reply
		wantWritten   int // records returned
		wantUncertain int
	}{
		{"422 on the third chunk", 2, reply{status: 422, body: `{"error":{"type":"INVALID_VALUE_FOR_COLUMN","message":"Field \"N\" cannot accept the provided value"}}`}, 20, 0},
		{"500 on the second chunk", 1, reply{status: 500, body: `{"error":{"type":"SERVER_ERROR","message":"boom"}}`}, 10, 10},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var failedAt atomic.Int64
			failedAt.Store(-1)
			tbl, fake, _ := newTestTable(t, func(n int, r seenRequest) reply {
				if strings.Contains(r.Body, fmt.Sprintf(`{"N":%d}`, tt.failChunk*10)) {
					failedAt.Store(int64(n))
					return tt.failure
				}
				return echoWrites(n, r)
			}, WithRetryStrategy(RetryStrategy()))
			in := make([]map[string]any, 45)
			for i := range in {
				in[i] = map[string]any{"N": i}
			}
			recs, err := tbl.BatchCreate(bg, in, WriteOptions{})
			var be *BatchError
			if !errors.As(err, &be) {
				t.Fatalf("got %v, want a *BatchError", err)
			}
			var apiErr *APIError
			if !errors.As(err, &apiErr) || apiErr.StatusCode != tt.failure.status {
				t.Errorf("got %v, want the chunk's APIError inside", err)
			}
			// Chunks started before the failure was seen may have finished too; all of them are
			// reported, and none after.
			if len(recs) != len(be.Written) || len(be.Records) != len(recs) || len(recs) < tt.wantWritten {
				t.Errorf("got %d records, Written %d, Records %d; want at least %d", len(recs), len(be.Written), len(be.Records), tt.wantWritten)
			}
			for i, r := range recs {
				if r.Fields["N"] != float64(be.Written[i]) {
					t.Errorf("record %d is input %v, Written says %d", i, r.Fields["N"], be.Written[i])
				}
			}
			if len(be.Uncertain) != tt.wantUncertain {
				t.Errorf("Uncertain %v, want %d indexes", be.Uncertain, tt.wantUncertain)
			}
			// A create is never repeated, even with a retry strategy.
			for i, r := range fake.Requests() {
				if int64(i) != failedAt.Load() && strings.Contains(r.Body, fmt.Sprintf(`{"N":%d}`, tt.failChunk*10)) {
					t.Errorf("the failed chunk was sent again (request %d)", i)
				}
			}
			if !strings.Contains(err.Error(), "written") || !strings.Contains(err.Error(), "My Tasks") {
				t.Errorf("message %q should say what was written, and where", err)
			}
		})
	}
}

func TestBatchDeleteFailurePartWay(t *testing.T) {
	tbl, _, _ := newTestTable(t, func(n int, r seenRequest) reply {
		if strings.Contains(r.Query, "rec10") {
			return reply{status: 403, body: `{"error":{"type":"INVALID_PERMISSIONS","message":"You are not permitted to perform this operation"}}`}
		}
		return echoWrites(n, r)
	})
	ids := make([]string, 25)
	for i := range ids {
		ids[i] = fmt.Sprintf("rec%d", i)
	}
	res, err := tbl.BatchDelete(bg, ids)
	var be *BatchError
	if !errors.As(err, &be) || len(res) < 10 || len(be.Deleted) != len(res) || be.Written[0] != 0 || len(be.Uncertain) != 0 {
		t.Fatalf("got %d results, %v", len(res), err)
	}
	if res[0].ID != "rec0" || !res[0].Deleted {
		t.Errorf("first result %+v", res[0])
	}
}

func TestUpsertRetriesOnlyChunksThatCannotCreate(t *testing.T) {
	for _, tt := range []struct {
		name     string
		records  []Record
		wantSent int
	}{
		{"all with ids: retried", []Record{{ID: "rec1", Fields: map[string]any{"Name": "a"}}}, 2},
		{"one without id: not retried", []Record{{ID: "rec1"}, {Fields: map[string]any{"Name": "b"}}}, 1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			tbl, fake, _ := newTestTable(t, func(n int, r seenRequest) reply {
				if n == 0 {
					return reply{status: 503, body: `{"error":{"type":"RETRIABLE_ERROR","message":"safe to retry"}}`}
				}
				return echoWrites(n, r)
			}, WithRetryStrategy(RetryStrategy()))
			_, _ = tbl.BatchUpsert(bg, tt.records, []string{"Name"}, WriteOptions{})
			if n := len(fake.Requests()); n != tt.wantSent {
				t.Errorf("%d requests, want %d", n, tt.wantSent)
			}
		})
	}
}
