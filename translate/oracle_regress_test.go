package translate

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/airsql/airsql/formula"
	"github.com/airsql/airsql/sqlvalue"
)

// Regression tests for differences the MariaDB oracle (internal/oracle, issue 11) found.

// TestOracleConstantInColumnList: a constant on the left of IN with a column among the items
// ('2024-01-05' IN (Due, …)) was refused ("cannot compare TEXT with DATE"): the constant took the
// left operand's place and could not take the type of each item. MySQL converts it per item.
func TestOracleConstantInColumnList(t *testing.T) {
	schema := loadSchema(t)
	table, _ := schema.Table("Tasks")
	rows := []Row{
		{ID: "recBLANK000000000", Fields: map[string]any{}},
		{ID: "recJAN05000000000", Fields: map[string]any{"Due": "2024-01-05", "Priority": 2.0}},
		{ID: "recFEB01000000000", Fields: map[string]any{"Due": "2024-02-01"}},
		{ID: "recDEC31000000000", Fields: map[string]any{"Due": "2023-12-31", "Priority": 1.0}},
	}
	tests := []struct {
		where string
		want  []string
	}{
		{"'2024-01-05' IN (Due, '2024-02-01')", []string{"recJAN05000000000"}},
		{"'2024-01-05' NOT IN (Due, '2024-02-01')", []string{"recFEB01000000000", "recDEC31000000000"}},
		{"'2024-01-05' IN (Due)", []string{"recJAN05000000000"}},
		{"NOT ('2024-01-05' IN (Due, NULL))", nil},
		{"'2' IN (Priority, 7)", []string{"recJAN05000000000"}},
		{"1 NOT IN (Priority)", []string{"recJAN05000000000"}},
	}
	env := &formula.Env{}
	for _, tt := range tests {
		t.Run(tt.where, func(t *testing.T) {
			plan, err := selectPlan(parseSelect(t, "SELECT Name FROM Tasks WHERE "+tt.where), schema, Args{})
			if err != nil {
				t.Fatal(err)
			}
			var kept, selected []string
			var prog *formula.Program
			if plan.Request.Formula != "" {
				if prog, err = formula.Compile(plan.Request.Formula, formulaSchema{table}); err != nil {
					t.Fatalf("formula %s: %v", plan.Request.Formula, err)
				}
			}
			for _, r := range rows {
				v, err := plan.where.eval(&r)
				if err != nil {
					t.Fatal(err)
				}
				if v == true {
					kept = append(kept, r.ID)
				}
				if !plan.NoRows && (prog == nil || prog.Match(formulaRecord{r}, env)) {
					selected = append(selected, r.ID)
				}
			}
			if !slices.Equal(kept, tt.want) {
				t.Errorf("SQL keeps %v, want %v", kept, tt.want)
			}
			if plan.Exact && !slices.Equal(selected, tt.want) {
				t.Errorf("exact formula %q selects %v, want %v", plan.Request.Formula, selected, tt.want)
			}
		})
	}
}

// TestOracleCoalesceOfNullLiteral: COALESCE(NULL, 0) (or IFNULL(NULL, x)) in a pushed condition
// wrote "IF(, 0, BLANK())": the NULL literal's "is NULL" test is the always-true formula, which
// is written as nothing. The service answered 422 INVALID_FILTER_BY_FORMULA.
func TestOracleCoalesceOfNullLiteral(t *testing.T) {
	schema := loadSchema(t)
	table, _ := schema.Table("Tasks")
	rows := nullLogicRows()
	env := &formula.Env{}
	for _, where := range []string{
		"COALESCE(NULL, 0) NOT IN (-3, -Priority, 1000)",
		"COALESCE(NULL, Priority, 1) > 1",
		"IFNULL(NULL, Priority) = 2",
		"COALESCE(NULL, NULL, Name) = 'a'",
		"COALESCE(Priority, NULL, 5) = 5",
	} {
		t.Run(where, func(t *testing.T) {
			plan, err := selectPlan(parseSelect(t, "SELECT Name FROM Tasks WHERE "+where), schema, Args{})
			if err != nil {
				t.Fatal(err)
			}
			if strings.Contains(plan.Request.Formula, "(,") || strings.Contains(plan.Request.Formula, ", ,") {
				t.Fatalf("formula with an empty argument: %s", plan.Request.Formula)
			}
			prog, err := formula.Compile(plan.Request.Formula, formulaSchema{table})
			if plan.Request.Formula != "" && err != nil {
				t.Fatalf("formula %s does not compile: %v", plan.Request.Formula, err)
			}
			for _, r := range rows {
				v, err := plan.where.eval(&r)
				if err != nil {
					t.Fatal(err)
				}
				if plan.Exact && plan.Request.Formula != "" && prog.Match(formulaRecord{r}, env) != (v == true) {
					t.Errorf("row %s: exact formula %s says %v, SQL says %v", r.ID, plan.Request.Formula, !(v == true), v)
				}
			}
		})
	}
}

// TestOracleDatetimeColumnAsText: a DATETIME column is DATETIME(3) (information_schema says
// datetime(3)), and MySQL writes it as text with its 3 fraction digits, midnight and whole seconds
// too ('2024-03-01 10:05:03.250', not '…03.25'; never a bare date). Expressions keep the largest
// precision of their time arguments (IFNULL, DATE_ADD); NOW() has none.
func TestOracleDatetimeColumnAsText(t *testing.T) {
	tests := []struct {
		sql  string
		want any
	}{
		{"CONCAT(`Updated At`, '')", "2024-03-01 10:05:03.250"},
		{"CONCAT(`Updated At` - INTERVAL 10 HOUR - INTERVAL 5 MINUTE - INTERVAL 3.25 SECOND, '')", "2024-03-01 00:00:00.000"},
		{"CONCAT(DATE_ADD(`Updated At`, INTERVAL 1 DAY), '')", "2024-03-02 10:05:03.250"},
		{"CONCAT(IFNULL(`Updated At`, NOW()), '')", "2024-03-01 10:05:03.250"},
		{"CONCAT(IFNULL(Due, `Updated At`), '')", "2024-02-29 00:00:00.000"},
		{"CONCAT(Due, '')", "2024-02-29"},
		{"IFNULL(`Updated At`, 'x')", "2024-03-01 10:05:03.250"},
		{"CAST(CAST(`Updated At` AS DATETIME) AS CHAR)", "2024-03-01 10:05:03"},
		{"`Updated At` LIKE '%03.250'", int64(1)},
	}
	for _, tt := range tests {
		t.Run(tt.sql, func(t *testing.T) {
			got, _, err := evalExpr(t, tt.sql, Args{})
			if err != nil {
				t.Fatal(err)
			}
			if !sameValue(got, tt.want) {
				t.Errorf("got %#v, want %#v", got, tt.want)
			}
		})
	}
}

// TestOracleTextConstantAgainstNumberConstant: a number constant compared with text that is not a
// number and is computed from constants (65535 >= COALESCE(?, 'india'), TRIM('null') <= 79) was
// refused as "the number column 65535"; MySQL compares the two as numbers, the text by its numeric
// prefix. Against a column such text is still refused, naming the column.
func TestOracleTextConstantAgainstNumberConstant(t *testing.T) {
	tests := []struct {
		sql  string
		args Args
		want any
	}{
		{"65535 >= COALESCE(?, 'india}{')", Args{Positional: []any{"FOXTROTİstanbul"}}, int64(1)},
		{"TRIM('null') <= 79", Args{}, int64(1)},
		{"LTRIM(?) < -11", Args{Positional: []any{"kiloécole"}}, int64(0)},
		{"UPPER(' 12abc') = 12", Args{}, int64(1)},
		{"-1 IN (TRIM('-1x'), 5)", Args{}, int64(1)},
	}
	for _, tt := range tests {
		t.Run(tt.sql, func(t *testing.T) {
			got, _, err := evalExpr(t, tt.sql, tt.args)
			if err != nil {
				t.Fatal(err)
			}
			if b, ok := got.(bool); ok {
				got = sqlvalue.BoolInt(b)
			}
			if !sameValue(got, tt.want) {
				t.Errorf("got %#v, want %#v", got, tt.want)
			}
		})
	}
	_, _, err := evalExpr(t, "Priority = 'high'", Args{})
	if err == nil || !strings.Contains(err.Error(), "number column Priority") || !strings.Contains(err.Error(), "not a number") {
		t.Errorf("Priority = 'high': %v, want a refusal naming the column", err)
	}
}

// TestOracleFloatAsText: a FLOAT64 written as text is MySQL's my_gcvt form — positional from 1e-15
// up to 1e15, an exponent beyond, -0 as 0 — not Go's %g (1e+12) nor an exponent below 1e-6.
func TestOracleFloatAsText(t *testing.T) {
	for _, tt := range []struct{ sql, want string }{
		{"CONCAT(1e12)", "1000000000000"},
		{"CONCAT(-1e12 / 8)", "-125000000000"},
		{"CONCAT(2.4989333333333334e-7)", "0.00000024989333333333334"},
		{"CONCAT(-4.656612875245797e-10)", "-0.0000000004656612875245797"},
		{"CONCAT(1e-15)", "0.000000000000001"},
		{"CONCAT(1e-16)", "1e-16"},
		{"CONCAT(999999999999999e0)", "999999999999999"},
		{"CONCAT(1e15)", "1e15"},
		{"CONCAT(-2.5e21)", "-2.5e21"},
		{"CONCAT(-0e0)", "0"},
		{"CONCAT(0.1 + 0.2e0)", "0.30000000000000004"},
	} {
		t.Run(tt.sql, func(t *testing.T) {
			got, _, err := evalExpr(t, tt.sql, Args{})
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("got %#v, want %q", got, tt.want)
			}
		})
	}
}

// TestOracleBigintOverflow: integer arithmetic beyond BIGINT is MySQL's error 1690 ("BIGINT value
// is out of range"), not a DOUBLE; a DOUBLE operand keeps it a DOUBLE.
func TestOracleBigintOverflow(t *testing.T) {
	for _, sql := range []string{
		"9223372036854775807 + Priority",
		"-9223372036854775807 - Priority - Priority",
		"Priority * 3000000000000000000",
		"-(-9223372036854775807 - 1)",
	} {
		t.Run(sql, func(t *testing.T) {
			_, _, err := evalExpr(t, sql, Args{})
			if err == nil || !strings.Contains(err.Error(), "BIGINT value is out of range") {
				t.Errorf("%v, want MySQL's BIGINT out-of-range error", err)
			}
		})
	}
	got, _, err := evalExpr(t, "Priority * 3e18", Args{})
	if err != nil || got != 2.1e19 {
		t.Errorf("Priority * 3e18: %#v, %v; want 2.1e19", got, err)
	}
	got, _, err = evalExpr(t, "9223372036854775800 + Priority", Args{})
	if err != nil || got != int64(9223372036854775807) {
		t.Errorf("at the edge: %#v, %v", got, err)
	}
}

// TestOracleBoundBoolAmongConstants: TRUE IN (2, ?) bound to false (oracle seed 2010) was pushed
// as the formula "2" — true for every record — and marked exact: the pusher compared the bound
// constant as if it were a checkbox and wrote the other constant as its formula. Two constants
// compare to a constant.
func TestOracleBoundBoolAmongConstants(t *testing.T) {
	schema := loadSchema(t)
	tests := []struct {
		where   string
		arg     any
		formula string // the request's filterByFormula
	}{
		{"TRUE IN (2, ?)", false, formulaNone},
		{"NOT (TRUE NOT IN (2, ?))", false, formulaNone},
		{"TRUE IN (2, ?)", true, ""},
		{"? = TRUE", false, formulaNone},
		{"Done = ?", true, "{Done}"},
	}
	for _, tt := range tests {
		t.Run(tt.where, func(t *testing.T) {
			plan, err := selectPlan(parseSelect(t, "SELECT Name FROM Tasks WHERE "+tt.where), schema, Args{Positional: []any{tt.arg}})
			if err != nil {
				t.Fatal(err)
			}
			got := plan.Request.Formula
			if plan.NoRows {
				got = formulaNone
			}
			if got != tt.formula {
				t.Errorf("formula %q (no rows: %v), want %q", plan.Request.Formula, plan.NoRows, tt.formula)
			}
		})
	}
}

// TestOracleAliasHidesTableName: an aliased table is named by its alias only (MySQL). Inside FROM
// Tasks AS s, Tasks.Name names the outer query's Tasks: the oracle's seeds 103, 722 and 2543 read
// it as s.Name, so that EXISTS (… WHERE s.Name = Tasks.Name) was true for every row and a
// correlated scalar subquery ran as an uncorrelated one. At the top level, FROM Tasks AS t WHERE
// Tasks.Name … names no table of the FROM.
func TestOracleAliasHidesTableName(t *testing.T) {
	schema := loadSchema(t)
	plan := func(sql string) (*Query, error) {
		return NewQuery(parseSelect(t, sql), schema, Args{})
	}
	// Decorrelated: the inner query reads every Name (no formula of its own), the outer key is
	// the outer Tasks' Name.
	q, err := plan("SELECT Name FROM Tasks WHERE EXISTS (SELECT 1 FROM Tasks AS s WHERE s.Name = Tasks.Name AND s.Priority > 1)")
	if err != nil {
		t.Fatal(err)
	}
	if len(q.Subqueries) != 1 || strings.Contains(q.Subqueries[0].Query.Scan.Request.Formula, "{Name}={Name}") {
		t.Errorf("EXISTS not decorrelated: %+v", q.Subqueries)
	}
	for _, sql := range []string{
		"SELECT Name, (SELECT COUNT(*) FROM Tasks AS s WHERE s.Name = Tasks.Name) FROM Tasks",
		"SELECT Name FROM Tasks WHERE EXISTS (SELECT 1 FROM Tasks AS s WHERE s.Priority > Tasks.Priority)",
	} {
		// Tasks.x names the outer query's Tasks: the subquery is correlated.
		q, err := plan(sql)
		if err != nil {
			t.Errorf("%s: %v", sql, err)
			continue
		}
		if len(q.Subqueries) != 1 || len(q.Subqueries[0].refs) != 1 {
			t.Errorf("%s: not planned as a subquery correlated with the outer Tasks: %+v", sql, q.Subqueries)
		}
	}
	if _, err := plan("SELECT Name FROM Tasks AS t WHERE Tasks.Name = 'x'"); err == nil {
		t.Error("FROM Tasks AS t WHERE Tasks.Name: no error")
	}
	for _, sql := range []string{
		"SELECT Name FROM Tasks WHERE Tasks.Name = 'x'",
		"SELECT t.Name FROM Tasks AS t WHERE t.Name = 'x'",
	} {
		if _, err := plan(sql); err != nil {
			t.Errorf("%s: %v", sql, err)
		}
	}
}

// TestOracleUsingStar: SELECT * over JOIN … USING lists the USING columns once, first, then the
// other columns of the tables before, then the joined table's — for a RIGHT JOIN the right
// table's first (the oracle's seeds 459 and 3998 listed every table's columns in FROM's order,
// the USING column twice). Joined with ON, * stays in FROM's order.
func TestOracleUsingStar(t *testing.T) {
	schema := loadSchema(t)
	tests := []struct {
		sql         string
		first       string
		names       int    // how many output columns are named Name
		before, aft string // before's column comes before aft's
	}{
		{"SELECT * FROM Tasks t JOIN People p USING (Name)", "Name", 1, "Notes", "Email"},
		{"SELECT * FROM Tasks t LEFT JOIN People p USING (Name)", "Name", 1, "Notes", "Email"},
		{"SELECT * FROM Tasks t RIGHT JOIN People p USING (Name)", "Name", 1, "Email", "Notes"},
		{"SELECT * FROM Tasks t JOIN People p ON p.Name = t.Name", "id", 2, "Notes", "Email"},
		{"SELECT * FROM Tasks t RIGHT JOIN People p ON p.Name = t.Name", "id", 2, "Notes", "Email"},
	}
	for _, tt := range tests {
		t.Run(tt.sql, func(t *testing.T) {
			q, err := NewQuery(parseSelect(t, tt.sql), schema, Args{})
			if err != nil {
				t.Fatal(err)
			}
			pos := map[string]int{}
			names := 0
			var all []string
			for i, c := range q.Columns {
				all = append(all, c.Name)
				if _, seen := pos[c.Name]; !seen {
					pos[c.Name] = i
				}
				if c.Name == "Name" {
					names++
				}
			}
			if all[0] != tt.first || names != tt.names || pos[tt.before] > pos[tt.aft] {
				t.Errorf("columns %v: want %s first, Name %d times, %s before %s", all, tt.first, tt.names, tt.before, tt.aft)
			}
		})
	}
}

// TestOracleIntegerProductNotPushed: a product of integers can pass BIGINT (MySQL's error 1690
// for the statement); a formula that leaves those records out hides the error (the oracle's seed
// 2211: Budget * 1000000000000 = 137.25 matched no record, MySQL failed). Such a product is
// checked locally on every record; by 0, 1 or -1 it is still pushed.
func TestOracleIntegerProductNotPushed(t *testing.T) {
	schema := loadSchema(t)
	for _, tt := range []struct {
		where  string
		pushed bool
	}{
		{"Seq * 1000000000000 = 137", false},
		{"Seq * 2 > 10", false},
		{"Seq * Rating > 10", false},
		{"Seq * 1 > 10", true},
		{"Seq * -1 > 10", true},
		{"Seq + 2 > 10", true},
	} {
		plan, err := selectPlan(parseSelect(t, "SELECT Name FROM Tasks WHERE "+tt.where), schema, Args{})
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Contains(plan.Request.Formula, "{Seq}"); got != tt.pushed {
			t.Errorf("%s: formula %q, want pushed %v", tt.where, plan.Request.Formula, tt.pushed)
		}
	}
}

// TestOracleDerivedDatetimeFsp: a DATETIME(3) column read through a derived table or WITH keeps
// its three fraction digits as text (the oracle's seed 12139: CONCAT(d.createdTime, …) wrote
// 2024-01-01 00:00:29 where MySQL writes 2024-01-01 00:00:29.000).
func TestOracleDerivedDatetimeFsp(t *testing.T) {
	schema := loadSchema(t)
	q, err := NewQuery(parseSelect(t, "SELECT CONCAT(d.createdTime, '|', d.c2) FROM (SELECT createdTime, NOW() AS c2 FROM Tasks) AS d"), schema, Args{})
	if err != nil {
		t.Fatal(err)
	}
	args := q.Outputs[0].e.args
	if len(args) != 3 || args[0].kind != exDerived || datetimeFsp(args[0]) != 3 || datetimeFsp(args[2]) != -1 {
		t.Fatalf("CONCAT's arguments: %+v", args)
	}
	at := time.Date(2024, 1, 1, 0, 0, 29, 0, time.UTC)
	if got := valueText(args[0], at); got != "2024-01-01 00:00:29.000" {
		t.Errorf("d.createdTime as text: %q", got)
	}
}

// TestStarOfHiddenTableName: SELECT Tasks.* FROM Tasks AS t names no table of the FROM (MySQL's
// error 1051), as Tasks.Name does there (the oracle3 report); t.* and Tasks.* without alias work.
func TestStarOfHiddenTableName(t *testing.T) {
	schema := loadSchema(t)
	var ut *UnknownTableError
	if _, err := NewQuery(parseSelect(t, "SELECT Tasks.* FROM Tasks AS t"), schema, Args{}); !errors.As(err, &ut) {
		t.Errorf("SELECT Tasks.* FROM Tasks AS t: %v, want an *UnknownTableError", err)
	}
	for _, sql := range []string{"SELECT t.* FROM Tasks AS t", "SELECT Tasks.* FROM Tasks", "SELECT tasks.* FROM Tasks AS tasks"} {
		if _, err := NewQuery(parseSelect(t, sql), schema, Args{}); err != nil {
			t.Errorf("%s: %v", sql, err)
		}
	}
}

// TestOracleOverflowWhereMySQLEvaluates: MySQL raises error 1690 on the rows where it evaluates
// an overflowing product, and only there; the driver must agree whether the WHERE is checked
// locally on every record or after a pushed formula (which must not leave those rows out).
// Seed 9158 of the INTERSECT EXCEPT class: 1000000000000 BETWEEN (1000000000000 * Budget) AND 108
// answered no rows when pushed (the formula kept 1000000000000 <= 108 alone); seed 24996: an AND
// with (0 <= 1.5) IS NOT TRUE raised locally, where MySQL folds the constant FALSE first. Each
// want is MariaDB 10.11's answer over the same three rows (a table without index).
func TestOracleOverflowWhereMySQLEvaluates(t *testing.T) {
	schema := loadSchema(t)
	table, _ := schema.Table("Tasks")
	rows := []Row{
		{ID: "recSMALL00000001", Fields: map[string]any{"Name": "small", "Seq": 3.0, "Priority": 7.0}},
		{ID: "recBIG000000001", Fields: map[string]any{"Name": "big", "Seq": 10000000.0}}, // Seq * 1e12 passes BIGINT
		{ID: "recNEG00000001", Fields: map[string]any{"Name": "neg", "Seq": -2.0, "Priority": 1.0}},
	}
	const overflow = "error 1690"
	tests := []struct {
		where string
		want  []string // nil with err: the statement fails
		err   bool
	}{
		{"1000000000000 BETWEEN (1000000000000 * Seq) AND 108", nil, true},
		{"5 BETWEEN 10 AND Seq * 1000000000000", nil, true},
		{"5 NOT BETWEEN Seq * 1000000000000 AND 1", nil, true},
		{"Name = 'nobody' AND Seq * 1000000000000 > 0", nil, false},
		{"Name = 'big' AND Seq * 1000000000000 > 0", nil, true},
		{"Priority > 5 AND Seq * 1000000000000 > 0", []string{"recSMALL00000001"}, false}, // WHERE's AND stops at NULL
		{"Priority < 100 AND Seq * 1000000000000 > 0", []string{"recSMALL00000001"}, false},
		{"(Priority > 5 AND Seq * 1000000000000 > 0) OR Name = 'x'", []string{"recSMALL00000001"}, false},
		{"NOT (Priority > 5 AND Seq * 1000000000000 > 0)", nil, true}, // under NOT, NULL AND … reads on
		{"(Priority > 5 AND Seq * 1000000000000 > 0) IS NOT TRUE", nil, true},
		{"Priority IS NOT NULL AND Seq * 1000000000000 > 0", []string{"recSMALL00000001"}, false},
		{"Name = 'big' OR Seq * 1000000000000 > 0", []string{"recSMALL00000001", "recBIG000000001"}, false},
		{"Name <> 'big' OR Seq * 1000000000000 > 0", nil, true},
		{"NOT (Seq * 1000000000000 > 0) AND Priority > 5", nil, true},
		{"(Seq * 1000000000000 > 0) IS TRUE AND Priority > 5", nil, true},
		{"Seq * 1000000000000 > 0 AND (0 <= 1.5) IS NOT TRUE", nil, false},
		{"(0 <= 1.5) IS NOT TRUE AND Seq * 1000000000000 > 0", nil, false},
		{"(Seq * 1000000000000 > 0 AND Name = 'big') AND 1 = 0", nil, false},
		{"Priority > Seq * 1000000000000", []string{"recNEG00000001"}, false}, // NULL > … reads no further
		{"Seq * 1000000000000 < Priority", nil, true},
		{"Priority + Seq * 1000000000000 > 0", nil, true}, // arithmetic reads both operands
		{"Priority IN (Seq * 1000000000000, 1)", []string{"recNEG00000001"}, false},
		{"NOT (Seq * 1000000000000 > 0 AND 1 = 0)", []string{"recSMALL00000001", "recBIG000000001", "recNEG00000001"}, false}, // NOT a OR NOT b
		{"(Seq * 1000000000000 > 0 AND 1 = 0) IS NOT TRUE", nil, true},                                                        // no folding under IS
		{"(Seq * 1000000000000 > 0 OR 1 = 1) IS TRUE", nil, true},
		{"Seq * 1000000000000 > 0 AND Name = 'nobody'", nil, false}, // equalities first
		{"Seq * 1000000000000 > 0 AND Priority = 5", nil, false},
		{"(Seq * 1000000000000 > 0) AND Name <> 'nobody'", nil, true},
		{"Seq * 1000000000000 > 0 AND Name > 'nobody'", nil, true},
		{"Seq * 1000000000000 > 0 OR 1 = 1", []string{"recSMALL00000001", "recBIG000000001", "recNEG00000001"}, false},
		{"Seq * 1000000000000 > 0 OR 1 = 0", nil, true},
	}
	// WHERE a AND <product>: a alone narrows the request (MySQL evaluates the product only where
	// a is TRUE).
	narrows := map[string]bool{}
	for _, a := range []string{"Name = 'nobody'", "Name = 'big'", "Priority > 5", "Priority < 100", "Priority IS NOT NULL"} {
		narrows[a+" AND Seq * 1000000000000 > 0"] = true
	}
	env := &formula.Env{}
	outcome := func(keep func(r *Row) (bool, error), candidates []Row) ([]string, error) {
		var kept []string
		for i := range candidates {
			ok, err := keep(&candidates[i])
			if err != nil {
				return nil, err
			}
			if ok {
				kept = append(kept, candidates[i].ID)
			}
		}
		return kept, nil
	}
	for _, tt := range tests {
		t.Run(tt.where, func(t *testing.T) {
			plan, err := selectPlan(parseSelect(t, "SELECT Name FROM Tasks WHERE "+tt.where), schema, Args{})
			if err != nil {
				t.Fatal(err)
			}
			where := func(r *Row) (bool, error) {
				v, err := plan.where.eval(r)
				return v == true, err
			}
			// Local: every record checked, in order.
			local, localErr := outcome(where, rows)
			// Pushed: the records the formula selects, checked again unless it is exact.
			var fetched []Row
			if !plan.NoRows {
				var prog *formula.Program
				if plan.Request.Formula != "" {
					if prog, err = formula.Compile(plan.Request.Formula, formulaSchema{table}); err != nil {
						t.Fatalf("formula %s: %v", plan.Request.Formula, err)
					}
				}
				for _, r := range rows {
					if prog == nil || prog.Match(formulaRecord{r}, env) {
						fetched = append(fetched, r)
					}
				}
			}
			check := where
			if plan.Exact {
				check = func(*Row) (bool, error) { return true, nil }
			}
			pushed, pushedErr := outcome(check, fetched)
			if narrows[tt.where] && len(fetched) == len(rows) {
				t.Errorf("formula %q fetches every record, want the operand before the product to narrow the request", plan.Request.Formula)
			}
			for _, got := range []struct {
				mode string
				ids  []string
				err  error
			}{{"local", local, localErr}, {"pushed " + plan.Request.Formula, pushed, pushedErr}} {
				switch {
				case tt.err && (got.err == nil || !strings.Contains(got.err.Error(), overflow)):
					t.Errorf("%s: got rows %v (err %v), want %s", got.mode, got.ids, got.err, overflow)
				case !tt.err && got.err != nil:
					t.Errorf("%s: got error %v, want rows %v", got.mode, got.err, tt.want)
				case !tt.err && !slices.Equal(got.ids, tt.want):
					t.Errorf("%s: got rows %v, want %v", got.mode, got.ids, tt.want)
				}
			}
		})
	}
}
