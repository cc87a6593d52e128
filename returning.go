package airsql

import (
	"strings"

	"github.com/xwb1989/sqlparser"

	"github.com/airsql/airsql/frontend"
	"github.com/airsql/airsql/translate"
)

// RETURNING (MariaDB's INSERT … RETURNING and DELETE … RETURNING) gives back the written rows in
// the same round trip; GORM's MySQL dialector uses it to fill in the ids of created records when
// the server's version says MariaDB 10.5 or later. The pinned sqlparser cannot read it, so the
// clause is cut off with the parser's own tokenizer before parsing, and its select list is read
// as a SELECT's.

// returningPlan plans the RETURNING list over the records of a table, as SELECT list FROM table,
// its columns labelled as the front end read them.
func returningPlan(schema *baseSchema, t *translate.Table, list sqlparser.SelectExprs, labels frontend.Labels) (*translate.Plan, error) {
	sel := &sqlparser.Select{
		SelectExprs: list,
		From:        sqlparser.TableExprs{&sqlparser.AliasedTableExpr{Expr: sqlparser.TableName{Name: sqlparser.NewTableIdent(t.ID)}}},
	}
	plan, err := translate.Select(sel, schema, translate.Args{Labels: labels})
	if err != nil {
		return nil, fromTranslate(err)
	}
	return plan, nil
}

// onlyIDs tells whether a RETURNING list reads nothing but the record id, which is all a DELETE
// keeps of the records it deleted.
func onlyIDs(list sqlparser.SelectExprs) bool {
	for _, e := range list {
		ae, ok := e.(*sqlparser.AliasedExpr)
		if !ok {
			return false
		}
		col, ok := ae.Expr.(*sqlparser.ColName)
		if !ok || !strings.EqualFold(col.Name.String(), "id") {
			return false
		}
	}
	return true
}
