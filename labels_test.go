package airsql

import (
	"reflect"
	"strings"
	"testing"
)

// TestColumnLabels: the driver labels columns as MySQL does — an alias as written (a keyword
// keeps its case), a column by its bare name whatever qualifies it, an unaliased expression by
// its text exactly as written — through Columns and ColumnTypes.
func TestColumnLabels(t *testing.T) {
	srv := newEmulator(t)
	db, _ := openDB(t, srv, "")
	long := "1" + strings.Repeat(" + 1", 80) // 321 characters: MySQL cuts the label at 256
	for _, c := range []struct {
		sql  string
		want []string
	}{
		{"SELECT Status AS Status, Name AS Comment, `Due Date` AS Date FROM Tasks", []string{"Status", "Comment", "Date"}},
		{"SELECT t.Name, t.`Due Date`, Priority FROM Tasks t", []string{"Name", "Due Date", "Priority"}},
		{"SELECT 7/2, TRUNCATE(AVG(Priority),2), COUNT(DISTINCT Notes) FROM Tasks", []string{"7/2", "TRUNCATE(AVG(Priority),2)", "COUNT(DISTINCT Notes)"}},
		{"SELECT ROUND( AVG(Priority) , 1 ), count(*) FROM Tasks", []string{"ROUND( AVG(Priority) , 1 )", "count(*)"}},
		{"SELECT 'it''s', \"x\", 1.50, NULL, -3, (Priority) FROM Tasks LIMIT 1", []string{"it's", "x", "1.50", "NULL", "-3", "Priority"}},
		{"SELECT a.Name, COUNT(*) FROM Tasks a JOIN Tasks b ON a.Priority = b.Priority GROUP BY a.Name", []string{"Name", "COUNT(*)"}},
		{"SELECT d.m FROM (SELECT MAX(Priority) AS m FROM Tasks) d JOIN (SELECT MIN(Priority) AS n FROM Tasks) e ON d.m > e.n", []string{"m"}},
		{"/* c */ SELECT name, PRIORITY /* inline */ + 1 FROM Tasks LIMIT 1", []string{"name", "PRIORITY /* inline */ + 1"}},
		{"SELECT Priority * 2 AS `two x`, Priority*2 FROM Tasks ORDER BY `two x` LIMIT 1", []string{"two x", "Priority*2"}},
		{"(SELECT Name AS First FROM Tasks LIMIT 1) UNION (SELECT Notes FROM Tasks LIMIT 1)", []string{"First"}},
		{"WITH w AS (SELECT Priority AS p FROM Tasks) SELECT MAX(p), w.p FROM w GROUP BY w.p", []string{"MAX(p)", "p"}},
		{"SELECT DISTINCT Status, Priority+0 FROM Tasks", []string{"Status", "Priority+0"}},
		{"SELECT ' abc', (1), 'a😀b', 1 AS `  sp` FROM Tasks LIMIT 1", []string{"abc", "1", "a?b", "sp"}},
		{"SELECT *, Name AS n FROM Tasks LIMIT 1", nil}, // checked below: * keeps the field names
		{"SELECT " + long + " FROM Tasks LIMIT 1", []string{long[:256]}},
	} {
		t.Run(c.sql, func(t *testing.T) {
			rows, err := db.Query(c.sql)
			if err != nil {
				t.Fatal(err)
			}
			defer rows.Close()
			cols, _ := rows.Columns()
			types, _ := rows.ColumnTypes()
			if c.want == nil {
				if cols[0] != "id" || cols[1] != "Name" || cols[len(cols)-1] != "n" {
					t.Errorf("got %q, want id, Name, … n", cols)
				}
				return
			}
			if !reflect.DeepEqual(cols, c.want) {
				t.Errorf("Columns: got %q, want %q", cols, c.want)
			}
			for i, ct := range types {
				if i < len(c.want) && ct.Name() != c.want[i] {
					t.Errorf("ColumnTypes[%d].Name: got %q, want %q", i, ct.Name(), c.want[i])
				}
			}
		})
	}
}

// TestReturningLabels: RETURNING's columns are labelled as a SELECT's.
func TestReturningLabels(t *testing.T) {
	srv := newEmulator(t)
	db, _ := openDB(t, srv, "")
	rows, err := db.Query("INSERT INTO Tasks (Name, Priority) VALUES ('lab', 2) RETURNING id, Name AS Status, Priority*10")
	if err != nil {
		t.Fatal(err)
	}
	cols, _ := rows.Columns()
	rows.Close()
	if want := []string{"id", "Status", "Priority*10"}; !reflect.DeepEqual(cols, want) {
		t.Errorf("got %q, want %q", cols, want)
	}
}
