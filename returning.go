package airsql

import (
	"fmt"
	"strings"

	"github.com/xwb1989/sqlparser"

	"github.com/airsql/airsql/translate"
)

// RETURNING (MariaDB's INSERT … RETURNING and DELETE … RETURNING) gives back the written rows in
// the same round trip; GORM's MySQL dialector uses it to fill in the ids of created records when
// the server's version says MariaDB 10.5 or later. The pinned sqlparser cannot read it, so the
// clause is cut off with the parser's own tokenizer before parsing, and its select list is read
// as a SELECT's.

// cutReturning splits an INSERT, REPLACE or DELETE statement at a top-level RETURNING: the
// statement without it, and the select list after it. ok is false when there is none.
func cutReturning(query string) (stmt string, list sqlparser.SelectExprs, ok bool, err error) {
	defer func() {
		if r := recover(); r != nil { // the tokenizer panics on some inputs ("/*!*/")
			stmt, list, ok, err = query, nil, false, nil
		}
	}()
	tkn := sqlparser.NewStringTokenizer(query)
	depth := 0
	for n := 0; ; n++ {
		start := tkn.Position
		typ, val := tkn.Scan()
		end := min(tkn.Position, len(query)) // the tokenizer counts one past the end at EOF
		switch {
		case typ == 0 || typ == sqlparser.LEX_ERROR:
			return query, nil, false, nil
		case n == 0 && typ != sqlparser.INSERT && typ != sqlparser.REPLACE && typ != sqlparser.DELETE:
			return query, nil, false, nil
		case typ == '(':
			depth++
		case typ == ')':
			depth--
		case depth == 0 && typ == sqlparser.ID && strings.EqualFold(string(val), "returning") &&
			!strings.HasPrefix(strings.TrimSpace(query[start:end]), "`"):
			rest := strings.TrimSpace(query[end:])
			rest = strings.TrimSpace(strings.TrimSuffix(rest, ";"))
			if rest == "" {
				return "", nil, true, &UnsupportedError{Construct: "RETURNING without columns", Hint: "name them: RETURNING id, Name"}
			}
			ast, perr := translate.Parse("SELECT " + rest)
			sel, isSelect := ast.(*sqlparser.Select)
			if perr != nil || !isSelect || sqlparser.String(sel.From) != "dual" || sel.Where != nil || sel.GroupBy != nil || sel.OrderBy != nil || sel.Limit != nil {
				return "", nil, true, fmt.Errorf("airsql: cannot read the RETURNING list %q: write RETURNING expr [, expr …] at the end of the statement", rest)
			}
			return query[:start], sel.SelectExprs, true, nil
		}
	}
}

// returningPlan plans the RETURNING list over the records of a table, as SELECT list FROM table.
func returningPlan(schema *baseSchema, t *translate.Table, list sqlparser.SelectExprs) (*translate.Plan, error) {
	sel := &sqlparser.Select{
		SelectExprs: list,
		From:        sqlparser.TableExprs{&sqlparser.AliasedTableExpr{Expr: sqlparser.TableName{Name: sqlparser.NewTableIdent(t.ID)}}},
	}
	plan, err := translate.Select(sel, schema, translate.Args{})
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
