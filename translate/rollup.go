package translate

import (
	"fmt"

	"github.com/xwb1989/sqlparser"

	"github.com/airsql/airsql/sqlvalue"
)

// GROUP BY … WITH ROLLUP (MySQL 8 manual, 14.19.2): the engine's aggregate adds a row per prefix of
// the keys, the keys after it NULL, and GROUPING(key, …) tells those NULLs from NULL values.

// rollupLevel stands last in the GROUP BY keys of a WITH ROLLUP query for the slot where the
// grouped rows hold their rollup level: how many keys, from the first, are not rolled up.
var rollupLevel = &expr{kind: exConst, typ: typeInt, val: int64(0), sql: "the rollup level"}

// grouping compiles GROUPING(k, …): for each argument, which must be a GROUP BY key, a bit that is 1
// in the rows where the key is rolled up, the first argument's the highest.
func (qp *queryPlanner) grouping(f *sqlparser.FuncExpr) (*expr, error) {
	text := sqlString(f)
	if !qp.rollup {
		return nil, fmt.Errorf("translate: %s: GROUPING is only valid with GROUP BY … WITH ROLLUP (MySQL's error 3602)", text)
	}
	if len(f.Exprs) == 0 || len(f.Exprs) > 64 {
		return nil, fmt.Errorf("translate: %s: GROUPING takes 1 to 64 GROUP BY keys", text)
	}
	level := len(qp.groupKeys) - 1
	args := []*expr{qp.keySlot(level)}
	for _, se := range f.Exprs {
		ae, ok := se.(*sqlparser.AliasedExpr)
		if !ok {
			return nil, fmt.Errorf("translate: %s: the arguments of GROUPING are GROUP BY keys", text)
		}
		pos := -1
		for i, g := range qp.groupText[:level] {
			if g == exprText(ae.Expr) {
				pos = i
			}
		}
		if pos < 0 {
			x, err := qp.groupedHook(ae.Expr)
			if err == nil && x != nil && x.kind == exSlot && x.slot < level {
				pos = x.slot
			}
		}
		if pos < 0 {
			return nil, fmt.Errorf("translate: %s: argument %s of GROUPING is not a GROUP BY key (MySQL's error 3580)", text, sqlparser.String(ae.Expr))
		}
		args = append(args, &expr{kind: exConst, typ: typeInt, val: int64(pos), sql: sqlparser.String(ae.Expr)})
	}
	return libraryExpr(sqlvalue.RollupGrouping, typeInt, false, args, text), nil
}
