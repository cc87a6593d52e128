package airsql

import (
	"context"
	"io"
	"strings"

	"github.com/xwb1989/sqlparser"

	"github.com/airsql/airsql/engine"
	"github.com/airsql/airsql/frontend"
	"github.com/airsql/airsql/translate"
)

// RETURNING (MariaDB's INSERT … RETURNING and DELETE … RETURNING) gives back the written rows in
// the same round trip; GORM's MySQL dialector uses it to fill in the ids of created records when
// the server's version says MariaDB 10.5 or later. The pinned sqlparser cannot read it, so the
// clause is cut off with the parser's own tokenizer before parsing, and its select list is read
// as a SELECT's.

// recordsQuery plans SELECT list FROM table over the records a write returned — the RETURNING
// list, or * (id, the fields in schema order, createdTime) when list is nil — with one planner,
// its columns labelled as the front end read them. The engine runs it over those records
// (writtenRecords). A subquery, a join or an aggregate would read other rows than the records,
// and is refused, as MariaDB refuses aggregates in RETURNING.
func recordsQuery(schema *baseSchema, t *translate.Table, list sqlparser.SelectExprs, labels frontend.Labels) (*translate.Query, error) {
	if list == nil {
		list = sqlparser.SelectExprs{&sqlparser.StarExpr{}}
	}
	sel := &sqlparser.Select{
		SelectExprs: list,
		From:        sqlparser.TableExprs{&sqlparser.AliasedTableExpr{Expr: sqlparser.TableName{Name: sqlparser.NewTableIdent(t.ID)}}},
	}
	q, err := translate.NewQuery(sel, schema, translate.Args{Labels: labels})
	if err != nil {
		return nil, fromTranslate(err)
	}
	if len(q.Subqueries) > 0 || q.Join != nil || q.Grouped {
		return nil, &UnsupportedError{Construct: "a subquery or an aggregate in RETURNING", SQL: sqlparser.String(list),
			Hint: "RETURNING reads the written records only: name their columns, and run other queries after the write"}
	}
	return q, nil
}

// writtenRecords answers the one scan of a recordsQuery with the records a write returned: the
// query has no WHERE, so its request is the whole table, which those records stand for.
type writtenRecords []translate.Row

func (w writtenRecords) Scan(context.Context, *translate.Plan) (engine.Pages, error) {
	return &writtenPages{rows: w}, nil
}

// writtenPages is the records as one page.
type writtenPages struct {
	rows []translate.Row
	sent bool
}

func (p *writtenPages) Next(context.Context) ([]translate.Row, error) {
	if p.sent {
		return nil, io.EOF
	}
	p.sent = true
	return p.rows, nil
}

func (p *writtenPages) Close() { p.sent = true }

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
