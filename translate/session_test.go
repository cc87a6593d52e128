package translate

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// TestUserVariables: SET @name keeps a typed value per session, @name reads it (NULL when unset),
// names are read regardless of case, assignments see the earlier ones of the same SET, a refused
// SET assigns nothing, and NULL forgets a variable.
func TestUserVariables(t *testing.T) {
	sess := &Session{}
	set := func(sql string) error {
		t.Helper()
		stmt, err := Parse(sql)
		if err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
		st, ok := stmtSet(stmt)
		if !ok {
			t.Fatalf("%s: %T", sql, stmt)
		}
		return sess.Set(st, Args{Now: testNow})
	}
	for _, sql := range []string{
		"SET @n = 41 + 1", "SET @s = CONCAT('ab', 'c'), @t = CONCAT(@s, '!')", "SET @F = 2.5", "SET @b = TRUE",
		"SET @d = DATE('2024-02-29')", "SET @gone = 1", "SET @gone = NULL",
		"SET @w = @@wait_timeout, autocommit = 1", "SET @p = ?", "SET @k := 7, @m:=@k + 1", "SET @e = ':='",
	} {
		var err error
		if strings.Contains(sql, "?") {
			stmt, _ := Parse(sql)
			st, _ := stmtSet(stmt)
			err = sess.Set(st, Args{Positional: []any{"bound"}})
		} else {
			err = set(sql)
		}
		if err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
	for _, tc := range []struct {
		expr string
		want any
		typ  string
	}{
		{"@n", int64(42), "INT64"},
		{"@N", int64(42), "INT64"},
		{"@s", "abc", "TEXT"},
		{"@t", "abc!", "TEXT"},
		{"@f", 2.5, "FLOAT64"},
		{"@b", int64(1), "INT64"},
		{"@d", day(2024, 2, 29), "DATE"},
		{"@gone", nil, "TEXT"},
		{"@never", nil, "TEXT"},
		{"@w", int64(28800), "INT64"},
		{"@p", "bound", "TEXT"},
		{"@m", int64(8), "INT64"},
		{"@e", ":=", "TEXT"},
		{"@n * 2", int64(84), "INT64"},
		{"Priority + @n", int64(49), "INT64"}, // funcRow's Priority is 7
	} {
		got, col, err := evalExpr(t, tc.expr, Args{Session: sess})
		if err != nil || !reflect.DeepEqual(got, tc.want) || col.DatabaseType != tc.typ {
			t.Errorf("%s = %#v (%s), %v; want %#v (%s)", tc.expr, got, col.DatabaseType, err, tc.want, tc.typ)
		}
	}
	if got := sess.UserVariable("S"); got != "abc" {
		t.Errorf("UserVariable(S) = %#v", got)
	}
	// All or nothing: the refused assignment keeps @n and @new as they were.
	if err := set("SET @n = 1, @new = 2, time_zone = 'Europe/Paris'"); err == nil {
		t.Fatal("SET with a refused time_zone succeeded")
	}
	if sess.UserVariable("n") != int64(42) || sess.UserVariable("new") != nil {
		t.Errorf("a refused SET assigned: @n = %v, @new = %v", sess.UserVariable("n"), sess.UserVariable("new"))
	}
	// One SET, several placeholders: each assignment reads its own; an argument too many is refused.
	stmt, _ := Parse("SET @x = ?, @y = ? + 1")
	st, _ := stmtSet(stmt)
	if err := sess.Set(st, Args{Positional: []any{"x", int64(1)}}); err != nil || sess.UserVariable("x") != "x" || sess.UserVariable("y") != int64(2) {
		t.Errorf("SET @x = ?, @y = ? + 1: %v; @x = %v, @y = %v", err, sess.UserVariable("x"), sess.UserVariable("y"))
	}
	if err := sess.Set(st, Args{Positional: []any{"x", int64(1), 3}}); err == nil || !strings.Contains(err.Error(), "argument 3 is not used") {
		t.Errorf("three arguments for two placeholders: %v", err)
	}
	// Without a session, @x is NULL.
	if got, _, err := evalExpr(t, "@x", Args{}); err != nil || got != nil {
		t.Errorf("@x without a session: %v, %v", got, err)
	}
}

// TestUserVariableLimits: a session holds at most MaxUserVariables, names at most 64 characters.
func TestUserVariableLimits(t *testing.T) {
	sess := &Session{}
	var b strings.Builder
	b.WriteString("SET ")
	for i := range MaxUserVariables + 1 {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "@v%d = %d", i, i)
	}
	stmt, err := Parse(b.String())
	if err != nil {
		t.Fatal(err)
	}
	st, _ := stmtSet(stmt)
	if err := sess.Set(st, Args{}); err == nil || !strings.Contains(err.Error(), "MaxUserVariables") {
		t.Errorf("SET of %d variables: %v", MaxUserVariables+1, err)
	}
	// Text: at most MaxUserVariableBytes in all; NULL gives a variable's bytes back.
	half := MaxUserVariableBytes/2 + 1
	for _, step := range []struct {
		sql string
		ok  bool
	}{
		{fmt.Sprintf("SET @a = REPEAT('x', %d)", half), true},
		{fmt.Sprintf("SET @a = REPEAT('y', %d)", half), true}, // replaces @a's text
		{fmt.Sprintf("SET @b = REPEAT('x', %d)", half), false},
		{fmt.Sprintf("SET @a = NULL, @b = REPEAT('x', %d)", half), true},
	} {
		stmt, err := Parse(step.sql)
		if err != nil {
			t.Fatal(err)
		}
		st, _ := stmtSet(stmt)
		err = sess.Set(st, Args{})
		if step.ok != (err == nil) || err != nil && !strings.Contains(err.Error(), "MaxUserVariableBytes") {
			t.Errorf("%s: %v", step.sql, err)
		}
	}
	stmt, _ = Parse("SET @" + strings.Repeat("x", 65) + " = 1")
	st, _ = stmtSet(stmt)
	if err := sess.Set(st, Args{}); err == nil || !strings.Contains(err.Error(), "64 characters") {
		t.Errorf("a 65-character name: %v", err)
	}
}
