package airsql

import (
	"context"
	"database/sql"
	"fmt"
	"reflect"
	"testing"
)

// frontDoorPrefixes are comments and blanks that ORMs and BI tools put before a statement.
var frontDoorPrefixes = []string{"/* c */ ", "-- c\n", "# c\n", "\n  \n", "/* a */ -- b\n# c\n"}

// frontDoorStatements are statements of every kind the driver runs, in an order that leaves the
// base as it found it; query: run with Query (it returns rows), else with Exec.
var frontDoorStatements = []struct {
	sql   string
	query bool
}{
	{"SELECT Name, Priority FROM Tasks WHERE Priority >= 3 ORDER BY Name", true},
	{"(SELECT Name FROM Tasks WHERE Priority = 1) UNION (SELECT Name FROM Tasks WHERE Priority = 5)", true},
	{"WITH t AS (SELECT Name, Priority FROM Tasks WHERE Priority > 1) SELECT Name FROM t ORDER BY Priority, Name", true},
	{"DESCRIBE Tasks", true},
	{"DESC `Team Members`", true},
	{"SHOW COLUMNS FROM Tasks", true},
	{"SHOW FULL COLUMNS FROM Tasks", true},
	{"SHOW VARIABLES LIKE 'v%'", true},
	{"SHOW TABLES", true},
	{"SHOW TABLE STATUS LIKE 'Tasks'", true},
	{"SHOW CREATE TABLE Tasks", true},
	{"EXPLAIN SELECT Name FROM Tasks WHERE Priority > 3", true},
	{"EXPLAIN DELETE FROM Tasks WHERE Priority > 3", true},
	{"SET @frontdoor = 7", false},
	{"SELECT @frontdoor", true},
	{"PREPARE fd FROM 'SELECT Name FROM Tasks WHERE Priority = ?'", false},
	{"SET @p = 5", false},
	{"EXECUTE fd USING @p", true},
	{"DEALLOCATE PREPARE fd", false},
	{"INSERT INTO Tasks (Name, Priority) VALUES ('front door', 9)", false},
	{"INSERT INTO Tasks (Name, Priority) VALUES ('front door', 9) RETURNING Name, Priority", true},
	{"UPDATE Tasks SET Notes = 'fd' WHERE Name = 'front door'", false},
	{"BEGIN", false},
	{"UPDATE Tasks SET Notes = 'fd2' WHERE Name = 'front door'", false},
	{"COMMIT", false},
	{"BEGIN", false},
	{"ROLLBACK", false},
	{"DELETE FROM Tasks WHERE Name = 'front door' RETURNING id", true},
	{"DELETE FROM Tasks WHERE Name = 'front door'", false},
}

// frontDoorOutcome is what a statement gave: its columns and rows, or the rows it affected, or its
// error.
type frontDoorOutcome struct {
	Columns  []string
	Rows     [][]any
	Affected int64
	Err      string
}

func runFrontDoor(t *testing.T, conn *sql.Conn, sql string, query bool) frontDoorOutcome {
	t.Helper()
	ctx := context.Background()
	if !query {
		res, err := conn.ExecContext(ctx, sql)
		if err != nil {
			return frontDoorOutcome{Err: err.Error()}
		}
		n, _ := res.RowsAffected()
		return frontDoorOutcome{Affected: n}
	}
	rows, err := conn.QueryContext(ctx, sql)
	if err != nil {
		return frontDoorOutcome{Err: err.Error()}
	}
	cols, _ := rows.Columns()
	return frontDoorOutcome{Columns: cols, Rows: scanAll(t, rows)}
}

// TestFrontDoorMatrix is the statement-kind × comment-prefix matrix through the driver: every
// statement gives, behind every prefix, what it gives without one — with no error, and returning
// rows exactly when it should.
func TestFrontDoorMatrix(t *testing.T) {
	srv := newEmulator(t)
	db, _ := openDB(t, srv, "")
	conn := connOn(t, db)
	want := make([]frontDoorOutcome, len(frontDoorStatements))
	for i, s := range frontDoorStatements {
		want[i] = runFrontDoor(t, conn, s.sql, s.query)
		if want[i].Err != "" {
			t.Fatalf("%s: %s", s.sql, want[i].Err)
		}
		if s.query && want[i].Columns == nil {
			t.Fatalf("%s: no columns", s.sql)
		}
	}
	for _, prefix := range frontDoorPrefixes {
		for i, s := range frontDoorStatements {
			sql := prefix + s.sql
			t.Run(fmt.Sprintf("%q", sql), func(t *testing.T) {
				got := runFrontDoor(t, conn, sql, s.query)
				if w := want[i]; !reflect.DeepEqual(got.Columns, w.Columns) || len(got.Rows) != len(w.Rows) || got.Affected != w.Affected || got.Err != "" {
					t.Errorf("got %+v\nwant %+v", got, w)
				}
			})
		}
	}
}

// TestFrontDoorVersionComments: a version comment's text is part of the statement, as mysqldump
// output expects; one for a later server is a comment.
func TestFrontDoorVersionComments(t *testing.T) {
	srv := newEmulator(t)
	db, _ := openDB(t, srv, "")
	conn := connOn(t, db)
	for _, c := range []struct {
		sql  string
		want []any
	}{
		{"/*!40101 SET @v = 3 */", nil},
		{"SELECT @v /*!50000 + 1 */ AS n", []any{int64(4)}},
		{"SELECT @v /*!999999 + 1 */ AS n", []any{int64(3)}},
	} {
		t.Run(c.sql, func(t *testing.T) {
			got := runFrontDoor(t, conn, c.sql, c.want != nil)
			if got.Err != "" {
				t.Fatal(got.Err)
			}
			if c.want != nil && (len(got.Rows) != 1 || !reflect.DeepEqual(got.Rows[0], c.want)) {
				t.Errorf("got %v, want %v", got.Rows, c.want)
			}
		})
	}
}
