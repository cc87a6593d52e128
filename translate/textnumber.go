package translate

import (
	"github.com/airsql/airsql/sqlvalue"
)

// Text compared with a number. MySQL compares them as numbers: the text is read as the number its
// longest numeric prefix spells, after leading white space ('1.0' and ' 1' and '1abc' are 1, 'abc'
// and '' are 0). So Code = 1 is TRUE for '1.0' and Name = 0 for every name that does not start with
// a number other than 0. The service has no such conversion that is known to agree (VALUE's rules
// are not documented), so these comparisons are checked locally.

// asNumber wraps a text expression so that it compares as a number; other expressions are returned
// as they are. A text constant is converted here.
func asNumber(x *expr) *expr {
	if x.typ != typeText {
		return x
	}
	if x.kind == exConst {
		out := *x
		if s, ok := x.val.(string); ok {
			out.val = sqlvalue.TextNumber(s)
		}
		out.typ = typeFloat
		return &out
	}
	return libraryExpr(sqlvalue.TextAsNumber, typeFloat, x.nullable, []*expr{x}, x.sql)
}

// textWithNumber reports a comparison of text with a number (a BOOL is a number too).
func textWithNumber(a, b *expr) bool {
	return a.typ == typeText && b.typ.Numeric() || b.typ == typeText && a.typ.Numeric()
}
