package translate

import "testing"

// TestConditionValues checks what a condition gives as a value, against MySQL 8: a comparison,
// AND, OR, NOT, IS, IN, LIKE, REGEXP, <=>, BETWEEN, TRUE and FALSE are a BIGINT 1, 0 or NULL
// (Item_bool_func: MYSQL_TYPE_LONGLONG), which JSON functions write as true or false
// (is_bool_func, sql/item_json_func.cc); a condition passed on by IF, CASE, IFNULL, COALESCE or
// arithmetic is a plain BIGINT. A checkbox stays a BOOL (TINYINT(1), README's Types), and its
// JSON is true or false. funcRow has Priority 7 and Done checked.
func TestConditionValues(t *testing.T) {
	tests := []struct {
		sql  string
		want any
		typ  string
	}{
		{"1 = 1", int64(1), "INT64"},
		{"1 = 0", int64(0), "INT64"},
		{"NULL = 1", nil, "INT64"},
		{"Priority > 5", int64(1), "INT64"},
		{"Estimate <> 2.5", int64(0), "INT64"},
		{"'a' LIKE 'a'", int64(1), "INT64"},
		{"Name NOT LIKE 'Ü%'", int64(0), "INT64"},
		{"NOT 0", int64(1), "INT64"},
		{"!Priority", int64(0), "INT64"},
		{"1 AND 1", int64(1), "INT64"},
		{"0 OR NULL", nil, "INT64"},
		{"TRUE", int64(1), "INT64"},
		{"FALSE", int64(0), "INT64"},
		{"Priority IN (7, 8)", int64(1), "INT64"},
		{"Priority NOT IN (1, NULL)", nil, "INT64"},
		{"Rating IS NULL", int64(1), "INT64"},
		{"(Priority > 5) IS FALSE", int64(0), "INT64"},
		{"Priority BETWEEN 1 AND 9", int64(1), "INT64"},
		{"Priority <=> NULL", int64(0), "INT64"},
		{"REGEXP_LIKE(Name, '^Ü')", int64(1), "INT64"},
		{"Name REGEXP 'x'", int64(0), "INT64"},
		// The checkbox itself, and what compares or passes it on.
		{"Done", true, "BOOL"},
		{"Done = (Priority > 3)", int64(1), "INT64"},
		{"Done = (Priority > 9)", int64(0), "INT64"},
		{"Done IS TRUE", int64(1), "INT64"},
		{"COALESCE(Done, 1 = 0)", int64(1), "INT64"}, // TINYINT with BIGINT: BIGINT
		// Passed on: a plain BIGINT.
		{"IF(Priority > 5, 1 = 1, 1 = 0)", int64(1), "INT64"},
		{"CASE WHEN Priority > 5 THEN Priority > 6 END", int64(1), "INT64"},
		{"IFNULL(NULL = 1, 7 > 8)", int64(0), "INT64"},
		{"-(1 = 1)", int64(-1), "INT64"},
		{"(1 = 1) + (2 = 2)", int64(2), "INT64"},
		{"CAST(1 = 1 AS CHAR)", "1", "TEXT"},
		{"CONCAT(1 = 1, Priority < 0)", "10", "TEXT"},
		// JSON: true or false for a condition and a checkbox, a number for what passes it on.
		{"JSON_OBJECT('a', 1 = 1)", `{"a": true}`, "JSON"},
		{"JSON_ARRAY(TRUE, FALSE, Done, Priority > 9)", `[true, false, true, false]`, "JSON"},
		{"JSON_ARRAY(IF(1, 1 = 1, 0), IFNULL(1 = 1, 0), (1 = 1) + 0, NULLIF(1 = 1, 0))", `[1, 1, 1, 1]`, "JSON"},
		{"NULLIF(Priority > 5, 0)", int64(1), "INT64"},
		{"YEAR(1 = 1) IS NULL", int64(1), "INT64"}, // YEAR(1): not a date
	}
	for _, tt := range tests {
		t.Run(tt.sql, func(t *testing.T) {
			got, col, err := evalExpr(t, tt.sql, Args{})
			if err != nil {
				t.Fatal(err)
			}
			if !sameValue(got, tt.want) {
				t.Errorf("got %#v, want %#v", got, tt.want)
			}
			if col.DatabaseType != tt.typ {
				t.Errorf("column type %s, want %s", col.DatabaseType, tt.typ)
			}
		})
	}
}
