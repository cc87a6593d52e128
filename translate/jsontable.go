package translate

import (
	"encoding/json"
	"errors"
	"math"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/airsql/airsql/frontend"
	"github.com/airsql/airsql/sqlvalue"
	"github.com/xwb1989/sqlparser"
)

// JSON_TABLE (MySQL 8 manual, 14.17.6 "JSON Table Functions"). The front end writes each
// JSON_TABLE(doc, 'path' COLUMNS (…)) AS t of FROM as the derived table (SELECT `JSON TABLE`(doc,
// 'spec')) AS t; here it becomes a Local table whose rows are made from the document (Row.Values:
// its columns, read as exDerived like a derived table's). Its document may read the tables to its
// left in FROM (a lateral reference, as MySQL allows for table functions): then the join runs it
// once per row so far (engine/jsontable.go); otherwise its rows are made once.
//
// Each column is filled as MySQL fills it: FOR ORDINALITY counts the rows of its path from 1;
// EXISTS PATH is 1 or 0; PATH stores the value found, converted to the declared type, NULL (or
// the DEFAULT, or an error) ON EMPTY when the path finds nothing and ON ERROR when the value
// cannot be stored (an array or object in a scalar column, text that is not a number, a number
// out of the type's range, text longer than the column). NESTED PATH makes one row per value of
// its path under each row of its parent; sibling NESTED PATHs take turns (the others' columns
// NULL), and a parent row whose nested paths all find nothing is kept once with them NULL.

// JSONTable is one JSON_TABLE of FROM.
type JSONTable struct {
	// Doc is the document; it reads the rows so far of a join when Lateral.
	Doc     *Expr
	Lateral bool
	// SQL is the call as MySQL prints it, for EXPLAIN and messages.
	SQL string

	alias   string
	docAST  sqlparser.Expr
	root    *jtNode
	columns []jtColumn
}

// jtNode is a row path and its columns: the statement's path, or a NESTED PATH.
type jtNode struct {
	path   *sqlvalue.JSONPath
	cols   []int // its own columns (ordinality, path, exists)
	nested []*jtNode
	all    []int // its own columns and those of every node under it
}

// jtColumn is one output column.
type jtColumn struct {
	name     string
	kind     string // "ordinality", "path", "exists"
	typ      jtType
	path     *sqlvalue.JSONPath
	onEmpty  jtResponse
	onError  jtResponse
	nullable bool
}

// jtType is a declared column type as the driver stores it.
type jtType struct {
	sql      sqlType
	cast     string // MySQL's name in its CAST error: INTEGER, DECIMAL, DOUBLE, DATE, …
	length   int    // text: its most characters (-1: no limit); DECIMAL: its precision; DATETIME: fsp
	scale    int    // DECIMAL's
	min, max float64
}

// jtResponse is an ON EMPTY or ON ERROR clause.
type jtResponse struct {
	kind string // "null", "error" or "default"
	val  any    // the default, stored as the column's type
}

// MaxJSONTableNested is MySQL's limit of NESTED PATHs in one JSON_TABLE (error 3670).
const MaxJSONTableNested = 16

// jsonTableOf reads a derived table written by the front end for a JSON_TABLE; ok is false for
// any other derived table.
func jsonTableOf(ate *sqlparser.AliasedTableExpr) (*JSONTable, bool, error) {
	sub, ok := ate.Expr.(*sqlparser.Subquery)
	if !ok {
		return nil, false, nil
	}
	sel, ok := sub.Select.(*sqlparser.Select)
	if !ok || len(sel.SelectExprs) != 1 {
		return nil, false, nil
	}
	ae, ok := sel.SelectExprs[0].(*sqlparser.AliasedExpr)
	if !ok {
		return nil, false, nil
	}
	call, ok := ae.Expr.(*sqlparser.FuncExpr)
	if !ok || call.Name.String() != frontend.JSONTableCall || len(call.Exprs) != 2 {
		return nil, false, nil
	}
	doc, ok := call.Exprs[0].(*sqlparser.AliasedExpr)
	if !ok {
		return nil, false, nil
	}
	specArg, ok := call.Exprs[1].(*sqlparser.AliasedExpr)
	if !ok {
		return nil, false, nil
	}
	lit, ok := specArg.Expr.(*sqlparser.SQLVal)
	if !ok || lit.Type != sqlparser.StrVal {
		return nil, false, nil
	}
	spec, err := frontend.DecodeJSONTableSpec(string(lit.Val))
	if err != nil {
		return nil, true, err
	}
	jt, err := newJSONTable(ate.As.String(), doc.Expr, spec)
	return jt, true, err
}

// formatJSONTable writes the derived table the front end made of a JSON_TABLE as the call it
// was (sqlString: messages and EXPLAIN show the statement as written).
func formatJSONTable(buf *sqlparser.TrackedBuffer, node sqlparser.SQLNode) bool {
	ate, ok := node.(*sqlparser.AliasedTableExpr)
	if !ok {
		return false
	}
	jt, isJSONTable, err := jsonTableOf(ate)
	if !isJSONTable || err != nil {
		return false
	}
	buf.Myprintf("%s", jt.SQL)
	return true
}

// newJSONTable checks a specification and prepares its paths, types and defaults.
func newJSONTable(alias string, doc sqlparser.Expr, spec *frontend.JSONTableSpec) (*JSONTable, error) {
	jt := &JSONTable{alias: alias, docAST: doc}
	jt.SQL = "json_table(" + sqlString(doc) + ", " + spec.SQL() + ") " + alias
	nested := 0
	seen := map[string]bool{}
	var build func(path string, cols []frontend.JSONTableColumn, under bool) (*jtNode, error)
	build = func(path string, cols []frontend.JSONTableColumn, under bool) (*jtNode, error) {
		p, err := sqlvalue.ParseJSONPath(path)
		if err != nil {
			return nil, err
		}
		n := &jtNode{path: p}
		for _, c := range cols {
			if c.Kind == "nested" {
				if nested++; nested > MaxJSONTableNested {
					return nil, sqlvalue.JSONErrorf(3670, "More than supported %d NESTED PATHs were found in JSON_TABLE '%s'", MaxJSONTableNested, alias)
				}
				child, err := build(c.Path, c.Columns, true)
				if err != nil {
					return nil, err
				}
				n.nested = append(n.nested, child)
				n.all = append(n.all, child.all...)
				continue
			}
			k := strings.ToLower(c.Name)
			if seen[k] {
				return nil, sqlvalue.JSONErrorf(1060, "Duplicate column name '%s' in JSON_TABLE %s: give the columns distinct names", c.Name, alias)
			}
			seen[k] = true
			col, err := jsonTableColumn(c, under)
			if err != nil {
				return nil, err
			}
			n.cols = append(n.cols, len(jt.columns))
			n.all = append(n.all, len(jt.columns))
			jt.columns = append(jt.columns, col)
		}
		return n, nil
	}
	root, err := build(spec.Path, spec.Columns, false)
	if err != nil {
		return nil, err
	}
	jt.root = root
	return jt, nil
}

// jsonTableColumn prepares one column definition; under: inside a NESTED PATH (every column may
// then be NULL).
func jsonTableColumn(c frontend.JSONTableColumn, under bool) (jtColumn, error) {
	col := jtColumn{name: c.Name, kind: c.Kind, nullable: under, onEmpty: jtResponse{kind: "null"}, onError: jtResponse{kind: "null"}}
	if c.Kind == "ordinality" {
		col.typ = jtType{sql: typeInt, cast: "UNSIGNED", length: -1, min: 0, max: math.MaxUint32}
		return col, nil
	}
	typ, err := jsonTableType(c.Name, c.Type)
	if err != nil {
		return col, err
	}
	col.typ = typ
	if col.path, err = sqlvalue.ParseJSONPath(c.Path); err != nil {
		return col, err
	}
	if c.Kind == "exists" {
		return col, nil
	}
	col.nullable = true
	for _, r := range []struct {
		in  *frontend.JSONTableResponse
		out *jtResponse
	}{{c.OnEmpty, &col.onEmpty}, {c.OnError, &col.onError}} {
		if r.in == nil {
			continue
		}
		r.out.kind = r.in.Kind
		if r.in.Kind != "default" {
			continue
		}
		v, err := sqlvalue.ParseJSON(r.in.Default)
		if err != nil {
			return col, sqlvalue.JSONErrorf(1067, "Invalid default value for '%s': DEFAULT of a JSON_TABLE column is JSON text (%v)", c.Name, err)
		}
		stored, err := col.store(v, 1)
		if err != nil {
			return col, sqlvalue.JSONErrorf(1067, "Invalid default value for '%s': %s", c.Name, strings.TrimPrefix(err.Error(), "translate: "))
		}
		r.out.val = stored
	}
	return col, nil
}

// jsonTableType is how a declared type is stored, or a refusal naming it.
func jsonTableType(name string, t *frontend.JSONTableType) (jtType, error) {
	if t == nil {
		return jtType{}, fmtErr("JSON_TABLE column %s has no type", name)
	}
	if cs := strings.ToLower(t.Charset); cs != "" && cs != "binary" && !strings.HasPrefix(cs, "utf8") {
		return jtType{}, unsupported("the character set "+t.Charset, t.Text, "the driver's text is UTF-8: leave the character set out")
	}
	intRange := func(bits uint) jtType {
		if t.Unsigned {
			return jtType{sql: typeInt, cast: "UNSIGNED", length: -1, min: 0, max: math.Ldexp(1, int(bits)) - 1}
		}
		return jtType{sql: typeInt, cast: "INTEGER", length: -1, min: -math.Ldexp(1, int(bits-1)), max: math.Ldexp(1, int(bits-1)) - 1}
	}
	switch t.Name {
	case "varchar", "nvarchar", "char", "nchar", "character", "varcharacter":
		n := t.Length
		if n < 0 {
			if strings.HasPrefix(t.Name, "var") || t.Name == "nvarchar" {
				return jtType{}, fmtErr("JSON_TABLE column %s: %s needs a length: write %s(n)", name, strings.ToUpper(t.Name), strings.ToUpper(t.Name))
			}
			n = 1
		}
		return jtType{sql: typeText, cast: "CHAR", length: n}, nil
	case "tinytext":
		return jtType{sql: typeText, cast: "CHAR", length: 255}, nil
	case "text", "mediumtext", "longtext", "blob", "tinyblob", "mediumblob", "longblob":
		return jtType{sql: typeText, cast: "CHAR", length: -1}, nil
	case "tinyint", "bool", "boolean":
		return intRange(8), nil
	case "smallint":
		return intRange(16), nil
	case "mediumint":
		return intRange(24), nil
	case "int", "integer":
		return intRange(32), nil
	case "bigint":
		r := intRange(64)
		if t.Unsigned {
			r.max = math.MaxInt64 // the driver's integers are int64
		}
		return r, nil
	case "decimal", "numeric", "dec", "fixed":
		p, s := t.Length, t.Scale
		if p < 0 {
			p = 10
		}
		if s < 0 {
			s = 0
		}
		switch {
		case p < 1 || p > 65:
			return jtType{}, fmtErr("JSON_TABLE column %s: DECIMAL takes a precision of 1 to 65 digits, not %d", name, p)
		case s > 30 || s > p:
			return jtType{}, fmtErr("JSON_TABLE column %s: DECIMAL(M, D) needs D <= 30 and D <= M", name)
		}
		limit := math.Pow(10, float64(p-s)) - math.Pow(10, -float64(s))
		typ := typeFloat
		if s == 0 {
			typ = typeInt
		}
		lo := -limit
		if t.Unsigned {
			lo = 0
		}
		return jtType{sql: typ, cast: "DECIMAL", length: p, scale: s, min: lo, max: limit}, nil
	case "double", "real", "float":
		return jtType{sql: typeFloat, cast: "DOUBLE", length: -1, min: -math.MaxFloat64, max: math.MaxFloat64}, nil
	case "date":
		return jtType{sql: typeDate, cast: "DATE", length: -1}, nil
	case "datetime", "timestamp":
		fsp := max(t.Length, 0)
		if fsp > 6 {
			return jtType{}, fmtErr("JSON_TABLE column %s: %s takes a precision of 0 to 6 digits, not %d", name, strings.ToUpper(t.Name), fsp)
		}
		return jtType{sql: typeDateTime, cast: "DATETIME", length: fsp}, nil
	case "json":
		return jtType{sql: typeJSON, cast: "JSON", length: -1}, nil
	}
	return jtType{}, unsupported("the JSON_TABLE column type "+strings.ToUpper(t.Name), t.Text,
		"declare the column as VARCHAR(n), TEXT, an integer type, DECIMAL(p, s), DOUBLE, DATE, DATETIME or JSON, and convert it in the select list")
}

// jtStoreError is a value a column cannot store: ON ERROR decides.
type jtStoreError struct{ err error }

func (e *jtStoreError) Error() string { return e.err.Error() }

// store converts a JSON value found at a column's path to its type, as MySQL stores it; row is
// the row's number, for messages.
func (c *jtColumn) store(v any, row int) (any, error) {
	t := c.typ
	if t.sql == typeJSON {
		return sqlvalue.JSONFormat(v), nil
	}
	switch v.(type) {
	case nil:
		return nil, nil
	case []any, map[string]any:
		return nil, sqlvalue.JSONErrorf(3666, "Can't store an array or an object in the scalar JSON_TABLE column '%s'", c.name)
	}
	bad := func() error {
		return sqlvalue.JSONErrorf(3156, "Invalid JSON value for CAST to %s from column %s at row %d", t.cast, c.name, row)
	}
	outOfRange := func() error {
		return sqlvalue.JSONErrorf(3669, "Value is out of range for JSON_TABLE's column '%s'", c.name)
	}
	switch t.sql {
	case typeText:
		s := jsonScalarText(v)
		if t.length >= 0 && utf8.RuneCountInString(s) > t.length {
			// Trailing spaces cut to fit are no error (MySQL: a note).
			trimmed := strings.TrimRight(s, " ")
			if utf8.RuneCountInString(trimmed) > t.length {
				return nil, sqlvalue.JSONErrorf(1406, "Data too long for column '%s' at row %d", c.name, row)
			}
			s = string([]rune(s)[:t.length])
		}
		return s, nil
	case typeInt, typeFloat:
		f, isInt, n, ok := jsonScalarNumber(v)
		if !ok {
			return nil, bad()
		}
		if t.cast == "DOUBLE" {
			return f, nil
		}
		if t.cast == "DECIMAL" {
			f = sqlvalue.RoundDecimal(f, int64(t.scale), false)
			if isInt && t.scale == 0 && float64(n) >= t.min && float64(n) <= t.max {
				return n, nil
			}
			if f < t.min || f > t.max {
				return nil, outOfRange()
			}
			if t.sql == typeInt {
				return int64(f), nil
			}
			return f, nil
		}
		if isInt {
			if float64(n) < t.min || float64(n) > t.max {
				return nil, outOfRange()
			}
			return n, nil
		}
		f = math.Round(f)
		if f < t.min || f > t.max {
			return nil, outOfRange()
		}
		return int64(f), nil
	case typeDate, typeDateTime:
		s, isText := v.(string)
		if !isText {
			return nil, bad()
		}
		tm, ok := sqlvalue.ParseMySQLTime(s)
		if !ok {
			return nil, bad()
		}
		if t.sql == typeDate {
			return time.Date(tm.Year(), tm.Month(), tm.Day(), 0, 0, 0, 0, time.UTC), nil
		}
		step := time.Second
		for range t.length {
			step /= 10
		}
		return tm.Round(step), nil
	}
	return nil, bad()
}

// jsonScalarText is a JSON scalar as text: a string as it is, others as MySQL writes them.
func jsonScalarText(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	return sqlvalue.JSONFormat(v)
}

// jsonScalarNumber reads a JSON scalar as a number: a number, a boolean (1 or 0), or a string
// that is one number (blanks around it allowed); isInt with n when it is an integer in range.
func jsonScalarNumber(v any) (f float64, isInt bool, n int64, ok bool) {
	switch x := v.(type) {
	case bool:
		n = sqlvalue.BoolInt(x)
		return float64(n), true, n, true
	case json.Number:
		if sqlvalue.JSONNumberIsInt(x) {
			n, err := strconv.ParseInt(sqlvalue.JSONIntText(x), 10, 64)
			return float64(n), err == nil, n, true
		}
		return sqlvalue.JSONNumberFloat(x), false, 0, true
	case string:
		s := strings.TrimSpace(x)
		if n, err := strconv.ParseInt(s, 10, 64); err == nil {
			return float64(n), true, n, true
		}
		f, err := strconv.ParseFloat(s, 64)
		if err != nil || s == "" || strings.ContainsAny(s, "xXpP_") || math.IsInf(f, 0) || math.IsNaN(f) {
			return 0, false, 0, false
		}
		return f, false, 0, true
	}
	return 0, false, 0, false
}

// value is a PATH or EXISTS PATH column's value in the row whose document is doc.
func (c *jtColumn) value(doc any, row int) (any, error) {
	var first any
	var all []any // a JSON column's values, when the path finds several
	found := 0
	_ = c.path.Each(doc, func(v any) error {
		if found == 0 {
			first = v
		}
		if c.typ.sql == typeJSON {
			all = append(all, v)
		}
		found++
		return nil
	})
	if c.kind == "exists" {
		flag := int64(0)
		if found > 0 {
			flag = 1
		}
		return c.store(json.Number(strconv.FormatInt(flag, 10)), row)
	}
	v := first
	switch {
	case found == 0:
		switch c.onEmpty.kind {
		case "error":
			return nil, sqlvalue.JSONErrorf(3665, "Missing value for JSON_TABLE column '%s'", c.name)
		case "default":
			return c.onEmpty.val, nil
		}
		return nil, nil
	case found > 1 && c.typ.sql == typeJSON:
		v = all
	case found > 1:
		return c.onErrorValue(sqlvalue.JSONErrorf(3666, "Can't store an array or an object in the scalar JSON_TABLE column '%s'", c.name))
	}
	stored, err := c.store(v, row)
	if err != nil {
		return c.onErrorValue(err)
	}
	return stored, nil
}

func (c *jtColumn) onErrorValue(err error) (any, error) {
	switch c.onError.kind {
	case "error":
		return nil, err
	case "default":
		return c.onError.val, nil
	}
	return nil, nil
}

// Rows makes the rows of the JSON table for one row so far (an empty Row when it reads no
// table) and passes each to emit, whose Values it may reuse after emit returns. A NULL document
// makes no rows.
func (jt *JSONTable) Rows(r *Row, emit func(values []any) error) error {
	v, err := jt.Doc.e.eval(r)
	if err != nil || v == nil {
		return err
	}
	var doc any
	switch x := v.(type) {
	case string:
		if doc, err = sqlvalue.ParseJSON(x); err != nil {
			return sqlvalue.JSONErrorf(3141, "Invalid JSON text in argument 1 to function json_table: %v", err)
		}
	default:
		return sqlvalue.JSONErrorf(3146, "Invalid data type for JSON data in argument 1 to function json_table; a JSON string or JSON type is required")
	}
	vals := make([]any, len(jt.columns))
	rows := 0
	return jt.produce(jt.root, doc, vals, &rows, emit)
}

// produce makes the rows of node n over doc (see the comment at the top for NESTED PATH).
func (jt *JSONTable) produce(n *jtNode, doc any, vals []any, rows *int, emit func([]any) error) error {
	k := 0
	return n.path.Each(doc, func(m any) error {
		k++
		for _, ci := range n.cols {
			c := &jt.columns[ci]
			if c.kind == "ordinality" {
				vals[ci] = int64(k)
				continue
			}
			v, err := c.value(m, *rows+1)
			if err != nil {
				return err
			}
			vals[ci] = v
		}
		before := *rows
		for _, child := range n.nested {
			for _, sibling := range n.nested {
				for _, ci := range sibling.all {
					vals[ci] = nil
				}
			}
			if err := jt.produce(child, m, vals, rows, emit); err != nil {
				return err
			}
		}
		if len(n.nested) > 0 && *rows > before {
			return nil
		}
		for _, child := range n.nested {
			for _, ci := range child.all {
				vals[ci] = nil
			}
		}
		*rows++
		return emit(vals)
	})
}

// Columns are the JSON table's column names in order.
func (jt *JSONTable) Columns() []string {
	out := make([]string, len(jt.columns))
	for i, c := range jt.columns {
		out[i] = c.name
	}
	return out
}

// jsonTableColumnExpr is column i of a JSON table, read from its rows' Values.
func jsonTableColumnExpr(jt *JSONTable, i int) *expr {
	c := jt.columns[i]
	e := &expr{kind: exDerived, slot: i, typ: c.typ.sql, nullable: c.nullable, sql: c.name}
	if c.typ.sql == typeDateTime {
		e.fsp = c.typ.length
	}
	return e
}

// jsonTableLookup resolves a column of a JSON table by name (exactly, then regardless of case).
func jsonTableLookup(t *Table, name string) (*expr, error) {
	jt := t.JSONTable
	for i, c := range jt.columns {
		if c.name == name {
			return jsonTableColumnExpr(jt, i), nil
		}
	}
	for i, c := range jt.columns {
		if strings.EqualFold(c.name, name) {
			return jsonTableColumnExpr(jt, i), nil
		}
	}
	return nil, unknownColumnf("%q in %q (its columns: %s)", name, t.Name, strings.Join(jt.Columns(), ", "))
}

func jsonTableStar(t *Table) []*expr {
	out := make([]*expr, len(t.JSONTable.columns))
	for i := range out {
		out[i] = jsonTableColumnExpr(t.JSONTable, i)
	}
	return out
}

// compileJSONTableDocs compiles the document of each JSON table of FROM where MySQL resolves it:
// among the tables to its left (a join's earlier sides), in the outer query for a subquery's, and
// nowhere else. A JSON table whose document reads a table is Lateral; one on the right of a RIGHT
// JOIN may not be (MySQL's error 3668).
func (qp *queryPlanner) compileJSONTableDocs() error {
	s := qp.s
	// The documents are compiled in copies of the scope: the arguments they read are recorded in
	// its maps (made by adopt), which the copies share.
	if len(s.sides) == 0 {
		if s.table == nil || s.table.JSONTable == nil {
			return nil
		}
		sub := *s
		sub.table, sub.noTable, sub.alias = &Table{Name: "a table function argument"}, true, ""
		x, err := jsonTableDoc(&sub, s.table.JSONTable, nil)
		if err != nil {
			return err
		}
		s.subqueries = sub.subqueries
		s.table.JSONTable.Doc = wrap(x)
		return nil
	}
	for i, side := range s.sides {
		jt := side.table.JSONTable
		if jt == nil {
			continue
		}
		sub := *s
		sub.joinEntries = nil
		if i == 0 {
			sub.sides = nil
			sub.table, sub.noTable, sub.alias = &Table{Name: "a table function argument"}, true, ""
		} else {
			sub.sides = s.sides[:i]
		}
		x, err := jsonTableDoc(&sub, jt, s.sides[i+1:])
		if err != nil {
			return err
		}
		s.subqueries = sub.subqueries
		jt.Doc = wrap(x)
		jt.Lateral = x.tabs() != 0
		if jt.Lateral && side.join == "right" {
			return sqlvalue.JSONErrorf(3668, "INNER or LEFT JOIN must be used for LATERAL references made by '%s': its document reads %s, which a RIGHT JOIN may leave out",
				side.alias, describe(x))
		}
	}
	return nil
}

// jsonTableDoc compiles a JSON table's document in sub; later are the tables after it in FROM,
// which it may not read.
func jsonTableDoc(sub *scope, jt *JSONTable, later []joinSide) (*expr, error) {
	x, err := sub.compile(jt.docAST)
	if err == nil {
		if isAggregateNode(jt.docAST) || hasAggregate(jt.docAST) {
			return nil, fmtErr("invalid use of group function in the document of JSON_TABLE %s", jt.alias)
		}
		return x, nil
	}
	var uc *UnknownColumnError
	if !errors.As(err, &uc) {
		return nil, err
	}
	// Name the column the document cannot read, and the table it names if that comes later.
	var bad *sqlparser.ColName
	_ = sqlparser.Walk(func(n sqlparser.SQLNode) (bool, error) {
		if c, ok := n.(*sqlparser.ColName); ok && bad == nil {
			if _, cerr := sub.compile(c); cerr != nil {
				bad = c
			}
		}
		return bad == nil, nil
	}, jt.docAST)
	if bad == nil {
		return nil, err
	}
	if q := bad.Qualifier.Name.String(); q != "" {
		for _, l := range later {
			if strings.EqualFold(l.alias, q) {
				return nil, unknownColumnf("'%s' in 'a table function argument': %s comes after JSON_TABLE %s in FROM, and a JSON_TABLE reads only the tables to its left: write it after %s",
					sqlparser.String(bad), l.alias, jt.alias, l.alias)
			}
		}
	}
	where := "it reads no table of FROM"
	if sub.sides != nil {
		var left []string
		for _, l := range sub.sides {
			left = append(left, l.alias)
		}
		where = "it reads only the tables to its left in FROM (" + strings.Join(left, ", ") + ")"
	}
	return nil, unknownColumnf("'%s' in 'a table function argument' (JSON_TABLE %s: %s)", sqlparser.String(bad), jt.alias, where)
}
