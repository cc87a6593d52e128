package frontend

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/xwb1989/sqlparser"
)

// labelsOf reads a SELECT and returns its labels in select-list order ("" for * and t.*).
func labelsOf(t testing.TB, sql string) []string {
	t.Helper()
	st, err := Read(sql)
	if err != nil {
		t.Fatalf("Read(%q): %v", sql, err)
	}
	var sel *Select
	switch s := st.(type) {
	case *Select:
		sel = s
	case *Insert:
		out := []string{}
		for _, se := range s.Returning {
			ae, _ := se.(*sqlparser.AliasedExpr)
			out = append(out, s.ReturningLabels[ae])
		}
		return out
	default:
		t.Fatalf("Read(%q) is a %T", sql, st)
	}
	var out []string
	for _, se := range leftmostSelect(sel.AST).SelectExprs {
		ae, _ := se.(*sqlparser.AliasedExpr)
		out = append(out, sel.Labels[ae])
	}
	return out
}

// TestLabels: MySQL's column labels, read from the text (MariaDB 10.11 gives the same; checked by
// the oracle test).
func TestLabels(t *testing.T) {
	for _, c := range []struct {
		sql  string
		want []string
	}{
		{"SELECT Status AS Status, Name AS Comment, Due AS Date FROM t", []string{"Status", "Comment", "Date"}},
		{"SELECT p.Name, d.m, `x`.`y z`, p.`a``b` FROM t", []string{"Name", "m", "y z", "a`b"}},
		{"SELECT 7/2, TRUNCATE(AVG(Priority),2), COUNT(DISTINCT Notes), ROUND( AVG(x) , 1 )", []string{"7/2", "TRUNCATE(AVG(Priority),2)", "COUNT(DISTINCT Notes)", "ROUND( AVG(x) , 1 )"}},
		{"SELECT 'it''s', \"x\", (('y')), 1.50, (1), NULL, -3, -(1), X'41'", []string{"it's", "x", "y", "1.50", "1", "NULL", "-3", "-(1)", "X'41'"}},
		{"SELECT 1 /* c */ + 2, a -- c\n+ 1 FROM t", []string{"1 /* c */ + 2", "a -- c\n+ 1"}},
		{"SELECT 1 /*!50000 + 1 */", []string{"1" + strings.Repeat(" ", 10) + "+ 1"}},
		{"SELECT SQL_NO_CACHE DISTINCT a b, c `d` FROM t", []string{"b", "d"}},
		{"SELECT ' abc', '\tx', 1 AS `  sp`, 'a😀b'", []string{"abc", "x", "sp", "a?b"}},
		{"SELECT *, t.*, a FROM t", []string{"", "", "a"}},
		{"(SELECT a AS First FROM t) UNION (SELECT b FROM u)", []string{"First"}},
		{"SELECT x FROM t UNION SELECT y FROM u", []string{"x"}},
		{"SELECT NTH_VALUE(Name, 2) FROM FIRST OVER w, NTH_VALUE(x, 1) FROM FIRST OVER (ORDER BY y) AS z FROM t WINDOW w AS ()", []string{"NTH_VALUE(Name, 2) FROM FIRST OVER w", "z"}},
		{"WITH w (c) AS (SELECT a FROM t), v AS (SELECT 1) SELECT MAX(c), w.c FROM w", []string{"MAX(c)", "c"}},
		{"SELECT (SELECT MAX(a) FROM t) , f(a, (b)) FROM t", []string{"(SELECT MAX(a) FROM t)", "f(a, (b))"}},
		{"INSERT INTO t (a) VALUES (1) RETURNING id, a*10, a AS Status", []string{"id", "a*10", "Status"}},
		{"SELECT '" + strings.Repeat("é", 300) + "'", []string{strings.Repeat("é", 256)}},
	} {
		t.Run(c.sql, func(t *testing.T) {
			got := labelsOf(t, c.sql)
			if strings.Join(got, "|") != strings.Join(c.want, "|") || len(got) != len(c.want) {
				t.Errorf("got %q, want %q", got, c.want)
			}
		})
	}
}

// FuzzLabels: labelling never panics, and a label is a name MySQL could keep: at most 256
// characters of the Basic Multilingual Plane, without leading blanks.
func FuzzLabels(f *testing.F) {
	for _, s := range []string{"SELECT a, b AS c, 7/2 FROM t", "SELECT ' x', (1), t.*", "WITH a AS (SELECT 1) SELECT * FROM a",
		"(SELECT 1) UNION (SELECT 2)", "INSERT INTO t VALUES (1) RETURNING id, 2*a", "SELECT 'a😀', `b` FROM t"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, sql string) {
		st, err := Read(sql)
		if err != nil {
			return
		}
		var labels Labels
		switch s := st.(type) {
		case *Select:
			labels = s.Labels
		case *Insert:
			labels = s.ReturningLabels
		}
		for _, l := range labels {
			if utf8.RuneCountInString(l) > maxLabel || strings.TrimLeft(l, " \t\r\n") != l {
				t.Fatalf("%q: label %q", sql, l)
			}
			for _, r := range l {
				if r > 0xFFFF {
					t.Fatalf("%q: label %q holds %q", sql, l, r)
				}
			}
		}
	})
}
