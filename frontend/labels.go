package frontend

import (
	"strings"

	"github.com/xwb1989/sqlparser"
)

// Column labels, as MySQL gives them (sql_yacc.yy, select_item: an item without an alias and
// without a name of its own is named by its text, @1.raw): an alias as written, keywords keeping
// their case (the grammar lower-cases keywords, so the label is read from the text); a column by
// its bare name as written, whatever qualifies it (p.Name is Name); a string literal by its value;
// any other expression by its text exactly as written in the statement (7/2, ROUND( AVG(x) , 1 )),
// which the grammar's re-printing would change. The text comes from the tokenizer's spans.

// maxLabel is the length, in characters, at which MySQL cuts an expression's label (an alias may
// be 256 characters long: the manual's "Identifier Length Limits"). MariaDB cuts at 255 bytes.
const maxLabel = 256

// Labels names the columns of one select list: the label of each of its expressions (not of *
// or t.*, whose columns are named by their table).
type Labels map[*sqlparser.AliasedExpr]string

// selectLabels finds the select list of the statement's first SELECT (the first of a UNION, the
// main one after WITH's queries) in the tokens and labels it; nil when the tokens and the parsed
// list do not match (the label then stays the planner's).
func (s *source) selectLabels(ast sqlparser.SelectStatement) Labels {
	first := leftmostSelect(ast)
	if first == nil {
		return nil
	}
	i := 0
	if s.word(0, "with") {
		i = s.skipWith()
	}
	for ; i < len(s.toks) && s.toks[i].typ != sqlparser.SELECT; i++ {
	}
	if i == len(s.toks) {
		return nil
	}
	i++
	// Modifiers before the list.
	for i < len(s.toks) {
		switch s.toks[i].typ {
		case sqlparser.DISTINCT, sqlparser.ALL, sqlparser.STRAIGHT_JOIN, sqlparser.SQL_NO_CACHE, sqlparser.SQL_CACHE:
			i++
			continue
		}
		if s.word(i, "distinctrow") || s.word(i, "high_priority") || s.word(i, "sql_small_result") ||
			s.word(i, "sql_big_result") || s.word(i, "sql_buffer_result") || s.word(i, "sql_calc_found_rows") {
			i++
			continue
		}
		break
	}
	end, depth := i, 0
loop:
	for ; end < len(s.toks); end++ {
		switch t := s.toks[end]; {
		case t.typ == '(':
			depth++
		case t.typ == ')':
			if depth == 0 {
				break loop
			}
			depth--
		case t.typ == sqlparser.FROM && end > 0 && s.toks[end-1].typ == ')' && (s.word(end+1, "first") || s.word(end+1, "last")):
			// NTH_VALUE(x, n) FROM FIRST|LAST OVER (…): a modifier of the call, not the FROM clause.
		case depth == 0 && (t.typ == sqlparser.FROM || t.typ == sqlparser.INTO || t.typ == sqlparser.WHERE ||
			t.typ == sqlparser.GROUP || t.typ == sqlparser.HAVING || t.typ == sqlparser.ORDER ||
			t.typ == sqlparser.LIMIT || t.typ == sqlparser.UNION || t.typ == sqlparser.FOR ||
			t.typ == sqlparser.LOCK || t.typ == ';'):
			break loop
		}
	}
	return s.listLabels(i, end, first.SelectExprs)
}

// leftmostSelect is the SELECT whose list names a statement's columns.
func leftmostSelect(ast sqlparser.SelectStatement) *sqlparser.Select {
	for {
		switch a := ast.(type) {
		case *sqlparser.Select:
			return a
		case *sqlparser.Union:
			ast = a.Left
		case *sqlparser.ParenSelect:
			ast = a.Select
		default:
			return nil
		}
	}
}

// skipWith returns the token after WITH's queries: WITH name [(columns)] AS (query) [, …].
func (s *source) skipWith() int {
	i := 1
	for i < len(s.toks) {
		for i < len(s.toks) && s.toks[i].typ != '(' { // the name, its columns' '(' excepted below
			i++
		}
		if i > 0 && i < len(s.toks) && s.toks[i-1].typ != sqlparser.AS {
			i = s.closing(i) + 1 // the column list
			continue
		}
		i = s.closing(i) + 1 // the query
		if i < len(s.toks) && s.toks[i].typ == ',' {
			i++
			continue
		}
		return i
	}
	return i
}

// closing is the index of the ')' that closes the '(' at i (len(toks) when none).
func (s *source) closing(i int) int {
	depth := 0
	for ; i < len(s.toks); i++ {
		switch s.toks[i].typ {
		case '(':
			depth++
		case ')':
			depth--
			if depth == 0 {
				return i
			}
		}
	}
	return i
}

// listLabels labels the select list held by tokens [from, to), split at its top-level commas;
// nil when their number is not the parsed list's.
func (s *source) listLabels(from, to int, list sqlparser.SelectExprs) Labels {
	items := topLevelItems(to-from, func(i int) int { return s.toks[from+i].typ })
	if len(items) != len(list) {
		return nil
	}
	labels := Labels{}
	for k, se := range list {
		ae, ok := se.(*sqlparser.AliasedExpr)
		a, b := from+items[k][0], from+items[k][1]
		if !ok || a >= b {
			continue
		}
		if !ae.As.IsEmpty() {
			labels[ae] = cut(s.name(b - 1))
			continue
		}
		labels[ae] = cut(s.exprLabel(ae.Expr, a, b))
	}
	return labels
}

// exprLabel is the label of an unaliased expression held by tokens [a, b).
func (s *source) exprLabel(e sqlparser.Expr, a, b int) string {
	inner := e
	for {
		p, ok := inner.(*sqlparser.ParenExpr)
		if !ok {
			break
		}
		inner = p.Expr
	}
	switch v := inner.(type) {
	case *sqlparser.ColName:
		for k := b - 1; k >= a; k-- { // the column is the last name of the span: (p.`Name`)
			if s.toks[k].typ != ')' {
				return s.name(k)
			}
		}
	case *sqlparser.SQLVal, *sqlparser.NullVal, sqlparser.BoolVal:
		// A literal is named by itself, without the parentheses around it; a string by its
		// value (N'x' and _utf8mb4'x' too).
		for b-a >= 2 && s.toks[a].typ == '(' && s.closing(a) == b-1 {
			a, b = a+1, b-1
		}
		if sv, ok := v.(*sqlparser.SQLVal); ok && sv.Type == sqlparser.StrVal && s.toks[b-1].typ == sqlparser.STRING {
			return s.toks[b-1].raw
		}
	}
	label := s.orig[s.toks[a].start:s.toks[b-1].end] // comments inside it too, as MySQL's @1.raw
	if strings.Contains(label, "/*!") {
		label = s.text[s.toks[a].start:s.toks[b-1].end] // a version comment's markers are not its text
	}
	return label
}

// name is the text of a name token: a backquoted name without its quotes, a word as written.
func (s *source) name(i int) string {
	t := s.toks[i]
	if t.typ == sqlparser.STRING || s.text[t.start] == '`' {
		return t.raw
	}
	return s.text[t.start:t.end]
}

// cut makes a label a name as MySQL keeps it (Item::set_name): without its leading blanks and
// control characters, in the system character set utf8mb3 (a character outside the Basic
// Multilingual Plane becomes '?'), and at most maxLabel characters long.
func cut(label string) string {
	label = strings.TrimLeftFunc(label, func(r rune) bool { return r <= ' ' || r == 0x7f })
	var b strings.Builder
	n := 0
	for _, r := range label {
		if n == maxLabel {
			break
		}
		if r > 0xFFFF {
			r = '?'
		}
		b.WriteRune(r)
		n++
	}
	return b.String()
}
