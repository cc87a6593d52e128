package translate

import (
	"strings"

	"github.com/xwb1989/sqlparser"

	"github.com/airsql/airsql/frontend"
)

// sqlString is sqlparser.String, except that the calls rewriteCalls made are written back in their
// SQL form (TRIM(LEADING 'x' FROM s), not `TRIM LEADING`('x', s)), for column names and messages.
func sqlString(node sqlparser.SQLNode) string {
	buf := sqlparser.NewTrackedBuffer(formatRewritten)
	buf.Myprintf("%v", node)
	return buf.String()
}

func formatRewritten(buf *sqlparser.TrackedBuffer, node sqlparser.SQLNode) {
	if formatJSONTable(buf, node) {
		return
	}
	f, ok := node.(*sqlparser.FuncExpr)
	if !ok || !f.Qualifier.IsEmpty() {
		node.Format(buf)
		return
	}
	if formatWindowCall(buf, f) {
		return
	}
	args := f.Exprs
	switch name := f.Name.String(); {
	case strings.HasPrefix(name, "TRIM ") && len(args) == 2:
		buf.Myprintf("TRIM(%s %v FROM %v)", name[len("TRIM "):], args[0], args[1])
	case strings.HasPrefix(name, "TRIM ") && len(args) == 1:
		buf.Myprintf("TRIM(%s FROM %v)", name[len("TRIM "):], args[0])
	case name == "POSITION IN" && len(args) == 2:
		buf.Myprintf("POSITION(%v IN %v)", args[0], args[1])
	case (name == dateLiteral || name == timeLiteral || name == timestampLiteral) && len(args) == 1:
		buf.Myprintf("%s %v", strings.TrimSuffix(name, " LITERAL"), args[0])
	case name == intervalFunction:
		buf.Myprintf("INTERVAL(%v)", args)
	case name == rollupMark && len(args) == 0:
		buf.Myprintf("%s", rollupMark)
	case name == "CAST DOUBLE" && len(args) == 1:
		buf.Myprintf("CAST(%v AS DOUBLE)", args[0])
	case name == "EXTRACT FROM" && len(args) == 2:
		unit := ""
		if ae, ok := args[0].(*sqlparser.AliasedExpr); ok {
			if v, ok := ae.Expr.(*sqlparser.SQLVal); ok {
				unit = string(v.Val)
			}
		}
		buf.Myprintf("EXTRACT(%s FROM %v)", unit, args[1])
	default:
		node.Format(buf)
	}
}

// The calls the front end's grammar rewrites write (frontend/parse_grammar.go), which the function
// library (sqlvalue) and the planner know.
const (
	dateLiteral      = frontend.DateLiteral
	timeLiteral      = frontend.TimeLiteral
	timestampLiteral = frontend.TimestampLiteral
	rollupMark       = frontend.RollupMark
	intervalFunction = frontend.IntervalFunction
)
