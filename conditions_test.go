package airsql

import (
	"database/sql"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// TestConditionsAreBigint runs conditions as select-list values through database/sql, as MySQL
// 8 answers them: a BIGINT 1, 0 or NULL (INT64, scanning into int64 as with
// go-sql-driver/mysql), grouped, ordered, summed, unioned with a checkbox (TINYINT with BIGINT:
// BIGINT) and compared with one; the checkbox alone stays BOOL. testdata/base.json's Tasks:
// Priority 3, 2, 5, 1, NULL, 0, 4, 2; Done on "Ship it" (5) and "Zero priority" (0).
func TestConditionsAreBigint(t *testing.T) {
	db, _ := openDB(t, newEmulator(t), "")
	tests := []struct {
		query string
		types []string // DatabaseTypeName of each column
		want  []string // rows, columns joined by "|"
	}{
		{"SELECT EXISTS(SELECT 1 FROM Tasks WHERE Priority > 4), 1 = 1, 'a' LIKE 'b', NOT 0, 1 AND NULL, TRUE",
			[]string{"INT64", "INT64", "INT64", "INT64", "INT64", "INT64"}, []string{"1|1|0|1|NULL|1"}},
		{"SELECT Priority > 2 AS big, COUNT(*) FROM Tasks GROUP BY Priority > 2 ORDER BY Priority > 2",
			[]string{"INT64", "INT64"}, []string{"NULL|1", "0|4", "1|3"}},
		{"SELECT SUM(Priority > 2), SUM(Done), MAX(Priority IS NULL) FROM Tasks",
			[]string{"INT64", "INT64", "INT64"}, []string{"3|2|1"}},
		// MIN, MAX and ANY_VALUE pass a condition or a checkbox on as a BIGINT: a number in JSON.
		{"SELECT JSON_ARRAY(MAX(Priority > 2), MIN(Done), ANY_VALUE(1 = 1), MAX(Priority > 2) = 1) FROM Tasks",
			[]string{"JSON"}, []string{"[1, 0, 1, true]"}},
		{"SELECT COUNT(*), SUM(Done = (Priority > 3)) FROM Tasks WHERE Done = (Priority > 3)",
			[]string{"INT64", "INT64"}, []string{"5|5"}},
		{"SELECT Done FROM Tasks WHERE Name = 'Ship it' UNION ALL SELECT 1 = 0",
			[]string{"INT64"}, []string{"1", "0"}},
		{"SELECT Done, Done = TRUE FROM Tasks WHERE Name = 'Ship it'",
			[]string{"BOOL", "INT64"}, []string{"true|1"}},
		{"SELECT JSON_OBJECT('done', Done, 'big', Priority > 2), CONCAT(Priority > 2), CAST(Priority < 2 AS CHAR) FROM Tasks WHERE Name = 'Ship it'",
			[]string{"JSON", "TEXT", "TEXT"}, []string{`{"big": true, "done": true}|1|0`}},
		// Conditions where they decide rows: WHERE, HAVING, ON, CASE WHEN and IF.
		{"SELECT CASE WHEN Priority > 2 THEN 'big' ELSE 'small' END, IF(Done, 'y', 'n') FROM Tasks WHERE Name = 'Ship it' OR Name = 'Write spec' ORDER BY Name",
			[]string{"TEXT", "TEXT"}, []string{"big|y", "big|n"}},
		{"SELECT Status, COUNT(*) FROM Tasks GROUP BY Status HAVING COUNT(*) > 1 AND Status IS NULL OR Status = 'Doing' ORDER BY Status",
			[]string{"TEXT", "INT64"}, []string{"NULL|2", "Doing|2"}},
		{"SELECT a.Name FROM Tasks a JOIN Tasks b ON a.Priority = b.Priority + 3 AND (b.Priority > 1) = TRUE ORDER BY a.Name",
			[]string{"TEXT"}, []string{"Ship it", "Ship it"}}, // b: "Review spec" and the unnamed task, both 2
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			rows, err := db.Query(tt.query)
			if err != nil {
				t.Fatal(err)
			}
			cols, err := rows.ColumnTypes()
			if err != nil {
				t.Fatal(err)
			}
			var types []string
			for _, c := range cols {
				types = append(types, c.DatabaseTypeName())
			}
			if !slices.Equal(types, tt.types) {
				t.Errorf("column types %v, want %v", types, tt.types)
			}
			var got []string
			for _, row := range scanAll(t, rows) {
				cells := make([]string, len(row))
				for i, v := range row {
					if _, isBool := v.(bool); isBool && tt.types[i] != "BOOL" {
						t.Errorf("column %d holds a bool in a %s column", i+1, tt.types[i])
					}
					cells[i] = "NULL"
					if v != nil {
						cells[i] = toString(v)
					}
				}
				got = append(got, strings.Join(cells, "|"))
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

// TestConditionScansIntoInt64 is the case that failed with a bool: database/sql cannot convert a
// bool into an int64, so `var n int64; rows.Scan(&n)` on SELECT EXISTS(…) needs the BIGINT MySQL
// gives; the column's scan type says so before the first row.
func TestConditionScansIntoInt64(t *testing.T) {
	db, _ := openDB(t, newEmulator(t), "")
	for _, query := range []string{
		"SELECT EXISTS(SELECT 1 FROM Tasks WHERE Done)",
		"SELECT COUNT(*) > 0 FROM Tasks",
		"SELECT Name LIKE 'Ship%' FROM Tasks WHERE Name = 'Ship it'",
	} {
		t.Run(query, func(t *testing.T) {
			rows, err := db.Query(query)
			if err != nil {
				t.Fatal(err)
			}
			defer rows.Close()
			cols, err := rows.ColumnTypes()
			if err != nil {
				t.Fatal(err)
			}
			if st := cols[0].ScanType(); st != reflect.TypeFor[int64]() && st != reflect.TypeFor[sql.NullInt64]() {
				t.Errorf("scan type %v, want int64 or sql.NullInt64", st)
			}
			if !rows.Next() {
				t.Fatalf("no row: %v", rows.Err())
			}
			var n int64
			if err := rows.Scan(&n); err != nil {
				t.Fatal(err)
			}
			if got := fmt.Sprint(n); got != "1" {
				t.Errorf("got %s, want 1", got)
			}
		})
	}
}
