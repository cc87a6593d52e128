package mysqlserver

import (
	"reflect"
	"testing"
)

// TestJSONTableThroughTheServer: JSON_TABLE answers through the server as through the driver, in
// both row formats (a placeholder in its document and in WHERE), with MySQL column types, and its
// refusals carry MySQL's error numbers.
func TestJSONTableThroughTheServer(t *testing.T) {
	e := startServer(t)
	queries := []struct {
		sql   string
		args  []any
		types []string
	}{
		{"SELECT jt.tag, COUNT(*) AS n FROM Tasks t, JSON_TABLE(t.Tags, '$[*]' COLUMNS (tag VARCHAR(50) PATH '$')) AS jt WHERE t.Priority >= ? GROUP BY jt.tag ORDER BY jt.tag",
			[]any{2}, []string{"VARCHAR", "BIGINT"}},
		{"SELECT t.Name, jt.email, jt.k FROM Tasks t LEFT JOIN JSON_TABLE(t.Watchers, '$[*]' COLUMNS (k FOR ORDINALITY, email VARCHAR(100) PATH '$.email')) jt ON TRUE ORDER BY t.Name, jt.k LIMIT 10",
			nil, []string{"VARCHAR", "VARCHAR", "BIGINT"}},
		{"SELECT * FROM JSON_TABLE(?, '$[*]' COLUMNS (n FOR ORDINALITY, d DOUBLE PATH '$.d', day DATE PATH '$.day', j JSON PATH '$')) AS jt",
			[]any{`[{"d": 1.5, "day": "2024-05-15"}, {"d": "x"}]`}, []string{"BIGINT", "DOUBLE", "DATE", "JSON"}},
	}
	for _, mode := range clientModes {
		t.Run(mode.name, func(t *testing.T) {
			client := e.client(t, mode.params)
			for _, q := range queries {
				types, rows := servedAsDirect(t, e, client, q.sql, q.args...)
				if !reflect.DeepEqual(types, q.types) {
					t.Errorf("%s: types %v, want %v", q.sql, types, q.types)
				}
				if len(rows) == 0 {
					t.Errorf("%s: no rows", q.sql)
				}
			}
			_, err := client.Query("SELECT * FROM JSON_TABLE('[1]', '$[*]' COLUMNS (a INT PATH '$'))")
			mysqlErr(t, err, 3667, "42000")
			_, err = client.Query("SELECT * FROM Tasks t RIGHT JOIN JSON_TABLE(t.Tags, '$[*]' COLUMNS (a INT PATH '$')) AS jt ON TRUE")
			mysqlErr(t, err, 3668, "HY000")
		})
	}
}
