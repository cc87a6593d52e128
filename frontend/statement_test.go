package frontend

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/xwb1989/sqlparser"
)

// commentPrefixes are what ORMs and BI tools put before a statement; none may change what it is.
var commentPrefixes = []string{"", "/* c */ ", "-- c\n", "# c\n", "\n\n  ", "/* a */ -- b\n# c\n\t", "/*+ hint */ "}

// kindCases are statements of every kind, with the type Read gives them and whether they return rows.
var kindCases = []struct {
	sql  string
	kind Statement
	rows bool
}{
	{"SELECT Name FROM Tasks", &Select{}, true},
	{"(SELECT Name FROM Tasks) UNION (SELECT Name FROM People)", &Select{}, true},
	{"WITH t AS (SELECT Name FROM Tasks) SELECT * FROM t", &Select{}, true},
	{"INSERT INTO Tasks (Name) VALUES ('a')", &Insert{}, false},
	{"INSERT INTO Tasks (Name) VALUES ('a') RETURNING id, Name", &Insert{}, true},
	{"INSERT INTO Tasks (Name) SELECT Name FROM People", &Insert{}, false},
	{"REPLACE INTO Tasks (id, Name) VALUES ('rec1', 'a')", &Insert{}, false},
	{"UPDATE Tasks SET Notes = 'x' WHERE Priority > 3", &Update{}, false},
	{"DELETE FROM Tasks WHERE Priority > 3", &Delete{}, false},
	{"DELETE FROM Tasks WHERE Priority > 3 RETURNING id", &Delete{}, true},
	{"EXPLAIN SELECT Name FROM Tasks", &Explain{}, true},
	{"EXPLAIN UPDATE Tasks SET Notes = 'x'", &Explain{}, true},
	{"DESCRIBE SELECT 1", &Explain{}, true},
	{"DESCRIBE Tasks", &ShowColumns{}, true},
	{"DESC `Team Members`", &ShowColumns{}, true},
	{"EXPLAIN Tasks", &ShowColumns{}, true},
	{"SHOW FULL COLUMNS FROM Tasks", &ShowColumns{}, true},
	{"SHOW COLUMNS FROM Tasks LIKE 'N%'", &ShowColumns{}, true},
	{"SHOW VARIABLES LIKE 'v%'", &ShowVariables{}, true},
	{"SHOW TABLE STATUS", &ShowQuery{}, true},
	{"SHOW CREATE TABLE Tasks", &ShowQuery{}, true},
	{"SHOW TABLES", &Show{}, true},
	{"SHOW SCHEMAS", &Show{}, true},
	{"SET @a = 1", &Set{}, false},
	{"SET NAMES utf8mb4", &Set{}, false},
	{"PREPARE s FROM 'SELECT 1'", &PreparedCommand{}, false},
	{"EXECUTE s", &PreparedCommand{}, true},
	{"DEALLOCATE PREPARE s", &PreparedCommand{}, false},
	{"BEGIN", &Begin{}, false},
	{"START TRANSACTION", &Begin{}, false},
	{"COMMIT", &Commit{}, false},
	{"ROLLBACK", &Rollback{}, false},
	{"USE app1", &Use{}, false},
	{"CREATE TABLE t (a int)", &DDL{}, false},
	{"ALTER TABLE t ADD COLUMN b text", &DDL{}, false},
	{"DROP TABLE t", &Other{}, false},
	{"KILL 7", &Kill{}, false},
	{"KILL QUERY 7", &Kill{}, false},
}

// TestReadKindsWithComments is the statement-kind × comment-prefix matrix of the front end: every
// kind, behind every prefix, reads as the same type, returning rows or not as it should.
func TestReadKindsWithComments(t *testing.T) {
	for _, c := range kindCases {
		for _, prefix := range commentPrefixes {
			sql := prefix + c.sql
			t.Run(fmt.Sprintf("%q", sql), func(t *testing.T) {
				st, err := Read(sql)
				if err != nil {
					t.Fatalf("Read: %v", err)
				}
				if got, want := reflect.TypeOf(st), reflect.TypeOf(c.kind); got != want {
					t.Fatalf("got %v, want %v", got, want)
				}
				if got := st.ReturnsRows(); got != c.rows {
					t.Errorf("ReturnsRows: got %v, want %v", got, c.rows)
				}
				if got := st.Text(); got != c.sql {
					t.Errorf("Text: got %q, want %q", got, c.sql)
				}
			})
		}
	}
}

// TestReadDetails: what each step reads from its statement.
func TestReadDetails(t *testing.T) {
	for _, c := range []struct {
		sql  string
		want Statement
	}{
		{"/* c */ DESCRIBE `a``b`;", &ShowColumns{text: text{"DESCRIBE `a``b`"}, Table: "a`b"}},
		{"DESC app1.Tasks", &ShowColumns{text: text{"DESC app1.Tasks"}, Table: "Tasks", Database: "app1"}},
		{"-- c\nSHOW FULL COLUMNS FROM `Tasks` FROM app1 LIKE 'N\\_%'", &ShowColumns{text: text{"SHOW FULL COLUMNS FROM `Tasks` FROM app1 LIKE 'N\\_%'"},
			Table: "Tasks", Database: "app1", Full: true, Like: `N\_%`, HasLike: true}},
		{"-- c\nSHOW GLOBAL VARIABLES LIKE 'v%';", &ShowVariables{text: text{"SHOW GLOBAL VARIABLES LIKE 'v%'"}, Global: true, Like: "v%"}},
		{"KILL CONNECTION 12", &Kill{text: text{"KILL CONNECTION 12"}, ID: 12}},
		{"KILL QUERY 3;", &Kill{text: text{"KILL QUERY 3"}, ID: 3, QueryOnly: true}},
		{"USE `my base`", &Use{text: text{"USE `my base`"}, Database: "my base"}},
		{"EXECUTE s USING @a", &PreparedCommand{text: text{"EXECUTE s USING @a"}, Kind: Execute, Name: "s", Using: []string{"a"}}},
	} {
		t.Run(c.sql, func(t *testing.T) {
			got, err := Read(c.sql)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, c.want) {
				t.Errorf("got %+v, want %+v", got, c.want)
			}
		})
	}
}

// TestReadErrors: what the front end refuses, and how.
func TestReadErrors(t *testing.T) {
	for _, c := range []struct {
		sql, want string
		syntax    bool // a *SyntaxError; otherwise an *UnsupportedError or a plain error
	}{
		{"", "empty", true},
		{"/* only a comment */ -- and another\n", "empty", true},
		{"/*!40101 SET NAMES utf8", "not closed", true},
		{"DESCRIBE", "without a table", false},
		{"DESCRIBE Tasks Name", "text after the table", false},
		{"EXPLAIN EXPLAIN SELECT 1", "EXPLAIN EXPLAIN", false},
		{"SHOW COLUMNS Tasks", "SHOW COLUMNS form", false},
		{"SHOW VARIABLES WHERE 1", "SHOW VARIABLES form", false},
		{"KILL", "write KILL", true},
		{"KILL 99999999999", "out of range", true},
		{"PREPARE s", "write PREPARE name FROM", true},
		{"INSERT INTO t (a) VALUES (1) RETURNING", "RETURNING without columns", false},
		{"INSERT INTO t (a) VALUES (1) RETURNING id FROM t", "RETURNING list", false},
		{"SELECT CAST(a AS YEAR) FROM t", "CAST to YEAR", false},
		{"SELECT * FROM t, LATERAL (SELECT 1) AS d", "LATERAL", false},
		{"SELECT FROM WHERE", "syntax error", true},
	} {
		t.Run(c.sql, func(t *testing.T) {
			st, err := Read(c.sql)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %T %v, want an error saying %q", st, err, c.want)
			}
			var se *SyntaxError
			if got := errors.As(err, &se); got != c.syntax {
				t.Errorf("a *SyntaxError: got %v, want %v (%T)", got, c.syntax, err)
			}
		})
	}
}

// TestVersionComments: /*!NNNNN text */ is part of the statement when NNNNN is at most the
// server's version (or absent), a comment otherwise, as MySQL reads it.
func TestVersionComments(t *testing.T) {
	for _, c := range []struct {
		sql  string
		kind Statement
		text string
	}{
		{"/*!40101 SET NAMES utf8mb4 */", &Set{}, "SET NAMES utf8mb4"},
		{"/*!40101 SET NAMES utf8mb4 */;", &Set{}, "SET NAMES utf8mb4"},
		{"/*! SET @a = 1 */", &Set{}, "SET @a = 1"},
		{"SELECT 1 /*!50000 + 1 */ AS n", &Select{}, "SELECT 1" + strings.Repeat(" ", 10) + "+ 1" + strings.Repeat(" ", 4) + "AS n"},
		{"SELECT 1 /*!999999 + 1 */ AS n", &Select{}, "SELECT 1" + strings.Repeat(" ", 18) + "AS n"},
		{"/*!50003 CREATE TABLE t (a int) */", &DDL{}, "CREATE TABLE t (a int)"},
		{"/* c */ /*!40014 SET @x = 0 */", &Set{}, "SET @x = 0"},
	} {
		t.Run(c.sql, func(t *testing.T) {
			st, err := Read(c.sql)
			if err != nil {
				t.Fatal(err)
			}
			if got, want := reflect.TypeOf(st), reflect.TypeOf(c.kind); got != want {
				t.Fatalf("got %v, want %v", got, want)
			}
			if st.Text() != c.text {
				t.Errorf("Text: got %q, want %q", st.Text(), c.text)
			}
		})
	}
	st, err := Read("SELECT 1 /*!50000 + 1 */ AS n")
	if err != nil {
		t.Fatal(err)
	}
	if got := sqlparser.String(st.(*Select).AST); got != "select 1 + 1 as n from dual" {
		t.Errorf("parsed as %s", got)
	}
}

// TestReturning: RETURNING is cut off at the top level only, never inside a string or a name.
func TestReturning(t *testing.T) {
	for _, c := range []struct{ sql, list string }{
		{"INSERT INTO `tasks` (`name`) VALUES ('a') RETURNING `id`", "id"},
		{"insert into t (a) values ('returning') returning id, Name as n;", "id, Name as n"},
		{"DELETE FROM t WHERE a = 1 RETURNING id", "id"},
		{"INSERT INTO t (`returning`) VALUES (1)", ""},
	} {
		t.Run(c.sql, func(t *testing.T) {
			st, err := Read(c.sql)
			if err != nil {
				t.Fatal(err)
			}
			var list sqlparser.SelectExprs
			switch w := st.(type) {
			case *Insert:
				list = w.Returning
			case *Delete:
				list = w.Returning
			}
			got := ""
			if list != nil {
				got = sqlparser.String(list)
			}
			if !strings.EqualFold(strings.ReplaceAll(got, "`", ""), strings.ReplaceAll(c.list, "`", "")) {
				t.Errorf("RETURNING list: got %q, want %q", got, c.list)
			}
		})
	}
}

// FuzzRead: no text makes Read panic, and a comment before a statement never changes what it is
// nor how it reads.
func FuzzRead(f *testing.F) {
	for _, c := range kindCases {
		f.Add(c.sql)
	}
	for _, s := range []string{"/*!*/", "/*!", "SELECT /*!*/ 1", "/*!40101 SET NAMES utf8 */", "SELECT 'a' -- x", "SET @a := 1",
		"SELECT * FROM t OFFSET 2", "SELECT TRIM(LEADING 'x' FROM a)", "SHOW INDEX FROM t WHERE Key_name = 'x'"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, sql string) {
		st, err := Read(sql)
		again, err2 := Read("/* c */ " + sql)
		if (err == nil) != (err2 == nil) {
			t.Fatalf("%q: %v; behind a comment: %v", sql, err, err2)
		}
		if err != nil {
			return
		}
		if reflect.TypeOf(st) != reflect.TypeOf(again) || st.ReturnsRows() != again.ReturnsRows() || st.Text() != again.Text() {
			t.Fatalf("%q read as %T %q; behind a comment as %T %q", sql, st, st.Text(), again, again.Text())
		}
	})
}

// TestSplit: a text splits at the ';' outside strings, names and comments; statements of nothing
// but comments are left out; what follows the last ';' is the rest.
func TestSplit(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []string
		rest string
	}{
		{"SELECT 1; SELECT 2;", []string{"SELECT 1", "SELECT 2"}, ""},
		{"SELECT 'a;b' FROM t WHERE `c;d` = \"e;f\"; SELECT 2", []string{"SELECT 'a;b' FROM t WHERE `c;d` = \"e;f\""}, " SELECT 2"},
		{"SELECT 1 /* ; */; -- trailing\n", []string{"SELECT 1 /* ; */"}, " -- trailing\n"},
		{";;SELECT 1;;", []string{"SELECT 1"}, ""},
		{"/* only */; # c\n;", nil, ""},
		{"SELECT 'unclosed;", nil, "SELECT 'unclosed;"},
		{"/*!40101 SET a = 1 */; SELECT 1;", []string{"/*!40101 SET a = 1 */", "SELECT 1"}, ""},
	} {
		got, rest := Split(c.in)
		if !reflect.DeepEqual(got, c.want) || rest != c.rest {
			t.Errorf("Split(%q) = %q, %q; want %q, %q", c.in, got, rest, c.want, c.rest)
		}
	}
}

// FuzzSplit: splitting never panics and loses no statement: each piece and the rest are parts of
// the text, in order.
func FuzzSplit(f *testing.F) {
	for _, s := range []string{"SELECT 1; SELECT 2", "SELECT ';'", "/* ; */ SELECT `;`", "SELECT \"a\\\";\"", "-- x\n;", "/*!1 ;*/;", "\f;"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		stmts, rest := Split(s)
		if !strings.HasSuffix(s, rest) {
			t.Fatalf("rest %q is not the end of %q", rest, s)
		}
		at := 0
		for _, st := range stmts {
			k := strings.Index(s[at:], st)
			if st == "" || k < 0 {
				t.Fatalf("piece %q is not in %q after byte %d", st, s, at)
			}
			at += k + len(st)
		}
	})
}
