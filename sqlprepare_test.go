package airsql

import (
	"context"
	"database/sql"
	"errors"
	"reflect"
	"strings"
	"testing"
)

// TestSQLPrepare: user variables and PREPARE / EXECUTE … USING / DEALLOCATE PREPARE on one
// connection, step by step, each checked against the same statement run with arguments, or
// against the error MySQL gives.
func TestSQLPrepare(t *testing.T) {
	srv := newEmulator(t)
	db, _ := openDB(t, srv, "")
	ctx := context.Background()
	c := connOn(t, db)
	rowsOf := func(q string, args ...any) [][]any {
		t.Helper()
		rows, err := c.QueryContext(ctx, q, args...)
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		return scanAll(t, rows)
	}
	exec := func(q string) {
		t.Helper()
		if _, err := c.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	var unknown *UnknownPreparedError
	var wrongArgs *PreparedArgumentsError
	var syntax *SyntaxError
	var unsup *UnsupportedError
	for _, step := range []struct {
		sql  string
		want [][]any // rows of a query
		same string  // or: the rows of this query, run with args
		args []any
		err  any    // or: an error of this type
		msg  string // … saying this
	}{
		{sql: "SET @p = 3, @name = 'Ship it'"},
		{sql: "SELECT @p, @NAME, @never", want: [][]any{{int64(3), "Ship it", nil}}},
		{sql: "PREPARE byPriority FROM 'SELECT Name, Priority FROM Tasks WHERE Priority >= ? ORDER BY Name'"},
		{sql: "EXECUTE byPriority USING @p", same: "SELECT Name, Priority FROM Tasks WHERE Priority >= ? ORDER BY Name", args: []any{3}},
		{sql: "SET @p = 5"},
		{sql: "EXECUTE BYPRIORITY USING @p", same: "SELECT Name, Priority FROM Tasks WHERE Priority >= ? ORDER BY Name", args: []any{5}},
		{sql: "EXECUTE byPriority", err: &wrongArgs, msg: "has 1 ? placeholder(s), and EXECUTE gives 0"},
		{sql: "EXECUTE byPriority USING @p, @p", err: &wrongArgs},
		{sql: "EXECUTE byPriority USING @unset", want: nil}, // NULL matches nothing
		{sql: "SET @q = 'SELECT COUNT(*) FROM Tasks WHERE Name = ?'"},
		{sql: "PREPARE `count by name` FROM @q"},
		{sql: "EXECUTE `Count By Name` USING @name", same: "SELECT COUNT(*) FROM Tasks WHERE Name = ?", args: []any{"Ship it"}},
		{sql: "SELECT Name FROM Tasks WHERE Priority = @p - 2 ORDER BY Name", same: "SELECT Name FROM Tasks WHERE Priority = 3 ORDER BY Name"},
		{sql: "DEALLOCATE PREPARE byPriority"},
		{sql: "EXECUTE byPriority USING @p", err: &unknown, msg: "unknown prepared statement handler (bypriority) given to EXECUTE"},
		{sql: "DROP PREPARE `count by name`"},
		{sql: "DEALLOCATE PREPARE `count by name`", err: &unknown, msg: "given to DEALLOCATE PREPARE"},
		{sql: "PREPARE bad FROM 'SELEC 1'", err: &syntax},
		{sql: "PREPARE fromNull FROM @never", err: &syntax, msg: "@never holds NULL"},
		{sql: "PREPARE nested FROM 'EXECUTE byPriority'", err: &unsup, msg: "EXECUTE inside PREPARE"},
		{sql: "PREPARE named FROM 'SELECT Name FROM Tasks WHERE Name = :n'", err: &unsup, msg: ":name placeholders"},
		{sql: "EXECUTE x USING 3", err: &syntax, msg: "user variables"},
		{sql: "EXPLAIN EXECUTE x", err: &unsup},
	} {
		t.Run(step.sql, func(t *testing.T) {
			switch {
			case step.err != nil:
				_, err := c.QueryContext(ctx, step.sql)
				if err == nil || !errors.As(err, step.err) || !strings.Contains(err.Error(), step.msg) {
					t.Fatalf("error %v (%T), want a %T saying %q", err, err, reflect.ValueOf(step.err).Elem().Interface(), step.msg)
				}
			case strings.HasPrefix(step.sql, "SELECT") || strings.HasPrefix(step.sql, "EXECUTE"):
				got := rowsOf(step.sql)
				want := step.want
				if step.same != "" {
					want = rowsOf(step.same, step.args...)
					if len(want) == 0 {
						t.Fatalf("%s returns no rows: the step tests nothing", step.same)
					}
				}
				if !reflect.DeepEqual(got, want) {
					t.Errorf("got %v, want %v", got, want)
				}
			default:
				exec(step.sql)
			}
		})
	}

	// A write: Exec of EXECUTE reports the rows affected, as Exec of the statement does.
	exec("PREPARE add FROM 'INSERT INTO Tasks (Name, Priority) VALUES (?, ?)'")
	exec("SET @n = 'prepared insert', @pr = 9")
	res, err := c.ExecContext(ctx, "EXECUTE add USING @n, @pr")
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := res.RowsAffected(); n != 1 {
		t.Errorf("EXECUTE of an INSERT affected %d rows", n)
	}
	if got := rowsOf("SELECT Priority FROM Tasks WHERE Name = 'prepared insert'"); !reflect.DeepEqual(got, [][]any{{int64(9)}}) {
		t.Errorf("the inserted record: %v", got)
	}
	// EXECUTE takes no arguments of its own.
	if _, err := c.ExecContext(ctx, "EXECUTE add USING @n, @pr", 1); err == nil || !errors.As(err, &unsup) {
		t.Errorf("EXECUTE with an argument: %v", err)
	}

	// Variables and prepared statements belong to the connection.
	other, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	var v sql.NullInt64
	if err := other.QueryRowContext(ctx, "SELECT @pr").Scan(&v); err != nil || v.Valid {
		t.Errorf("@pr on another connection: %v, %v; want NULL", v, err)
	}
	if _, err := other.ExecContext(ctx, "EXECUTE add USING @n, @pr"); !errors.As(err, &unknown) {
		t.Errorf("EXECUTE on another connection: %v", err)
	}
}

// TestSQLPrepareColumns: ResultColumns of EXECUTE are those of the prepared statement; PREPARE
// and DEALLOCATE have none.
func TestSQLPrepareColumns(t *testing.T) {
	srv := newEmulator(t)
	db, _ := openDB(t, srv, "")
	ctx := context.Background()
	c := connOn(t, db)
	if _, err := c.ExecContext(ctx, "PREPARE s FROM 'SELECT Name, Priority FROM Tasks WHERE Priority > ?'"); err != nil {
		t.Fatal(err)
	}
	cols, known, err := ResultColumns(ctx, c, "EXECUTE s USING @p")
	if err != nil || !known || len(cols) != 2 || cols[0].Name != "Name" || cols[1].DatabaseType != "INT64" {
		t.Errorf("EXECUTE s: %v %v %v", cols, known, err)
	}
	for _, q := range []string{"PREPARE t FROM 'SELECT 1'", "DEALLOCATE PREPARE s", "SET @p = 1"} {
		if cols, known, err := ResultColumns(ctx, c, q); err != nil || !known || len(cols) != 0 {
			t.Errorf("%s: %v %v %v", q, cols, known, err)
		}
	}
	var unknown *UnknownPreparedError
	if _, _, err := ResultColumns(ctx, c, "EXECUTE nope"); !errors.As(err, &unknown) {
		t.Errorf("EXECUTE nope: %v", err)
	}
}

// TestSQLPrepareLimits: a connection's prepared statements hold at most MaxPreparedBytes of SQL;
// deallocating one, or preparing another under its name, gives its bytes back.
func TestSQLPrepareLimits(t *testing.T) {
	defer func(n int) { maxPreparedBytes = n }(maxPreparedBytes)
	maxPreparedBytes = 100
	srv := newEmulator(t)
	db, _ := openDB(t, srv, "")
	ctx := context.Background()
	c := connOn(t, db)
	stmt := "SELECT Name FROM Tasks WHERE Priority = ? AND Name <> \"padding padding\"" // 66 bytes
	exec := func(q string) error {
		_, err := c.ExecContext(ctx, q)
		return err
	}
	if err := exec("PREPARE a FROM '" + stmt + "'"); err != nil {
		t.Fatal(err)
	}
	if err := exec("PREPARE a FROM '" + stmt + "'"); err != nil { // replaces a: still 66 bytes
		t.Fatalf("preparing a again: %v", err)
	}
	if err := exec("PREPARE b FROM '" + stmt + "'"); err == nil || !strings.Contains(err.Error(), "translate.MaxPreparedBytes") {
		t.Fatalf("132 bytes of prepared SQL with a limit of 100: %v", err)
	}
	if err := exec("DEALLOCATE PREPARE a"); err != nil {
		t.Fatal(err)
	}
	if err := exec("PREPARE b FROM '" + stmt + "'"); err != nil {
		t.Fatalf("after DEALLOCATE: %v", err)
	}
}
