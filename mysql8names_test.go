package airsql

import (
	"reflect"
	"testing"

	"github.com/airsql/airsql/emulator"
	"github.com/airsql/airsql/internal/oracle"
)

// TestMySQL8ShowOrderAndLabels: SHOW TABLES lists a base's tables sorted by name, as MySQL 8 does
// (the oracle's fixture holds them as People, Items, Projects), and a column of information_schema
// selected without an alias is labelled as MySQL 8's views name it, in capitals, while a base's
// columns keep the case the query writes.
func TestMySQL8ShowOrderAndLabels(t *testing.T) {
	fx := oracle.NewFixture(oracleFixtureSeed)
	srv, err := emulator.New(emulator.WithFixture(fx.Emulator), emulator.WithRate(0, 0), emulator.WithTokenRate(0))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	db, _ := openDSN(t, "airtable://"+fx.Schema.Token+"@localhost/"+fx.Schema.BaseID+"?tls=false", srv.Client())
	base := fx.Schema.BaseID

	for _, tc := range []struct {
		query  string
		labels []string
		rows   []string
	}{
		{"SHOW TABLES", []string{"Tables_in_" + base}, []string{"Items", "People", "Projects"}},
		{"SHOW FULL TABLES", []string{"Tables_in_" + base, "Table_type"}, []string{"Items|BASE TABLE", "People|BASE TABLE", "Projects|BASE TABLE"}},
		{"SHOW TABLES LIKE 'p%'", []string{"Tables_in_" + base}, []string{"People", "Projects"}},
		{"SHOW DATABASES", []string{"Database"}, []string{base, "information_schema"}},
		{"SELECT column_name FROM information_schema.columns WHERE table_name = 'Projects' AND ordinal_position < 3 ORDER BY ordinal_position",
			[]string{"COLUMN_NAME"}, []string{"id", "Name"}},
		{"SELECT c.table_name, c.Column_Name FROM information_schema.columns c WHERE c.table_name = 'Projects' AND c.ordinal_position = 2",
			[]string{"TABLE_NAME", "COLUMN_NAME"}, []string{"Projects|Name"}},
		{"SELECT column_name AS column_name, LOWER(column_name), (column_name) FROM information_schema.columns WHERE table_name = 'Projects' AND ordinal_position = 2",
			[]string{"column_name", "LOWER(column_name)", "COLUMN_NAME"}, []string{"Name|name|Name"}},
		{"SELECT name, BUDGET FROM Projects WHERE id = 'recPROJEC00000001'", []string{"name", "BUDGET"}, nil},
	} {
		t.Run(tc.query, func(t *testing.T) {
			rows, err := db.Query(tc.query)
			if err != nil {
				t.Fatal(err)
			}
			labels, err := rows.Columns()
			if err != nil {
				t.Fatal(err)
			}
			rows.Close()
			if !reflect.DeepEqual(labels, tc.labels) {
				t.Errorf("labels %q, want %q", labels, tc.labels)
			}
			if tc.rows == nil {
				return
			}
			if got := rowTexts(t, db, tc.query); !reflect.DeepEqual(got, tc.rows) {
				t.Errorf("rows %q, want %q", got, tc.rows)
			}
		})
	}
}
