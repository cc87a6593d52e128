package frontend

import (
	"strings"
	"testing"
)

func TestRewriteShow(t *testing.T) {
	for _, c := range []struct {
		in, table, db, contains string
		ok                      bool
		err                     string
	}{
		{in: "SHOW TABLES", ok: false},
		{in: "SELECT 1", ok: false},
		{in: "show table status", ok: true, contains: "TABLE_SCHEMA = DATABASE() ORDER BY Name"},
		{in: "SHOW TABLE STATUS IN `app1` LIKE 'T\\_%';", ok: true, db: "app1", contains: "TABLE_SCHEMA = 'app1' AND TABLE_NAME LIKE 'T\\_%' ORDER BY Name"},
		{in: "SHOW CREATE TABLE `it's`", ok: true, table: "it's", contains: "TABLE_NAME = 'it''s'"},
		{in: "SHOW CREATE TABLE app1.`a``b`", ok: true, table: "a`b", db: "app1", contains: "TABLE_NAME = 'a`b'"},
		{in: "SHOW INDEXES FROM Tasks IN app1 WHERE Key_name = 'PRIMARY'", ok: true, table: "Tasks", db: "app1", contains: ") AS s WHERE Key_name = 'PRIMARY' ORDER BY Key_name"},
		{in: "SHOW INDEX FROM Tasks LIKE 'x'", ok: true, err: "WHERE"},
		{in: "SHOW CHARSET LIKE 'utf8%'", ok: true, contains: "WHERE `Charset` LIKE 'utf8%'"},
		{in: "SHOW COLLATION WHERE", ok: true, err: "WHERE without a condition"},
		{in: "SHOW COLLATION LIKE 'a' 'b'", ok: true, err: "LIKE 'pattern'"},
		{in: "SHOW CREATE TABLE", ok: true, err: "name a table"},
		{in: "SHOW INDEX FROM A 0", ok: true, err: "text after"}, // found by FuzzRewriteShow: an error was lost
		{in: "SHOW STORAGE ENGINES", ok: true, contains: "'Airtable' AS Engine"},
		{in: "SHOW REPLICA STATUS", ok: true, contains: "FROM information_schema.REPLICA_STATUS ORDER BY `Table`"},
		{in: "show slave status;", ok: true, contains: "FROM information_schema.REPLICA_STATUS"},
		{in: "SHOW REPLICA STATUS FOR CHANNEL 'x'", ok: true, err: "text after"},
	} {
		sq, ok, err := rewriteShowText(c.in)
		if ok != c.ok {
			t.Errorf("%s: ok = %v", c.in, ok)
			continue
		}
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%s: err = %v, want %q", c.in, err, c.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", c.in, err)
			continue
		}
		if !ok {
			continue
		}
		if sq.Table != c.table || sq.Database != c.db || !strings.Contains(sq.SQL, c.contains) {
			t.Errorf("%s: got %+v, want table %q db %q and SQL containing %q", c.in, sq, c.table, c.db, c.contains)
		}
		if _, err := ParseSQL(sq.SQL); err != nil {
			t.Errorf("%s: the SELECT does not parse: %v\n%s", c.in, err, sq.SQL)
		}
	}
}

// FuzzRewriteShow: no input panics, and a name or pattern never leaves its literal — what is
// rewritten without a WHERE condition always parses as one SELECT.
func FuzzRewriteShow(f *testing.F) {
	for _, s := range []string{"SHOW TABLE STATUS LIKE 'x'", "SHOW CREATE TABLE `a'b`", "SHOW INDEX FROM t FROM d",
		"SHOW CHARSET WHERE Maxlen > 1", "SHOW COLLATION", "SHOW ENGINES;", "SHOW REPLICA STATUS", "SHOW CREATE TABLE a.b", "show keys in `x\\`"} {
		f.Add(s)
	}
	f.Add("SHOW FULL COLUMNS FROM `t` FROM `d` LIKE '%'")
	f.Fuzz(func(t *testing.T, q string) {
		readShowColumnsText(q) // no panic, whatever the input
		sq, ok, err := rewriteShowText(q)
		if !ok || err != nil || strings.Contains(strings.ToLower(q), "where") {
			return
		}
		if _, err := ParseSQL(sq.SQL); err != nil {
			t.Fatalf("%q rewritten to a statement that does not parse: %v\n%s", q, err, sq.SQL)
		}
	})
}

func TestParseShowColumns(t *testing.T) {
	for _, c := range []struct {
		in   string
		ok   bool
		want *ShowColumns
		err  string
	}{
		{in: "SHOW COLUMNS FROM Tasks", ok: true, want: &ShowColumns{Table: "Tasks"}},
		{in: "show full fields in `a``b` in app1 like 'x\\_%';", ok: true, want: &ShowColumns{Table: "a`b", Database: "app1", Full: true, Like: `x\_%`, HasLike: true}},
		{in: "SHOW FULL COLUMNS FROM `app1`.`Tasks` LIKE 'it''s'", ok: true, want: &ShowColumns{Table: "Tasks", Database: "app1", Full: true, Like: "it's", HasLike: true}},
		{in: "SHOW COLUMNS Tasks", ok: true, err: "SHOW COLUMNS form"},
		{in: "SHOW COLUMNS FROM", ok: true, err: "without a table"},
		{in: "SHOW COLUMNS FROM t WHERE Field = 'x'", ok: true, err: "LIKE"},
		{in: "SHOW COLUMNS FROM t x", ok: true, err: "text after"},
		{in: "SHOW TABLES", ok: false},
		{in: "DESCRIBE t", ok: false},
	} {
		got, ok, err := readShowColumnsText(c.in)
		if ok != c.ok {
			t.Errorf("%s: ok = %v", c.in, ok)
			continue
		}
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%s: err = %v, want %q", c.in, err, c.err)
			}
			continue
		}
		if !ok {
			continue
		}
		if err != nil || *got != *c.want {
			t.Errorf("%s: %+v, %v; want %+v", c.in, got, err, c.want)
		}
	}
}

// rewriteShowText and readShowColumnsText run one step of Read on a statement's text.
func rewriteShowText(q string) (*ShowQuery, bool, error) {
	src, err := lex(q)
	if err != nil || !src.word(0, "show") {
		return nil, false, nil
	}
	return src.rewriteShow()
}

func readShowColumnsText(q string) (*ShowColumns, bool, error) {
	src, err := lex(q)
	if err != nil || !src.word(0, "show") {
		return nil, false, nil
	}
	return src.readShowColumns()
}

func parseDDL(q string) (*DDL, bool, error) {
	src, err := lex(q)
	if err != nil {
		return nil, false, nil
	}
	return src.readDDL()
}

// FuzzReadShowVariables: reading SHOW VARIABLES never panics, and a pattern it returns is a part of
// the statement.
func FuzzReadShowVariables(f *testing.F) {
	for _, s := range []string{"SHOW VARIABLES", "SHOW SESSION VARIABLES LIKE 'sql\\_mode'", "show global variables like 'a''b';", "SHOW VARIABLES WHERE 1", "SHOW /* x */ VARIABLES LIKE \"%\""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, sql string) {
		src, err := lex(sql)
		if err != nil || !src.word(0, "show") {
			return
		}
		sv, ok, err := src.readShowVariables()
		if ok && err == nil && !strings.Contains(sql, sv.Like) {
			t.Fatalf("%q: pattern %q is not in the statement", sql, sv.Like)
		}
	})
}
