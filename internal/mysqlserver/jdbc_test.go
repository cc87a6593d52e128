package mysqlserver

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// connectorJ is the jar of Debian's libmariadb-java (MariaDB Connector/J 2.7).
const connectorJ = "/usr/share/java/mariadb-java-client.jar"

// jdbcClient compiles testdata/JdbcClient.java and returns the java command and the class
// path to run it with; it skips (fails under CI=true) when a JDK or Connector/J is missing.
func jdbcClient(t *testing.T) (java, classpath string) {
	t.Helper()
	java = needTool(t, "java", "default-jdk-headless")
	javac := needTool(t, "javac", "default-jdk-headless")
	if _, err := os.Stat(connectorJ); err != nil {
		msg := "MariaDB Connector/J not found (" + connectorJ + "): install it with `apt-get install libmariadb-java`"
		if os.Getenv("CI") == "true" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	dir := t.TempDir()
	if out, err := exec.Command(javac, "-d", dir, filepath.Join("testdata", "JdbcClient.java")).CombinedOutput(); err != nil {
		t.Fatalf("javac: %v: %s", err, out)
	}
	return java, dir + string(os.PathListSeparator) + connectorJ
}

// jdbcLine is a line of JdbcClient's output: a section and its values, escaped as it escapes
// them.
func jdbcLine(section string, values ...string) string {
	escape := strings.NewReplacer("\\", "\\\\", "\t", "\\t", "\n", "\\n")
	for i := range values {
		values[i] = escape.Replace(values[i])
	}
	return strings.Join(append([]string{section}, values...), "\t") + "\n"
}

// jdbcTypeNames is the type name Connector/J gives each of the driver's column types, as the
// server announces them (VAR_STRING of 262,140 bytes reads as TEXT; TINYINT(1) as TINYINT).
var jdbcTypeNames = map[string]string{
	"TEXT": "TEXT", "INT64": "BIGINT", "FLOAT64": "DOUBLE", "BOOL": "TINYINT",
	"DATE": "DATE", "DATETIME": "DATETIME", "JSON": "JSON",
}

// TestJDBC: MariaDB Connector/J — the JDBC driver Metabase uses for MySQL and DBeaver for
// MariaDB — connects (its connect-time queries included), reads typed values, runs a GROUP BY and
// a join, prepares statements whose columns it reads before they run, writes with parameters, gets
// MySQL error numbers, runs SQL-level PREPARE/EXECUTE with user variables, and reads the catalog as
// DBeaver does on connect. The output must be the driver's answers, with client-side prepared
// statements (Connector/J's default) and server-side ones (useServerPrepStmts=true:
// COM_STMT_PREPARE and COM_STMT_EXECUTE).
func TestJDBC(t *testing.T) {
	java, classpath := jdbcClient(t)
	e := startServer(t)

	var want strings.Builder
	add := func(section string, values ...string) { want.WriteString(jdbcLine(section, values...)) }
	// rows adds the driver's rows of a query, as getString reads them.
	rows := func(section, query string, args ...any) {
		_, types, out := scanAll(t, must(e.db.Query(query, args...)))
		for _, r := range out {
			for i := range r {
				if types[i] == "DATE" {
					r[i] = strings.TrimSuffix(r[i], " 00:00:00.000")
				}
			}
			add(section, r...)
		}
	}
	columns := func(section, query string, args ...any) {
		cols, types, _ := scanAll(t, must(e.db.Query(query, args...)))
		for i := range cols {
			add(section, cols[i], jdbcTypeNames[types[i]])
		}
	}
	add("catalog", demoDB)
	read := "SELECT Name, Priority, Done, Due, Notes FROM Tasks WHERE Priority >= 4 ORDER BY Priority DESC, Name LIMIT 7"
	columns("read columns", read)
	rows("read", read)
	for _, typ := range []string{"String", "Double", "Boolean", "Date", "Timestamp"} {
		add("java type", typ)
	}
	rows("group", "SELECT Status, COUNT(*) AS n FROM Tasks GROUP BY Status ORDER BY Status")
	rows("join", "SELECT t.Name, p.Name FROM Tasks t JOIN People p ON p.id = t.Assignee ORDER BY t.Name, p.Name LIMIT 5")
	add("error no table", "1146", "42S02")
	add("error unknown column", "1054", "42S22")
	prepared := "SELECT Name, Priority, Due FROM Tasks WHERE Priority >= ? AND Name LIKE ? ORDER BY Name LIMIT 5"
	columns("prepared columns", prepared, 3, "%report%")
	add("prepared parameters", "2")
	rows("prepared 3", prepared, 3, "%report%")
	rows("prepared 5", prepared, 5, "%e%")
	_, _, first := scanAll(t, must(e.db.Query("SELECT Name FROM Tasks ORDER BY Name LIMIT 2")))
	for _, r := range first {
		add("untyped parameter", "Long", "42", r[0])
	}
	rows("sql prepared", "SELECT Name, Priority FROM Tasks WHERE Priority >= 4 ORDER BY Name LIMIT 3")
	add("error unknown prepared statement", "1243", "HY000")
	add("error prepared unknown column", "1054", "42S22")
	add("inserted", "1")
	add("updated", "1")
	add("email", "jdbc@mariadb.org")
	add("deleted", "1")
	add("product", "MariaDB")
	add("catalogs", demoDB)
	add("catalogs", "information_schema")
	rows("tables", "SELECT TABLE_NAME FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE() ORDER BY TABLE_NAME")
	// Connector/J names a column's type after information_schema's DATA_TYPE, TINYINT(1) as BIT
	// (its tinyInt1isBit default).
	_, _, cols := scanAll(t, must(e.db.Query("SELECT COLUMN_NAME, UPPER(DATA_TYPE), COLUMN_TYPE, IS_NULLABLE FROM information_schema.COLUMNS WHERE TABLE_NAME = 'People' ORDER BY ORDINAL_POSITION")))
	for _, c := range cols {
		if c[2] == "tinyint(1)" {
			c[1] = "BIT"
		}
		add("columns", c[0], c[1], c[3])
	}
	add("primary key", "id")
	// A link field is a foreign key to the linked table's id (information_schema's
	// KEY_COLUMN_USAGE and REFERENTIAL_CONSTRAINTS); there are no procedures.
	var links string
	if err := e.db.QueryRow("SELECT COUNT(*) FROM information_schema.REFERENTIAL_CONSTRAINTS WHERE TABLE_NAME = 'Tasks'").Scan(&links); err != nil {
		t.Fatal(err)
	}
	add("foreign keys and procedures", links)
	if !strings.Contains(want.String(), "\nprepared 5\t") || !strings.Contains(want.String(), "\njoin\t") {
		t.Fatalf("the demo base no longer has the rows this test reads:\n%s", want.String())
	}

	host, port, _ := strings.Cut(e.addr, ":")
	for _, mode := range []string{"client-side prepare", "server-side prepare"} {
		t.Run(mode, func(t *testing.T) {
			url := fmt.Sprintf("jdbc:mariadb://%s:%s/%s?user=%s&password=%s", host, port, demoDB, testUser, testPass)
			if mode == "server-side prepare" {
				url += "&useServerPrepStmts=true"
			}
			cmd := exec.Command(java, "-cp", classpath, "JdbcClient", url)
			var stderr strings.Builder
			cmd.Stderr = &stderr
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("%v: %s\noutput so far:\n%s", err, stderr.String(), out)
			}
			if got := string(out); got != want.String() {
				t.Errorf("Connector/J read:\n%s\nthe driver answers:\n%s", got, want.String())
			}
		})
	}
	if strings.Contains(e.log.String(), "handshake failed") {
		t.Errorf("server log:\n%s", e.log.String())
	}
}
