package mysqlserver

import (
	"context"
	"database/sql"
	"fmt"
	"reflect"
	"testing"
)

// frontDoorPrefixes are comments and blanks that ORMs and BI tools put before a statement.
var frontDoorPrefixes = []string{"/* c */ ", "-- c\n", "# c\n", "\n  \n", "/* a */ -- b\n# c\n"}

// frontDoorStatements are statements of every kind the server runs, in an order that leaves the
// base as it found it; query: they answer with a result set, else with OK and the rows affected.
var frontDoorStatements = []struct {
	sql   string
	query bool
}{
	{"SELECT Name, Priority FROM Tasks WHERE Priority >= 3 ORDER BY Name", true},
	{"(SELECT Name FROM Tasks WHERE Priority = 1) UNION (SELECT Name FROM Tasks WHERE Priority = 5)", true},
	{"WITH t AS (SELECT Name, Priority FROM Tasks WHERE Priority > 1) SELECT Name FROM t ORDER BY Priority, Name", true},
	{"DESCRIBE Tasks", true},
	{"SHOW COLUMNS FROM Tasks", true},
	{"SHOW FULL COLUMNS FROM Tasks", true},
	{"SHOW VARIABLES LIKE 'v%'", true},
	{"SHOW TABLES", true},
	{"SHOW CREATE TABLE Tasks", true},
	{"EXPLAIN SELECT Name FROM Tasks WHERE Priority > 3", true},
	{"SET @frontdoor = 7", false},
	{"SELECT @frontdoor", true},
	{"PREPARE fd FROM 'SELECT Name FROM Tasks WHERE Priority = ?'", false},
	{"SET @p = 5", false},
	{"EXECUTE fd USING @p", true},
	{"DEALLOCATE PREPARE fd", false},
	{"USE " + demoDB, false},
	{"INSERT INTO Tasks (Name, Priority) VALUES ('front door', 9)", false},
	{"INSERT INTO Tasks (Name, Priority) VALUES ('front door', 9) RETURNING Name, Priority", true},
	{"UPDATE Tasks SET Notes = 'fd' WHERE Name = 'front door'", false},
	{"BEGIN", false},
	{"UPDATE Tasks SET Notes = 'fd2' WHERE Name = 'front door'", false},
	{"COMMIT", false},
	{"DELETE FROM Tasks WHERE Name = 'front door' RETURNING id", true},
	{"DELETE FROM Tasks WHERE Name = 'front door'", false},
}

type frontDoorOutcome struct {
	Columns  []string
	Rows     int
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
	cols, _, out := scanAll(t, rows)
	return frontDoorOutcome{Columns: cols, Rows: len(out)}
}

// TestFrontDoorMatrix is the statement-kind × comment-prefix matrix through the server, with
// go-sql-driver/mysql: every statement answers, behind every prefix, as it does without one — a
// result set with the same columns and number of rows, or OK with the same rows affected.
func TestFrontDoorMatrix(t *testing.T) {
	e := startServer(t)
	for _, mode := range clientModes {
		t.Run(mode.name, func(t *testing.T) {
			conn, err := e.client(t, mode.params).Conn(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			want := make([]frontDoorOutcome, len(frontDoorStatements))
			for i, s := range frontDoorStatements {
				want[i] = runFrontDoor(t, conn, s.sql, s.query)
				if want[i].Err != "" || s.query && len(want[i].Columns) == 0 {
					t.Fatalf("%s: %+v", s.sql, want[i])
				}
			}
			for _, prefix := range frontDoorPrefixes {
				for i, s := range frontDoorStatements {
					sql := prefix + s.sql
					t.Run(fmt.Sprintf("%q", sql), func(t *testing.T) {
						got := runFrontDoor(t, conn, sql, s.query)
						if w := want[i]; !reflect.DeepEqual(got, w) {
							t.Errorf("got %+v\nwant %+v", got, w)
						}
					})
				}
			}
		})
	}
}

// TestColumnLabels: the server sends the driver's labels, MySQL's (an alias as written, a column
// by its bare name, an expression by its text as written), over the text and binary protocols.
func TestColumnLabels(t *testing.T) {
	e := startServer(t)
	for _, mode := range clientModes {
		t.Run(mode.name, func(t *testing.T) {
			client := e.client(t, mode.params)
			rows, err := client.Query("SELECT p.Status AS Status, p.Name AS Comment, 7/2, p.Priority, TRUNCATE(AVG(Priority),2) FROM Tasks p WHERE Priority > ? GROUP BY p.Status, p.Name, p.Priority", 0)
			if err != nil {
				t.Fatal(err)
			}
			cols, _, _ := scanAll(t, rows)
			if want := []string{"Status", "Comment", "7/2", "Priority", "TRUNCATE(AVG(Priority),2)"}; !reflect.DeepEqual(cols, want) {
				t.Errorf("got %q, want %q", cols, want)
			}
		})
	}
}
