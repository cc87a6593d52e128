package transport

import (
	"errors"
	"net/http"
	"reflect"
	"testing"
)

func TestBasesPagesAndSchema(t *testing.T) {
	fake := newFake(func(n int, r seenRequest) reply {
		switch {
		case r.Path == "/v0/meta/bases" && r.Query == "":
			return ok(`{"bases":[{"id":"appA0000000000001","name":"A","permissionLevel":"create"}],"offset":"itrX/appA"}`)
		case r.Path == "/v0/meta/bases" && r.Query == "offset=itrX%2FappA":
			return ok(`{"bases":[{"id":"appB0000000000001","name":"B","permissionLevel":"read"}]}`)
		case r.Path == "/v0/meta/bases/appA0000000000001/tables":
			return ok(`{"tables":[{"id":"tblA","name":"T","primaryFieldId":"fldA","fields":[{"id":"fldA","name":"Name","type":"singleLineText"},
				{"id":"fldB","name":"Link","type":"multipleRecordLinks","options":{"linkedTableId":"tblA"}}],"views":[{"id":"viwA","name":"Grid","type":"grid"}]}]}`)
		}
		return reply{status: 404, body: `{"error":"NOT_FOUND"}`}
	})
	api, err := NewAPI(testToken, WithHTTPClient(&http.Client{Transport: fake}), WithEndpointURL("http://fake.test"), WithClock(newJumpClock()))
	if err != nil {
		t.Fatal(err)
	}
	bases, err := api.Bases(bg)
	want := []BaseInfo{{"appA0000000000001", "A", "create"}, {"appB0000000000001", "B", "read"}}
	if err != nil || !reflect.DeepEqual(bases, want) {
		t.Errorf("got %v, %v; want %v", bases, err, want)
	}
	schema, err := api.Base("appA0000000000001").Schema(bg)
	if err != nil {
		t.Fatal(err)
	}
	wantSchema := &BaseSchema{Tables: []TableSchema{{ID: "tblA", Name: "T", PrimaryFieldID: "fldA",
		Fields: []FieldSchema{{ID: "fldA", Name: "Name", Type: "singleLineText"}, {ID: "fldB", Name: "Link", Type: "multipleRecordLinks", Options: map[string]any{"linkedTableId": "tblA"}}},
		Views:  []ViewSchema{{ID: "viwA", Name: "Grid", Type: "grid"}}}}}
	if !reflect.DeepEqual(schema, wantSchema) {
		t.Errorf("got %+v", schema)
	}
	if _, err := api.Base("appJUNK").Schema(bg); !errors.Is(err, ErrNotFound) {
		t.Errorf("unknown base: %v", err)
	}
}

// TestCreateTableAndField: the exact requests of the metadata writes, and no retry of either
// after a 503 (a second try could create a second table or field).
func TestCreateTableAndField(t *testing.T) {
	var seen []seenRequest
	fake := newFake(func(n int, r seenRequest) reply {
		seen = append(seen, r)
		switch {
		case r.Method == "POST" && r.Path == "/v0/meta/bases/appA0000000000001/tables":
			return ok(`{"id":"tblNEW","name":"People","primaryFieldId":"fldN","fields":[{"id":"fldN","name":"Name","type":"singleLineText"}],"views":[{"id":"viwG","name":"Grid view","type":"grid"}]}`)
		case r.Method == "POST" && r.Path == "/v0/meta/bases/appA0000000000001/tables/tblNEW/fields":
			return ok(`{"id":"fldA","name":"Age","type":"number","options":{"precision":0}}`)
		}
		return reply{status: 503, body: `{"error":{"type":"SERVICE_UNAVAILABLE"}}`}
	})
	base, err := NewBase(testToken, "appA0000000000001", WithHTTPClient(&http.Client{Transport: fake}), WithEndpointURL("http://fake.test"),
		WithClock(newJumpClock()), WithRetryStrategy(RetryStrategy()))
	if err != nil {
		t.Fatal(err)
	}
	tbl, err := base.CreateTable(bg, TableSpec{Name: "People", Fields: []FieldSpec{{Name: "Name", Type: "singleLineText"}}})
	if err != nil || tbl.ID != "tblNEW" || tbl.PrimaryFieldID != "fldN" {
		t.Fatalf("CreateTable: %+v, %v", tbl, err)
	}
	f, err := base.CreateField(bg, "tblNEW", FieldSpec{Name: "Age", Type: "number", Description: "years", Options: map[string]any{"precision": 0}})
	if err != nil || f.ID != "fldA" {
		t.Fatalf("CreateField: %+v, %v", f, err)
	}
	wantBodies := []string{
		`{"name":"People","fields":[{"name":"Name","type":"singleLineText"}]}`,
		`{"name":"Age","type":"number","description":"years","options":{"precision":0}}`,
	}
	for i, want := range wantBodies {
		if seen[i].Body != want || seen[i].Header.Get("Content-Type") != "application/json" {
			t.Errorf("request %d: %s %s, want body %s", i, seen[i], seen[i].Body, want)
		}
	}
	seen = nil
	if _, err := base.CreateField(bg, "tblOTHER", FieldSpec{Name: "X", Type: "singleLineText"}); err == nil {
		t.Error("a 503 should fail")
	}
	if len(seen) != 1 {
		t.Errorf("%d requests after a 503, want 1: a create is not repeated once it may have reached the service", len(seen))
	}
	if _, err := base.CreateTable(bg, TableSpec{Name: "Empty"}); err == nil || len(seen) != 1 {
		t.Errorf("a table without fields should be refused before sending: %v", err)
	}
}
