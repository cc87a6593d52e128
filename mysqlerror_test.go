package airsql

import (
	"errors"
	"fmt"
	"testing"
)

// TestMySQLErrorCode: every error type of the driver answers its MySQL number and SQLSTATE,
// found through wrapping, and by type only (a message that reads like one is 1105).
func TestMySQLErrorCode(t *testing.T) {
	for _, c := range []struct {
		name  string
		err   error
		code  uint16
		state string
	}{
		{"no table", &NoTableError{Table: "x"}, 1146, "42S02"},
		{"wrapped no table", fmt.Errorf("wrapped: %w", &NoTableError{Table: "x"}), 1146, "42S02"},
		{"planner's unknown table", &UnknownTableError{Detail: "information_schema.NOPE"}, 1146, "42S02"},
		{"unsupported", &UnsupportedError{Construct: "UNION"}, 1235, "42000"},
		{"wrapped unsupported", fmt.Errorf("x: %w", &UnsupportedError{Construct: "JOIN"}), 1235, "42000"},
		{"table exists", &ExistsError{Kind: "table", Name: "Tasks"}, 1050, "42S01"},
		{"column exists", &ExistsError{Kind: "column", Name: "Name", Table: "Tasks"}, 1060, "42S21"},
		{"syntax", &SyntaxError{Err: errors.New("syntax error at position 6 near 'SELEC'")}, 1064, "42000"},
		{"unknown column", fmt.Errorf("x: %w", &UnknownColumnError{Detail: `"x" in table "t"`}), 1054, "42S22"},
		{"unknown prepared", &UnknownPreparedError{Name: "s", Op: "EXECUTE"}, 1243, "HY000"},
		{"prepared arguments", &PreparedArgumentsError{Name: "s", Params: 2, Given: 1}, 1210, "HY000"},
		{"subquery rows", &SubqueryError{SQL: "(SELECT 1)"}, 1242, "21000"},
		{"BIGINT out of range", &OutOfRangeError{Expr: "Budget * 1000000000000"}, 1690, "22003"},
		{"wording only", errors.New("airsql: syntax error at position 6 near 'SELEC'"), 1105, "HY000"},
		{"other", errors.New("something else"), 1105, "HY000"},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, state := MySQLErrorCode(c.err)
			if code != c.code || state != c.state {
				t.Errorf("MySQLErrorCode(%v) = %d %s, want %d %s", c.err, code, state, c.code, c.state)
			}
		})
	}
}

// TestStatementErrorsMapped: errors the driver returns for statements (not built by hand) have the
// types MySQLErrorCode maps, so a MySQL client sees MySQL's numbers.
func TestStatementErrorsMapped(t *testing.T) {
	db, _ := openDB(t, newEmulator(t), "")
	for _, c := range []struct {
		sql  string
		code uint16
	}{
		{"SELEC 1", 1064},
		{"SELECT Nope FROM Tasks", 1054},
		{"SELECT * FROM Nope", 1146},
		{"SELECT (SELECT Name FROM Tasks)", 1242},
		{"SET GLOBAL sql_mode = ''", 1235},
	} {
		t.Run(c.sql, func(t *testing.T) {
			rows, err := db.Query(c.sql)
			if err == nil {
				for rows.Next() {
				}
				err = rows.Err()
				rows.Close()
			}
			if code, _ := MySQLErrorCode(err); code != c.code {
				t.Errorf("%s: error %v is %d, want %d", c.sql, err, code, c.code)
			}
		})
	}
}
