package mysqlserver

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"reflect"
	"strings"
	"syscall"
	"testing"
)

// mariadb runs the mariadb command-line client on the server, in batch mode, with the
// statements on its standard input.
func (e *env) mariadb(t *testing.T, bin, password, input string, extra ...string) (stdout, stderr string, err error) {
	t.Helper()
	cmd := e.mariadbCmd(bin, password, extra...)
	cmd.Stdin = strings.NewReader(input)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err = cmd.Run()
	return out.String(), errb.String(), err
}

func (e *env) mariadbCmd(bin, password string, extra ...string) *exec.Cmd {
	host, port, _ := strings.Cut(e.addr, ":")
	args := append([]string{"--no-defaults", "--protocol=TCP", "-h", host, "-P", port, "-u", testUser, "--password=" + password, "--batch"}, extra...)
	return exec.Command(bin, append(args, demoDB)...)
}

// tsv runs a query through the driver directly and formats it as the mariadb client's batch
// mode prints it (a header line, tab-separated values, NULL as NULL).
func (e *env) tsv(t *testing.T, query string) string {
	t.Helper()
	cols, _, rows := scanAll(t, must(e.db.Query(query)))
	var b strings.Builder
	b.WriteString(strings.Join(cols, "\t") + "\n")
	escape := strings.NewReplacer("\\", "\\\\", "\n", "\\n", "\t", "\\t") // as batch mode escapes
	for _, r := range rows {
		for i := range r {
			r[i] = escape.Replace(r[i])
		}
		b.WriteString(strings.Join(r, "\t") + "\n")
	}
	return b.String()
}

// TestMariaDBClient: the mariadb command-line client (Debian's mariadb-client) reads, writes,
// gets errors, sends several statements in one query, and cancels a query with Ctrl-C (it
// sends KILL QUERY on a second connection) or by dying.
func TestMariaDBClient(t *testing.T) {
	bin := needTool(t, "mariadb", "mariadb-client")
	e := startServer(t)

	t.Run("reads", func(t *testing.T) {
		q := "SELECT Name, Priority, Done, Due, Notes FROM Tasks WHERE Priority >= 4 ORDER BY Priority DESC, Name LIMIT 7"
		out, stderr, err := e.mariadb(t, bin, testPass, q+";\n")
		if err != nil {
			t.Fatalf("%v: %s", err, stderr)
		}
		// The driver's DATE scans as a time; the client prints the date.
		want := e.tsv(t, q)
		want = strings.ReplaceAll(want, " 00:00:00.000", "")
		if out != want {
			t.Errorf("got:\n%s\nwant:\n%s", out, want)
		}
	})
	t.Run("writes", func(t *testing.T) {
		out, stderr, err := e.mariadb(t, bin, testPass, `INSERT INTO People (Name, Email) VALUES ('CLI Person', 'cli@example.com');
UPDATE People SET Email = 'cli@mariadb.org' WHERE Name = 'CLI Person';
SELECT Email FROM People WHERE Name = 'CLI Person';
DELETE FROM People WHERE Name = 'CLI Person';
SELECT COUNT(*) AS n FROM People WHERE Name = 'CLI Person';
`, "-vv")
		if err != nil {
			t.Fatalf("%v: %s", err, stderr)
		}
		for _, want := range []string{"Query OK, 1 row affected", "Rows matched: 1  Changed: 1", "cli@mariadb.org", "n\n0\n"} {
			if !strings.Contains(out, want) && !strings.Contains(out, strings.Replace(want, "Rows matched: 1  Changed: 1", "1 row affected", 1)) {
				t.Errorf("output lacks %q:\n%s", want, out)
			}
		}
	})
	t.Run("multi-statement query", func(t *testing.T) {
		out, stderr, err := e.mariadb(t, bin, testPass, "DELIMITER //\nSELECT Name FROM People ORDER BY Name LIMIT 1; SELECT Name FROM Projects ORDER BY Name LIMIT 1//\n")
		if err != nil {
			t.Fatalf("%v: %s", err, stderr)
		}
		want := e.tsv(t, "SELECT Name FROM People ORDER BY Name LIMIT 1") + e.tsv(t, "SELECT Name FROM Projects ORDER BY Name LIMIT 1")
		if out != want {
			t.Errorf("got:\n%s\nwant:\n%s", out, want)
		}
	})
	t.Run("report queries", func(t *testing.T) {
		// A GROUP BY and a join through a linked-record field, as reports send them.
		for _, q := range []string{
			"SELECT Status, COUNT(*) AS n FROM Tasks GROUP BY Status ORDER BY Status",
			"SELECT t.Name, p.Name FROM Tasks t JOIN People p ON p.id = t.Assignee ORDER BY t.Name, p.Name LIMIT 5",
		} {
			out, stderr, err := e.mariadb(t, bin, testPass, q+";\n")
			if err != nil {
				t.Fatalf("%s: %v: %s", q, err, stderr)
			}
			if want := e.tsv(t, q); out != want || strings.Count(out, "\n") < 3 {
				t.Errorf("%s: got:\n%s\nwant:\n%s", q, out, want)
			}
		}
	})
	t.Run("prepared statements and user variables", func(t *testing.T) {
		// The CLI has no prepared-statement API: PREPARE, EXECUTE … USING @v and DEALLOCATE
		// PREPARE are how it binds values.
		out, stderr, err := e.mariadb(t, bin, testPass, `SET @p = 4;
PREPARE byPriority FROM 'SELECT Name, Priority FROM Tasks WHERE Priority >= ? ORDER BY Name LIMIT 3';
EXECUTE byPriority USING @p;
SELECT @p AS p, @nope AS nope;
PREPARE ins FROM 'INSERT INTO People (Name, Email) VALUES (?, ?)';
SET @n = 'CLI Prepared', @e = 'prep@example.com';
EXECUTE ins USING @n, @e;
SELECT Email FROM People WHERE Name = @n;
DEALLOCATE PREPARE ins;
DELETE FROM People WHERE Name = @n;
`, "-vv")
		if err != nil {
			t.Fatalf("%v: %s", err, stderr)
		}
		_, _, rows := scanAll(t, must(e.db.Query("SELECT Name, Priority FROM Tasks WHERE Priority >= 4 ORDER BY Name LIMIT 3")))
		var want []string
		for _, r := range rows {
			want = append(want, strings.Join(r, "\t"))
		}
		for _, w := range append(want, "p\tnope\n4\tNULL", "Query OK, 1 row affected", "prep@example.com") {
			if !strings.Contains(out, w) {
				t.Errorf("output lacks %q:\n%s", w, out)
			}
		}
		if strings.Count(out, "Query OK, 1 row affected") != 2 { // the INSERT and the DELETE
			t.Errorf("want the EXECUTE of the INSERT and the DELETE to affect a row each:\n%s", out)
		}
		_, stderr, _ = e.mariadb(t, bin, testPass, `PREPARE s FROM 'SELECT Name FROM Tasks WHERE Priority = ?';
EXECUTE s;
EXECUTE nope;
DEALLOCATE PREPARE nope;
`, "--force")
		for _, w := range []string{
			"ERROR 1210 (HY000) at line 2: airsql: incorrect arguments to EXECUTE",
			"ERROR 1243 (HY000) at line 3: airsql: unknown prepared statement handler (nope) given to EXECUTE",
			"ERROR 1243 (HY000) at line 4: airsql: unknown prepared statement handler (nope) given to DEALLOCATE PREPARE",
		} {
			if !strings.Contains(stderr, w) {
				t.Errorf("stderr lacks %q:\n%s", w, stderr)
			}
		}
	})
	t.Run("errors", func(t *testing.T) {
		for q, want := range map[string]string{
			"SELECT Name FROM Nope":  "ERROR 1146 (42S02) at line 1: airsql: the base app",
			"SELECT Nope FROM Tasks": "ERROR 1054 (42S22) at line 1: translate: unknown column",
			"SELEC 1":                "ERROR 1064 (42000) at line 1: airsql: syntax error",
			"DROP TABLE Tasks":       "ERROR 1235 (42000) at line 1: airsql: DROP TABLE is not supported",
			"USE nosuch":             "ERROR 1049 (42000) at line 1: Unknown database 'nosuch'",
		} {
			_, stderr, err := e.mariadb(t, bin, testPass, q+";\n")
			if err == nil || !strings.Contains(stderr, want) {
				t.Errorf("%s: %v, stderr %q; want %q", q, err, stderr, want)
			}
		}
		_, stderr, err := e.mariadb(t, bin, "wrong", "SELECT Name FROM People;\n")
		if err == nil || !strings.Contains(stderr, "ERROR 1045 (28000)") {
			t.Errorf("wrong password: %v %q", err, stderr)
		}
	})
	t.Run("use and show", func(t *testing.T) {
		out, stderr, err := e.mariadb(t, bin, testPass, "USE "+demoDB+";\nSHOW TABLES;\nSHOW COLUMNS FROM People;\n")
		if err != nil {
			t.Fatalf("%v: %s", err, stderr)
		}
		if !strings.Contains(out, "Tables_in_"+demoDB) || !strings.Contains(out, "Hourly Rate\tFLOAT64") {
			t.Errorf("output:\n%s", out)
		}
	})
	t.Run("ctrl-c sends KILL QUERY", func(t *testing.T) {
		cmd := e.mariadbCmd(bin, testPass, "-e", "SELECT Name FROM Tasks WHERE Name = 'block-me'")
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		wait(t, e.block.started, "the query to reach Airtable")
		if err := cmd.Process.Signal(os.Interrupt); err != nil {
			t.Fatal(err)
		}
		if err := wait(t, e.block.ended, "the server to cancel the request"); err == nil {
			t.Error("the request was released, not cancelled")
		}
		err := cmd.Wait()
		if err == nil || !strings.Contains(stderr.String(), "1317") {
			t.Errorf("client: %v, stderr %q; want error 1317", err, stderr.String())
		}
		e.log.waitFor(t, "KILL QUERY")
	})
	t.Run("a client that dies", func(t *testing.T) {
		cmd := e.mariadbCmd(bin, testPass, "-e", "SELECT Name FROM Tasks WHERE Name = 'block-me'")
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		wait(t, e.block.started, "the query to reach Airtable")
		if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		_ = cmd.Wait()
		if err := wait(t, e.block.ended, "the server to cancel the request"); err == nil {
			t.Error("the request was released, not cancelled")
		}
	})
}

// TestPyMySQL: Python's PyMySQL reads (typed values), writes, gets MySQL error numbers, pings,
// selects the database (COM_INIT_DB), and kills a running query (COM_PROCESS_KILL).
func TestPyMySQL(t *testing.T) {
	py := pythonWith(t, "pymysql", "python3-pymysql")
	e := startServer(t)
	host, port, _ := strings.Cut(e.addr, ":")
	script := []string{"testdata/pymysql_client.py", host, port, testUser, testPass, demoDB}

	t.Run("basic", func(t *testing.T) {
		out, err := exec.Command(py, append(script, "basic")...).CombinedOutput()
		if err != nil {
			t.Fatalf("%v: %s", err, out)
		}
		var got struct {
			Reads         [][]any
			Types         []string
			Values        []any
			Columns       []string
			Inserted      int
			Updated       int
			Email         string
			Deleted       int
			Errors        []any
			AfterErrors   int       `json:"after_errors"`
			Reports       [][][]any `json:"reports"`
			PingAndInitDB bool      `json:"ping_and_init_db"`
		}
		if err := json.Unmarshal(out, &got); err != nil {
			t.Fatalf("%v: %s", err, out)
		}
		_, _, want := scanAll(t, must(e.db.Query("SELECT Name, Priority FROM Tasks WHERE Priority >= 4 ORDER BY Priority DESC, Name LIMIT 5")))
		var reads [][]string
		for _, r := range got.Reads {
			reads = append(reads, []string{fmt.Sprint(r[0]), fmt.Sprint(r[1])})
		}
		if !reflect.DeepEqual(reads, want) {
			t.Errorf("reads %v, want %v", reads, want)
		}
		if wantTypes := []string{"str", "int", "float", "int", "date", "datetime", "str", "NoneType"}; !reflect.DeepEqual(got.Types, wantTypes) {
			t.Errorf("types %v, want %v (values %v)", got.Types, wantTypes, got.Values)
		}
		if got.Inserted != 1 || got.Updated != 1 || got.Deleted != 1 || got.Email != "py@python.org" {
			t.Errorf("writes: %+v", got)
		}
		if wantErrs := []any{1054.0, 1146.0, 1064.0, 1235.0}; !reflect.DeepEqual(got.Errors, wantErrs) {
			t.Errorf("errors %v, want %v", got.Errors, wantErrs)
		}
		for i, q := range []string{"SELECT Status, COUNT(*) AS n FROM Tasks GROUP BY Status ORDER BY Status",
			"SELECT t.Name, p.Name FROM Tasks t JOIN People p ON p.id = t.Assignee ORDER BY t.Name, p.Name LIMIT 5"} {
			_, _, want := scanAll(t, must(e.db.Query(q)))
			var rows [][]string
			for _, r := range got.Reports[i] {
				var row []string
				for _, v := range r {
					row = append(row, fmt.Sprint(v))
				}
				rows = append(rows, row)
			}
			if len(rows) < 2 || !reflect.DeepEqual(rows, want) {
				t.Errorf("%s: PyMySQL read %v, the driver %v", q, rows, want)
			}
		}
		if got.AfterErrors == 0 || !got.PingAndInitDB {
			t.Errorf("after errors: %+v", got)
		}
	})
	t.Run("kill a running query", func(t *testing.T) {
		cmd := exec.Command(py, append(script, "cancel")...)
		stdin, err := cmd.StdinPipe()
		if err != nil {
			t.Fatal(err)
		}
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		wait(t, e.block.started, "the query to reach Airtable")
		fmt.Fprintln(stdin, "running")
		if err := wait(t, e.block.ended, "the server to cancel the request"); err == nil {
			t.Error("the request was released, not cancelled")
		}
		if err := cmd.Wait(); err != nil {
			t.Fatalf("%v: %s", err, out.String())
		}
		if !strings.Contains(out.String(), `"error": 1317`) {
			t.Errorf("PyMySQL got %s, want error 1317", out.String())
		}
	})
}
