package translate

import (
	"strings"
	"testing"
)

// functionConditions are WHERE clauses over the functions, on rows full of blanks, case variants
// and special values (nullLogicRows).
var functionConditions = []string{
	"LOWER(Name) LIKE 'a%'", "Name LIKE BINARY 'a%'", "Name NOT LIKE BINARY 'A%'", "Notes LIKE BINARY '%off'",
	"BINARY Name LIKE 'A_C'", "Name LIKE BINARY '%'", "CHAR_LENGTH(Name) > 2", "LENGTH(Name) = 3",
	"CONCAT_WS('-', Name, Notes) = 'a-note'", "LEFT(Name, 1) = 'a'", "RIGHT(Name, 1) = 'c'", "REPLACE(Name, 'a', 'b') = 'bbc'",
	"LOCATE('b', Name) = 2", "INSTR(Name, 'c') > 0", "LPAD(Name, 3, '*') = '**a'", "REVERSE(Name) = 'cba'",
	"FIND_IN_SET('x', Name) = 0", "SUBSTR(UPPER(Name), 2) = 'BC'", "TRIM(LEADING 'a' FROM Name) = 'bc'",
	"CASE WHEN Priority > 1 THEN 'hi' ELSE 'lo' END = 'hi'", "CASE Status WHEN 'Todo' THEN 1 END = 1",
	"IF(Done, Priority, 0) > 1", "NULLIF(Priority, 0) IS NULL", "COALESCE(Name, Notes, 'none') = 'none'",
	"IFNULL(Priority, Estimate) > 1", "CAST(Priority AS CHAR) = '2'", "CAST(Estimate AS SIGNED) = 2",
	"CAST(Name AS DATE) IS NULL", "CONVERT(Priority, DECIMAL(5, 1)) > 1", "CEIL(Estimate) = 2", "FLOOR(Estimate) < 0",
	"MOD(Priority, 2) = 1", "POW(Priority, 2) > 3", "SQRT(Priority) > 1", "GREATEST(Priority, Rating) > 3",
	"LEAST(Priority, 1) = 1", "TRUNCATE(Estimate, 0) = 2", "ROUND(Estimate, 1) = 0.1", "DATE_FORMAT(Due, '%Y-%m') = '2024-01'",
	"DATEDIFF(NOW(), Due) > 30", "TIMESTAMPDIFF(DAY, Due, `Updated At`) > 10", "Due + INTERVAL 1 MONTH > '2024-02-01'",
	"DATE_SUB(Due, INTERVAL 1 DAY) = '2024-01-04'", "Due < CURDATE() - INTERVAL 30 DAY", "`Updated At` > NOW() - INTERVAL 1 HOUR",
	"Due >= DATE_FORMAT(NOW(), '%Y-01-01')", "WEEK(Due) = 1", "WEEKDAY(Due) = 4", "DAYOFWEEK(Due) = 6", "QUARTER(Due) = 1",
	"LAST_DAY(Due) = '2024-01-31'", "UNIX_TIMESTAMP(Due) > 0",
	"NOT (YEAR(Due) = 2024)", "DATE(`Updated At`) = '2024-03-01'", "STR_TO_DATE(Name, '%Y') IS NULL",
	"VERSION() = '10.11.0-MariaDB-airsql'", "DATABASE() IS NULL", "@@autocommit = 1", "YEAR(Created) = 2024",
	"(Priority > 1) IS TRUE", "(Priority > 1) IS NOT FALSE", "(Name = 'a') IS NOT TRUE", "Done IS FALSE",
	"DATE(`Updated At`) = '2024-03-01'", "DATE(`Updated At`) <> '2024-03-01'", "DATE(`Updated At`) < '2024-03-01'",
	"DATE(`Updated At`) <= '2024-01-05'", "DATE(`Updated At`) > '2024-01-05'", "DATE(`Updated At`) >= CURDATE()",
	"'2024-03-01' = DATE(`Updated At`)", "CURDATE() > DATE(`Updated At`)", "DATE(Created) = '2024-01-10'",
	"DATE(createdTime) BETWEEN '2024-01-05' AND '2024-01-10'", "DATE(Due) = '2024-01-05'",
	"DATE(`Updated At`) = '2024-03-01 10:00:00'", "DATE(`Updated At`) IN ('2024-03-01', '2024-01-05')",
	"DATE(Created) NOT IN ('2024-01-10', '2024-02-01')", "DATE(Due) IN ('2024-01-05', NULL)", "DATE(Due) NOT IN ('2024-01-05', NULL)",
}

// TestFunctionPushdown: for every function condition and its negation, the formula (run by the
// formula package's evaluator, the emulator's Airtable semantics) selects exactly the rows the
// local evaluation keeps when the plan says exact, and a superset of them otherwise.
func TestFunctionPushdown(t *testing.T) {
	schema := loadSchema(t)
	table, _ := schema.Table("Tasks")
	rows := nullLogicRows()
	exact := 0
	for _, cond := range functionConditions {
		for _, where := range []string{cond, "NOT (" + cond + ")"} {
			sql := "SELECT Name FROM Tasks WHERE " + where
			plan, err := selectPlan(parseSelect(t, sql), schema, Args{Now: testNow})
			if err != nil {
				t.Errorf("%s: %v", sql, err)
				continue
			}
			checkPushdown(t, sql, plan.Plan, table, rows)
			if plan.Exact && plan.Request.Formula != "" {
				exact++
			}
		}
	}
	if exact == 0 {
		t.Error("no function condition was pushed exactly")
	}
	// DATE(x) compared with a day is a range on x, which the formula compares exactly.
	plan, err := selectPlan(parseSelect(t, "SELECT Name FROM Tasks WHERE DATE(createdTime) = CURDATE()"), schema, Args{Now: testNow})
	if err != nil {
		t.Fatal(err)
	}
	if !plan.Exact || plan.Request.Formula != "AND(DATETIME_DIFF(CREATED_TIME(), DATETIME_PARSE('2024-03-01T00:00:00.000Z'), 'milliseconds')>=0, "+
		"DATETIME_DIFF(CREATED_TIME(), DATETIME_PARSE('2024-03-02T00:00:00.000Z'), 'milliseconds')<0)" {
		t.Errorf("DATE(createdTime) = CURDATE(): formula %q, exact %v", plan.Request.Formula, plan.Exact)
	}
	// Constant folding: the clock arithmetic becomes a time the formula compares exactly.
	plan, err = selectPlan(parseSelect(t, "SELECT Name FROM Tasks WHERE Due < CURDATE() - INTERVAL 30 DAY"), schema, Args{Now: testNow})
	if err != nil {
		t.Fatal(err)
	}
	if !plan.Exact || !strings.Contains(plan.Request.Formula, "DATETIME_PARSE('2024-01-31T00:00:00.000Z')") {
		t.Errorf("formula %q (exact %v): want the folded date 2024-01-31, exact", plan.Request.Formula, plan.Exact)
	}
}

// FuzzFunctions calls functions with arbitrary SQL arguments: no panic, and pushdown agrees with
// the local evaluation (checkPushdown) whatever the arguments.
func FuzzFunctions(f *testing.F) {
	for _, cond := range functionConditions {
		f.Add("SELECT *, "+strings.SplitN(cond, " ", 2)[0]+" FROM Tasks WHERE "+cond, "a")
	}
	for _, call := range []string{"SUBSTRING(?, -1, 2)", "LPAD(?, 2000000000, 'x')", "DATE_ADD(?, INTERVAL '9999:99' HOUR_MINUTE)",
		"STR_TO_DATE(?, '%Y-%m-%d %h:%i:%s %p %j %T %r')", "DATE_FORMAT(?, '%%%')", "CAST(? AS DECIMAL(65, 30))",
		"TIMESTAMPDIFF(MICROSECOND, '0001-01-01', ?)", "WEEK(?, -1)", "REPEAT(?, 9999999999)", "TRIM(BOTH ? FROM Name)",
		"CONCAT_WS(?, NULL, Name)", "ROUND(?, -100)", "TRUNCATE(1e308, ?)", "FROM_UNIXTIME(?)", "EXTRACT(DAY_MICROSECOND FROM ?)"} {
		f.Add("SELECT "+call+" FROM Tasks WHERE "+call+" IS NOT NULL", "2024-02-29 10:00:00")
	}
	schema := loadSchema(f)
	table, _ := schema.Table("Tasks")
	rows := nullLogicRows()
	f.Fuzz(func(t *testing.T, sql, arg string) {
		stmt, err := Parse(sql)
		if err != nil {
			return
		}
		sel, ok := stmtSelect(stmt)
		if !ok {
			return
		}
		args := argsFor(stmt, []any{arg, int64(-3), nil, 2.5, true}, map[string]any{"name": arg})
		args.Session = &Session{Database: "appX"}
		plan, err := selectPlan(sel, schema, args)
		if err != nil {
			return
		}
		if plan.Table == table {
			checkPushdown(t, sql, plan.Plan, table, rows)
		}
		dest := make([]any, len(plan.Columns))
		for _, r := range rows[:6] {
			if err := plan.Values(r, dest); err != nil {
				t.Fatalf("%s: Values: %v", sql, err)
			}
		}
	})
}

// TestSortPushdownWithFunctions: a condition that keeps NULL rows through a function that is not
// NULL on NULL (CASE, COALESCE, CONCAT_WS, IF) does not make a nullable sort key safe to push.
func TestSortPushdownWithFunctions(t *testing.T) {
	schema := loadSchema(t)
	tests := []struct {
		where string
		local bool
	}{
		{"CASE WHEN Priority IS NULL THEN 1 ELSE 0 END = 1", true},
		{"IF(Priority IS NULL, 1, 0) = 1", true},
		{"CONCAT_WS('-', 'x', Priority) = 'x'", true},
		{"COALESCE(Priority, 0) = 0", true},
		{"NULLIF(Priority, 1) IS NULL", true},
		{"ABS(Priority) >= 0", false}, // NULL Priority: ABS is NULL, the row is not kept
		{"CONCAT('x', Priority) <> ''", false},
	}
	for _, tt := range tests {
		plan, err := selectPlan(parseSelect(t, "SELECT Name FROM Tasks WHERE "+tt.where+" ORDER BY Priority"), schema, Args{Now: testNow})
		if err != nil {
			t.Fatalf("%s: %v", tt.where, err)
		}
		// Safe to push as one sorted request only when no kept row can have a NULL key; otherwise
		// the rows are sorted locally or read in two requests (blank keys apart: nullsplit.go).
		if notOneRequest := plan.SortLocally || plan.Split != nil; notOneRequest != tt.local {
			t.Errorf("%s ORDER BY Priority: SortLocally %v, Split %v; want one sorted request: %v", tt.where, plan.SortLocally, plan.Split != nil, !tt.local)
		}
	}
}
