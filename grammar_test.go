package airsql

import (
	"database/sql"
	"errors"
	"reflect"
	"strings"
	"testing"
)

// TestSqllogictestStatements: what SQLite's sqllogictest corpus (run as the mysql engine) and BI
// tools send beyond the grammar the driver read before issue 22: INSERT without a column list, a
// column assigned twice in one SET, ALL where MySQL takes it, DISTINCTROW, non-reserved keywords
// as aliases, SHOW SCHEMAS, typed and hexadecimal literals, unary minus on text, and views refused
// by name.
func TestSqllogictestStatements(t *testing.T) {
	srv := newEmulator(t)
	db, _ := openDB(t, srv, "")
	exec := mustExec(t, db)
	exec("CREATE TABLE t1 (a INTEGER, b INTEGER, c VARCHAR(30))")
	exec("INSERT INTO t1 VALUES (1, 2, 'x'), (3, NULL, 'y')") // the fields, in the table's order
	exec("INSERT INTO t1 VALUES (NULL, 5, 6, '-7', NULL)")    // id, the fields, createdTime
	exec("UPDATE t1 SET b = 5, b = 6 WHERE a = 1")            // the last assignment wins
	if _, err := db.Exec("INSERT INTO t1 VALUES (1, 2)"); err == nil || !strings.Contains(err.Error(), "3 fields") {
		t.Errorf("INSERT with too few values: %v", err)
	}
	for query, want := range map[string][]string{
		"SELECT ALL a, b, c FROM t1 ORDER BY a":                            {"1|6|x", "3|NULL|y", "5|6|-7"},
		"SELECT DISTINCTROW b FROM t1 ORDER BY b":                          {"NULL", "6"},
		"SELECT COUNT(ALL b), MIN(ALL a), SUM(ALL a) FROM t1":              {"2|1|9"},
		"SELECT a AS offset, b AS end, c AS full FROM t1 WHERE a = 3":      {"3|NULL|y"},
		"SELECT COUNT(*) AS tables FROM t1":                                {"3"},
		"SELECT -c, +c FROM t1 WHERE a = 5":                                {"7|-7"},
		"SELECT a FROM t1 WHERE b <=> NULL":                                {"3"},
		"SELECT a FROM t1 WHERE c REGEXP '^[a-z]$' ORDER BY a":             {"1", "3"},
		"SELECT x'41', 0x41 + 1, b'11', DATE '2024-05-15'":                 {"A|66|\x03|2024-05-15 00:00:00 +0000 UTC"},
		"SELECT STDDEV_POP(a), VAR_SAMP(a), BIT_OR(a), BIT_AND(a) FROM t1": {"1.632993161855452|4|7|1"},
	} {
		if got := rowTexts(t, db, query); !reflect.DeepEqual(got, want) {
			t.Errorf("%s:\n got %q\nwant %q", query, got, want)
		}
	}
	if got := queryColumn(t, db, "SHOW SCHEMAS"); !reflect.DeepEqual(got, []string{testBase, "information_schema"}) {
		t.Errorf("SHOW SCHEMAS: %q", got)
	}
	for query, construct := range map[string]string{
		"CREATE VIEW v1 AS SELECT a FROM t1": "CREATE VIEW",
		"DROP VIEW v1":                       "DROP VIEW",
	} {
		_, err := db.Exec(query)
		var ue *UnsupportedError
		if !errors.As(err, &ue) || !strings.Contains(err.Error(), construct) {
			t.Errorf("%s: %v, want an UnsupportedError naming %s", query, err, construct)
		}
	}
}

// TestThreePartNames: SQLAlchemy Core with schema= writes `db`.`table`.`col`; the base's id as db
// names the base's table, in a join too; another database is an unknown column, as in MySQL.
func TestThreePartNames(t *testing.T) {
	srv := newEmulator(t)
	db, _ := openDB(t, srv, "")
	q := "`" + testBase + "`"
	for query, want := range map[string][]string{
		"SELECT " + q + ".`Tasks`.`Name` FROM " + q + ".`Tasks` WHERE " + q + ".Tasks.Priority >= 3 ORDER BY " + q + ".Tasks.Name":          {"Ship it", "Write spec", "write tests"},
		"SELECT COUNT(*) FROM " + q + ".Tasks JOIN " + q + ".`Team Members` ON " + q + ".Tasks.Name = " + q + ".`Team Members`.`Full Name`": {"0"},
		"SELECT " + q + ".Tasks.Priority, COUNT(*) FROM Tasks WHERE " + q + ".Tasks.Priority = 3 GROUP BY " + q + ".Tasks.Priority":         {"3|1"},
	} {
		if got := rowTexts(t, db, query); !reflect.DeepEqual(got, want) {
			t.Errorf("%s:\n got %q\nwant %q", query, got, want)
		}
	}
	for _, query := range []string{
		"SELECT other.Tasks.Name FROM Tasks",
		"SELECT " + q + ".Tasks.Name FROM Tasks AS t", // the alias hides the table's name
	} {
		if _, err := db.Query(query); err == nil || !strings.Contains(err.Error(), "nknown column") {
			t.Errorf("%s: %v, want an unknown column", query, err)
		}
	}
}

// TestRollup: GROUP BY … WITH ROLLUP adds a row per prefix of the keys after the rows it sums up,
// and the grand total last; GROUPING tells its NULLs from NULL values. (MariaDB has no GROUPING
// and refuses ROLLUP with ORDER BY; these are MySQL 8's answers, worked out from the fixture.)
func TestRollup(t *testing.T) {
	srv := newEmulator(t)
	db, _ := openDB(t, srv, "")
	exec := mustExec(t, db)
	exec("CREATE TABLE sales (region VARCHAR(20), year INTEGER, amount INTEGER)")
	exec("INSERT INTO sales VALUES ('east', 2023, 10), ('east', 2024, 20), ('west', 2024, 5), (NULL, 2024, 1), ('east', 2024, 2)")
	for query, want := range map[string][]string{
		"SELECT region, SUM(amount) FROM sales GROUP BY region WITH ROLLUP": {"NULL|1", "east|32", "west|5", "NULL|38"},
		"SELECT region, year, SUM(amount), COUNT(*) FROM sales GROUP BY region, year WITH ROLLUP": {
			"NULL|2024|1|1", "NULL|NULL|1|1",
			"east|2023|10|1", "east|2024|22|2", "east|NULL|32|3",
			"west|2024|5|1", "west|NULL|5|1",
			"NULL|NULL|38|5"},
		"SELECT region, GROUPING(region), SUM(amount) FROM sales GROUP BY region WITH ROLLUP": {"NULL|0|1", "east|0|32", "west|0|5", "NULL|1|38"},
		"SELECT IF(GROUPING(region, year) = 3, 'total', region) AS r, GROUPING(year, region), SUM(amount) FROM sales WHERE region = 'east' GROUP BY region, year WITH ROLLUP": {
			"east|0|10", "east|0|22", "east|2|32", "total|3|32"},
		"SELECT year, SUM(amount) AS s FROM sales GROUP BY year WITH ROLLUP HAVING s > 6 ORDER BY s DESC": {"NULL|38", "2024|28", "2023|10"},
	} {
		if got := rowTexts(t, db, query); !reflect.DeepEqual(got, want) {
			t.Errorf("%s:\n got %q\nwant %q", query, got, want)
		}
	}
	if _, err := db.Query("SELECT region, GROUPING(region) FROM sales GROUP BY region"); err == nil || !strings.Contains(err.Error(), "WITH ROLLUP") {
		t.Errorf("GROUPING without ROLLUP: %v", err)
	}
}

// mustExec runs statements on db, failing the test at the first error.
func mustExec(t *testing.T, db *sql.DB) func(query string) {
	return func(query string) {
		t.Helper()
		if _, err := db.Exec(query); err != nil {
			t.Fatalf("%s: %v", query, err)
		}
	}
}
