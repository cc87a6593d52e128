package translate

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/xwb1989/sqlparser"

	"github.com/airsql/airsql/sqlvalue"
)

// InsertPlan is an INSERT translated: the records to create, 10 per request.
type InsertPlan struct {
	Table *Table
	Rows  []map[string]any // fields by name, in the API's write form, one map per VALUES row
	// Upsert is non-nil for INSERT … ON DUPLICATE KEY UPDATE: the key fields (1 to 3), sent as
	// performUpsert {fieldsToMergeOn: Upsert} in batch PATCH requests. A record whose keys match an
	// existing one updates it, otherwise it is created.
	Upsert []string
}

// UpdatePlan is an UPDATE translated: Search finds the records and computes their new values (its
// first column the id of the record written, then one column per SET clause), and Fields turns
// one of its rows into that record's PATCH fields.
type UpdatePlan struct {
	Table  *Table
	Search *Search
	set    []setClause
}

// setClause is one SET column = value: the field written and the column of Search that computes
// its value.
type setClause struct {
	target *expr // the field written
	slot   int   // its value's position in a row of Search
	typ    sqlType
}

// DeletePlan is a DELETE translated: delete every record Search finds (its one column, the ids).
type DeletePlan struct {
	Table  *Table
	Search *Search
}

// upsertKeyTypes are the field types Airtable accepts in fieldsToMergeOn (reference §1.7: "number,
// text, long text, single select, multiple select, date"; a date with a time is the same field type
// in the interface). Not their variants: the documentation lists these types only, and an email,
// url, phone, currency or percent key would be refused by the service with a 422 for the whole chunk.
var upsertKeyTypes = map[string]bool{
	"singleLineText": true, "multilineText": true, "number": true,
	"singleSelect": true, "multipleSelects": true, "date": true, "dateTime": true,
}

// insertColumns is the column list of an INSERT that names none: the table's columns in the order
// of SELECT *, DESCRIBE and information_schema.COLUMNS — id, the fields in the base's order,
// createdTime — when a row gives a value for each (id and createdTime NULL: Airtable assigns
// them), or the fields alone when a row gives one value per field (the table as its CREATE TABLE
// wrote it, without the two columns every Airtable table has).
func insertColumns(table *Table, rows sqlparser.InsertRows) (sqlparser.Columns, error) {
	values, ok := rows.(sqlparser.Values)
	if !ok || len(values) == 0 {
		return nil, unsupported("INSERT without a column list here", "", "name the columns: INSERT INTO t (a, b) …")
	}
	var names []string
	for _, f := range table.Fields {
		names = append(names, f.Name)
	}
	withRecord := slices.Concat([]string{"id"}, names, []string{"createdTime"})
	switch n := len(values[0]); n {
	case len(names):
	case len(withRecord):
		names = withRecord
	default:
		return nil, fmt.Errorf("translate: INSERT INTO %s without a column list: VALUES row 1 has %d values, but the table has %d columns (%s) or, without id and createdTime, %d fields; name the columns: INSERT INTO t (a, b) VALUES (…)",
			table.Name, n, len(withRecord), strings.Join(withRecord, ", "), len(names))
	}
	columns := make(sqlparser.Columns, len(names))
	for i, name := range names {
		columns[i] = sqlparser.NewColIdent(name)
	}
	return columns, nil
}

// Insert translates INSERT INTO t (columns) VALUES (…), (…) [ON DUPLICATE KEY UPDATE c = VALUES(c), …].
//
// With ON DUPLICATE KEY UPDATE the key is every inserted column that is not updated: INSERT INTO t
// (Name, Email, Score) VALUES (…) ON DUPLICATE KEY UPDATE Email = VALUES(Email), Score = VALUES(Score)
// updates the record whose Name matches, or creates one. Only c = VALUES(c) is accepted there: the
// service does the merge and cannot compute an expression.
func Insert(stmt *sqlparser.Insert, schema Schema, args Args) (*InsertPlan, error) {
	if stmt == nil {
		return nil, fmt.Errorf("translate: no INSERT statement")
	}
	switch {
	case stmt.Action == sqlparser.ReplaceStr:
		return nil, unsupported("REPLACE", "", "use INSERT … ON DUPLICATE KEY UPDATE, which merges on the key columns")
	case stmt.Ignore != "":
		return nil, unsupported("INSERT IGNORE", "", "use INSERT … ON DUPLICATE KEY UPDATE to merge on key columns, or look for the records first with SELECT")
	case len(stmt.Partitions) > 0:
		return nil, unsupported("PARTITION", "", "Airtable tables have no partitions")
	}
	table, err := lookupTable(stmt.Table, schema)
	if err != nil {
		return nil, err
	}
	columns := stmt.Columns
	if len(columns) == 0 {
		if columns, err = insertColumns(table, stmt.Rows); err != nil {
			return nil, err
		}
	}
	s := newScope(table, table.Name, args)
	fields, seen, err := s.columnFields(columns, len(stmt.OnDup) > 0)
	if err != nil {
		return nil, err
	}
	values, ok := stmt.Rows.(sqlparser.Values)
	if !ok {
		return nil, unsupported("INSERT … SELECT", "", "run the SELECT, then one INSERT with a VALUES row per record")
	}
	plan := &InsertPlan{Table: table}
	if plan.Rows, err = s.valuesRows(columns, values, fields); err != nil {
		return nil, err
	}
	if len(stmt.OnDup) > 0 {
		if plan.Upsert, err = s.upsertKeys(stmt, fields, seen); err != nil {
			return nil, err
		}
	}
	if err := s.unusedArgs(); err != nil {
		return nil, err
	}
	return plan, nil
}

// columnFields resolves INSERT's column list: the field each column writes (nil for a column
// whose value must be NULL, assignedValue), and the fields named.
func (s *scope) columnFields(columns sqlparser.Columns, onDup bool) (fields []*expr, seen map[string]bool, err error) {
	fields = make([]*expr, len(columns))
	seen = map[string]bool{}
	for i, c := range columns {
		if assigned, err := s.assignedColumn(c.String(), onDup); err != nil {
			return nil, nil, err
		} else if assigned != "" {
			if seen[assigned] {
				return nil, nil, fmt.Errorf("translate: column %q is named twice", assigned)
			}
			seen[assigned] = true
			continue // fields[i] stays nil: the row's value must be NULL (assignedValue)
		}
		e, err := s.writableColumn(c.String())
		if err != nil {
			return nil, nil, err
		}
		if seen[e.field.Name] {
			return nil, nil, fmt.Errorf("translate: column %q is named twice", e.field.Name)
		}
		seen[e.field.Name] = true
		fields[i] = e
	}
	return fields, seen, nil
}

// valuesRows computes the VALUES rows: constants or placeholders, each converted to its field's
// cell.
func (s *scope) valuesRows(columns sqlparser.Columns, values sqlparser.Values, fields []*expr) ([]map[string]any, error) {
	var rows []map[string]any
	for n, tuple := range values {
		if len(tuple) != len(fields) {
			return nil, fmt.Errorf("translate: VALUES row %d has %d values for %d columns", n+1, len(tuple), len(fields))
		}
		row := make(map[string]any, len(fields))
		for i, item := range tuple {
			e, err := s.compile(item)
			if err != nil {
				return nil, err
			}
			if reads := map[string]bool{}; e.reads(reads) {
				return nil, fmt.Errorf("translate: VALUES row %d: %s reads a column; INSERT values must be constants or placeholders", n+1, sqlparser.String(item))
			}
			v, err := e.eval(&Row{})
			if err != nil {
				return nil, err
			}
			if fields[i] == nil {
				if err := assignedValue(columns[i].String(), n+1, v); err != nil {
					return nil, err
				}
				continue
			}
			cell, err := toCell(fields[i], e.typ, v)
			if err != nil {
				return nil, fmt.Errorf("translate: VALUES row %d: %w", n+1, unprefixed(err))
			}
			row[fields[i].field.Name] = cell
		}
		rows = append(rows, row)
	}
	return rows, nil
}

// upsertKeys reads ON DUPLICATE KEY UPDATE: only col = VALUES(col) of inserted columns; the key
// Airtable merges on is the inserted columns not updated (1 to 3, of types it can merge on).
func (s *scope) upsertKeys(stmt *sqlparser.Insert, fields []*expr, seen map[string]bool) ([]string, error) {
	updated := map[string]bool{}
	for _, u := range stmt.OnDup {
		target, err := s.writableColumn(u.Name.Name.String())
		if err != nil {
			return nil, err
		}
		vf, ok := u.Expr.(*sqlparser.ValuesFuncExpr)
		if !ok || !strings.EqualFold(vf.Name.Name.String(), u.Name.Name.String()) {
			return nil, unsupported("ON DUPLICATE KEY UPDATE "+sqlparser.String(u), "", "only col = VALUES(col): the service merges, it does not compute; compute the value in the VALUES row")
		}
		if !seen[target.field.Name] {
			return nil, fmt.Errorf("translate: ON DUPLICATE KEY UPDATE %s: the column is not inserted", target.field.Name)
		}
		updated[target.field.Name] = true
	}
	keys := []string{}
	for _, e := range fields {
		if !updated[e.field.Name] {
			keys = append(keys, e.field.Name)
			if !upsertKeyTypes[e.field.Type] {
				return nil, fmt.Errorf("translate: ON DUPLICATE KEY UPDATE: key column %q is a %s field; Airtable merges only on number, text (singleLineText), long text, single select, multiple select and date fields: put a column of one of these types in the key", e.field.Name, e.field.Type)
			}
		}
	}
	if len(keys) < 1 || len(keys) > 3 {
		return nil, fmt.Errorf("translate: ON DUPLICATE KEY UPDATE: the key is the inserted columns not updated, and Airtable needs 1 to 3 of them; got %d (%s)", len(keys), strings.Join(keys, ", "))
	}
	return keys, nil
}

// Update translates UPDATE t SET c = expr, … [WHERE …], and UPDATE t JOIN … SET t.c = … (one
// table written). SET expressions read each record's current values (SET n = n + 1), and in a
// join the other tables' (SET t.c = u.d); without WHERE every record is updated.
func Update(stmt *sqlparser.Update, schema Schema, args Args) (*UpdatePlan, error) {
	if stmt == nil {
		return nil, fmt.Errorf("translate: no UPDATE statement")
	}
	if len(stmt.OrderBy) > 0 {
		return nil, unsupported("UPDATE … ORDER BY", sqlparser.String(stmt.OrderBy), hintPickRows)
	}
	if stmt.Limit != nil {
		return nil, unsupported("UPDATE … LIMIT", sqlparser.String(stmt.Limit), hintPickRows)
	}
	w, err := findWritten(stmt.TableExprs, updateTarget(stmt), schema, "UPDATE")
	if err != nil {
		return nil, err
	}
	s := newScope(w.table, w.alias, args)
	plan := &UpdatePlan{Table: w.table}
	values := make(sqlparser.SelectExprs, len(stmt.Exprs))
	for i, u := range stmt.Exprs {
		if q := u.Name.Qualifier; !q.IsEmpty() && q.Name.String() != w.alias && q.Name.String() != w.table.Name {
			return nil, fmt.Errorf("translate: SET %s names another table", sqlparser.String(u.Name))
		}
		target, err := s.writableColumn(u.Name.Name.String())
		if err != nil {
			return nil, err
		}
		if err := setMisuse(u.Expr); err != nil {
			return nil, err
		}
		values[i] = &sqlparser.AliasedExpr{Expr: u.Expr}
		clause := setClause{target: target, slot: 1 + i}
		at := slices.IndexFunc(plan.set, func(c setClause) bool { return c.target.field.Name == target.field.Name })
		if at < 0 {
			plan.set = append(plan.set, clause)
			continue
		}
		// SET b = 5, b = 6: MySQL assigns left to right, so the last value wins — unless the
		// later expression reads a column assigned before it, which MySQL reads as already
		// assigned and the driver (reading each record's stored values) cannot.
		read := s.writtenColumnsRead(u.Expr, w.alias)
		for _, c := range plan.set {
			if read[c.target.field.Name] {
				return nil, fmt.Errorf("translate: SET assigns %q twice, and the second value reads %q, which MySQL reads as already assigned: write the whole value in one assignment",
					target.field.Name, c.target.field.Name)
			}
		}
		plan.set[at] = clause
	}
	if plan.Search, err = w.search(stmt.Where, values, schema, args); err != nil {
		return nil, err
	}
	for i, c := range plan.set {
		plan.set[i].typ = plan.Search.Query.Outputs[c.slot].e.typ
		if _, err := toCellType(c.target, plan.set[i].typ); err != nil {
			return nil, err
		}
	}
	return plan, nil
}

// setMisuse refuses in a SET value what MySQL refuses there, outside subqueries: an aggregate
// (error 1111) or a window function (3593). The search's SELECT would read them as its own.
func setMisuse(e sqlparser.Expr) error {
	var err error
	_ = sqlparser.Walk(func(n sqlparser.SQLNode) (bool, error) {
		if err != nil {
			return false, nil
		}
		switch n := n.(type) {
		case *sqlparser.Subquery:
			return false, nil
		case *sqlparser.FuncExpr:
			if _, _, ok := windowCallParts(n); ok {
				err = windowMisuse(n)
				return false, nil
			}
		}
		if isAggregateNode(n) {
			err = fmt.Errorf("translate: invalid use of group function %s in SET: an UPDATE sets each record's own values; compute the aggregate in a subquery, SET c = (SELECT …)", sqlparser.String(n))
			return false, nil
		}
		return true, nil
	}, e)
	return err
}

// writtenColumnsRead lists the fields of the table written (as alias names it) that an
// expression reads, outside its subqueries.
func (s *scope) writtenColumnsRead(e sqlparser.Expr, alias string) map[string]bool {
	read := map[string]bool{}
	_ = sqlparser.Walk(func(n sqlparser.SQLNode) (bool, error) {
		switch n := n.(type) {
		case *sqlparser.Subquery:
			return false, nil
		case *sqlparser.ColName:
			if q := n.Qualifier.Name.String(); q != "" && q != alias && q != s.table.Name {
				return false, nil
			}
			if c, err := s.lookupColumn(n.Name.String()); err == nil && c.kind == exField {
				read[c.field.Name] = true
			}
		}
		return true, nil
	}, e)
	return read
}

// Fields computes the PATCH fields of one record from its row of Search: each SET value, computed
// by the engine as the SELECT's column, converted to the field's write form.
func (p *UpdatePlan) Fields(row []any) (map[string]any, error) {
	out := make(map[string]any, len(p.set))
	for _, c := range p.set {
		cell, err := toCell(c.target, c.typ, row[c.slot])
		if err != nil {
			return nil, fmt.Errorf("translate: record %v: %w", row[0], err)
		}
		out[c.target.field.Name] = cell
	}
	return out, nil
}

// Delete translates DELETE FROM t [WHERE …], and DELETE t FROM t JOIN … (one table written);
// without WHERE every record is deleted.
func Delete(stmt *sqlparser.Delete, schema Schema, args Args) (*DeletePlan, error) {
	if stmt == nil {
		return nil, fmt.Errorf("translate: no DELETE statement")
	}
	switch {
	case len(stmt.Targets) > 1:
		return nil, unsupported("multi-table DELETE", "", "delete from one table at a time")
	case len(stmt.Partitions) > 0:
		return nil, unsupported("PARTITION", "", "Airtable tables have no partitions")
	case len(stmt.OrderBy) > 0:
		return nil, unsupported("DELETE … ORDER BY", sqlparser.String(stmt.OrderBy), hintPickRows)
	case stmt.Limit != nil:
		return nil, unsupported("DELETE … LIMIT", sqlparser.String(stmt.Limit), hintPickRows)
	}
	target := ""
	if len(stmt.Targets) == 1 {
		// DELETE t FROM t USE INDEX (`view`) …: the form that takes a view, and the form of a join.
		if t := stmt.Targets[0]; !t.Qualifier.IsEmpty() {
			return nil, unsupported("multi-table DELETE", sqlparser.String(stmt.Targets), "delete from one table at a time")
		}
		target = stmt.Targets[0].Name.String()
	}
	w, err := findWritten(stmt.TableExprs, target, schema, "DELETE")
	if err != nil {
		return nil, err
	}
	search, err := w.search(stmt.Where, nil, schema, args)
	if err != nil {
		return nil, err
	}
	return &DeletePlan{Table: w.table, Search: search}, nil
}

// writableColumn resolves a column that is written.
func (s *scope) writableColumn(name string) (*expr, error) {
	e, err := s.lookupColumn(name)
	if err != nil {
		return nil, err
	}
	switch e.kind {
	case exRecordID:
		return nil, fmt.Errorf("translate: column id is the record id, set by Airtable; it cannot be written")
	case exCreatedTime:
		return nil, fmt.Errorf("translate: column createdTime is set by Airtable; it cannot be written")
	}
	if !e.info.writable {
		return nil, fmt.Errorf("translate: field %q is a %s field, computed by Airtable; it cannot be written", e.field.Name, e.field.Type)
	}
	return e, nil
}

// reads reports whether the expression reads the record (a column, id or createdTime).
func (e *expr) reads(into map[string]bool) bool {
	if e.kind == exField || e.kind == exRecordID || e.kind == exCreatedTime {
		return true
	}
	for _, a := range e.args {
		if a.reads(into) {
			return true
		}
	}
	return false
}

// toCellType refuses, before any request, a value type a field cannot hold.
func toCellType(target *expr, from sqlType) (bool, error) {
	to := target.info.typ
	ok := true
	switch to {
	case typeInt, typeFloat:
		ok = from.Numeric() || from == typeText || from == typeNull
	case typeBool:
		ok = from.Integer() || from == typeNull
	case typeDate, typeDateTime:
		ok = from.Temporal() || from == typeText || from == typeNull
	case typeText:
		ok = from == typeText || from == typeInt || from == typeCond || from == typeFloat || from == typeNull
	case typeJSON:
		ok = from == typeJSON || from == typeText || from == typeNull
	}
	if !ok {
		return false, fmt.Errorf("translate: field %q (%s) cannot hold a %s value", target.field.Name, target.field.Type, from)
	}
	return true, nil
}

// toCell converts an SQL value into the API's write form for a field: text as strings, numbers as
// numbers, checkbox as bool, date as "2006-01-02", dateTime as RFC 3339 in UTC, arrays and objects
// from JSON text or []string. NULL clears the field.
func toCell(target *expr, from sqlType, v any) (any, error) {
	if _, err := toCellType(target, from); err != nil {
		return nil, err
	}
	if v == nil {
		return nil, nil
	}
	name := target.field.Name
	switch target.info.typ {
	case typeText:
		return sqlvalue.TextOf(v), nil
	case typeInt, typeFloat:
		switch n := v.(type) {
		case int64:
			return n, nil
		case float64:
			return n, nil
		case bool:
			return sqlvalue.BoolInt(n), nil
		case string:
			f, err := strconv.ParseFloat(strings.TrimSpace(n), 64)
			if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
				return nil, fmt.Errorf("field %q is a number; %q is not one", name, n)
			}
			if i, err := strconv.ParseInt(strings.TrimSpace(n), 10, 64); err == nil {
				return i, nil
			}
			return f, nil
		}
	case typeBool:
		switch b := v.(type) {
		case bool:
			return b, nil
		case int64:
			return b != 0, nil
		}
	case typeDate, typeDateTime:
		switch t := v.(type) {
		case time.Time:
			if target.info.typ == typeDate {
				return t.UTC().Format("2006-01-02"), nil
			}
			return t.UTC().Format("2006-01-02T15:04:05.000Z"), nil
		case string:
			if _, ok := parseTime(t); !ok {
				return nil, fmt.Errorf("field %q is a %s; %q is not an ISO 8601 date", name, target.field.Type, t)
			}
			return t, nil
		}
	case typeJSON:
		str, ok := v.(string)
		if !ok {
			break
		}
		var decoded any
		if err := json.Unmarshal([]byte(str), &decoded); err == nil && from == typeJSON {
			return decoded, nil
		} else if err == nil && (strings.HasPrefix(strings.TrimSpace(str), "[") || strings.HasPrefix(strings.TrimSpace(str), "{")) {
			return decoded, nil
		}
		switch target.field.Type {
		case "multipleSelects", "multipleRecordLinks", "multipleCollaborators":
			return []any{str}, nil // one choice, record id or user
		}
		return nil, fmt.Errorf("field %q is a %s; write JSON text or pass a []string / json.RawMessage", name, target.field.Type)
	}
	return nil, fmt.Errorf("field %q (%s) cannot hold %v", name, target.field.Type, v)
}

// unprefixed wraps err so that its message loses a leading "translate: ", for an error placed
// after a prefix of its own.
func unprefixed(err error) error { return trimmedError{err} }

type trimmedError struct{ err error }

func (e trimmedError) Error() string { return strings.TrimPrefix(e.err.Error(), "translate: ") }
func (e trimmedError) Unwrap() error { return e.err }
