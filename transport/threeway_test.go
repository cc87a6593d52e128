package transport

import (
	"fmt"
	"net/http"
	"reflect"
	"testing"
)

// TestSameOperationThroughAPIBaseAndTable runs every operation through the three objects on
// three identical fake services and compares what was sent and what came back (seed §1 rule 1).
func TestSameOperationThroughAPIBaseAndTable(t *testing.T) {
	const table = "My Tasks"
	type objects struct {
		api  *API
		base *Base
		tbl  *Table
	}
	type op struct {
		name            string
		viaAPI, viaBase func(o objects) (any, error)
		viaTable        func(o objects) (any, error)
	}
	fields := map[string]any{"Name": "x"}
	recs := []Record{{ID: "rec1", Fields: fields}, {Fields: map[string]any{"Name": "y"}}}
	list := ListOptions{Fields: []string{"Name"}, Sort: []string{"-Name"}, PageSize: 5}
	ops := []op{
		{"Get", func(o objects) (any, error) {
			return o.api.Get(bg, testBase, table, "recA", GetOption{ReturnFieldsByFieldID: true})
		},
			func(o objects) (any, error) {
				return o.base.Get(bg, table, "recA", GetOption{ReturnFieldsByFieldID: true})
			},
			func(o objects) (any, error) { return o.tbl.Get(bg, "recA", GetOption{ReturnFieldsByFieldID: true}) }},
		{"Iterate", func(o objects) (any, error) { return collect(o.api.Iterate(bg, testBase, table, list)) },
			func(o objects) (any, error) { return collect(o.base.Iterate(bg, table, list)) },
			func(o objects) (any, error) { return collect(o.tbl.Iterate(bg, list)) }},
		{"All", func(o objects) (any, error) { return o.api.All(bg, testBase, table, list) },
			func(o objects) (any, error) { return o.base.All(bg, table, list) },
			func(o objects) (any, error) { return o.tbl.All(bg, list) }},
		{"First", func(o objects) (any, error) { return o.api.First(bg, testBase, table, list) },
			func(o objects) (any, error) { return o.base.First(bg, table, list) },
			func(o objects) (any, error) { return o.tbl.First(bg, list) }},
		{"Create", func(o objects) (any, error) {
			return o.api.Create(bg, testBase, table, fields, WriteOptions{Typecast: true})
		},
			func(o objects) (any, error) { return o.base.Create(bg, table, fields, WriteOptions{Typecast: true}) },
			func(o objects) (any, error) { return o.tbl.Create(bg, fields, WriteOptions{Typecast: true}) }},
		{"BatchCreate", func(o objects) (any, error) {
			return o.api.BatchCreate(bg, testBase, table, manyFields(12), WriteOptions{})
		},
			func(o objects) (any, error) { return o.base.BatchCreate(bg, table, manyFields(12), WriteOptions{}) },
			func(o objects) (any, error) { return o.tbl.BatchCreate(bg, manyFields(12), WriteOptions{}) }},
		{"Update", func(o objects) (any, error) {
			return o.api.Update(bg, testBase, table, "recA", fields, WriteOptions{Replace: true})
		},
			func(o objects) (any, error) {
				return o.base.Update(bg, table, "recA", fields, WriteOptions{Replace: true})
			},
			func(o objects) (any, error) { return o.tbl.Update(bg, "recA", fields, WriteOptions{Replace: true}) }},
		{"BatchUpdate", func(o objects) (any, error) { return o.api.BatchUpdate(bg, testBase, table, recs[:1], WriteOptions{}) },
			func(o objects) (any, error) { return o.base.BatchUpdate(bg, table, recs[:1], WriteOptions{}) },
			func(o objects) (any, error) { return o.tbl.BatchUpdate(bg, recs[:1], WriteOptions{}) }},
		{"BatchUpsert", func(o objects) (any, error) {
			return o.api.BatchUpsert(bg, testBase, table, recs, []string{"Name"}, WriteOptions{})
		},
			func(o objects) (any, error) {
				return o.base.BatchUpsert(bg, table, recs, []string{"Name"}, WriteOptions{})
			},
			func(o objects) (any, error) { return o.tbl.BatchUpsert(bg, recs, []string{"Name"}, WriteOptions{}) }},
		{"Delete", func(o objects) (any, error) { return o.api.Delete(bg, testBase, table, "recA") },
			func(o objects) (any, error) { return o.base.Delete(bg, table, "recA") },
			func(o objects) (any, error) { return o.tbl.Delete(bg, "recA") }},
		{"BatchDelete", func(o objects) (any, error) { return o.api.BatchDelete(bg, testBase, table, []string{"rec1", "rec2"}) },
			func(o objects) (any, error) { return o.base.BatchDelete(bg, table, []string{"rec1", "rec2"}) },
			func(o objects) (any, error) { return o.tbl.BatchDelete(bg, []string{"rec1", "rec2"}) }},
		{"RecordURL", func(o objects) (any, error) { return o.api.RecordURL(testBase, table, "recA"), nil },
			func(o objects) (any, error) { return o.base.RecordURL(table, "recA"), nil },
			func(o objects) (any, error) { return o.tbl.RecordURL("recA"), nil }},
		{"derived objects", func(o objects) (any, error) { return o.api.Base(testBase).Table(table).URL(), nil },
			func(o objects) (any, error) { return o.base.Table(table).Base().Table(table).URL(), nil },
			func(o objects) (any, error) { return o.api.Table(testBase, table).URL(), nil }},
	}
	for _, op := range ops {
		t.Run(op.name, func(t *testing.T) {
			var results []any
			var sent [][]string
			for _, via := range []func(objects) (any, error){op.viaAPI, op.viaBase, op.viaTable} {
				fake := newFake(echoWrites)
				opts := []Option{WithHTTPClient(&http.Client{Transport: fake}), WithEndpointURL("http://fake.test"), WithClock(newJumpClock())}
				api, _ := NewAPI(testToken, opts...)
				base, _ := NewBase(testToken, testBase, opts...)
				tbl, _ := NewTable(testToken, testBase, table, opts...)
				res, err := via(objects{api, base, tbl})
				if err != nil {
					t.Fatal(err)
				}
				results = append(results, res)
				lines := fake.Lines()
				sortLines(lines) // chunks in flight together may arrive in any order
				sent = append(sent, lines)
			}
			for i, name := range []string{"Base", "Table"} {
				if !reflect.DeepEqual(results[i+1], results[0]) {
					t.Errorf("%s returned %s, API returned %s", name, show(results[i+1]), show(results[0]))
				}
				if !reflect.DeepEqual(sent[i+1], sent[0]) {
					t.Errorf("%s sent %q, API sent %q", name, sent[i+1], sent[0])
				}
			}
		})
	}
}

func collect(seq func(func([]Record, error) bool)) ([][]Record, error) {
	var pages [][]Record
	for p, err := range seq {
		if err != nil {
			return pages, err
		}
		pages = append(pages, p)
	}
	return pages, nil
}

func manyFields(n int) []map[string]any {
	out := make([]map[string]any, n)
	for i := range out {
		out[i] = map[string]any{"N": i}
	}
	return out
}

func show(v any) string { return fmt.Sprintf("%+v", v) }
