package mysqlserver

import (
	"reflect"
	"strings"
	"testing"

	"github.com/go-sql-driver/mysql"
	gormmysql "gorm.io/driver/mysql"
	"gorm.io/gorm"
	"gorm.io/gorm/logger"
)

// Statements that clients send on their own, or that the proof names, which the driver
// of this branch does not answer yet: the engine branch (FROM-less SELECT, GROUP BY,
// information_schema), the funcs branch (@@variables, VERSION(), DATABASE(), SET) and the joins
// to come. The server passes them to the driver like any statement: the tests below compare
// its answers with the driver's, whichever they are, and log which branch a refusal waits for.
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

// TestStatementsOfOtherBranches: the server answers these statements exactly as the driver
// does — the same rows once the driver has the feature, the driver's own error (and a connection
// that goes on working) until then — in both row formats.
func TestStatementsOfOtherBranches(t *testing.T) {
	e := startServer(t)
	for _, c := range clientStatements {
		t.Run(c.sql, func(t *testing.T) {
			direct, derr := e.db.Query(c.sql)
			var wantCols []string
			var want [][]string
			if derr == nil {
				wantCols, _, want = scanAll(t, direct)
			} else {
				t.Logf("the driver does not answer it yet (%s branch; sent by %s): %v", c.branch, c.who, firstLine(derr))
			}
			for _, mode := range clientModes {
				client := e.client(t, mode.params)
				served, err := client.Query(c.sql)
				switch {
				case derr != nil && err == nil:
					served.Close()
					t.Errorf("%s: the server answered what the driver refuses (%v)", mode.name, derr)
				case derr != nil:
					if me, ok := err.(*mysql.MySQLError); !ok || me.Message != derr.Error() {
						t.Errorf("%s: error %v, the driver's is %v", mode.name, err, derr)
					}
				case err != nil:
					t.Fatalf("%s: %v", mode.name, err)
				default:
					cols, _, got := scanAll(t, served)
					if !reflect.DeepEqual(cols, wantCols) || !reflect.DeepEqual(got, want) {
						t.Errorf("%s: %v %v, driver %v %v", mode.name, cols, got, wantCols, want)
					}
				}
				var n int64
				if err := client.QueryRow("SELECT COUNT(*) FROM People").Scan(&n); err != nil {
					t.Errorf("%s: the connection after it: %v", mode.name, err)
				}
			}
		})
	}
	for _, c := range clientSets {
		t.Run(c.sql, func(t *testing.T) {
			_, derr := e.db.Exec(c.sql)
			if derr != nil {
				t.Logf("the driver does not answer it yet (%s branch; sent by %s): %v", c.branch, c.who, firstLine(derr))
			}
			_, err := e.client(t, "").Exec(c.sql)
			if (err == nil) != (derr == nil) {
				t.Errorf("through the server: %v; the driver: %v", err, derr)
			}
			if me, ok := err.(*mysql.MySQLError); derr != nil && (!ok || me.Message != derr.Error()) {
				t.Errorf("error %v, the driver's is %v", err, derr)
			}
		})
	}
}

// TestGormDefaultConfig: gorm.Open with the MySQL dialector's default configuration asks
// SELECT VERSION() first: it opens once the driver answers that, and fails with the driver's
// own error until then.
func TestGormDefaultConfig(t *testing.T) {
	e := startServer(t)
	_, derr := e.db.Query("SELECT VERSION()")
	db, err := gorm.Open(gormmysql.New(gormmysql.Config{DSN: e.dsn("parseTime=true")}), &gorm.Config{Logger: logger.Discard})
	if derr != nil {
		t.Logf("the driver does not answer SELECT VERSION() yet (engine+funcs branches): %v", firstLine(derr))
		if me, ok := err.(*mysql.MySQLError); !ok || me.Message != derr.Error() {
			t.Errorf("gorm.Open: %v, want the driver's error %v", err, derr)
		}
		return
	}
	if err != nil {
		t.Fatal(err)
	}
	if sqlDB, err := db.DB(); err == nil {
		defer sqlDB.Close()
	}
	var got []gormTask
	if err := db.Where("Priority >= ?", 4).Limit(3).Find(&got).Error; err != nil || len(got) != 3 {
		t.Errorf("%d tasks, %v", len(got), err)
	}
}

func firstLine(err error) string {
	s, _, _ := strings.Cut(err.Error(), "\n")
	return s
}
