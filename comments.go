package airsql

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/airsql/airsql/engine"
	"github.com/airsql/airsql/translate"
	"github.com/airsql/airsql/transport"
	"github.com/xwb1989/sqlparser"
)

// Record comments as SQL: every table T has a table T$comments whose rows are the comments of its
// records (README, "Record comments"). Airtable lists comments per record only (one request per
// 100 comments of a record), so every statement on it names its records: WHERE record_id = …
// or record_id IN (…), a condition ANDed with the rest. A statement without one is refused rather
// than sending a request per record of the table. INSERT creates comments, UPDATE … SET text
// changes the token user's own, DELETE deletes them.

// commentsSuffix ends the name of a table's comments table.
const commentsSuffix = "$comments"

// commentColumns are the columns of a comments table, in SELECT * order.
var commentColumns = []translate.Field{
	{Name: "record_id", Type: "singleLineText"},
	{Name: "id", Type: "singleLineText"},
	{Name: "author_id", Type: "singleLineText"},
	{Name: "author_email", Type: "singleLineText"},
	{Name: "author_name", Type: "singleLineText"},
	{Name: "text", Type: "multilineText"},
	{Name: "parent_id", Type: "singleLineText"},
	{Name: "createdTime", Type: "dateTime", Options: map[string]any{"timeZone": "utc"}},
	{Name: "lastUpdatedTime", Type: "dateTime", Options: map[string]any{"timeZone": "utc"}},
	{Name: "mentions", Type: "multipleLookupValues"}, // JSON: [{type, id, displayName, email}]
}

// commentsOf returns the base table whose comments table name names, if it is one.
func commentsOf(name string) (string, bool) {
	if len(name) > len(commentsSuffix) && strings.EqualFold(name[len(name)-len(commentsSuffix):], commentsSuffix) {
		return name[:len(name)-len(commentsSuffix)], true
	}
	return "", false
}

// commentsTableOf returns the comments table a statement's FROM (or target) names alone.
func commentsTableOf(from sqlparser.TableExprs) (name, base string, ok bool) {
	for _, n := range tableOf(from) {
		if b, ok := commentsOf(n); ok {
			return n, b, true
		}
	}
	return "", "", false
}

// namesComments reports whether any table the statement names is a comments table (used to
// refuse one inside a join or a subquery, where its records cannot be named).
func namesComments(node sqlparser.SQLNode) bool {
	found := false
	_ = sqlparser.Walk(func(n sqlparser.SQLNode) (bool, error) {
		if tn, ok := n.(sqlparser.TableName); ok {
			if _, ok := commentsOf(tn.Name.String()); ok {
				found = true
			}
		}
		return !found, nil
	}, node)
	return found
}

func commentsNeedRecords(table string) error {
	return &UnsupportedError{Construct: "a statement on " + table + " without a record id",
		Hint: "Airtable lists comments one record at a time (a request per 100 comments of a record): add WHERE record_id = 'rec…' or record_id IN ('rec…', …)"}
}

// recordIDsOf evaluates the record_id = x and record_id IN (x, …) conditions ANDed at the top of
// where; ok is false when there is none. Several such conditions intersect.
func (cn *conn) recordIDsOf(ctx context.Context, where *sqlparser.Where, args translate.Args) (ids []string, ok bool, err error) {
	if where == nil {
		return nil, false, nil
	}
	var sets [][]sqlparser.Expr
	var walk func(e sqlparser.Expr)
	walk = func(e sqlparser.Expr) {
		switch x := e.(type) {
		case *sqlparser.AndExpr:
			walk(x.Left)
			walk(x.Right)
		case *sqlparser.ParenExpr:
			walk(x.Expr)
		case *sqlparser.ComparisonExpr:
			col, isCol := x.Left.(*sqlparser.ColName)
			if !isCol || !strings.EqualFold(col.Name.String(), "record_id") {
				return
			}
			switch x.Operator {
			case sqlparser.EqualStr:
				sets = append(sets, []sqlparser.Expr{x.Right})
			case sqlparser.InStr:
				if tuple, ok := x.Right.(sqlparser.ValTuple); ok {
					sets = append(sets, tuple)
				}
			}
		}
	}
	walk(where.Expr)
	if len(sets) == 0 {
		return nil, false, nil
	}
	var keep map[string]bool // the ids every condition allows
	var order []string       // in the first condition's order
	for i, set := range sets {
		vals, err := cn.evalConstants(ctx, set, args)
		if err != nil {
			return nil, true, err
		}
		next := map[string]bool{}
		for _, v := range vals {
			if s, isText := v.(string); isText && (keep == nil || keep[s]) {
				if i == 0 && !next[s] {
					order = append(order, s)
				}
				next[s] = true
			}
		}
		keep = next
	}
	for _, id := range order {
		if keep[id] {
			ids = append(ids, id)
		}
	}
	return ids, true, nil
}

// evalConstants evaluates expressions that read no table (literals, arguments, functions of
// them) as SELECT does. They are printed and read again as a SELECT of their own, with their
// placeholders renumbered: the statement's other placeholders are not this SELECT's.
func (cn *conn) evalConstants(ctx context.Context, exprs []sqlparser.Expr, args translate.Args) ([]driver.Value, error) {
	ast, err := translate.Parse("SELECT " + sqlparser.String(sqlparser.Exprs(exprs)))
	if err != nil {
		return nil, fmt.Errorf("airsql: evaluating %s: %w", sqlparser.String(sqlparser.Exprs(exprs)), err)
	}
	sel, ok := ast.(*sqlparser.Select)
	if !ok || len(sel.SelectExprs) != len(exprs) {
		return nil, fmt.Errorf("airsql: internal: %s does not read back as %d values", sqlparser.String(sqlparser.Exprs(exprs)), len(exprs))
	}
	own, err := ownArgs(sel, args)
	if err != nil {
		return nil, err
	}
	rows, err := cn.selectRows(ctx, sel, own)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	vals := make([]driver.Value, len(exprs))
	if err := rows.Next(vals); err != nil {
		return nil, fmt.Errorf("airsql: evaluating %s: %w", sqlparser.String(sel.SelectExprs), err)
	}
	return vals, nil
}

// ownArgs gives a statement read again from part of another (a copy the caller may change) the
// arguments of the placeholders it kept: they are renumbered :v1, :v2, … in the copy, and named
// ones are kept by name.
func ownArgs(node sqlparser.SQLNode, args translate.Args) (translate.Args, error) {
	own := translate.Args{Now: args.Now, Session: args.Session, LocalOnly: args.LocalOnly}
	var bad error
	_ = sqlparser.Walk(func(n sqlparser.SQLNode) (bool, error) {
		v, isVal := n.(*sqlparser.SQLVal)
		if !isVal || v.Type != sqlparser.ValArg {
			return true, nil
		}
		name := string(v.Val)
		var k int
		if _, err := fmt.Sscanf(name, ":v%d", &k); err == nil && fmt.Sprintf(":v%d", k) == name {
			if k < 1 || k > len(args.Positional) {
				bad = fmt.Errorf("airsql: the statement has more ? placeholders than arguments")
				return false, nil
			}
			own.Positional = append(own.Positional, args.Positional[k-1])
			v.Val = []byte(fmt.Sprintf(":v%d", len(own.Positional)))
			return true, nil
		}
		key := strings.TrimPrefix(name, ":")
		if own.Named == nil {
			own.Named = map[string]any{}
		}
		own.Named[key] = args.Named[key]
		return true, nil
	}, node)
	return own, bad
}

// commentRows fetches the comments of the records as rows of the comments table. A record the
// base does not have has no comments.
func (cn *conn) commentRows(ctx context.Context, tableID string, ids []string) ([]translate.Row, error) {
	var rows []translate.Row
	for _, id := range ids {
		comments, err := cn.db().base.AllComments(ctx, tableID, id)
		if err != nil {
			if missing, gerr := cn.missingRecord(ctx, tableID, id, err); missing {
				continue // as in MySQL, a record id that matches nothing selects nothing
			} else if gerr != nil {
				return nil, gerr
			}
			return nil, err
		}
		for _, cm := range comments {
			f := map[string]any{"record_id": id, "id": cm.ID, "author_id": cm.Author.ID, "text": cm.Text,
				"createdTime": cm.CreatedTime.UTC().Format(time.RFC3339Nano)}
			for k, v := range map[string]string{"author_email": cm.Author.Email, "author_name": cm.Author.Name, "parent_id": cm.ParentCommentID} {
				if v != "" {
					f[k] = v
				}
			}
			if !cm.LastUpdatedTime.IsZero() {
				f["lastUpdatedTime"] = cm.LastUpdatedTime.UTC().Format(time.RFC3339Nano)
			}
			if len(cm.Mentioned) > 0 {
				var ms []any // by id: the service gives them as an object, whose order is not data
				for _, id := range slices.Sorted(maps.Keys(cm.Mentioned)) {
					m := cm.Mentioned[id]
					mm := map[string]any{"type": m.Type, "id": m.ID, "displayName": m.DisplayName}
					if m.Email != "" {
						mm["email"] = m.Email
					}
					ms = append(ms, mm)
				}
				f["mentions"] = ms
			}
			rows = append(rows, translate.Row{ID: cm.ID, Fields: f})
		}
	}
	return rows, nil
}

// missingRecord tells whether the failure err of a comments listing means the record does not
// exist. The service answers a missing record and a token without the comments scope alike (403
// INVALID_PERMISSIONS_OR_MODEL_NOT_FOUND), so that answer is told apart by getting the record:
// one more request, only in that case.
func (cn *conn) missingRecord(ctx context.Context, tableID, id string, err error) (bool, error) {
	gone := func(err error) bool {
		return errors.Is(err, transport.ErrModelNotFound) || errors.Is(err, transport.ErrNotFound) || errors.Is(err, transport.ErrPermissionsOrNotFound)
	}
	if !gone(err) {
		return false, nil
	}
	if !errors.Is(err, transport.ErrPermissionsOrNotFound) {
		return true, nil
	}
	_, gerr := cn.db().base.Get(ctx, tableID, id)
	switch {
	case gerr == nil:
		return false, nil // the record is there: the token may not read its comments
	case gone(gerr):
		return true, nil
	}
	return false, gerr
}

// commentsCatalog is a catalog of the base with the comments table of the records ids holding
// their comments.
func (cn *conn) commentsCatalog(ctx context.Context, name, baseTable string, ids []string) (*engine.Catalog, error) {
	schema, t, err := cn.db().tableFor(ctx, baseTable)
	if err != nil {
		return nil, err
	}
	rows, err := cn.commentRows(ctx, t.ID, ids)
	if err != nil {
		return nil, err
	}
	catalog := engine.NewCatalog(schema, schema.tables, cn.db().cfg.BaseID)
	catalog.AddLocal(name, commentColumns, rows)
	return catalog, nil
}

// planComments plans a SELECT on a comments table alone.
func (cn *conn) planComments(ctx context.Context, sel *sqlparser.Select, name, baseTable string, args translate.Args) (*translate.Query, *engine.Catalog, error) {
	if len(sel.From) != 1 || hasSubquery(sel) {
		return nil, nil, &UnsupportedError{Construct: "a comments table in a join or with a subquery",
			Hint: "read " + name + " alone, WHERE record_id IN (…), and join its rows in your program"}
	}
	ids, ok, err := cn.recordIDsOf(ctx, sel.Where, args)
	if err != nil {
		return nil, nil, err
	}
	if !ok {
		return nil, nil, commentsNeedRecords(name)
	}
	catalog, err := cn.commentsCatalog(ctx, name, baseTable, ids)
	if err != nil {
		return nil, nil, err
	}
	q, err := translate.NewQueryStatement(sel, catalog, args)
	if err != nil {
		return nil, nil, fromTranslate(err)
	}
	return q, catalog, nil
}

// writeComments runs INSERT, UPDATE or DELETE on a comments table; ok is false for a statement
// on another table. Each comment is one request; they are sent at once, not queued in a
// transaction (Airtable's comments are not records the transaction's writes could hold back).
func (cn *conn) writeComments(ctx context.Context, ast sqlparser.Statement, args translate.Args) (n int64, ok bool, err error) {
	name, baseTable, ok := commentsWriteTarget(ast)
	if !ok {
		return 0, false, nil
	}
	if cn.tx != nil || !cn.autocommit() { // with autocommit=0 every write is in a transaction
		return 0, true, &UnsupportedError{Construct: "writing " + name + " in a transaction",
			Hint: "a comment is written at once and cannot be rolled back: write it outside the transaction"}
	}
	_, t, err := cn.db().tableFor(ctx, baseTable)
	if err != nil {
		return 0, true, err
	}
	switch s := ast.(type) {
	case *sqlparser.Insert:
		n, err = cn.insertComments(ctx, s, t, args)
	case *sqlparser.Update:
		n, err = cn.updateComments(ctx, s, name, baseTable, t, args)
	case *sqlparser.Delete:
		n, err = cn.deleteComments(ctx, s, name, baseTable, t, args)
	}
	return n, true, err
}

// commentsWriteTarget returns the comments table an INSERT, UPDATE or DELETE writes, if it does.
func commentsWriteTarget(ast sqlparser.Statement) (name, baseTable string, ok bool) {
	switch s := ast.(type) {
	case *sqlparser.Insert:
		return commentsTableOf(sqlparser.TableExprs{&sqlparser.AliasedTableExpr{Expr: s.Table}})
	case *sqlparser.Update:
		return commentsTableOf(s.TableExprs)
	case *sqlparser.Delete:
		return commentsTableOf(s.TableExprs)
	}
	return "", "", false
}

// insertComments reads INSERT INTO T$comments (record_id, text[, parent_id]) VALUES (…), ….
func (cn *conn) insertComments(ctx context.Context, s *sqlparser.Insert, t *translate.Table, args translate.Args) (int64, error) {
	rows, isValues := s.Rows.(sqlparser.Values)
	if !isValues || len(s.OnDup) > 0 || s.Ignore != "" {
		return 0, &UnsupportedError{Construct: "INSERT into a comments table other than INSERT … (record_id, text[, parent_id]) VALUES (…)"}
	}
	pos := map[string]int{}
	for i, c := range s.Columns {
		col := strings.ToLower(c.String())
		if col != "record_id" && col != "text" && col != "parent_id" {
			return 0, &UnsupportedError{Construct: "INSERT of the comment column " + c.String(),
				Hint: "a new comment is given its record_id, text and, for a reply, parent_id; Airtable sets the rest"}
		}
		pos[col] = i
	}
	if _, ok := pos["record_id"]; !ok {
		return 0, commentsNeedRecords(sqlparser.String(s.Table))
	}
	if _, ok := pos["text"]; !ok {
		return 0, fmt.Errorf("airsql: INSERT into %s needs the column text", sqlparser.String(s.Table))
	}
	// Every row is evaluated before the first request, so a bad value sends nothing.
	specs := make([]struct {
		record string
		spec   transport.CommentSpec
	}, len(rows))
	for i, tuple := range rows {
		if len(tuple) != len(s.Columns) {
			return 0, fmt.Errorf("airsql: INSERT row %d has %d values for %d columns", i+1, len(tuple), len(s.Columns))
		}
		vals, err := cn.evalConstants(ctx, tuple, args)
		if err != nil {
			return 0, err
		}
		text := func(col string) (string, error) {
			i, ok := pos[col]
			if !ok || vals[i] == nil {
				return "", nil
			}
			if s, ok := vals[i].(string); ok {
				return s, nil
			}
			return fmt.Sprint(vals[i]), nil
		}
		rec, _ := text("record_id")
		body, _ := text("text")
		parent, _ := text("parent_id")
		if rec == "" || strings.TrimSpace(body) == "" {
			return 0, fmt.Errorf("airsql: INSERT row %d: a comment needs a record_id and a non-empty text", i+1)
		}
		specs[i].record, specs[i].spec = rec, transport.CommentSpec{Text: body, ParentCommentID: parent}
	}
	for i, sp := range specs {
		if _, err := cn.db().base.CreateComment(ctx, t.ID, sp.record, sp.spec); err != nil {
			return int64(i), fmt.Errorf("airsql: INSERT comment %d of %d (on record %s): %w (the %d before it were created)", i+1, len(specs), sp.record, err, i)
		}
	}
	return int64(len(specs)), nil
}

// matchedComments runs the statement's WHERE on the comments of the records it names, and returns
// the (record, comment) pairs it keeps.
func (cn *conn) matchedComments(ctx context.Context, name, baseTable string, where *sqlparser.Where, orderBy sqlparser.OrderBy, limit *sqlparser.Limit, args translate.Args) ([][2]string, error) {
	sel := &sqlparser.Select{
		SelectExprs: sqlparser.SelectExprs{&sqlparser.AliasedExpr{Expr: &sqlparser.ColName{Name: sqlparser.NewColIdent("record_id")}},
			&sqlparser.AliasedExpr{Expr: &sqlparser.ColName{Name: sqlparser.NewColIdent("id")}}},
		From:  sqlparser.TableExprs{&sqlparser.AliasedTableExpr{Expr: sqlparser.TableName{Name: sqlparser.NewTableIdent(name)}}},
		Where: where, OrderBy: orderBy, Limit: limit,
	}
	q, catalog, err := cn.planComments(ctx, sel, name, baseTable, args)
	if err != nil {
		return nil, err
	}
	op, err := engine.Build(q, engine.Options{Catalog: catalog, MaxRows: cn.c.cfg.MaxRows})
	if err != nil {
		return nil, fmt.Errorf("airsql: %w", err)
	}
	rows := &engineRows{resultColumns: q.Columns, ctx: ctx, cancel: func() {}, op: op}
	engine.Start(ctx, op)
	defer rows.Close()
	var out [][2]string
	for {
		v := make([]driver.Value, 2)
		if err := rows.Next(v); err == io.EOF {
			return out, nil
		} else if err != nil {
			return nil, err
		}
		out = append(out, [2]string{v[0].(string), v[1].(string)})
	}
}

// updateComments runs UPDATE T$comments SET text = … WHERE record_id … [AND …].
func (cn *conn) updateComments(ctx context.Context, s *sqlparser.Update, name, baseTable string, t *translate.Table, args translate.Args) (int64, error) {
	if len(s.Exprs) != 1 || !strings.EqualFold(s.Exprs[0].Name.Name.String(), "text") {
		return 0, &UnsupportedError{Construct: "UPDATE of a comment column other than text",
			Hint: "Airtable changes only a comment's text: UPDATE " + name + " SET text = … WHERE record_id = … AND id = …"}
	}
	vals, err := cn.evalConstants(ctx, []sqlparser.Expr{s.Exprs[0].Expr}, args)
	if err != nil {
		return 0, err
	}
	text, _ := vals[0].(string)
	if strings.TrimSpace(text) == "" {
		return 0, fmt.Errorf("airsql: UPDATE %s: a comment's text cannot be empty or NULL (DELETE the comment instead)", name)
	}
	matched, err := cn.matchedComments(ctx, name, baseTable, s.Where, s.OrderBy, s.Limit, args)
	if err != nil {
		return 0, err
	}
	for i, m := range matched {
		if _, err := cn.db().base.UpdateComment(ctx, t.ID, m[0], m[1], text); err != nil {
			return int64(i), fmt.Errorf("airsql: UPDATE %s: comment %s: %w (the %d before it were updated)", name, m[1], err, i)
		}
	}
	return int64(len(matched)), nil
}

// deleteComments runs DELETE FROM T$comments WHERE record_id … [AND …].
func (cn *conn) deleteComments(ctx context.Context, s *sqlparser.Delete, name, baseTable string, t *translate.Table, args translate.Args) (int64, error) {
	if len(s.TableExprs) != 1 || len(s.Targets) > 0 {
		return 0, &UnsupportedError{Construct: "a multi-table DELETE with a comments table"}
	}
	matched, err := cn.matchedComments(ctx, name, baseTable, s.Where, s.OrderBy, s.Limit, args)
	if err != nil {
		return 0, err
	}
	for i, m := range matched {
		if _, err := cn.db().base.DeleteComment(ctx, t.ID, m[0], m[1]); err != nil {
			return int64(i), fmt.Errorf("airsql: DELETE FROM %s: comment %s: %w (the %d before it were deleted)", name, m[1], err, i)
		}
	}
	return int64(len(matched)), nil
}
