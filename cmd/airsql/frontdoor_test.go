package main

import (
	"fmt"
	"strings"
	"testing"
)

// TestShellFrontDoorMatrix is the statement-kind × comment-prefix matrix through the shell: each
// statement prints, behind every prefix, what it prints without one — rows for a statement that
// returns rows (WITH, a parenthesised UNION, INSERT … RETURNING included), "n rows affected" for
// the others.
func TestShellFrontDoorMatrix(t *testing.T) {
	prefixes := []string{"/* c */ ", "-- c\n", "# c\n", "\n  \n"}
	for _, c := range []struct {
		sql  string
		want string // part of the output without a prefix
	}{
		{"SELECT Name FROM Tasks WHERE Priority >= 3 ORDER BY Name LIMIT 2", "(2 rows)"},
		{"WITH t AS (SELECT Name, Priority FROM Tasks WHERE Priority > 1) SELECT Name FROM t ORDER BY Priority, Name LIMIT 2", "(2 rows)"},
		{"(SELECT Name FROM Tasks WHERE Priority = 1 LIMIT 1) UNION (SELECT Name FROM Tasks WHERE Priority = 5 LIMIT 1)", "rows)"},
		{"DESCRIBE Tasks", "Field"},
		{"SHOW FULL COLUMNS FROM Tasks", "Privileges"},
		{"SHOW VARIABLES LIKE 'v%'", "version"},
		{"EXPLAIN SELECT Name FROM Tasks WHERE Priority > 3", "filterByFormula"},
		{"INSERT INTO Tasks (Name, Priority) VALUES ('front door', 9) RETURNING Name, Priority", "front door"},
		{"INSERT INTO Tasks (Name, Priority) VALUES ('front door', 9)", "1 row affected"},
		{"UPDATE Tasks SET Notes = 'x' WHERE Priority >= 5", "rows affected"},
		{"SET @a = 1", "0 rows affected"},
	} {
		_, want, errOut := runShell(t, "", nil, c.sql)
		if !strings.Contains(want, c.want) {
			t.Errorf("%s: output %q (stderr %q), want it to hold %q", c.sql, want, errOut, c.want)
			continue
		}
		for _, prefix := range prefixes {
			sql := prefix + c.sql
			t.Run(fmt.Sprintf("%q", sql), func(t *testing.T) {
				code, got, errOut := runShell(t, "", nil, "--", sql)
				if code != 0 || got != want {
					t.Errorf("exit %d, output\n%s\nstderr %q; want\n%s", code, got, errOut, want)
				}
			})
		}
	}
}
