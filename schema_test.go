package airsql

import "testing"

// FuzzParseStatement: no statement text makes the driver panic (sqlparser panics on some inputs,
// such as an empty MySQL comment "/*!*/").
func FuzzParseStatement(f *testing.F) {
	for _, q := range []string{"DESCRIBE Tasks", "describe `Team Members`;", "SHOW FULL COLUMNS FROM Tasks", "DESCRIBE `unterminated", "",
		"/* c */ EXPLAIN SELECT 1", "# c\nWITH a AS (SELECT 1) SELECT * FROM a", "/*!40101 SET NAMES utf8mb4 */", "INSERT INTO t (a) VALUES (1) RETURNING id"} {
		f.Add(q)
	}
	for _, q := range []string{"/*!*/", "SELECT /*!*/ 1", "SELECT * FROM `Tasks` WHERE Name = ?", "INSERT INTO t (a) VALUES (:x)",
		"SHOW TABLES LIKE 'a%'", "UPDATE t SET a = a + 1 WHERE id = 'rec1'", "select `a``b` from `c`", "CREATE TABLE t (a int)", "ALTER TABLE t ADD b text"} {
		f.Add(q)
	}
	f.Fuzz(func(t *testing.T, query string) {
		st, err := parseStatement(query)
		if err == nil && st.describe == nil && st.ddl == nil && st.ast == nil && st.variables == nil && st.prepared == nil && st.refused == nil {
			t.Fatalf("%q parsed to nothing without an error", query)
		}
	})
}
