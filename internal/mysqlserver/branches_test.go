package mysqlserver

import (
	"reflect"
	"strings"
	"testing"

	gormmysql "gorm.io/driver/mysql"
)

// Statements that clients send on their own, or that the proof names, which the driver
// of this branch does not answer yet: the engine branch (FROM-less SELECT, GROUP BY,
// information_schema), the funcs branch (@@variables, VERSION(), DATABASE(), SET) and the joins
// to come. The server passes them to the driver like any statement; each test runs as soon as
// the driver (directly) answers its statement, and skips naming the branch until then. These
// skips are not missing tools: they do not fail under CI=true.
var clientStatements = []struct {
	sql, who, branch string
}{
	{"SELECT 1", "connection checks of Metabase, Grafana, HikariCP (DBeaver)", "engine"},
	{"select @@version_comment limit 1", "the mariadb client's interactive start", "engine+funcs"},
	{"SELECT DATABASE()", "the mariadb client after USE, DBeaver", "engine+funcs"},
	{"SELECT VERSION()", "GORM's MySQL dialector at open (default config)", "engine+funcs"},
	{"SELECT @@session.transaction_isolation", "JDBC (Connector/J) at connect", "engine+funcs"},
	{"SELECT Status, COUNT(*) AS n FROM Tasks GROUP BY Status ORDER BY Status", "reports (GROUP BY)", "engine"},
	{"SELECT DISTINCT Status FROM Tasks ORDER BY Status", "reports (DISTINCT)", "engine"},
	{"SELECT Name FROM Tasks ORDER BY Name LIMIT 5 OFFSET 5", "pagination (OFFSET)", "engine"},
	{"SELECT SCHEMA_NAME FROM information_schema.SCHEMATA", "DBeaver, Metabase and Grafana schema browsers", "engine"},
	{"SELECT TABLE_NAME, COLUMN_NAME, DATA_TYPE FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE()", "DBeaver, Metabase schema sync", "engine"},
	{"SELECT t.Name, p.Name FROM Tasks t JOIN People p ON p.id = t.Assignee ORDER BY t.Name LIMIT 5", "reports (JOIN)", "joins"},
}

var clientSets = []struct{ sql, who, branch string }{
	{"SET NAMES utf8mb4", "go-sql-driver/mysql with charset=, JDBC, DBeaver", "funcs"},
	{"SET AUTOCOMMIT = 0", "PyMySQL's default connect (autocommit=False)", "funcs"},
	{"SET SESSION sql_mode = 'STRICT_TRANS_TABLES'", "Metabase, GORM users", "funcs"},
}

// TestStatementsOfOtherBranches: once the driver answers these statements, the server answers
// them the same, in both row formats.
func TestStatementsOfOtherBranches(t *testing.T) {
	e := startServer(t)
	for _, c := range clientStatements {
		t.Run(c.sql, func(t *testing.T) {
			direct, err := e.db.Query(c.sql)
			if err != nil {
				t.Skipf("the driver does not answer it yet (%s branch; sent by %s): %v", c.branch, c.who, firstLine(err))
			}
			wantCols, _, want := scanAll(t, direct)
			for _, mode := range clientModes {
				served, err := e.client(t, mode.params).Query(c.sql)
				if err != nil {
					t.Fatalf("%s: %v", mode.name, err)
				}
				cols, _, got := scanAll(t, served)
				if !reflect.DeepEqual(cols, wantCols) || !reflect.DeepEqual(got, want) {
					t.Errorf("%s: %v %v, driver %v %v", mode.name, cols, got, wantCols, want)
				}
			}
		})
	}
	for _, c := range clientSets {
		t.Run(c.sql, func(t *testing.T) {
			if _, err := e.db.Exec(c.sql); err != nil {
				t.Skipf("the driver does not answer it yet (%s branch; sent by %s): %v", c.branch, c.who, firstLine(err))
			}
			if _, err := e.client(t, "").Exec(c.sql); err != nil {
				t.Error(err)
			}
		})
	}
}

// TestGormDefaultConfig: gorm.Open with the MySQL dialector's default configuration, which asks
// SELECT VERSION() first.
func TestGormDefaultConfig(t *testing.T) {
	e := startServer(t)
	if _, err := e.db.Query("SELECT VERSION()"); err != nil {
		t.Skipf("the driver does not answer SELECT VERSION() yet (engine+funcs branches): %v", firstLine(err))
	}
	db := openGorm(t, gormmysql.Config{DSN: e.dsn("parseTime=true")})
	var got []gormTask
	if err := db.Where("Priority >= ?", 4).Limit(3).Find(&got).Error; err != nil || len(got) != 3 {
		t.Errorf("%d tasks, %v", len(got), err)
	}
}

func firstLine(err error) string {
	s, _, _ := strings.Cut(err.Error(), "\n")
	return s
}
