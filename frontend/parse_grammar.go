package frontend

import (
	"strings"

	"github.com/xwb1989/sqlparser"

	"github.com/airsql/airsql/sqlvalue"
)

// MySQL 8 grammar the pinned sqlparser cannot read, rewritten over the statement's tokens into
// text it reads with the same meaning. Each step is one small function over whole tokens
// (strings, quoted names and comments are never touched); grammarEdits gathers them for edits.
// The edits of different steps never touch the same token.
//
//	keywordAliasEdits      AS offset is AS `offset` (MySQL 8's non-reserved words as aliases)
//	keywordTableEdits      FROM tables is FROM `tables` (the same words as table names)
//	typedLiteralEdits      DATE '2024-05-15' is `DATE LITERAL`('2024-05-15'), TIME and TIMESTAMP alike
//	allQuantifierEdits     SELECT ALL and COUNT(ALL x) drop the default ALL; DISTINCTROW is DISTINCT
//	rollupEdits            GROUP BY a WITH ROLLUP is GROUP BY a, `WITH ROLLUP`()
//	intervalFunctionEdits  the function INTERVAL(n, n1, …) is a call of `INTERVAL`
//	memberOfEdits          x MEMBER OF(arr) is `MEMBER OF`(x, (arr))
func (s *source) grammarEdits() []textEdit {
	var edits []edit
	edits = append(edits, s.keywordAliasEdits()...)
	edits = append(edits, s.keywordTableEdits()...)
	edits = append(edits, s.typedLiteralEdits()...)
	edits = append(edits, s.allQuantifierEdits()...)
	edits = append(edits, s.rollupEdits()...)
	edits = append(edits, s.intervalFunctionEdits()...)
	edits = append(edits, s.memberOfEdits()...)
	return s.tokenEdits(edits)
}

// The names the rewrites call, entries of the function table (sqlvalue).
const (
	DateLiteral      = sqlvalue.DateLiteral
	TimeLiteral      = sqlvalue.TimeLiteral
	TimestampLiteral = sqlvalue.TimestampLiteral
	RollupMark       = sqlvalue.RollupMark
	IntervalFunction = sqlvalue.IntervalFunction
	MemberOf         = sqlvalue.MemberOf
)

// aliasKeywords are the words MySQL 8 does not reserve (its manual's "Keywords and Reserved
// Words": listed without (R)) that the pinned grammar takes as keywords and refuses as an alias
// after AS: SELECT 1 AS offset, COUNT(*) AS end, … AS full, AS tables. (Other non-reserved words —
// status, date, time, year, names, columns, … — it already reads as names.) The reserved words
// stay refused, as in MySQL.
var aliasKeywords = map[string]bool{
	"auto_increment": true, "boolean": true, "end": true, "escape": true, "extended": true, "full": true,
	"next": true, "offset": true, "processlist": true, "tables": true, "stream": true,
	// Function names, not keywords in MySQL 8: any alias.
	"cast": true, "substr": true, "substring": true, "group_concat": true,
}

// keywordAliasEdits quotes a non-reserved keyword written as an alias after AS.
func (s *source) keywordAliasEdits() []edit {
	toks := s.toks
	var edits []edit
	for i := 0; i+1 < len(toks); i++ {
		next := toks[i+1]
		if toks[i].typ == sqlparser.AS && next.typ != sqlparser.ID && next.typ != sqlparser.STRING && aliasKeywords[next.val] &&
			(i+2 == len(toks) || toks[i+2].typ != '(') {
			edits = append(edits, edit{i + 1, "`" + next.val + "`"})
		}
	}
	return edits
}

// keywordTableEdits quotes a non-reserved keyword written as a table name after FROM or JOIN:
// SELECT … FROM TABLES after USE information_schema.
func (s *source) keywordTableEdits() []edit {
	toks := s.toks
	var edits []edit
	for i := 1; i < len(toks); i++ {
		t := toks[i]
		if prev := toks[i-1].typ; (prev == sqlparser.FROM || prev == sqlparser.JOIN) && t.typ != sqlparser.ID && t.typ != sqlparser.STRING && aliasKeywords[t.val] &&
			(i+1 == len(toks) || toks[i+1].typ != '(' && toks[i+1].typ != '.') {
			edits = append(edits, edit{i, "`" + s.text[t.start:t.end] + "`"})
		}
	}
	return edits
}

// typedLiteralEdits rewrites DATE 'str', TIME 'str' and TIMESTAMP 'str' as calls: the grammar
// reads DATE '…' as a column date with an alias.
func (s *source) typedLiteralEdits() []edit {
	toks := s.toks
	var edits []edit
	for i := 0; i+1 < len(toks); i++ {
		var name string
		switch toks[i].typ {
		case sqlparser.DATE:
			name = DateLiteral
		case sqlparser.TIME:
			name = TimeLiteral
		case sqlparser.TIMESTAMP:
			name = TimestampLiteral
		default:
			continue
		}
		if toks[i+1].typ != sqlparser.STRING || i > 0 && (toks[i-1].typ == '.' || toks[i-1].typ == sqlparser.AS) {
			continue
		}
		str := toks[i+1]
		edits = append(edits, edit{i, "`" + name + "`("}, edit{i + 1, s.text[str.start:str.end] + ")"})
		i++
	}
	return edits
}

// allAggregates are the aggregates that take ALL before their argument, as MySQL's grammar.
var allAggregates = map[string]bool{
	"count": true, "sum": true, "avg": true, "min": true, "max": true, "std": true, "stddev": true,
	"stddev_pop": true, "stddev_samp": true, "variance": true, "var_pop": true, "var_samp": true,
	"bit_and": true, "bit_or": true, "bit_xor": true, "group_concat": true,
}

// allQuantifierEdits drops the quantifier ALL where it is the default, as MySQL reads it:
// SELECT ALL … and COUNT(ALL x), MIN(ALL x), …; UNION ALL is left alone. SELECT DISTINCTROW is
// SELECT DISTINCT (the grammar reads distinctrow as a column name).
func (s *source) allQuantifierEdits() []edit {
	toks := s.toks
	var edits []edit
	for i := 1; i < len(toks); i++ {
		if toks[i].val == "distinctrow" && toks[i-1].typ == sqlparser.SELECT {
			edits = append(edits, edit{i, "DISTINCT"})
			continue
		}
		if toks[i].typ != sqlparser.ALL {
			continue
		}
		if i+1 < len(toks) && toks[i+1].typ == sqlparser.ALL {
			continue // ALL ALL: not MySQL; left for the parser to refuse
		}
		prev := toks[i-1]
		if prev.typ == sqlparser.SELECT || prev.typ == '(' && i >= 2 && allAggregates[toks[i-2].val] {
			edits = append(edits, edit{i, ""})
		}
	}
	return edits
}

// intervalFunctionEdits reads the function INTERVAL(n, n1, n2, …) — INTERVAL followed by a
// parenthesis whose closing one is not followed by a unit (INTERVAL (1 + 1) DAY is a time
// interval) — as a call of `INTERVAL`, which the planner's function table knows.
func (s *source) intervalFunctionEdits() []edit {
	toks := s.toks
	var edits []edit
	for i := 0; i+1 < len(toks); i++ {
		if toks[i].typ != sqlparser.INTERVAL || toks[i+1].typ != '(' {
			continue
		}
		depth, end := 0, -1
		for k := i + 1; k < len(toks) && end < 0; k++ {
			switch toks[k].typ {
			case '(':
				depth++
			case ')':
				if depth--; depth == 0 {
					end = k
				}
			}
		}
		if end < 0 || end+1 < len(toks) && sqlvalue.IntervalUnits[strings.ToUpper(toks[end+1].val)] {
			continue
		}
		edits = append(edits, edit{i, "`" + IntervalFunction + "`"})
	}
	return edits
}

// memberOfEdits reads x MEMBER OF(arr) as `MEMBER OF`(x, (arr)), which the planner's function
// table knows. x is one operand as MySQL's grammar takes it before MEMBER OF: a literal, a
// placeholder, a (qualified) column, a call or a parenthesized expression.
func (s *source) memberOfEdits() []edit {
	toks := s.toks
	var edits []edit
	for i := 1; i+2 < len(toks); i++ {
		if !s.word(i, "member") || !s.word(i+1, "of") || toks[i+2].typ != '(' {
			continue
		}
		end := matchingParen(toks, i+2)
		first := operandStart(toks, i-1)
		if end < 0 || first < 0 {
			continue // left for the parser to refuse
		}
		t := toks[first]
		edits = append(edits, edit{first, "`" + MemberOf + "`(" + s.text[t.start:t.end]}, edit{i, ","}, edit{i + 1, ""},
			edit{end, "))"})
	}
	return edits
}

// matchingParen is the index of the ')' that closes the '(' at open, or -1.
func matchingParen(toks []token, open int) int {
	depth := 0
	for k := open; k < len(toks); k++ {
		switch toks[k].typ {
		case '(':
			depth++
		case ')':
			if depth--; depth == 0 {
				return k
			}
		}
	}
	return -1
}

// operandStart is the first token of the operand that ends at token last, or -1 when it is not
// one memberOfEdits reads.
func operandStart(toks []token, last int) int {
	switch toks[last].typ {
	case ')':
		depth := 0
		for k := last; k >= 0; k-- {
			switch toks[k].typ {
			case ')':
				depth++
			case '(':
				if depth--; depth == 0 {
					if k > 0 && toks[k-1].typ == sqlparser.ID {
						return k - 1 // a call
					}
					return k
				}
			}
		}
		return -1
	case sqlparser.STRING, sqlparser.INTEGRAL, sqlparser.FLOAT, sqlparser.VALUE_ARG, sqlparser.NULL, sqlparser.TRUE, sqlparser.FALSE:
		return last
	case sqlparser.ID:
		for last >= 2 && toks[last-1].typ == '.' && toks[last-2].typ == sqlparser.ID {
			last -= 2
		}
		return last
	}
	return -1
}

// rollupEdits reads GROUP BY a, b WITH ROLLUP as GROUP BY a, b, `WITH ROLLUP`(): the grammar has
// no ROLLUP, and the mark keeps it in the statement for the planner.
func (s *source) rollupEdits() []edit {
	toks := s.toks
	var edits []edit
	for i := 1; i+1 < len(toks); i++ {
		if toks[i].typ == sqlparser.WITH && toks[i+1].val == "rollup" && toks[i-1].typ != sqlparser.WITH {
			edits = append(edits, edit{i, ", `" + RollupMark + "`("}, edit{i + 1, ")"})
		}
	}
	return edits
}

// viewRefusal refuses CREATE [OR REPLACE] … VIEW, ALTER VIEW and DROP VIEW by name: the grammar
// reads them as a CREATE or DROP TABLE with no trace of the view (DROP VIEW v was refused as
// "DROP TABLE"). It returns nil for every other statement.
func (s *source) viewRefusal() error {
	toks := s.toks
	if len(toks) < 2 {
		return nil
	}
	verb := strings.ToUpper(toks[0].val)
	// CREATE [OR REPLACE] [ALGORITHM = …] [DEFINER = …] [SQL SECURITY …] VIEW: the view keyword
	// comes before any name or parenthesis.
	for _, t := range toks[1:] {
		if t.val == "view" {
			return unsupported(verb+" VIEW", "", "Airtable has no SQL views: read a table through one of its Airtable views with FROM t USE INDEX (`view name`), or run the view's SELECT itself")
		}
		if t.typ == '(' || t.typ == sqlparser.TABLE || t.typ == sqlparser.INDEX || t.typ == sqlparser.DATABASE || t.typ == sqlparser.ID && t.val != "algorithm" && t.val != "definer" && t.val != "security" && t.val != "merge" && t.val != "temptable" && t.val != "undefined" && t.val != "invoker" {
			return nil
		}
	}
	return nil
}

// tokenEdits turns edits of whole tokens into edits of the text; the last edit of a token wins.
func (s *source) tokenEdits(edits []edit) []textEdit {
	if len(edits) == 0 {
		return nil
	}
	replace := make(map[int]string, len(edits))
	for _, e := range edits {
		replace[e.tok] = e.text
	}
	out := make([]textEdit, 0, len(replace))
	for i, t := range s.toks {
		if text, ok := replace[i]; ok {
			out = append(out, textEdit{start: t.start, end: t.end, text: text})
		}
	}
	return out
}
