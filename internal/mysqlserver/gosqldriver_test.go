package mysqlserver

import (
	"context"
	"database/sql"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/airsql/airsql/frontend"
)

// Each test runs with go-sql-driver/mysql twice: with interpolateParams (arguments are
// interpolated into COM_QUERY text) and without (every query with arguments is a prepared
// statement: COM_STMT_PREPARE, COM_STMT_EXECUTE with binary rows, COM_STMT_CLOSE).
var clientModes = []struct{ name, params string }{
	{"prepared", "parseTime=true"},
	{"interpolateParams", "parseTime=true&interpolateParams=true"},
}

// scanAll reads every row as strings (NULL as "NULL"), with the column names and types.
func scanAll(t testing.TB, rows *sql.Rows) (cols []string, types []string, out [][]string) {
	t.Helper()
	defer rows.Close()
	cts, err := rows.ColumnTypes()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cts {
		cols = append(cols, c.Name())
		types = append(types, c.DatabaseTypeName())
	}
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		row := make([]string, len(vals))
		for i, v := range vals {
			switch x := v.(type) {
			case nil:
				row[i] = "NULL"
			case []byte:
				row[i] = string(x)
			case time.Time:
				row[i] = x.UTC().Format("2006-01-02 15:04:05.000")
			case bool:
				row[i] = map[bool]string{true: "1", false: "0"}[x]
			default:
				row[i] = fmt.Sprint(x)
			}
		}
		out = append(out, row)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return cols, types, out
}

// TestReadsMatchTheDriver: the same SELECTs give the same rows through the server as through
// the driver directly, in both row formats, with MySQL column types.
func TestReadsMatchTheDriver(t *testing.T) {
	e := startServer(t)
	queries := []struct {
		sql  string
		args []any
	}{
		{"SELECT id, Name, Priority, Done, Due, `Started At`, `Estimate Hours`, Tags, Notes, createdTime FROM Tasks WHERE Priority >= ? ORDER BY Priority DESC LIMIT 20", []any{3}},
		{"SELECT Name, `Hourly Rate`, Joined, Active, Account, `Task Count` FROM People WHERE Name LIKE ?", []any{"%a%"}},
		{"SELECT * FROM Projects", nil},
		{"SELECT Name FROM Tasks WHERE Name = ?", []any{"no such; name 'quoted'"}},
	}
	for _, mode := range clientModes {
		t.Run(mode.name, func(t *testing.T) {
			client := e.client(t, mode.params)
			for _, q := range queries {
				servedAsDirect(t, e, client, q.sql, q.args...)
			}
		})
	}
}

// servedAsDirect runs query through the server (client) and through the driver directly: the same
// column names and rows. It returns the served rows and their MySQL column types.
func servedAsDirect(t *testing.T, e *env, client *sql.DB, query string, args ...any) (types []string, rows [][]string) {
	t.Helper()
	direct, err := e.db.Query(query, args...)
	if err != nil {
		t.Fatal(err)
	}
	wantCols, _, want := scanAll(t, direct)
	served, err := client.Query(query, args...)
	if err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	cols, types, got := scanAll(t, served)
	if !reflect.DeepEqual(cols, wantCols) {
		t.Errorf("%s: columns %v, want %v", query, cols, wantCols)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%s:\n got %v\nwant %v", query, got, want)
	}
	return types, got
}

// TestColumnTypes: the driver's column types arrive as MySQL types, values scan into Go types,
// and NULLs are NULL.
func TestColumnTypes(t *testing.T) {
	e := startServer(t)
	for _, mode := range clientModes {
		t.Run(mode.name, func(t *testing.T) {
			client := e.client(t, mode.params)
			rows, err := client.Query("SELECT Name, Priority, `Estimate Hours`, Done, Due, `Started At`, Tags, Notes FROM Tasks WHERE Priority >= ? ORDER BY Priority LIMIT 2", 0)
			if err != nil {
				t.Fatal(err)
			}
			cts, _ := rows.ColumnTypes()
			var types []string
			for _, c := range cts {
				types = append(types, c.DatabaseTypeName())
			}
			want := []string{"VARCHAR", "BIGINT", "DOUBLE", "TINYINT", "DATE", "DATETIME", "JSON", "VARCHAR"}
			if !reflect.DeepEqual(types, want) {
				t.Errorf("types %v, want %v", types, want)
			}
			var (
				name     string
				priority int64
				hours    sql.NullFloat64
				done     bool
				due      sql.NullTime
				started  sql.NullTime
				tags     sql.NullString
				notes    sql.NullString
				n        int
				sawNull  bool
			)
			for rows.Next() {
				if err := rows.Scan(&name, &priority, &hours, &done, &due, &started, &tags, &notes); err != nil {
					t.Fatal(err)
				}
				n++
				sawNull = sawNull || !notes.Valid || !tags.Valid || !due.Valid
			}
			if err := rows.Err(); err != nil {
				t.Fatal(err)
			}
			if n != 2 {
				t.Fatalf("%d rows, want 2", n)
			}
			// The same first row from the driver.
			var dName string
			var dPriority int64
			var dDone bool
			var dStarted sql.NullTime
			err = e.db.QueryRow("SELECT Name, Priority, Done, `Started At` FROM Tasks WHERE Priority >= 0 ORDER BY Priority LIMIT 1").Scan(&dName, &dPriority, &dDone, &dStarted)
			if err != nil {
				t.Fatal(err)
			}
			var sName string
			var sPriority int64
			var sDone bool
			var sStarted sql.NullTime
			err = client.QueryRow("SELECT Name, Priority, Done, `Started At` FROM Tasks WHERE Priority >= ? ORDER BY Priority LIMIT 1", 0).Scan(&sName, &sPriority, &sDone, &sStarted)
			if err != nil {
				t.Fatal(err)
			}
			if sName != dName || sPriority != dPriority || sDone != dDone || sStarted.Valid != dStarted.Valid || !sStarted.Time.Equal(dStarted.Time) {
				t.Errorf("served (%q %d %v %v), driver (%q %d %v %v)", sName, sPriority, sDone, sStarted, dName, dPriority, dDone, dStarted)
			}
		})
	}
}

// TestConditionColumnTypes: a condition as a value is MySQL's BIGINT (MYSQL_TYPE_LONGLONG), in
// text and binary rows, and scans into an int64; the checkbox beside it stays TINYINT.
func TestConditionColumnTypes(t *testing.T) {
	e := startServer(t)
	for _, mode := range clientModes {
		t.Run(mode.name, func(t *testing.T) {
			client := e.client(t, mode.params)
			rows, err := client.Query("SELECT Priority >= ? AS p, EXISTS(SELECT 1 FROM Tasks WHERE Done) AS e, Name LIKE '%' AS l, Done FROM Tasks WHERE Priority IS NOT NULL LIMIT 1", 0)
			if err != nil {
				t.Fatal(err)
			}
			defer rows.Close()
			cts, _ := rows.ColumnTypes()
			var types []string
			for _, c := range cts {
				types = append(types, c.DatabaseTypeName())
			}
			if want := []string{"BIGINT", "BIGINT", "BIGINT", "TINYINT"}; !reflect.DeepEqual(types, want) {
				t.Errorf("types %v, want %v", types, want)
			}
			if !rows.Next() {
				t.Fatalf("no row: %v", rows.Err())
			}
			var p, ex, l int64
			var done bool
			if err := rows.Scan(&p, &ex, &l, &done); err != nil {
				t.Fatal(err)
			}
			if p != 1 || ex != 1 || l != 1 {
				t.Errorf("got %d %d %d, want 1 1 1", p, ex, l)
			}
		})
	}
}

// TestNullsInBothFormats: a NULL cell is NULL in text and binary rows.
func TestNullsInBothFormats(t *testing.T) {
	e := startServer(t)
	var id string
	if err := e.db.QueryRow("SELECT id FROM Tasks WHERE Notes IS NULL LIMIT 1").Scan(&id); err != nil {
		t.Fatal(err)
	}
	for _, mode := range clientModes {
		t.Run(mode.name, func(t *testing.T) {
			var notes sql.NullString
			var due sql.NullTime
			if err := e.client(t, mode.params).QueryRow("SELECT Notes, Due FROM Tasks WHERE id = ?", id).Scan(&notes, &due); err != nil {
				t.Fatal(err)
			}
			if notes.Valid {
				t.Errorf("Notes = %q, want NULL", notes.String)
			}
		})
	}
}

// TestWrites: INSERT, UPDATE and DELETE report the rows they affected, and the changes read back.
func TestWrites(t *testing.T) {
	e := startServer(t)
	for _, mode := range clientModes {
		t.Run(mode.name, func(t *testing.T) {
			client := e.client(t, mode.params)
			name := "Ada via " + mode.name
			mustAffect := func(res sql.Result, err error, want int64) {
				t.Helper()
				if err != nil {
					t.Fatal(err)
				}
				if n, err := res.RowsAffected(); err != nil || n != want {
					t.Fatalf("RowsAffected %d, %v; want %d", n, err, want)
				}
			}
			res, err := client.Exec("INSERT INTO People (Name, Email, `Hourly Rate`, Active) VALUES (?, ?, ?, ?)", name, "ada@example.com", 99.5, true)
			mustAffect(res, err, 1)
			res, err = client.Exec("UPDATE People SET Email = ? WHERE Name = ?", "ada@lovelace.org", name)
			mustAffect(res, err, 1)
			var email string
			var rate float64
			var active bool
			if err := client.QueryRow("SELECT Email, `Hourly Rate`, Active FROM People WHERE Name = ?", name).Scan(&email, &rate, &active); err != nil {
				t.Fatal(err)
			}
			if email != "ada@lovelace.org" || rate != 99.5 || !active {
				t.Errorf("read back %q %v %v", email, rate, active)
			}
			// The driver sees the same record.
			if err := e.db.QueryRow("SELECT Email FROM People WHERE Name = ?", name).Scan(&email); err != nil || email != "ada@lovelace.org" {
				t.Errorf("driver reads %q, %v", email, err)
			}
			res, err = client.Exec("DELETE FROM People WHERE Name = ?", name)
			mustAffect(res, err, 1)
			if err := client.QueryRow("SELECT Email FROM People WHERE Name = ?", name).Scan(&email); err != sql.ErrNoRows {
				t.Errorf("after DELETE: %v, want no rows", err)
			}
		})
	}
}

// TestPreparedStatementReused: one prepared statement executed with several arguments, and
// a statement whose '?' sits in a string is not a parameter.
func TestPreparedStatementReused(t *testing.T) {
	e := startServer(t)
	client := e.client(t, "")
	stmt, err := client.Prepare("SELECT COUNT(*) FROM Tasks WHERE Priority = ? AND Name <> '?'")
	if err != nil {
		t.Fatal(err)
	}
	defer stmt.Close()
	for p := 1; p <= 5; p++ {
		var got, want int64
		if err := stmt.QueryRow(p).Scan(&got); err != nil {
			t.Fatal(err)
		}
		if err := e.db.QueryRow("SELECT COUNT(*) FROM Tasks WHERE Priority = ? AND Name <> '?'", p).Scan(&want); err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Errorf("priority %d: %d through the server, %d directly", p, got, want)
		}
	}
	if n := frontend.Placeholders("SELECT ? FROM t WHERE a = '?' AND b = ? -- ?\n"); n != 2 {
		t.Errorf("countPlaceholders = %d, want 2", n)
	}
	// A wrong argument count is the client's error (the server announced 1 parameter).
	if _, err := stmt.Query(1, 2); err == nil {
		t.Error("two arguments for one parameter: no error")
	}
}

// TestErrors: each kind of failure has MySQL's number and SQLSTATE and the driver's message.
func TestErrors(t *testing.T) {
	e := startServer(t)
	cases := []struct {
		sql    string
		number uint16
		state  string
	}{
		{"SELEC Name FROM Tasks", 1064, "42000"},
		{"SELECT Name FROM Nope", 1146, "42S02"},
		{"SELECT Nope FROM Tasks", 1054, "42S22"},
		{"SELECT Name FROM Tasks FOR UPDATE", 1235, "42000"},
		{"DROP TABLE Tasks", 1235, "42000"},
		{"CREATE TABLE Tasks (a int)", 1050, "42S01"},
		{"INSERT INTO Tasks (Nope) VALUES (1)", 1054, "42S22"},
	}
	for _, mode := range clientModes {
		t.Run(mode.name, func(t *testing.T) {
			client := e.client(t, mode.params)
			for _, c := range cases {
				_, direct := e.db.Exec(c.sql)
				if strings.HasPrefix(c.sql, "SELECT") {
					var rows *sql.Rows
					rows, direct = e.db.Query(c.sql)
					if rows != nil {
						rows.Close()
					}
				}
				var err error
				if strings.HasPrefix(c.sql, "SELECT") {
					var rows *sql.Rows
					rows, err = client.Query(c.sql)
					if rows != nil {
						rows.Close()
					}
				} else {
					_, err = client.Exec(c.sql)
				}
				me := mysqlErr(t, err, c.number, c.state)
				if direct == nil || me.Message != direct.Error() {
					t.Errorf("%s: message %q, the driver's is %v", c.sql, me.Message, direct)
				}
			}
			// A scalar subquery of several rows fails while the rows are read: MySQL's 1242.
			rows, err := client.Query("SELECT (SELECT Name FROM Tasks)")
			if err == nil {
				for rows.Next() {
				}
				err = rows.Err()
				rows.Close()
			}
			mysqlErr(t, err, 1242, "21000")
			// With an argument, through a prepared statement unless interpolated.
			_, err = client.Query("SELECT Nope FROM Tasks WHERE Priority = ?", 1)
			mysqlErr(t, err, 1054, "42S22")
			// The connection still works after errors.
			var n int64
			if err := client.QueryRow("SELECT COUNT(*) FROM People").Scan(&n); err != nil || n == 0 {
				t.Fatalf("after errors: %d, %v", n, err)
			}
		})
	}
	if strings.Contains(e.log.String(), testPass) {
		t.Error("the log holds the password")
	}
	e.log.waitFor(t, "error 1146 (42S02)")
}

// TestCancelledQuery: a query whose client gives up (go-sql-driver closes the connection when
// the context ends) is cancelled in the server: the driver's request ends.
func TestCancelledQuery(t *testing.T) {
	e := startServer(t)
	for _, mode := range clientModes {
		t.Run(mode.name, func(t *testing.T) {
			client := e.client(t, mode.params)
			ctx, cancel := context.WithCancel(context.Background())
			errc := make(chan error, 1)
			go func() {
				rows, err := client.QueryContext(ctx, "SELECT Name FROM Tasks WHERE Name = ?", "block-me")
				if err == nil {
					rows.Close()
				}
				errc <- err
			}()
			wait(t, e.block.started, "the query to reach Airtable")
			cancel()
			if err := wait(t, errc, "the client to give up"); err == nil {
				t.Error("cancelled query: no error")
			}
			if err := wait(t, e.block.ended, "the server to cancel the request"); err == nil {
				t.Error("the request was released, not cancelled")
			}
		})
	}
}

// TestKillQuery: KILL QUERY from another connection interrupts the statement (1317) and leaves
// the connection usable; KILL ends the connection.
func TestKillQuery(t *testing.T) {
	e := startServer(t)
	for _, mode := range clientModes {
		t.Run(mode.name, func(t *testing.T) {
			client := e.client(t, mode.params)
			ctx := context.Background()
			victim, err := client.Conn(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer victim.Close()
			errc := make(chan error, 1)
			go func() {
				_, err := victim.QueryContext(ctx, "SELECT Name FROM Tasks WHERE Name = ?", "block-me")
				errc <- err
			}()
			wait(t, e.block.started, "the query to reach Airtable")
			id := e.busySession(t)
			if _, err := client.Exec(fmt.Sprintf("KILL QUERY %d", id)); err != nil {
				t.Fatal(err)
			}
			mysqlErr(t, wait(t, errc, "the killed query"), 1317, "70100")
			wait(t, e.block.ended, "the request to end")
			var n int64
			if err := victim.QueryRowContext(ctx, "SELECT COUNT(*) FROM People").Scan(&n); err != nil {
				t.Fatalf("the connection after KILL QUERY: %v", err)
			}
			if _, err := client.Exec(fmt.Sprintf("KILL %d", id)); err != nil {
				t.Fatal(err)
			}
			if err := victim.QueryRowContext(ctx, "SELECT COUNT(*) FROM People").Scan(&n); err == nil {
				t.Error("the killed connection still answers")
			}
			_, err = client.Exec("KILL 4000000000")
			mysqlErr(t, err, 1094, "HY000")
		})
	}
}

// TestMultiStatements: several statements in one COM_QUERY give several results when the
// client asked for multi-statements, and a clear error when it did not.
func TestMultiStatements(t *testing.T) {
	e := startServer(t)
	client := e.client(t, "multiStatements=true")
	rows, err := client.Query("SELECT Name FROM People ORDER BY Name LIMIT 1; SELECT Name FROM Projects ORDER BY Name LIMIT 2; SELECT 'a;b' AS x FROM People WHERE Name = 'none;'")
	if err != nil {
		t.Fatal(err)
	}
	var counts []int
	for {
		n := 0
		for rows.Next() {
			n++
		}
		counts = append(counts, n)
		if !rows.NextResultSet() {
			break
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	rows.Close()
	if !reflect.DeepEqual(counts, []int{1, 2, 0}) {
		t.Errorf("result sizes %v, want [1 2 0]", counts)
	}
	// A failing statement stops the rest, with its error.
	rows, err = client.Query("SELECT Name FROM People LIMIT 1; SELECT Nope FROM People; SELECT Name FROM People")
	if err == nil {
		for rows.Next() {
		}
		rows.NextResultSet()
		err = rows.Err()
		rows.Close()
	}
	mysqlErr(t, err, 1054, "42S22")

	single := e.client(t, "")
	_, err = single.Query("SELECT Name FROM People; SELECT Name FROM Projects")
	mysqlErr(t, err, 1064, "42000")
	// One statement with a trailing ';' is one statement.
	if _, err := single.Exec("DELETE FROM People WHERE Name = 'nobody';"); err != nil {
		t.Error(err)
	}
}

// TestShowAndUse: SHOW statements go to the driver; USE and the database of the DSN select a
// base; an unknown one is 1049.
func TestShowAndUse(t *testing.T) {
	e := startServer(t)
	client := e.client(t, "")
	_, _, tables := scanAll(t, must(client.Query("SHOW TABLES")))
	if len(tables) != 3 || tables[0][0] != "People" {
		t.Errorf("SHOW TABLES: %v", tables)
	}
	cols, _, fields := scanAll(t, must(client.Query("SHOW COLUMNS FROM Tasks")))
	if cols[0] != "Field" || len(fields) < 5 {
		t.Errorf("SHOW COLUMNS: %v %v", cols, fields)
	}
	// What DBeaver sends for a table's properties and DDL tabs.
	cols, _, status := scanAll(t, must(client.Query("SHOW TABLE STATUS LIKE 'Tasks'")))
	if cols[0] != "Name" || cols[4] != "Rows" || len(status) != 1 || status[0][1] != "Airtable" {
		t.Errorf("SHOW TABLE STATUS: %v %v", cols, status)
	}
	_, _, create := scanAll(t, must(client.Query("SHOW CREATE TABLE Tasks")))
	if len(create) != 1 || !strings.HasPrefix(create[0][1], "CREATE TABLE `Tasks` (") {
		t.Errorf("SHOW CREATE TABLE: %v", create)
	}
	_, err := client.Query("SHOW CREATE TABLE Nope")
	mysqlErr(t, err, 1146, "42S02")
	_, _, dbs := scanAll(t, must(client.Query("SHOW DATABASES")))
	if !reflect.DeepEqual(dbs, [][]string{{demoDB}, {"information_schema"}}) {
		t.Errorf("SHOW DATABASES: %v", dbs)
	}
	if _, err := client.Exec("USE " + demoDB); err != nil {
		t.Error(err)
	}
	_, err = client.Exec("USE nosuch")
	mysqlErr(t, err, 1049, "42000")
	bad, _ := sql.Open("mysql", strings.Replace(e.dsn(""), "/"+demoDB, "/nosuch", 1))
	defer bad.Close()
	mysqlErr(t, bad.Ping(), 1049, "42000")
	if err := client.Ping(); err != nil {
		t.Error(err)
	}
}

func must(rows *sql.Rows, err error) *sql.Rows {
	if err != nil {
		panic(err)
	}
	return rows
}

// TestAuthentication: the right password logs in; a wrong one, or an unknown user, is 1045
// (28000), and is logged without the password.
func TestAuthentication(t *testing.T) {
	for _, plugin := range []string{"mysql_native_password", "caching_sha2_password"} {
		t.Run(plugin, func(t *testing.T) {
			e := startServer(t, func(c *Config) { c.AuthPlugin = plugin })
			for range 2 { // caching_sha2_password: full authentication, then the cached fast path
				db, _ := sql.Open("mysql", e.dsn(""))
				if err := db.Ping(); err != nil {
					t.Fatal(err)
				}
				db.Close()
			}
			for _, dsn := range []string{
				strings.Replace(e.dsn(""), testPass, "wrong", 1),
				strings.Replace(e.dsn(""), testUser+":", "mallory:", 1),
				strings.Replace(e.dsn(""), ":"+testPass, "", 1),
			} {
				db, _ := sql.Open("mysql", dsn)
				mysqlErr(t, db.Ping(), 1045, "28000")
				db.Close()
			}
			e.log.waitFor(t, `login refused: error 1045: Access denied for user 'mallory'@'127.0.0.1'`)
			if strings.Contains(e.log.String(), testPass) || strings.Contains(e.log.String(), "wrong") {
				t.Errorf("the log holds a password:\n%s", e.log.String())
			}
		})
	}
}

// TestMaxConnections: a connection over the limit is refused with 1040.
func TestMaxConnections(t *testing.T) {
	e := startServer(t, func(c *Config) { c.MaxConnections = 1 })
	client := e.client(t, "")
	conn, err := client.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	other, _ := sql.Open("mysql", e.dsn(""))
	defer other.Close()
	mysqlErr(t, other.Ping(), 1040, "08004")
	e.log.waitFor(t, "-max-connections")
}

// TestIdleTimeout: a connection that sends nothing is closed after the idle timeout.
func TestIdleTimeout(t *testing.T) {
	e := startServer(t, func(c *Config) { c.IdleTimeout = 50 * time.Millisecond })
	client := e.client(t, "")
	if err := client.Ping(); err != nil {
		t.Fatal(err)
	}
	e.log.waitFor(t, "without a command (-idle-timeout)")
}

// TestQueryTimeout: a statement running past the query timeout is cancelled with 3024.
func TestQueryTimeout(t *testing.T) {
	e := startServer(t, func(c *Config) { c.QueryTimeout = 50 * time.Millisecond })
	client := e.client(t, "")
	_, err := client.Query("SELECT Name FROM Tasks WHERE Name = 'block-me'")
	mysqlErr(t, err, 3024, "HY000")
	wait(t, e.block.ended, "the request to be cancelled")
}

// TestGracefulShutdown: a statement in flight finishes; new connections are refused; a
// statement still running at the deadline is cancelled with 1053.
func TestGracefulShutdown(t *testing.T) {
	t.Run("finishes", func(t *testing.T) {
		e := startServer(t)
		client := e.client(t, "")
		idle := e.client(t, "")
		if err := idle.Ping(); err != nil {
			t.Fatal(err)
		}
		errc := make(chan error, 1)
		go func() {
			rows, err := client.Query("SELECT Name FROM Tasks WHERE Name = 'block-me'")
			if err == nil {
				for rows.Next() {
				}
				err = rows.Err()
				rows.Close()
			}
			errc <- err
		}()
		wait(t, e.block.started, "the query to reach Airtable")
		shut := make(chan error, 1)
		go func() { shut <- e.srv.Shutdown(context.Background()) }()
		// Shutdown closes the listener before it waits: a new client is refused.
		for {
			late, _ := sql.Open("mysql", e.dsn("timeout=1s"))
			err := late.Ping()
			late.Close()
			if err != nil {
				break
			}
		}
		close(e.block.release)
		if err := wait(t, errc, "the query"); err != nil {
			t.Errorf("the query in flight failed: %v", err)
		}
		if err := wait(t, shut, "Shutdown"); err != nil {
			t.Errorf("Shutdown: %v", err)
		}
	})
	t.Run("cancelled at the deadline", func(t *testing.T) {
		e := startServer(t)
		client := e.client(t, "")
		errc := make(chan error, 1)
		go func() {
			_, err := client.Query("SELECT Name FROM Tasks WHERE Name = 'block-me'")
			errc <- err
		}()
		wait(t, e.block.started, "the query to reach Airtable")
		ctx, cancel := context.WithCancel(context.Background())
		shut := make(chan error, 1)
		go func() { shut <- e.srv.Shutdown(ctx) }()
		cancel()
		if err := wait(t, shut, "Shutdown"); err != context.Canceled {
			t.Errorf("Shutdown: %v, want context.Canceled", err)
		}
		err := wait(t, errc, "the query")
		var me *mysql.MySQLError
		if err == nil {
			t.Error("the query survived the shutdown deadline")
		} else if asMySQL(err, &me) && me.Number != 1053 {
			t.Errorf("error %v, want 1053", err)
		}
		wait(t, e.block.ended, "the request to be cancelled")
	})
}

func asMySQL(err error, me **mysql.MySQLError) bool {
	e, ok := err.(*mysql.MySQLError)
	if ok {
		*me = e
	}
	return ok
}

// TestSessionStatePerClient: what a client sets — user variables, PREPAREd statements, system
// variables — dies with its connection, as a MySQL session does: the next client, served by the
// same *sql.DB, starts afresh.
func TestSessionStatePerClient(t *testing.T) {
	e := startServer(t)
	ctx := context.Background()
	first := e.client(t, "")
	c, err := first.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{"SET @leak = 'secret'", "PREPARE leak FROM 'SELECT 1'", "SET SESSION wait_timeout = 7"} {
		if _, err := c.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	var v sql.NullString
	if err := c.QueryRowContext(ctx, "SELECT @leak").Scan(&v); err != nil || v.String != "secret" {
		t.Fatalf("@leak on its own connection: %v %v", v, err)
	}
	c.Close()
	first.Close()

	second := e.client(t, "")
	second.SetMaxOpenConns(1)
	check := func(when string) {
		t.Helper()
		var leak sql.NullString
		var timeout int64
		if err := second.QueryRow("SELECT @leak, @@wait_timeout").Scan(&leak, &timeout); err != nil || leak.Valid || timeout == 7 {
			t.Errorf("%s: @leak = %v, @@wait_timeout = %d (%v); want NULL and the default", when, leak, timeout, err)
		}
		_, err := second.Exec("EXECUTE leak")
		mysqlErr(t, err, 1243, "HY000")
	}
	check("a new client")
}

// TestUserVariablesWithParameters: go-sql-driver's prepared statements bind user variables and
// read them back (SET @a = ? is prepared like any statement), with and without interpolation.
func TestUserVariablesWithParameters(t *testing.T) {
	e := startServer(t)
	ctx := context.Background()
	for _, params := range []string{"", "interpolateParams=true"} {
		c, err := e.client(t, params).Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.ExecContext(ctx, "SET @a = ?, @name = ?", 5, "Ada Lovelace"); err != nil {
			t.Fatalf("%s: %v", params, err)
		}
		var sum int64
		var email string
		if err := c.QueryRowContext(ctx, "SELECT @a + ?, Email FROM People WHERE Name = @name", 1).Scan(&sum, &email); err != nil || sum != 6 || email == "" {
			t.Errorf("%q: @a + 1 = %d, email %q, %v", params, sum, email, err)
		}
		c.Close()
	}
}
