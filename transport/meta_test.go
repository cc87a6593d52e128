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
