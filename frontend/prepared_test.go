package frontend

import (
	"reflect"
	"strings"
	"testing"

	"github.com/xwb1989/sqlparser"
)

func TestReadPrepared(t *testing.T) {
	for _, tc := range []struct {
		sql  string
		want *PreparedCommand // nil: not one of these statements
		err  string
	}{
		{sql: "PREPARE s FROM 'SELECT * FROM t WHERE a = ?'", want: &PreparedCommand{Kind: Prepare, Name: "s", SQL: "SELECT * FROM t WHERE a = ?"}},
		{sql: "prepare `My S` from 'SELECT ''x'', \"y\"';", want: &PreparedCommand{Kind: Prepare, Name: "my s", SQL: `SELECT 'x', "y"`}},
		{sql: "PREPARE s FROM @Sql", want: &PreparedCommand{Kind: Prepare, Name: "s", FromVar: "sql"}},
		{sql: "EXECUTE s", want: &PreparedCommand{Kind: Execute, Name: "s"}},
		{sql: "EXECUTE S USING @a, @B ;", want: &PreparedCommand{Kind: Execute, Name: "s", Using: []string{"a", "b"}}},
		{sql: "DEALLOCATE PREPARE s", want: &PreparedCommand{Kind: Deallocate, Name: "s"}},
		{sql: "DROP PREPARE s;", want: &PreparedCommand{Kind: Deallocate, Name: "s"}},
		{sql: "SELECT 1"},
		{sql: "DROP TABLE t"},
		{sql: "DESCRIBE prepare"},
		{sql: "PREPARE s", err: "write PREPARE name FROM"},
		{sql: "PREPARE s FROM SELECT 1", err: "write PREPARE name FROM"},
		{sql: "PREPARE @s FROM 'SELECT 1'", err: "write PREPARE name FROM"},
		{sql: "EXECUTE s USING 1", err: "user variables"},
		{sql: "EXECUTE s USING @a,", err: "user variables"},
		{sql: "EXECUTE s USING @a @b", err: "write EXECUTE name"},
		{sql: "EXECUTE s USING @@sql_mode", err: "user variables"},
		{sql: "DEALLOCATE s", err: "DEALLOCATE PREPARE name"},
		{sql: "DEALLOCATE PREPARE s t", err: "DEALLOCATE PREPARE name"},
	} {
		got, ok, err := readPreparedText(tc.sql)
		switch {
		case tc.err != "":
			if !ok || err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s: %v, %v, %v; want an error saying %q", tc.sql, got, ok, err, tc.err)
			}
		case tc.want == nil:
			if ok {
				t.Errorf("%s: read as %+v", tc.sql, got)
			}
		case !ok || err != nil || !reflect.DeepEqual(got, tc.want):
			t.Errorf("%s: %+v, %v, %v; want %+v", tc.sql, got, ok, err, tc.want)
		}
	}
}

// FuzzReadPrepared: any text is read without a panic, and a command read writes back (String) as
// text that reads as the same command.
func FuzzReadPrepared(f *testing.F) {
	for _, s := range []string{"PREPARE s FROM 'SELECT ?'", "EXECUTE s USING @a, @b", "DROP PREPARE `x y`", "DEALLOCATE PREPARE s;",
		"PREPARE s FROM @q", "EXECUTE", "PREPARE s FROM '/*!*/'", "/*!*/ PREPARE"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, sql string) {
		cmd, ok, err := readPreparedText(sql)
		if !ok || err != nil {
			return
		}
		again, ok, err := readPreparedText(cmd.String())
		if !ok || err != nil || !reflect.DeepEqual(cmd, again) {
			t.Fatalf("%q read as %+v, written as %q, read back as %+v (%v, %v)", sql, cmd, cmd.String(), again, ok, err)
		}
	})
}

// FuzzRewriteSetAssign: any text is rewritten without a panic, and only by blanking the ':' of
// ":=" in a SET.
func FuzzRewriteSetAssign(f *testing.F) {
	for _, s := range []string{"SET @a := 1", "SET @a:=1, @b := ':='", "SELECT ':='", "SET @a /* := */ := 2", "SET @a:", "SET /*!*/ :="} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, sql string) {
		out := applyStep(sql, (*source).setAssignEdits)
		if len(out) != len(sql) {
			t.Fatalf("%q rewritten as %q", sql, out)
		}
		for i := range sql {
			if out[i] != sql[i] && !(sql[i] == ':' && out[i] == ' ' && i+1 < len(sql) && sql[i+1] == '=') {
				t.Fatalf("%q rewritten as %q: byte %d", sql, out, i)
			}
		}
	})
}

// readPreparedText reads a statement with Read; ok is false when it is not PREPARE, EXECUTE or
// DEALLOCATE (or when it is, but malformed, so that Read says only that it is a syntax error).
func readPreparedText(sql string) (*PreparedCommand, bool, error) {
	src, err := lex(sql)
	if err != nil || len(src.toks) == 0 {
		return nil, false, nil
	}
	if !(src.word(0, "prepare") || src.word(0, "execute") || src.word(0, "deallocate") || src.toks[0].typ == sqlparser.DROP && src.word(1, "prepare")) {
		return nil, false, nil
	}
	cmd, err := src.readPrepared()
	return cmd, true, err
}
