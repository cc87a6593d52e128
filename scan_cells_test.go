package airsql

import (
	"context"
	"database/sql"
	"errors"
	"io"
	"reflect"
	"testing"

	"github.com/xwb1989/sqlparser"

	"github.com/airsql/airsql/translate"
	"github.com/airsql/airsql/transport"
)

// TestScanRowsCarryCells: a scan's rows reach the engine as cells in one layout shared by the
// scan, with no map per record, and read what the records hold: the fields asked for, every field
// of the schema for SELECT *, the sort keys of a sorted listing. A field the service returns that
// the schema did not know (added since it was read) is kept in Fields, not lost.
func TestScanRowsCarryCells(t *testing.T) {
	srv := newEmulator(t)
	db, c := openDB(t, srv, "")
	ctx := context.Background()
	warmSchema(t, db, srv)
	cases := []struct {
		name, query string
		added       bool // a field is created after the query is planned
	}{
		{"some fields", "SELECT Name, Priority FROM Tasks", false},
		{"every field", "SELECT * FROM Tasks", false},
		{"sorted by a field not selected", "SELECT Name FROM Tasks ORDER BY Priority DESC", false},
		{"a field added since the schema was read", "SELECT * FROM Tasks", true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			plan := planScan(t, db, tc.query)
			if tc.added {
				if _, err := c.base.CreateField(ctx, tasksTable, transport.FieldSpec{Name: "Added later", Type: "singleLineText"}); err != nil {
					t.Fatal(err)
				}
				if _, err := c.base.Table(tasksTable).Create(ctx, map[string]any{"Name": "with the new field", "Added later": "x"}, transport.WriteOptions{}); err != nil {
					t.Fatal(err)
				}
			}
			want, err := c.base.Table(tasksTable).All(ctx, listOptions(plan, 100))
			if err != nil {
				t.Fatal(err)
			}
			pages, err := scanSource{c: c}.Scan(ctx, plan)
			if err != nil {
				t.Fatal(err)
			}
			defer pages.Close()
			var rows []translate.Row
			for {
				page, err := pages.Next(ctx)
				if errors.Is(err, io.EOF) {
					break
				}
				if err != nil {
					t.Fatal(err)
				}
				rows = append(rows, page...)
			}
			if len(rows) != len(want) || len(rows) == 0 {
				t.Fatalf("got %d rows, want %d", len(rows), len(want))
			}
			extra := 0
			for i, r := range rows {
				if r.Layout == nil || r.Layout != rows[0].Layout {
					t.Fatalf("row %d: Layout %p, want the scan's one layout %p", i, r.Layout, rows[0].Layout)
				}
				if r.Fields != nil {
					if _, ok := r.Fields["Added later"]; !ok || len(r.Fields) != 1 {
						t.Errorf("row %d: Fields %v, want nil (no map per record) or the field the schema lacks alone", i, r.Fields)
					}
					extra++
				}
				if got := r.FieldMap(); r.ID != want[i].ID || !reflect.DeepEqual(got, want[i].Fields) {
					t.Errorf("row %d: got %s %v, want %s %v", i, r.ID, got, want[i].ID, want[i].Fields)
				}
			}
			if wantExtra := map[bool]int{false: 0, true: 1}[tc.added]; extra != wantExtra {
				t.Errorf("%d rows with fields the layout lacks, want %d", extra, wantExtra)
			}
		})
	}
}

// planScan plans a one-table SELECT as the driver does.
func planScan(t *testing.T, db *sql.DB, query string) *translate.Plan {
	t.Helper()
	stmt, err := sqlparser.Parse(query)
	if err != nil {
		t.Fatal(err)
	}
	cn, err := db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer cn.Close()
	var plan *translate.Plan
	err = cn.Raw(func(dc any) error {
		q, _, err := dc.(*conn).planQuery(context.Background(), stmt.(sqlparser.SelectStatement), translate.Args{})
		if err == nil {
			plan = q.Scan
		}
		return err
	})
	if err != nil || plan == nil {
		t.Fatalf("planning %q: %v (scan %v)", query, err, plan)
	}
	return plan
}
