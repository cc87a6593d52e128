package translate

import (
	"bytes"
	"database/sql/driver"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/xwb1989/sqlparser"

	"github.com/airsql/airsql/frontend"
	"github.com/airsql/airsql/sqlvalue"
)

// exprKind says what an expression node is.
type exprKind uint8

const (
	exConst       exprKind = iota // val
	exField                       // field, info
	exRecordID                    // the record's id
	exCreatedTime                 // the record's createdTime
	exCompare                     // op in = <> < <= > >=; args[0] op args[1]
	exAnd                         // args
	exOr                          // args
	exNot                         // args[0]
	exIsNull                      // args[0] IS NULL (negated: IS NOT NULL)
	exIsTrue                      // args[0] IS TRUE (op "true") / IS FALSE (op "false"), negated: IS NOT …
	exIn                          // args[0] IN args[1:] (negated: NOT IN)
	exLike                        // args[0] LIKE args[1] ESCAPE escape (negated: NOT LIKE)
	exTruth                       // args[0] used as a condition (a number or bool column)
	exArith                       // args[0] op args[1], op in + - * / div %
	exNeg                         // -args[0]
	exFunc                        // op(args...)
	exSlot                        // Row.Values[slot]: a value the engine computed (a group key, an aggregate, an output)
	exLinkHas                     // args[0] (a linked-record field) holds the record id args[1] (negated: does not)
	exSubquery                    // sub: [NOT] IN, [NOT] EXISTS or a scalar subquery (subquery.go)
	exDerived                     // Row.Values[slot] of a derived table's row (derived.go)
	exOuter                       // sub.cur[slot]: a column of the outer query read by a correlated subquery (subquery.go)
	exWindow                      // Row.Window[slot]: a window function's result (window.go)
)

// expr is a compiled SQL expression. It is evaluated locally (eval) and, where the service can answer
// it, written as a formula (push.go).
type expr struct {
	kind     exprKind
	typ      sqlType
	nullable bool
	negated  bool
	op       string
	val      any // exConst: nil, string, int64, float64, bool or time.Time
	field    *Field
	info     fieldInfo
	args     []*expr
	escape   rune   // exLike
	sql      string // the SQL text, for column names and messages
	slot     int    // exSlot
	// tab: 0 reads the row itself; i+1 reads table i of a join (Row.Sides[i]) — or the row itself
	// when it is a scan's row (no Sides), so that a table's own conditions run on its scan.
	tab int
	sub *Subquery // exSubquery
	// fsp: exDerived of a DATETIME: the fraction digits of the derived table's column (those of
	// the expression it selects), which MySQL keeps in the column's type.
	fsp int
	// call: exFunc: the library's function and what it knows of the call (calls.go).
	call *compiledCall
	// topLevel: exAnd/exOr of a WHERE, HAVING or ON condition reached through AND and OR only,
	// where UNKNOWN is as good as FALSE: there MySQL's AND stops at its first operand that is not
	// TRUE and is FALSE (Item_cond::ignore_unknown), so WHERE Priority > 5 AND Seq *
	// 1000000000000 > 0 does not evaluate the product where Priority is NULL. Set by
	// topCondition.
	topLevel bool
}

// scope resolves names in one statement.
type scope struct {
	table *Table
	alias string // the table's alias, or its name
	args  Args
	next  int // the next positional argument
	now   time.Time

	usedPositional map[int]bool    // placeholders ? read (1-based)
	usedNamed      map[string]bool // :name arguments read, by their key in Args.Named

	// hook, when set, is asked first about every expression compile meets: it returns the compiled
	// expression (an aggregate or group key read from a slot of the engine's rows), an error, or
	// nil, nil to let compile go on as usual. Query sets it; Select never does.
	hook func(sqlparser.Expr) (*expr, error)
	// noTable: the statement reads no table (SELECT 1, FROM DUAL): no column resolves.
	noTable bool
	// sides: the tables of a join, in FROM's order; a column resolves to one of them (join.go).
	sides []joinSide
	// joinEntries: the columns of SELECT * over the join, USING and NATURAL columns coalesced.
	joinEntries []joinEntry
	// schema plans subqueries (nil: none allowed); subqueries collects them, innermost first.
	schema     Schema
	subqueries []*Subquery
	// outer: the scope is a subquery's; a column none of its tables has resolves in the outer
	// query's scope (a correlated subquery, subquery.go).
	outer *outerScope
}

// unusedArgs refuses arguments the statement never reads: an argument too many usually means a
// placeholder too few (a value written into the SQL text by mistake), and nothing the caller gives
// is silently dropped.
func (s *scope) unusedArgs() error {
	for i := range s.args.Positional {
		if !s.usedPositional[i+1] {
			return fmt.Errorf("translate: %d positional argument(s) given, but the statement reads only %d ? placeholder(s): argument %d is not used",
				len(s.args.Positional), len(s.usedPositional), i+1)
		}
	}
	for key := range s.args.Named {
		if !s.usedNamed[key] {
			return fmt.Errorf("translate: argument %q is not used: the statement has no :%s placeholder", key, strings.TrimPrefix(key, ":"))
		}
	}
	return nil
}

func newScope(table *Table, alias string, args Args) *scope {
	now := args.Now
	if now.IsZero() {
		now = time.Now()
	}
	return &scope{table: table, alias: alias, args: args, now: now.UTC()}
}

// Hints shared by several refusals.
const (
	hintAggregate = "select the rows and aggregate in Go, or run SELECT COUNT(*) … WHERE column = ? once per group"
	hintJoin      = "query each table on its own and join the rows in Go (linked records by id: SELECT … WHERE id IN (?, ?))"
	hintSubquery  = "run the inner SELECT first and pass its values as arguments (IN (?, ?, …), e.g. with sqlx.In)"
	hintPickRows  = "select the ids with SELECT id … ORDER BY … LIMIT n, then write … WHERE id IN (…)"
)

// unsupported is the error for a construct the translator refuses.
func unsupported(construct, sql, hint string) error {
	return &UnsupportedError{Construct: construct, SQL: sql, Hint: hint}
}

// lookupColumn resolves a column name: a field (exact name, then a unique case-insensitive match, then
// a fld… id), else the pseudo-columns id and createdTime.
func (s *scope) lookupColumn(name string) (*expr, error) {
	t := s.table
	if t == nil {
		return nil, unknownColumnf("%q: the statement reads no table", name)
	}
	if t.Derived != nil {
		return derivedColumn(t, s.alias, name)
	}
	if t.JSONTable != nil {
		return jsonTableLookup(t, name)
	}
	for i := range t.Fields {
		if t.Fields[i].Name == name {
			return s.fieldExpr(&t.Fields[i]), nil
		}
	}
	var match *Field
	for i := range t.Fields {
		if strings.EqualFold(t.Fields[i].Name, name) {
			if match != nil {
				return nil, fmt.Errorf("translate: column %q is ambiguous in table %q: fields %q and %q differ only in case; write the exact name", name, t.Name, match.Name, t.Fields[i].Name)
			}
			match = &t.Fields[i]
		}
	}
	if match == nil {
		for i := range t.Fields {
			if t.Fields[i].ID == name {
				match = &t.Fields[i]
			}
		}
	}
	if match != nil {
		return s.fieldExpr(match), nil
	}
	if s.noTable {
		return nil, unknownColumnf("%q: the statement reads no table (name one in FROM)", name)
	}
	if !t.Local { // in-memory tables have their columns only
		switch strings.ToLower(name) {
		case "id":
			return &expr{kind: exRecordID, typ: typeText, sql: "id"}, nil
		case "createdtime":
			return &expr{kind: exCreatedTime, typ: typeDateTime, sql: "createdTime"}, nil
		}
	}
	names := make([]string, 0, len(t.Fields))
	for _, f := range t.Fields {
		names = append(names, f.Name)
	}
	if t.Local {
		return nil, unknownColumnf("%q in table %q (its columns: %s)", name, t.Name, strings.Join(names, ", "))
	}
	return nil, unknownColumnf("%q in table %q (its columns: id, createdTime, %s)", name, t.Name, strings.Join(names, ", "))
}

func (s *scope) fieldExpr(f *Field) *expr {
	info := fieldInfoOf(f)
	return &expr{kind: exField, typ: info.typ, nullable: info.nullable, field: f, info: info, sql: f.Name}
}

// withoutDatabase reads a three-part column name db.table.col (SQLAlchemy's with schema=) as
// table.col when db is the base's own database and table one of its tables; the rest of name
// resolution then applies (an alias hides the table's name, as in MySQL).
func (s *scope) withoutDatabase(c *sqlparser.ColName) (*sqlparser.ColName, error) {
	q := c.Qualifier
	if q.Qualifier.IsEmpty() {
		return c, nil
	}
	qs, ok := s.schema.(QualifiedSchema)
	if !ok {
		for o := s.outer; o != nil && !ok; o = o.parent.outer {
			qs, ok = o.parent.schema.(QualifiedSchema)
		}
	}
	if ok {
		if t, found := qs.TableIn(q.Qualifier.String(), q.Name.String()); found && t != nil {
			out := *c
			out.Qualifier = sqlparser.TableName{Name: q.Name}
			if byDatabase := t.Database + "." + t.Name; s.hasSide(byDatabase) {
				// A join of two bases' tables of one name knows each as db.table (joinSide).
				out.Qualifier = sqlparser.TableName{Name: sqlparser.NewTableIdent(byDatabase)}
			}
			return &out, nil
		}
	}
	return nil, unknownColumnf("'%s': %s is not a table of the base's database in this statement (write table.column or alias.column)",
		sqlparser.String(c), sqlparser.String(q))
}

// hasSide reports a join side of this query or an outer one named alias.
func (s *scope) hasSide(alias string) bool {
	if s.sideIndex(alias) >= 0 {
		return true
	}
	for o := s.outer; o != nil; o = o.parent.outer {
		if o.parent.sideIndex(alias) >= 0 {
			return true
		}
	}
	return false
}

// localColumn resolves a column among the statement's own tables.
func (s *scope) localColumn(e *sqlparser.ColName) (*expr, error) {
	if len(s.sides) > 0 {
		return s.joinColumn(e)
	}
	if q := e.Qualifier; !q.IsEmpty() {
		// An alias hides the table's name (MySQL: FROM Tasks AS t WHERE Tasks.x names no
		// table of this FROM; inside a subquery, it names the outer query's Tasks).
		aliased := !strings.EqualFold(s.alias, s.table.Name)
		if !q.Qualifier.IsEmpty() || (q.Name.String() != s.alias && (aliased || q.Name.String() != s.table.Name)) {
			// MySQL's error 1054: the qualifier names no table of this FROM.
			hint := ""
			if aliased && strings.EqualFold(q.Name.String(), s.table.Name) {
				hint = fmt.Sprintf(" (the alias %s hides the table's name: write %s.%s)", s.alias, s.alias, e.Name.String())
			}
			return nil, unknownColumnf("'%s' in 'field list': FROM has no table or alias %q%s", sqlparser.String(e), q.Name.String(), hint)
		}
	}
	return s.lookupColumn(e.Name.String())
}

// compile turns a sqlparser expression into an expr.
func (s *scope) compile(e sqlparser.Expr) (*expr, error) {
	if s.hook != nil {
		if x, err := s.hook(e); x != nil || err != nil {
			return x, err
		}
	}
	switch e := e.(type) {
	case *sqlparser.ParenExpr:
		return s.compile(e.Expr)
	case *sqlparser.ColName:
		if x, ok, err := s.variable(e); ok {
			return x, err
		}
		e, err := s.withoutDatabase(e)
		if err != nil {
			return nil, err
		}
		if s.outer != nil {
			return s.correlatedColumn(e)
		}
		return s.localColumn(e)
	case *sqlparser.SQLVal:
		return s.literal(e)
	case *sqlparser.NullVal:
		return &expr{kind: exConst, typ: typeNull, nullable: true, sql: "NULL"}, nil
	case sqlparser.BoolVal:
		return &expr{kind: exConst, typ: typeCond, val: bool(e), sql: sqlparser.String(e)}, nil
	case *sqlparser.AndExpr:
		return s.logical(exAnd, e.Left, e.Right)
	case *sqlparser.OrExpr:
		return s.logical(exOr, e.Left, e.Right)
	case *sqlparser.NotExpr:
		x, err := s.condition(e.Expr)
		if err != nil {
			return nil, err
		}
		return notOf(x), nil
	case *sqlparser.ComparisonExpr:
		return s.comparison(e)
	case *sqlparser.RangeCond:
		return s.between(e)
	case *sqlparser.IsExpr:
		return s.isExpr(e)
	case *sqlparser.BinaryExpr:
		if e.Operator == sqlparser.JSONExtractOp || e.Operator == sqlparser.JSONUnquoteExtractOp {
			return s.jsonArrow(e)
		}
		if x, ok, err := s.intervalArith(e); ok {
			return x, err
		}
		return s.arithmetic(e)
	case *sqlparser.UnaryExpr:
		return s.unary(e)
	case *sqlparser.FuncExpr:
		if x, ok, err := s.jsonContainsLink(e); ok {
			return x, err
		}
		return s.function(e)
	case *sqlparser.SubstrExpr:
		return s.substr(e)
	case *sqlparser.CaseExpr:
		return s.caseExpr(e)
	case *sqlparser.ConvertExpr, *sqlparser.ConvertUsingExpr:
		return s.convert(e)
	case *sqlparser.Subquery:
		return s.scalarSubquery(e)
	case *sqlparser.ExistsExpr:
		return s.exists(e, false)
	}
	return nil, refused(e)
}

// between compiles [NOT] BETWEEN as x >= from AND x <= to, each with the comparison's conversions.
func (s *scope) between(e *sqlparser.RangeCond) (*expr, error) {
	left, err := s.compile(e.Left)
	if err != nil {
		return nil, err
	}
	from, err := s.compile(e.From)
	if err != nil {
		return nil, err
	}
	to, err := s.compile(e.To)
	if err != nil {
		return nil, err
	}
	lo, err := s.compare(">=", left, from)
	if err != nil {
		return nil, err
	}
	hi, err := s.compare("<=", left, to)
	if err != nil {
		return nil, err
	}
	// op "between": MySQL evaluates all three operands whatever the first comparison gives, so
	// the node keeps both comparisons together (logical does not flatten it, evalAndOr does not
	// stop after the first, and the pusher does not narrow the rows by one of them).
	between := &expr{kind: exAnd, op: "between", typ: typeCond, nullable: lo.nullable || hi.nullable, args: []*expr{lo, hi}}
	if e.Operator == sqlparser.NotBetweenStr {
		return &expr{kind: exNot, typ: typeCond, nullable: between.nullable, args: []*expr{between}}, nil
	}
	return between, nil
}

// isExpr compiles IS [NOT] NULL and IS [NOT] TRUE/FALSE.
func (s *scope) isExpr(e *sqlparser.IsExpr) (*expr, error) {
	x, err := s.compile(e.Expr)
	if err != nil {
		return nil, err
	}
	switch e.Operator {
	case sqlparser.IsNullStr, sqlparser.IsNotNullStr:
		return &expr{kind: exIsNull, typ: typeCond, args: []*expr{x}, negated: e.Operator == sqlparser.IsNotNullStr}, nil
	default:
		cond, err := s.asCondition(x, e.Expr)
		if err != nil {
			return nil, err
		}
		op := "true"
		if e.Operator == sqlparser.IsFalseStr || e.Operator == sqlparser.IsNotFalseStr {
			op = "false"
		}
		negated := e.Operator == sqlparser.IsNotTrueStr || e.Operator == sqlparser.IsNotFalseStr
		return &expr{kind: exIsTrue, typ: typeCond, op: op, negated: negated, args: []*expr{cond}}, nil
	}
}

// unary compiles + - ! and BINARY.
func (s *scope) unary(e *sqlparser.UnaryExpr) (*expr, error) {
	x, err := s.compile(e.Expr)
	if err != nil {
		return nil, err
	}
	switch e.Operator {
	case sqlparser.UPlusStr:
		return x, nil // MySQL ignores a unary +, whatever the operand's type
	case sqlparser.UMinusStr:
		return negate(x, e)
	case sqlparser.BangStr:
		cond, err := s.asCondition(x, e.Expr)
		if err != nil {
			return nil, err
		}
		return &expr{kind: exNot, typ: typeCond, nullable: cond.nullable, args: []*expr{cond}}, nil
	case sqlparser.BinaryStr, sqlparser.UBinaryStr:
		return x, nil // a binary string: text already compares by code point
	}
	return nil, unsupported("the unary operator "+strings.TrimSpace(e.Operator), sqlparser.String(e), "supported: - on numbers and NOT on conditions")
}

// negate compiles -x (e): a constant is folded, text is negated as the DOUBLE it reads.
func negate(x *expr, e *sqlparser.UnaryExpr) (*expr, error) {
	x = binaryNumber(x)
	if x.kind == exConst {
		switch v := x.val.(type) {
		case int64:
			if v != math.MinInt64 {
				return &expr{kind: exConst, typ: typeInt, val: -v, sql: "-" + x.sql}, nil
			}
		case float64:
			return &expr{kind: exConst, typ: typeFloat, val: -v, sql: "-" + x.sql}, nil
		}
	}
	if x.typ == typeText {
		// MySQL negates text as the DOUBLE it reads ('3.5abc' is 3.5, 'abc' is 0).
		if x = asNumber(x); x.kind == exConst {
			f, ok := x.val.(float64)
			if !ok { // NULL
				return &expr{kind: exConst, typ: typeFloat, nullable: true, sql: sqlparser.String(e)}, nil
			}
			return &expr{kind: exConst, typ: typeFloat, val: -f, sql: sqlparser.String(e)}, nil
		}
	}
	if !x.typ.Numeric() && x.typ != typeNull {
		return nil, fmt.Errorf("translate: unary - needs a number or text, got %s %s", x.typ, sqlparser.String(e.Expr))
	}
	return &expr{kind: exNeg, typ: valueType(x.typ), nullable: x.nullable, args: []*expr{x}, sql: sqlparser.String(e)}, nil
}

// substr compiles SUBSTRING(x FROM a FOR b) as the function SUBSTRING(x, a, b).
func (s *scope) substr(e *sqlparser.SubstrExpr) (*expr, error) {
	x, err := s.compile(e.Name)
	if err != nil {
		return nil, err
	}
	args := []*expr{x}
	for _, a := range []sqlparser.Expr{e.From, e.To} {
		if a == nil {
			continue
		}
		c, err := s.compile(a)
		if err != nil {
			return nil, err
		}
		args = append(args, c)
	}
	return s.call("SUBSTRING", args, sqlparser.String(e))
}

// refused is the error for an expression the driver does not compute, naming it.
func refused(e sqlparser.Expr) error {
	switch e := e.(type) {
	case *sqlparser.ValuesFuncExpr:
		return unsupported("VALUES() outside ON DUPLICATE KEY UPDATE", "", "VALUES(col) only reads the inserted value in ON DUPLICATE KEY UPDATE col = VALUES(col)")
	case *sqlparser.IntervalExpr:
		return unsupported("INTERVAL here", sqlparser.String(e), "an INTERVAL is added to or subtracted from a date: d + INTERVAL 1 DAY, DATE_SUB(d, INTERVAL 1 DAY)")
	case *sqlparser.GroupConcatExpr:
		return unsupported("GROUP_CONCAT", "", hintAggregate)
	case *sqlparser.MatchExpr:
		return unsupported("MATCH … AGAINST", "", "use LIKE '%word%'")
	case *sqlparser.CollateExpr:
		return unsupported("COLLATE", sqlparser.String(e), "text compares case-sensitively by code point; for case-insensitive matching use LOWER(x) = LOWER(?) or LIKE, which ignores ASCII case")
	case sqlparser.ValTuple:
		return unsupported("a row value (a, b, …)", sqlparser.String(e), "compare each column on its own: a = ? AND b = ?")
	case sqlparser.ListArg:
		return unsupported("list arguments (::name)", "", "expand the list first into IN (?, ?, …), e.g. with sqlx.In")
	}
	return unsupported("the expression", sqlparser.String(e), "select the columns it reads and compute it in Go")
}

// literal reads a constant of the SQL text or a bound argument.
func (s *scope) literal(v *sqlparser.SQLVal) (*expr, error) {
	text := sqlparser.String(v)
	switch v.Type {
	case sqlparser.StrVal:
		return &expr{kind: exConst, typ: typeText, val: string(v.Val), sql: text}, nil
	case sqlparser.IntVal:
		n, err := strconv.ParseInt(string(v.Val), 10, 64)
		if err != nil {
			f, ferr := strconv.ParseFloat(string(v.Val), 64)
			if ferr != nil {
				return nil, fmt.Errorf("translate: number %s: %v", v.Val, ferr)
			}
			return &expr{kind: exConst, typ: typeFloat, val: f, sql: text}, nil
		}
		return &expr{kind: exConst, typ: typeInt, val: n, sql: text}, nil
	case sqlparser.FloatVal:
		f, err := strconv.ParseFloat(string(v.Val), 64)
		if err != nil || math.IsInf(f, 0) {
			return nil, fmt.Errorf("translate: number %s is out of range", v.Val)
		}
		return &expr{kind: exConst, typ: typeFloat, val: f, sql: text}, nil
	case sqlparser.ValArg:
		name := string(v.Val)
		key := strings.TrimPrefix(name, ":")
		_, isNamed := s.args.Named[key]
		if !isNamed {
			_, isNamed = s.args.Named[name]
			if isNamed {
				key = name // given with its colon
			}
		}
		var arg any
		// sqlparser writes ? as :v1, :v2, …; a :v1 written by hand is taken as named when there is
		// such a named argument and no such positional one.
		if n, ok := positionalIndex(name); ok && !(isNamed && n > len(s.args.Positional)) {
			if n > len(s.args.Positional) {
				return nil, fmt.Errorf("translate: placeholder %d has no argument (%d given)", n, len(s.args.Positional))
			}
			arg = s.args.Positional[n-1]
			name = "?"
			if s.usedPositional == nil {
				s.usedPositional = map[int]bool{}
			}
			s.usedPositional[n] = true
		} else {
			a, ok := s.args.Named[key]
			if !ok {
				return nil, fmt.Errorf("translate: no argument named %q", key)
			}
			arg = a
			if s.usedNamed == nil {
				s.usedNamed = map[string]bool{}
			}
			s.usedNamed[key] = true
		}
		val, typ, err := normalizeArg(arg)
		if err != nil {
			return nil, fmt.Errorf("translate: argument %s: %w", name, err)
		}
		return &expr{kind: exConst, typ: typ, val: val, nullable: val == nil, sql: name}, nil
	case sqlparser.HexVal, sqlparser.HexNum, sqlparser.BitVal:
		return binaryLiteral(v, text)
	}
	return nil, unsupported("the literal", text, "write a number, a 'string', TRUE, FALSE or NULL, or pass the value as an argument")
}

// binaryLiteral reads x'41', X'41', 0x41 and b'1000001': a binary string of those bytes, which
// arithmetic reads as the unsigned integer they spell (binaryNumber), as MySQL does.
func binaryLiteral(v *sqlparser.SQLVal, text string) (*expr, error) {
	digits := string(v.Val)
	var b []byte
	switch v.Type {
	case sqlparser.HexNum, sqlparser.HexVal:
		digits = strings.TrimPrefix(strings.TrimPrefix(digits, "0x"), "0X")
		if len(digits)%2 == 1 {
			digits = "0" + digits // 0x141 is 0x0141
		}
		var err error
		if b, err = hex.DecodeString(digits); err != nil {
			return nil, fmt.Errorf("translate: the hexadecimal literal %s: %v", text, err)
		}
	case sqlparser.BitVal:
		n := new(big.Int)
		if _, ok := n.SetString(digits, 2); !ok && digits != "" {
			return nil, fmt.Errorf("translate: the bit literal %s holds a digit other than 0 and 1", text)
		}
		b = n.Bytes()
	}
	return &expr{kind: exConst, typ: typeText, val: string(b), op: opBinaryLiteral, sql: text}, nil
}

// opBinaryLiteral marks a constant written as a hexadecimal or bit literal (binaryNumber).
const opBinaryLiteral = "binary literal"

// binaryNumber is a hexadecimal or bit literal in a numeric context: the unsigned integer its
// bytes spell (a FLOAT64 above the int64 range); other expressions are returned as they are.
func binaryNumber(x *expr) *expr {
	if x.kind != exConst || x.op != opBinaryLiteral {
		return x
	}
	n := new(big.Int).SetBytes([]byte(x.val.(string)))
	out := &expr{kind: exConst, typ: typeInt, sql: x.sql}
	if n.IsInt64() {
		out.val = n.Int64()
	} else {
		out.val, _ = new(big.Float).SetInt(n).Float64()
		out.typ = typeFloat
	}
	return out
}

// positionalIndex reads the placeholder names sqlparser gives to ?: ":v1", ":v2", ….
func positionalIndex(name string) (int, bool) {
	rest, ok := strings.CutPrefix(name, ":v")
	if !ok || rest == "" {
		return 0, false
	}
	n, err := strconv.Atoi(rest)
	if err != nil || n < 1 {
		return 0, false
	}
	return n, true
}

// normalizeArg converts a bound Go value into an SQL value and its type.
func normalizeArg(a any) (any, sqlType, error) {
	switch v := a.(type) {
	case nil:
		return nil, typeNull, nil
	case string:
		return v, typeText, nil
	case bool:
		return v, typeBool, nil
	case int64:
		return v, typeInt, nil
	case int:
		return int64(v), typeInt, nil
	case int32:
		return int64(v), typeInt, nil
	case int16:
		return int64(v), typeInt, nil
	case int8:
		return int64(v), typeInt, nil
	case uint8:
		return int64(v), typeInt, nil
	case uint16:
		return int64(v), typeInt, nil
	case uint32:
		return int64(v), typeInt, nil
	case uint:
		return normalizeUint(uint64(v))
	case uint64:
		return normalizeUint(v)
	case float64:
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, 0, fmt.Errorf("%v has no SQL value", v)
		}
		return v, typeFloat, nil
	case float32:
		return normalizeArg(float64(v))
	case time.Time:
		return v.UTC(), typeDateTime, nil
	case json.RawMessage:
		var buf bytes.Buffer
		if err := json.Compact(&buf, v); err != nil {
			return nil, 0, fmt.Errorf("json.RawMessage is not valid JSON: %v", err)
		}
		return buf.String(), typeJSON, nil
	case []byte:
		if v == nil {
			return nil, typeNull, nil
		}
		return string(v), typeText, nil
	case []string:
		if v == nil {
			return nil, typeNull, nil
		}
		return jsonText(v), typeJSON, nil
	case []any, map[string]any:
		return jsonText(v), typeJSON, nil
	case driver.Valuer:
		if rv := reflect.ValueOf(v); rv.Kind() == reflect.Pointer && rv.IsNil() {
			return nil, typeNull, nil
		}
		inner, err := v.Value()
		if err != nil {
			return nil, 0, err
		}
		return normalizeArg(inner)
	}
	return nil, 0, fmt.Errorf("unsupported Go type %T (use string, a number, bool, time.Time, []string, json.RawMessage or nil)", a)
}

func normalizeUint(v uint64) (any, sqlType, error) {
	if v <= math.MaxInt64 {
		return int64(v), typeInt, nil
	}
	return float64(v), typeFloat, nil
}

func (s *scope) logical(kind exprKind, l, r sqlparser.Expr) (*expr, error) {
	a, err := s.condition(l)
	if err != nil {
		return nil, err
	}
	b, err := s.condition(r)
	if err != nil {
		return nil, err
	}
	args := []*expr{}
	for _, x := range []*expr{a, b} {
		if x.kind == kind && x.op == "" { // flatten a AND (b AND c), not a BETWEEN
			args = append(args, x.args...)
		} else {
			args = append(args, x)
		}
	}
	return &expr{kind: kind, typ: typeCond, nullable: a.nullable || b.nullable, args: args}, nil
}

// rowFree reports an expression of constants and operators only, whose value is the same for
// every row and which reads nothing else (no function, field, subquery or slot): what the
// planner may evaluate once, before any row, as MySQL does with a constant condition.
func rowFree(e *expr) bool {
	switch e.kind {
	case exConst:
		return true
	case exCompare, exAnd, exOr, exNot, exIsNull, exIsTrue, exIn, exTruth, exArith, exNeg:
		for _, a := range e.args {
			if !rowFree(a) {
				return false
			}
		}
		return true
	}
	return false
}

// notOf is NOT x. As MySQL's parser does (negate_expression, Item_cond::truth_transformer), a
// NOT of an AND or OR moves onto its operands: NOT (a AND b) is NOT a OR NOT b, which has the same
// value and evaluates its operands in the same order, and whose constant operands a WHERE then
// folds (topCondition): WHERE NOT (Seq * 1000000000000 > 0 AND 1 = 0) is every row.
func notOf(x *expr) *expr {
	if (x.kind == exAnd && x.op == "") || x.kind == exOr {
		dual := exOr
		if x.kind == exOr {
			dual = exAnd
		}
		args := make([]*expr, len(x.args))
		for i, a := range x.args {
			args[i] = notOf(a)
		}
		return &expr{kind: dual, typ: typeCond, nullable: x.nullable, args: args}
	}
	return &expr{kind: exNot, typ: typeCond, nullable: x.nullable, args: []*expr{x}}
}

// topCondition compiles the condition of a WHERE, HAVING or ON: condition, with its AND and
// OR (those reached from the top through AND and OR only) marked topLevel and folded as MySQL
// folds them before it reads a row (remove_eq_conds): an AND with a constant FALSE operand is
// FALSE and an OR with a constant TRUE one is TRUE, and their other operands are never
// evaluated — WHERE Budget * 1000000000000 > 0 AND (0 <= 1.5) IS NOT TRUE answers no rows
// rather than error 1690 (the oracle's seed 24996).
func (s *scope) topCondition(e sqlparser.Expr) (*expr, error) {
	x, err := s.condition(e)
	if err != nil {
		return nil, err
	}
	return foldTop(x), nil
}

// foldTop marks and folds the AND and OR of a top condition (topCondition).
func foldTop(e *expr) *expr {
	if !(e.kind == exAnd && e.op == "") && e.kind != exOr {
		return e
	}
	decisive := e.kind == exOr
	for i, a := range e.args {
		a = foldTop(a)
		e.args[i] = a
		if !rowFree(a) {
			continue
		}
		if v, err := a.eval(nil); err == nil && v == decisive {
			return &expr{kind: exConst, typ: typeCond, val: decisive}
		}
	}
	if e.kind == exAnd {
		// MySQL evaluates an AND's equalities first (simpleEquality).
		eq := slices.DeleteFunc(slices.Clone(e.args), func(a *expr) bool { return !simpleEquality(a) })
		rest := slices.DeleteFunc(slices.Clone(e.args), simpleEquality)
		e.args = append(eq, rest...)
	}
	e.topLevel = true
	return e
}

// simpleEquality: column = constant or column = column of the same type, which MySQL makes a
// multiple equality and evaluates before the other operands of its AND ("Insert the generated
// equalities before all other conditions", substitute_for_best_equal_field): WHERE Seq *
// 1000000000000 > 0 AND Name = 'nobody' raises nothing when no Name is 'nobody'.
func simpleEquality(e *expr) bool {
	if e.kind != exCompare || e.op != "=" {
		return false
	}
	a, b := e.args[0], e.args[1]
	if a.kind == exConst {
		a, b = b, a
	}
	column := func(x *expr) bool { return x.kind == exField || x.kind == exRecordID || x.kind == exCreatedTime }
	return column(a) && (column(b) || b.kind == exConst && b.val != nil) && a.typ == b.typ
}

// condition compiles an expression used as a truth value (WHERE, AND, OR, NOT).
func (s *scope) condition(e sqlparser.Expr) (*expr, error) {
	x, err := s.compile(e)
	if err != nil {
		return nil, err
	}
	return s.asCondition(x, e)
}

// asCondition accepts a boolean expression as it is, and a number or checkbox column as "non-zero".
func (s *scope) asCondition(x *expr, src sqlparser.Expr) (*expr, error) {
	switch x.kind {
	case exCompare, exAnd, exOr, exNot, exIsNull, exIsTrue, exIn, exLike, exTruth:
		return x, nil
	case exLinkHas:
		switch x.op {
		case "": // membership; FIND_IN_SET's position is a number
			return x, nil
		case "json_contains": // JSON_CONTAINS(link, …) as a condition is the membership
			c := *x
			c.op, c.typ = "", typeCond
			return &c, nil
		}
	case exSubquery:
		if x.sub.mode != "scalar" {
			return x, nil
		}
	}
	switch x.typ {
	case typeBool, typeCond, typeInt, typeFloat, typeNull:
		return &expr{kind: exTruth, typ: typeCond, nullable: x.nullable, args: []*expr{x}}, nil
	}
	text := sqlparser.String(src)
	return nil, fmt.Errorf("translate: %s is %s, not a condition; compare it, e.g. %s IS NOT NULL", text, x.typ, text)
}

func (s *scope) comparison(e *sqlparser.ComparisonExpr) (*expr, error) {
	left, err := s.compile(e.Left)
	if err != nil {
		return nil, err
	}
	switch e.Operator {
	case sqlparser.InStr, sqlparser.NotInStr:
		tuple, ok := e.Right.(sqlparser.ValTuple)
		if !ok {
			if sub, ok := e.Right.(*sqlparser.Subquery); ok {
				return s.inSubquery(left, sub, e.Operator == sqlparser.NotInStr)
			}
			return nil, unsupported("IN with "+sqlparser.String(e.Right), "", "write a list of values: IN (a, b)")
		}
		if x, ok, err := s.linkIn(left, tuple, e.Operator == sqlparser.NotInStr); ok {
			return x, err
		}
		if left.kind == exConst && !allConstants(tuple) {
			return s.inAsComparisons(left, tuple, e.Operator == sqlparser.NotInStr)
		}
		args := []*expr{left}
		mixed := false // text and numbers: MySQL compares them all as numbers
		for _, item := range tuple {
			x, err := s.compile(item)
			if err != nil {
				return nil, err
			}
			if x, err = s.coerce(left, x); err != nil {
				return nil, err
			}
			mixed = mixed || textWithNumber(left, x)
			args = append(args, x)
		}
		if mixed {
			for i := range args {
				args[i] = asNumber(args[i])
			}
		}
		for _, x := range args[1:] {
			if err := comparable(args[0], x); err != nil {
				return nil, err
			}
		}
		args = foldNameList(args)
		return &expr{kind: exIn, typ: typeCond, nullable: true, args: args, negated: e.Operator == sqlparser.NotInStr}, nil
	case sqlparser.LikeStr, sqlparser.NotLikeStr:
		right, binary := likeBinary(e.Right)
		if _, ok := e.Left.(*sqlparser.UnaryExpr); ok {
			l, lb := likeBinary(e.Left)
			if lb {
				if left, err = s.compile(l); err != nil {
					return nil, err
				}
				binary = true
			}
		}
		pattern, err := s.compile(right)
		if err != nil {
			return nil, err
		}
		escape := '\\'
		if e.Escape != nil {
			esc, err := s.compile(e.Escape)
			if err != nil {
				return nil, err
			}
			str, ok := esc.val.(string)
			if esc.kind != exConst || !ok || len(sqlvalue.LikeRunes(str)) != 1 {
				return nil, fmt.Errorf("translate: ESCAPE needs a single character, got %s", sqlparser.String(e.Escape))
			}
			escape = sqlvalue.LikeRunes(str)[0]
		}
		if err := listArgument(pattern, left); err != nil {
			return nil, err
		}
		like := &expr{kind: exLike, typ: typeCond, nullable: true, args: []*expr{left, pattern}, escape: escape, negated: e.Operator == sqlparser.NotLikeStr}
		if binary {
			like.op = "binary" // LIKE BINARY: case-sensitive
		}
		return like, nil
	case sqlparser.RegexpStr, sqlparser.NotRegexpStr:
		return s.regexpOperator(left, e)
	case sqlparser.NullSafeEqualStr:
		return s.nullSafeEqual(left, e)
	}
	right, err := s.compile(e.Right)
	if err != nil {
		return nil, err
	}
	op := e.Operator
	if op == sqlparser.NotEqualStr {
		op = "<>"
	}
	return s.compare(op, left, right)
}

// nullSafeEqual compiles a <=> b, MySQL's NULL-safe equality: TRUE when both are NULL, FALSE when
// one is, else a = b; never NULL. It is written (a IS NULL AND b IS NULL) OR (a = b) IS TRUE, which
// the formula writer pushes like any other condition.
func (s *scope) nullSafeEqual(left *expr, e *sqlparser.ComparisonExpr) (*expr, error) {
	right, err := s.compile(e.Right)
	if err != nil {
		return nil, err
	}
	eq, err := s.compare("=", left, right)
	if err != nil {
		return nil, err
	}
	bothNull := &expr{kind: exAnd, typ: typeCond, args: []*expr{
		{kind: exIsNull, typ: typeCond, args: []*expr{left}},
		{kind: exIsNull, typ: typeCond, args: []*expr{right}},
	}}
	equal := &expr{kind: exIsTrue, typ: typeCond, op: "true", args: []*expr{eq}}
	return &expr{kind: exOr, typ: typeCond, args: []*expr{bothNull, equal}, sql: sqlString(e)}, nil
}

// allConstants reports whether every item of an IN list is a literal or an argument.
func allConstants(tuple sqlparser.ValTuple) bool {
	for _, item := range tuple {
		switch item.(type) {
		case *sqlparser.SQLVal, *sqlparser.NullVal, sqlparser.BoolVal:
		default:
			return false
		}
	}
	return true
}

// inAsComparisons compiles c IN (a, b, …) with a constant c and columns among the items as
// c = a OR c = b …, and NOT IN as c <> a AND c <> b … — SQL's definition of IN, with the same
// NULLs. Each comparison converts the constant to the type of its item, as MySQL does
// ('2024-01-05' IN (Born, …) compares a date with a date), where the one left operand of an IN
// could only take one type.
func (s *scope) inAsComparisons(left *expr, tuple sqlparser.ValTuple, not bool) (*expr, error) {
	op, kind := "=", exOr
	if not {
		op, kind = "<>", exAnd
	}
	out := &expr{kind: kind, typ: typeCond}
	for _, item := range tuple {
		x, err := s.compile(item)
		if err != nil {
			return nil, err
		}
		c, err := s.compare(op, left, x)
		if err != nil {
			return nil, err
		}
		out.nullable = out.nullable || c.nullable
		out.args = append(out.args, c)
	}
	if len(out.args) == 1 {
		return out.args[0], nil
	}
	return out, nil
}

// compare builds a comparison, converting a constant to the type of the other side.
func (s *scope) compare(op string, left, right *expr) (*expr, error) {
	if x, ok, err := linkCompare(op, left, right); ok {
		return x, err
	}
	if err := jsonScalarCompare(op, left, right); err != nil {
		return nil, err
	}
	var err error
	if right, err = s.coerce(left, right); err != nil {
		return nil, err
	}
	if left, err = s.coerce(right, left); err != nil {
		return nil, err
	}
	if textWithNumber(left, right) {
		left, right = asNumber(left), asNumber(right)
	}
	if err := comparable(left, right); err != nil {
		return nil, err
	}
	left, right = foldNames(left, right)
	return &expr{kind: exCompare, typ: typeCond, op: op, nullable: true, args: []*expr{left, right}}, nil
}

// comparable refuses comparisons whose SQL meaning would surprise: a time with a number, a list
// argument with a text column, and so on.
func comparable(a, b *expr) error {
	ta, tb := a.typ, b.typ
	if ta == typeNull || tb == typeNull || ta == tb {
		return nil
	}
	if err := listArgument(a, b); err != nil {
		return err
	}
	if err := listArgument(b, a); err != nil {
		return err
	}
	class := func(t sqlType) int {
		switch {
		case t.Numeric():
			return 0
		case t.Temporal():
			return 1
		}
		return 2 // text and JSON compare as text
	}
	if class(ta) != class(tb) {
		return fmt.Errorf("translate: cannot compare %s (%s) with %s (%s): convert one side with CAST (for example CAST(x AS DATETIME) or CAST(x AS SIGNED))", describe(a), ta, describe(b), tb)
	}
	return nil
}

// listArgument refuses a list or JSON argument ([]string, []any, json.RawMessage …) compared with
// a column that is not JSON: Name IN (?) bound to []string{"a", "b"} would compare Name with the
// text ["a","b"] and silently match nothing, where the caller meant one placeholder per value.
func listArgument(c, other *expr) error {
	if c.kind != exConst || c.typ != typeJSON || other.typ == typeJSON || other.typ == typeNull {
		return nil
	}
	return fmt.Errorf("translate: argument %s is a list or JSON value (%s), compared with %s (%s): to match any of several values write "+
		"one placeholder per value, IN (?, ?, …) (sqlx.In expands a slice into them); list arguments only compare with JSON columns",
		describe(c), c.val, describe(other), other.typ)
}

func describe(e *expr) string {
	if e.sql != "" {
		return e.sql
	}
	return "an expression"
}

// coerce converts the constant c to the type of the other side of a comparison: text to a number or a
// time, numeric text to a number when compared with a bool. A number stays a number against text:
// the comparison is numeric (textnumber.go). Other constants are returned as they are.
func (s *scope) coerce(other, c *expr) (*expr, error) {
	if c.kind != exConst || c.val == nil || other.typ == typeNull || other.typ == c.typ || c.typ == typeJSON {
		return c, nil // a JSON constant is never converted: comparable refuses it against other types
	}
	if c.op == opBinaryLiteral && other.typ.Numeric() {
		return binaryNumber(c), nil // Priority = 0x10 compares with 16
	}
	out := *c
	switch other.typ {
	case typeInt, typeFloat:
		switch v := c.val.(type) {
		case string:
			val, typ, ok := numberText(v)
			if !ok {
				if other.kind == exConst {
					// Constants alone (65535 >= COALESCE(?, 'india'), TRIM('null') <= 79): the text
					// stays text and compare reads it as MySQL does, by its numeric prefix (asNumber).
					return c, nil
				}
				// Against a column, text that is not a number is almost always a mistake (Priority =
				// 'high' would be Priority = 0 in MySQL): refused, as the README's table says.
				return nil, fmt.Errorf("translate: cannot compare the number column %s with the text %s, which is not a number (MySQL would read it as %s); "+
					"compare with a number, or convert the column: CAST(%s AS CHAR)", describe(other), c.sql, sqlvalue.TextOf(sqlvalue.TextNumber(v)), describe(other))
			}
			out.val, out.typ = val, typ
		case bool:
			out.val, out.typ = sqlvalue.BoolInt(v), typeInt
		}
	case typeBool, typeCond:
		// A BOOL is the number 0 or 1 (MySQL's TINYINT(1)) and compares with a number as a number:
		// Done = 2 is FALSE on every row, not Done = TRUE. Numbers keep their value; numeric text
		// becomes its number, as it does against a number column.
		if v, ok := c.val.(string); ok {
			val, typ, ok := numberText(v)
			if !ok {
				return nil, fmt.Errorf("translate: cannot compare the boolean %s with the text %s; use TRUE, FALSE, 1 or 0", describe(other), c.sql)
			}
			out.val, out.typ = val, typ
		}
	case typeDate, typeDateTime:
		if v, ok := c.val.(string); ok {
			t, ok := parseTime(v)
			if !ok {
				return nil, fmt.Errorf("translate: %s is not a date or time (write 2006-01-02 or 2006-01-02T15:04:05Z)", c.sql)
			}
			out.val, out.typ = t, typeDateTime
			if len(v) == len("2006-01-02") {
				out.typ = typeDate
			}
		}
	case typeJSON:
		switch v := c.val.(type) {
		case int64:
			out.val, out.typ = strconv.FormatInt(v, 10), typeText
		case float64:
			out.val, out.typ = sqlvalue.TextOf(v), typeText
		}
	}
	return &out, nil
}

// numberText reads text compared with a number as the number it spells (surrounding spaces
// allowed): an int64 when it is a whole number that float64 holds exactly, else a float64.
func numberText(v string) (any, sqlType, bool) {
	f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
	if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
		return nil, 0, false
	}
	if f == math.Trunc(f) && math.Abs(f) < 1<<53 {
		return int64(f), typeInt, true
	}
	return f, typeFloat, true
}

func (s *scope) arithmetic(e *sqlparser.BinaryExpr) (*expr, error) {
	switch e.Operator {
	case sqlparser.PlusStr, sqlparser.MinusStr, sqlparser.MultStr, sqlparser.DivStr, sqlparser.IntDivStr, sqlparser.ModStr:
	default:
		return nil, unsupported("the operator "+e.Operator, sqlparser.String(e), "supported: + - * / DIV % on numbers")
	}
	a, err := s.compile(e.Left)
	if err != nil {
		return nil, err
	}
	b, err := s.compile(e.Right)
	if err != nil {
		return nil, err
	}
	a, b = binaryNumber(a), binaryNumber(b)
	for _, x := range []*expr{a, b} {
		if !x.typ.Numeric() && x.typ != typeNull {
			return nil, fmt.Errorf("translate: %s needs numbers, but %s is %s", sqlparser.String(e), describe(x), x.typ)
		}
	}
	typ := typeInt
	if a.typ == typeFloat || b.typ == typeFloat || e.Operator == sqlparser.DivStr {
		typ = typeFloat
	}
	nullable := a.nullable || b.nullable || a.typ == typeNull || b.typ == typeNull ||
		e.Operator == sqlparser.DivStr || e.Operator == sqlparser.IntDivStr || e.Operator == sqlparser.ModStr
	return &expr{kind: exArith, typ: typ, op: e.Operator, nullable: nullable, args: []*expr{a, b}, sql: sqlparser.String(e)}, nil
}

func (s *scope) function(e *sqlparser.FuncExpr) (*expr, error) {
	name := strings.ToUpper(e.Name.String())
	if !e.Qualifier.IsEmpty() {
		return nil, unsupported("qualified function names", sqlparser.String(e), "call the function by its name alone")
	}
	if isWindowNode(e) {
		return nil, windowMisuse(e)
	}
	if isAggregateFunc(e) {
		return nil, unsupported("the aggregate "+name+" here", sqlparser.String(e), "aggregates run in a SELECT's select list, HAVING and ORDER BY (with or without GROUP BY), not in UPDATE, DELETE or WHERE")
	}
	if e.Distinct {
		return nil, unsupported("DISTINCT in "+name, sqlparser.String(e), "select the column and count or collect the distinct values in Go")
	}
	if x, ok, err := s.specialCall(name, e); ok {
		return x, err
	}
	args := make([]*expr, 0, len(e.Exprs))
	for _, se := range e.Exprs {
		ae, ok := se.(*sqlparser.AliasedExpr)
		if !ok {
			return nil, unsupported(sqlparser.String(se)+" as an argument of "+name, "", "pass a column, a value or an expression")
		}
		x, err := s.compile(ae.Expr)
		if err != nil {
			return nil, err
		}
		args = append(args, x)
	}
	return s.call(name, args, sqlString(e))
}

// call type-checks a function call: one of the library's (sqlvalue), or a reference to the
// record's own id and creation time.
func (s *scope) call(name string, args []*expr, text string) (*expr, error) {
	if def, op, ok := sqlvalue.Lookup(name); ok {
		if op == "NULLIF" && len(args) == 2 {
			// NULLIF(a, b) is the library's NULLIF(a = b, a), the comparison compiled here with its
			// conversions.
			cond, err := s.compare("=", args[0], args[1])
			if err != nil {
				return nil, err
			}
			args = []*expr{cond, args[0]}
		}
		return s.callRegistered(def, op, name, args, text, nil)
	}
	switch name {
	case "RECORD_ID", "CREATED_TIME":
		if len(args) != 0 {
			return nil, fmt.Errorf("translate: %s: wrong number of arguments to %s: %d given, 0 expected", text, name, len(args))
		}
		if name == "RECORD_ID" {
			return &expr{kind: exRecordID, typ: typeText, sql: text}, nil
		}
		return &expr{kind: exCreatedTime, typ: typeDateTime, sql: text}, nil
	}
	return nil, unsupported("the function "+name, text, "compute it in Go from the selected columns; the functions the driver runs are listed in the README (SQL functions)")
}

// fields adds to into the names of the fields an expression reads.
func (e *expr) fields(into map[string]bool) {
	if e == nil {
		return
	}
	if e.kind == exField {
		into[e.field.Name] = true
	}
	for _, a := range e.args {
		a.fields(into)
	}
}

// fieldsOf collects the fields an expression reads from table tab of a join (tab = i+1).
func (e *expr) fieldsOf(tab int, into map[string]bool) {
	if e == nil {
		return
	}
	if e.kind == exField && e.tab == tab {
		into[e.field.Name] = true
	}
	for _, a := range e.args {
		a.fieldsOf(tab, into)
	}
}

// UnknownColumnError names a column that no table of the statement has (MySQL's error 1054).
// Match it with errors.As.
type UnknownColumnError struct{ Detail string } // Detail: what follows "unknown column " in the message

func (e *UnknownColumnError) Error() string { return "translate: unknown column " + e.Detail }

// unknownColumnf builds an *UnknownColumnError; format continues "unknown column ".
func unknownColumnf(format string, args ...any) error {
	return &UnknownColumnError{Detail: fmt.Sprintf(format, args...)}
}

// UnknownTableError names a table that neither the base nor information_schema has (MySQL's
// error 1146). Match it with errors.As.
type UnknownTableError struct{ Detail string } // Detail: what follows "no table " in the message

func (e *UnknownTableError) Error() string { return "translate: no table " + e.Detail }

// unknownTablef builds an *UnknownTableError; format continues "no table ".
func unknownTablef(format string, args ...any) error {
	return &UnknownTableError{Detail: fmt.Sprintf(format, args...)}
}

// UnsupportedError is the front end's refusal type, one for the whole driver.
type UnsupportedError = frontend.UnsupportedError
