package sqlvalue

import (
	"errors"
	"slices"
	"testing"
	"time"
)

// testEnv is a statement's environment for the type rules: a fixed clock and session.
type testEnv struct {
	now      time.Time
	database string
}

func (e testEnv) Now() time.Time        { return e.now }
func (e testEnv) Database() string      { return e.database }
func (e testEnv) User() (string, error) { return "me@localhost", nil }
func (e testEnv) ConnectionID() int64   { return 7 }
func (e testEnv) WeekFormat() int64     { return 0 }

// apply compiles a call as the planner does (Lookup, the entry's type rule once) and evaluates it
// over one row's argument values.
func apply(t *testing.T, env Env, name string, param any, args []Arg, vals []any) (v any, typ Type, nullable bool, err error) {
	t.Helper()
	fn, entry, ok := Lookup(name)
	if !ok {
		t.Fatalf("Lookup(%q): no such function", name)
	}
	fc := &Check{Name: name, SQL: name + "(…)", Args: args, Param: param, Env: env}
	typ, err = fn.Type(fc)
	if err != nil {
		return nil, 0, false, err
	}
	nullable = fn.MayBeNull || fc.Nullable
	if fn.Nullable != nil {
		nullable = fn.Nullable(fc.Args)
	}
	v, err = fn.Apply(&Call{Name: entry, SQL: fc.SQL, Type: typ, Args: fc.Args, Param: fc.Param}, vals)
	return v, typ, nullable, err
}

// TestFunctionsWithoutPlanner: the library's entries are usable with nothing of the planner: a
// Check and a Call describe the arguments, Env gives the statement's clock and session.
func TestFunctionsWithoutPlanner(t *testing.T) {
	now := time.Date(2024, 1, 5, 10, 11, 12, 345_000_000, time.UTC)
	env := testEnv{now: now}
	field := time.Date(2024, 1, 5, 10, 11, 12, 0, time.UTC)
	text := func(s string) Arg { return Arg{Type: Text, Const: true, Value: s, SQL: "'" + s + "'", Fsp: -1} }
	number := func(n int64) Arg { return Arg{Type: Int, Const: true, Value: n, Fsp: -1} }
	tests := []struct {
		name     string
		fn       string
		param    any
		args     []Arg
		vals     []any
		want     any
		wantType Type
		nullable bool
	}{
		{"CONCAT reads a number as its digits", "CONCAT", nil, []Arg{text("a"), number(1)}, []any{"a", int64(1)}, "a1", Text, false},
		{"CONCAT of NULL is NULL", "CONCAT", nil, []Arg{text("a"), {Type: Null, Fsp: -1}}, []any{"a", nil}, nil, Text, false},
		{"a DATETIME(3) argument is written with its fraction", "CONCAT", nil, []Arg{{Type: DateTime, Fsp: 3}}, []any{field}, "2024-01-05 10:11:12.000", Text, false},
		{"an alias reaches its entry", "LCASE", nil, []Arg{text("AbC")}, []any{"AbC"}, "abc", Text, false},
		{"COALESCE unifies its arguments' types", "COALESCE", nil, []Arg{{Type: Null, Nullable: true, Fsp: -1}, number(2)}, []any{nil, int64(2)}, int64(2), Int, false},
		{"NOW() is the statement's clock to the second", "NOW", nil, nil, nil, now.Truncate(time.Second), DateTime, false},
		{"NOW(3) keeps milliseconds", "NOW", nil, []Arg{number(3)}, []any{int64(3)}, now, DateTime, false},
		{"DATABASE() without one is NULL", "DATABASE", nil, nil, nil, nil, Text, true},
		{"CONNECTION_ID() is the session's", "CONNECTION_ID", nil, nil, nil, int64(7), Int, false},
		{"CAST AS DECIMAL(5,2) rounds to its scale", "CAST DECIMAL", CastTarget{Length: 5, Scale: 2}, []Arg{{Type: Float, Fsp: -1}}, []any{3.14159}, 3.14, Float, false},
		{"DATE_FORMAT", "DATE_FORMAT", nil, []Arg{{Type: DateTime, Fsp: 3}, text("%Y %D %r")}, []any{field, "%Y %D %r"}, "2024 5th 10:11:12 AM", Text, false},
		{"STR_TO_DATE of a date format is a DATE", "STR_TO_DATE", nil, []Arg{text("5th May 24"), text("%D %M %y")}, []any{"5th May 24", "%D %M %y"}, time.Date(2024, 5, 5, 0, 0, 0, 0, time.UTC), Date, true},
		{"DATE_ADD of a DATE and days is a DATE", "DATE_ADD", nil, []Arg{{Type: Date, Fsp: 0}, number(30), text("DAY")}, []any{time.Date(2024, 1, 31, 0, 0, 0, 0, time.UTC), int64(30), "DAY"}, time.Date(2024, 3, 1, 0, 0, 0, 0, time.UTC), Date, true},
		{"JSON_EXTRACT", "JSON_EXTRACT", nil, []Arg{{Type: JSON, Fsp: -1}, text("$.a[1]")}, []any{`{"a": [1, "x"]}`, "$.a[1]"}, `"x"`, JSON, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, typ, nullable, err := apply(t, env, tt.fn, tt.param, tt.args, tt.vals)
			if err != nil {
				t.Fatalf("got error %v, want %#v", err, tt.want)
			}
			if g, ok := got.(time.Time); ok {
				if w, ok := tt.want.(time.Time); !ok || !g.Equal(w) {
					t.Errorf("got %v, want %v", got, tt.want)
				}
			} else if got != tt.want {
				t.Errorf("got %#v, want %#v", got, tt.want)
			}
			if typ != tt.wantType {
				t.Errorf("got type %v, want %v", typ, tt.wantType)
			}
			if nullable != tt.nullable {
				t.Errorf("got nullable %v, want %v", nullable, tt.nullable)
			}
		})
	}
}

// TestFunctionErrorsWithoutPlanner: a type rule refuses arguments at planning; an evaluator's
// refusal of a row's values is the statement's error, typed as MySQL's.
func TestFunctionErrorsWithoutPlanner(t *testing.T) {
	env := testEnv{now: time.Date(2024, 1, 5, 0, 0, 0, 0, time.UTC)}
	t.Run("a unit that is not one", func(t *testing.T) {
		_, _, _, err := apply(t, env, "DATE_ADD", nil, []Arg{{Type: Date}, {Type: Int}, {Type: Text, Const: true, Value: "FORTNIGHT", SQL: "FORTNIGHT"}}, nil)
		if err == nil {
			t.Fatal("got no error, want one naming FORTNIGHT")
		}
	})
	t.Run("an invalid regular expression read from a row", func(t *testing.T) {
		_, _, _, err := apply(t, env, "REGEXP_LIKE", nil, []Arg{{Type: Text, Fsp: -1}, {Type: Text, Fsp: -1}}, []any{"abc", "a("})
		var re *RuntimeError
		if !errors.As(err, &re) {
			t.Fatalf("got %v, want a *RuntimeError", err)
		}
	})
	t.Run("text that is not JSON", func(t *testing.T) {
		_, _, _, err := apply(t, env, "JSON_EXTRACT", nil, []Arg{{Type: Text, Fsp: -1}, {Type: Text, Fsp: -1}}, []any{"{", "$"})
		var je *JSONError
		if !errors.As(err, &je) {
			t.Fatalf("got %v, want a *JSONError", err)
		}
	})
}

// TestNames: every name Names lists is found by Lookup under itself, once.
func TestNames(t *testing.T) {
	names := Names()
	if !slices.IsSorted(names) || len(slices.Compact(slices.Clone(names))) != len(names) {
		t.Fatalf("got %d names, not sorted and unique", len(names))
	}
	for _, n := range names {
		if _, entry, ok := Lookup(n); !ok || entry != n {
			t.Errorf("Lookup(%q): got entry %q, %v; want itself", n, entry, ok)
		}
	}
	if len(names) < 100 {
		t.Errorf("got %d functions, want the whole library (more than 100)", len(names))
	}
}
