package translate

// CaseInsensitive is the Field.Options key that marks a column of names compared regardless of
// case: information_schema's TABLE_NAME, COLUMN_NAME, … The driver resolves table and column names
// case-insensitively (a unique match), so, as MySQL does with lower_case_table_names=2 (names kept
// as written, compared in lower case), WHERE table_name = 'tasks' finds the table Tasks.
const CaseInsensitive = "caseInsensitive"

// foldNames compares both sides in lower case when one of them is a case-insensitive column.
func foldNames(left, right *expr) (*expr, *expr) {
	if !caseInsensitive(left) && !caseInsensitive(right) {
		return left, right
	}
	return lowerText(left), lowerText(right)
}

// foldNameList is foldNames for IN: args[0] IN args[1:].
func foldNameList(args []*expr) []*expr {
	if !caseInsensitive(args[0]) {
		return args
	}
	out := make([]*expr, len(args))
	for i, a := range args {
		out[i] = lowerText(a)
	}
	return out
}

func lowerText(e *expr) *expr {
	if e.typ != typeText && e.typ != typeNull {
		return e
	}
	return libraryExpr("LOWER", typeText, e.nullable || e.typ == typeNull, []*expr{e}, e.sql)
}

func caseInsensitive(e *expr) bool {
	return e.kind == exField && e.field != nil && e.field.Options[CaseInsensitive] == true
}
