package replica

import (
	"os"
	"path/filepath"
	"testing"
)

// FuzzLoadTable: whatever a table's file holds (cut by a crash, edited, another version), reading
// it never panics; it is refused or read into a copy whose rows can be listed.
func FuzzLoadTable(f *testing.F) {
	f.Add([]byte(`{"version":1,"table":"tblFUZZ","name":"T","fields":[{"ID":"fldA","Name":"A","Type":"number"}],"cursor":3,"replay":2,` +
		`"stats":{"Copies":1},"records":[{"id":"rec1","createdTime":"2025-01-01T00:00:00Z","cells":{"fldA":1,"fldB":"x"}}]}`))
	f.Add([]byte(`{"version":1,"table":"tblFUZZ","records":[{"id":"rec1","cells":null}]}`))
	f.Add([]byte(`{"version":1,"table":"tblFUZZ","fields":[{"ID":"","Name":"","Type":""}],"records":[{"cells":{"":[1,{"a":null}]}}]}`))
	f.Add([]byte(`{"version":2}`))
	f.Add([]byte(`{"version":1,"table":"tblFU`))
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(dir, "tblFUZZ.json")
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		b := &Base{tables: map[string]*Table{}}
		tbl, err := b.loadTable(path)
		if err != nil {
			return
		}
		rows, _, _ := tbl.CellRows()
		if len(rows) != tbl.Len() {
			t.Fatalf("CellRows gave %d rows of %d", len(rows), tbl.Len())
		}
		tbl.Fields()
	})
}
