package translate

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/airsql/airsql/formula"
	"github.com/xwb1989/sqlparser"
)

// FuzzBindName binds arbitrary text to WHERE Name = ? and checks that the formula is exactly one
// comparison of {Name} with a string literal holding exactly that text: no argument can change the
// formula's structure.
func FuzzBindName(f *testing.F) {
	for _, seed := range []string{"a", "it's", `a\`, `\'`, `"`, "'", "') OR TRUE() OR ('", "x}", "{Name}", "\n\t\r", "\x00", "\xff\xfe", "é", "%_", "' & {Priority} & '", strings.Repeat("\\", 7)} {
		f.Add(seed)
	}
	schema := loadSchema(f)
	sel := parseSelect(f, "SELECT Name FROM Tasks WHERE Name = ?")
	f.Fuzz(func(t *testing.T, s string) {
		plan, err := selectPlan(sel, schema, Args{Positional: []any{s}})
		if err != nil {
			t.Fatal(err)
		}
		if !plan.Exact {
			t.Fatalf("Name = %q is not exact", s)
		}
		if !utf8.ValidString(s) {
			// No text of the service is invalid UTF-8: nothing matches, and no request is sent.
			if !plan.NoRows || plan.Request.Formula != "" {
				t.Fatalf("Name = %q: plan sends formula %q, want no request", s, plan.Request.Formula)
			}
			return
		}
		node, err := formula.Parse(plan.Request.Formula)
		if err != nil {
			t.Fatalf("formula %q does not parse: %v", plan.Request.Formula, err)
		}
		if s == "" {
			// Text is never "" (the service leaves empty cells out): guarded, so nothing matches.
			return
		}
		cmp, ok := node.(*formula.Binary)
		if !ok || cmp.Op != "=" {
			t.Fatalf("formula %q: got %T %s, want one = comparison", plan.Request.Formula, node, node)
		}
		ref, ok := cmp.L.(*formula.Reference)
		if !ok || ref.Name != "Name" {
			t.Fatalf("formula %q: left side %s, want {Name}", plan.Request.Formula, cmp.L)
		}
		lit, ok := cmp.R.(*formula.StringLit)
		if !ok || lit.Value != s {
			t.Fatalf("formula %q: right side %s, want the literal %q", plan.Request.Formula, cmp.R, s)
		}
	})
}

// FuzzSelect translates arbitrary SQL with an arbitrary text argument: it must never panic, every
// formula it writes must compile against the schema, and Keep, Values and Compare must run.
func FuzzSelect(f *testing.F) {
	inputs, _ := filepath.Glob("testdata/golden/*.sql")
	for _, in := range inputs {
		data, err := os.ReadFile(in)
		if err != nil {
			f.Fatal(err)
		}
		sql := string(data)
		if first, rest, ok := strings.Cut(sql, "\n"); ok && strings.HasPrefix(first, "--") {
			sql = rest
		}
		f.Add(strings.TrimSpace(sql), "a")
	}
	for _, cond := range append(slices.Clone(nullLogicConditions), functionConditions...) {
		f.Add("SELECT * FROM Tasks WHERE "+cond+" ORDER BY Priority LIMIT 3", "x'y")
	}
	schema := loadSchema(f)
	table, _ := schema.Table("Tasks")
	allRows := nullLogicRows()
	rows := allRows[:8]
	f.Fuzz(func(t *testing.T, sql, arg string) {
		stmt, err := Parse(sql)
		if err != nil {
			return
		}
		args := argsFor(stmt, []any{arg, int64(2), nil, 1.5, true}, map[string]any{"name": arg})
		switch stmt := stmt.(type) {
		case *sqlparser.Insert:
			_, _ = Insert(stmt, schema, args)
			return
		case *sqlparser.Update:
			if p, err := Update(stmt, schema, args); err == nil && p.Search.Query.Scan != nil && len(p.Search.Query.Subqueries) == 0 {
				for _, r := range rows {
					row := make([]any, len(p.Search.Query.Outputs))
					for i, o := range p.Search.Query.Outputs {
						row[i], _ = o.Value(&r)
					}
					_, _ = p.Fields(row)
				}
			}
			return
		case *sqlparser.Delete:
			_, _ = Delete(stmt, schema, args)
			return
		}
		sel, ok := stmt.(*sqlparser.Select)
		if !ok {
			return
		}
		// Every scan request the planner writes is exact or a superset.
		q, err := NewQuery(sel, schema, argsFor(stmt, []any{arg, int64(2), nil, 1.5, true}, map[string]any{"name": arg}))
		if err == nil && q.Scan != nil && q.Scan.Table == table && len(q.Subqueries) == 0 {
			checkPushdown(t, sql, q.Scan, table, allRows)
		}
		plan, err := selectPlan(sel, schema, args)
		if err != nil {
			return
		}
		dest := make([]any, len(plan.Columns))
		for _, r := range rows {
			if _, err := plan.Keep(r); err != nil {
				t.Fatalf("%s: Keep: %v", sql, err)
			}
			if err := plan.Values(r, dest); err != nil {
				t.Fatalf("%s: Values: %v", sql, err)
			}
		}
		byCompare := slices.Clone(rows)
		slices.SortStableFunc(byCompare, plan.Compare)
		plan.SortRows(rows)
		for i := range rows {
			if rows[i].ID != byCompare[i].ID {
				t.Fatalf("%s: SortRows puts %s at %d, a stable sort by Compare puts %s", sql, rows[i].ID, i, byCompare[i].ID)
			}
		}
	})
}

// checkPushdown runs the plan's formula with the formula package's evaluator over rows and compares
// it with the local SQL evaluation of WHERE: equal when the plan is exact, a superset otherwise.
func checkPushdown(t *testing.T, sql string, plan *Plan, table *Table, rows []Row) {
	t.Helper()
	var prog *formula.Program
	if plan.Request.Formula != "" {
		var err error
		if prog, err = formula.Compile(plan.Request.Formula, formulaSchema{table}); err != nil {
			t.Fatalf("%s: formula %q does not compile: %v", sql, plan.Request.Formula, err)
		}
	}
	var blanks *formula.Program
	if plan.Split != nil {
		var err error
		if blanks, err = formula.Compile(plan.Split.Blanks.Formula, formulaSchema{table}); err != nil {
			t.Fatalf("%s: formula %q does not compile: %v", sql, plan.Split.Blanks.Formula, err)
		}
	}
	if plan.where == nil && plan.Split == nil || plan.RecordIDs != nil {
		return
	}
	for _, r := range rows {
		want := true
		if plan.where != nil {
			v, err := plan.where.eval(&r)
			if err != nil {
				t.Fatalf("%s: %v", sql, err)
			}
			want = v == true
		}
		got := !plan.NoRows && (prog == nil || prog.Match(formulaRecord{r}, &formula.Env{}))
		if blanks != nil {
			// Split: the two requests together select the rows, and no row twice.
			inBlanks := blanks.Match(formulaRecord{r}, &formula.Env{})
			if got && inBlanks {
				t.Fatalf("%s: %s is selected by both the non-blank request %q and the blank one %q", sql, r.ID, plan.Request.Formula, plan.Split.Blanks.Formula)
			}
			got = got || inBlanks
		}
		if want && !got || plan.Exact && got != want {
			t.Fatalf("%s: formula %q (exact %v) selects %s: %v; SQL keeps it: %v", sql, plan.Request.Formula, plan.Exact, r.ID, got, want)
		}
	}
}

// argsFor gives the statement as many of the positional values as it has ? placeholders (cycling
// through them) and the named values its :name placeholders read, since unused arguments are an
// error.
func argsFor(stmt sqlparser.Statement, positional []any, named map[string]any) Args {
	args := Args{Now: testNow}
	_ = sqlparser.Walk(func(n sqlparser.SQLNode) (bool, error) {
		v, ok := n.(*sqlparser.SQLVal)
		if !ok || v.Type != sqlparser.ValArg {
			return true, nil
		}
		name := string(v.Val)
		if i, ok := positionalIndex(name); ok {
			for len(args.Positional) < i {
				args.Positional = append(args.Positional, positional[len(args.Positional)%len(positional)])
			}
			return true, nil
		}
		key := strings.TrimPrefix(name, ":")
		if a, ok := named[key]; ok {
			if args.Named == nil {
				args.Named = map[string]any{}
			}
			args.Named[key] = a
		}
		return true, nil
	}, stmt)
	return args
}
