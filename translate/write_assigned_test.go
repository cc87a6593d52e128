package translate

import (
	"reflect"
	"strings"
	"testing"

	"github.com/xwb1989/sqlparser"
)

// TestInsertAssignedColumns: id and createdTime may be named with NULL (Airtable assigns them, as
// MySQL assigns an AUTO_INCREMENT key given NULL); any other value is refused, ” for id with the
// GORM declaration that leaves it out.
func TestInsertAssignedColumns(t *testing.T) {
	schema := loadSchema(t)
	for _, tc := range []struct {
		sql  string
		args []any
		rows []map[string]any
		err  string
	}{
		{"INSERT INTO Tasks (id, Name) VALUES (NULL, 'a'), (?, 'b')", []any{nil}, []map[string]any{{"Name": "a"}, {"Name": "b"}}, ""},
		{"INSERT INTO Tasks (createdTime, Name, id) VALUES (NULL, 'a', NULL)", nil, []map[string]any{{"Name": "a"}}, ""},
		{"INSERT INTO Tasks (id, Name) VALUES ('', 'a')", nil, nil, "gorm:\"primaryKey;default:(-)\""},
		{"INSERT INTO Tasks (id, Name) VALUES (?, 'a')", []any{"recAAAAAAAAAAAAAA"}, nil, `cannot be given "recAAAAAAAAAAAAAA"`},
		{"INSERT INTO Tasks (createdTime) VALUES ('2024-01-01')", nil, nil, "creation time"},
		{"INSERT INTO Tasks (id, ID) VALUES (NULL, NULL)", nil, nil, "twice"},
		{"INSERT INTO Tasks (id, Name) VALUES (NULL, 'a') ON DUPLICATE KEY UPDATE Name = VALUES(Name)", nil, nil, "record id"},
	} {
		plan, err := Insert(parseStmt(t, tc.sql).(*sqlparser.Insert), schema, Args{Positional: tc.args})
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s: %v, want an error containing %q", tc.sql, err, tc.err)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(plan.Rows, tc.rows) {
			t.Errorf("%s: %v, %v; want rows %v", tc.sql, plan, err, tc.rows)
		}
	}
}
