package frontend

import (
	"strings"
	"testing"

	"github.com/xwb1989/sqlparser"
)

// TestLikeEscapesInSQLText: \% and \_ in a string literal stay a backslash and the character, as
// in MySQL, so that LIKE '50\%' matches a literal percent sign (the pinned sqlparser alone would
// read '50\%' as the wildcard pattern 50%).
func TestLikeEscapesInSQLText(t *testing.T) {
	tests := []struct{ sql, want string }{
		{`SELECT a FROM t WHERE a LIKE '50\%'`, `50\%`},
		{`SELECT a FROM t WHERE a LIKE '50\\%'`, `50\%`},
		{`SELECT a FROM t WHERE a LIKE "a\_b"`, `a\_b`},
		{`SELECT a FROM t WHERE a LIKE 'it''s \_'`, `it's \_`},
		{`SELECT a FROM t WHERE a LIKE 'x\'\_'`, `x'\_`},
		{`SELECT a FROM t WHERE a LIKE 'tab\t%'`, "tab\t%"},
		{`SELECT a FROM t WHERE a LIKE '\\\%'`, `\\%`},
		{"SELECT `b\\_c` FROM t WHERE a LIKE '\\_' -- it's \\_\n", `\_`},
		{"SELECT a FROM t /* '\\_ */ WHERE a LIKE '%\\_%'", `%\_%`},
	}
	for _, tt := range tests {
		stmt, err := ParseSQL(tt.sql)
		if err != nil {
			t.Errorf("Parse(%q): %v", tt.sql, err)
			continue
		}
		var got string
		_ = sqlparser.Walk(func(n sqlparser.SQLNode) (bool, error) {
			if v, ok := n.(*sqlparser.SQLVal); ok && v.Type == sqlparser.StrVal && got == "" {
				got = string(v.Val)
			}
			return true, nil
		}, stmt)
		if got != tt.want {
			t.Errorf("Parse(%q): the string reads %q, want %q", tt.sql, got, tt.want)
		}
	}
	// A backquoted name keeps its backslash as written (MySQL reads no escapes there).
	stmt, err := ParseSQL("SELECT `b\\_c` FROM t")
	if err != nil {
		t.Fatal(err)
	}
	if got := sqlparser.String(stmt.(*sqlparser.Select).SelectExprs); !strings.Contains(got, `b\_c`) || strings.Contains(got, `b\\_c`) {
		t.Errorf("backquoted name read as %s", got)
	}
}

// FuzzKeepLikeEscapes: the rewrite never panics, leaves text without \% or \_ alone, and only ever
// adds backslashes.
func FuzzKeepLikeEscapes(f *testing.F) {
	for _, s := range []string{`'50\%'`, `"\_"`, "`\\_`", "# '\\_\n'\\%'", `'\\\%'`, `'unterminated \_`, `/* '\_ */`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := keepLikeEscapes(s)
		if !strings.Contains(s, `\%`) && !strings.Contains(s, `\_`) && out != s {
			t.Fatalf("changed %q to %q", s, out)
		}
		if strings.ReplaceAll(out, `\`, "") != strings.ReplaceAll(s, `\`, "") {
			t.Fatalf("%q became %q: more than backslashes changed", s, out)
		}
		_, _ = ParseSQL(s)
	})
}

// applyStep runs one rewrite step on a statement and applies its edits to the text as written
// (comments included), for the tests and fuzz targets of each step.
func applyStep(sql string, step func(*source) []textEdit) string {
	src, err := lex(sql)
	if err != nil {
		return sql
	}
	edits := step(src)
	var b strings.Builder
	pos := 0
	for _, e := range edits {
		b.WriteString(sql[pos:e.start])
		b.WriteString(e.text)
		pos = e.end
	}
	b.WriteString(sql[pos:])
	return b.String()
}
