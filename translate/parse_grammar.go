package translate

import (
	"strings"

	"github.com/xwb1989/sqlparser"
)

// MySQL 8 grammar the pinned sqlparser cannot read, rewritten with its tokenizer into text it reads
// with the same meaning. Each rewrite is one small function over whole tokens (strings, quoted
// names and comments are never touched) that gives the edits of its construct; rewriteGrammar
// tokenises the statement once, only when it holds one of the steps' words (a large INSERT of
// prose is not tokenised once per step), and applies all their edits, before the older rewrites
// of Parse. The edits of different steps never touch the same token.

// grammarStep is one rewrite: the words without which it has nothing to do, and its edits.
type grammarStep struct {
	words []string
	edits func(sql string, toks []token) []edit
}

var grammarSteps = []grammarStep{
	{[]string{"as"}, keywordAliasEdits},
	{[]string{"date", "time", "timestamp"}, typedLiteralEdits},
	{[]string{"all", "distinctrow"}, allQuantifierEdits},
	{[]string{"schemas"}, showSchemasEdits},
	{[]string{"rollup"}, rollupEdits},
	{[]string{"interval"}, intervalFunctionEdits},
}

// grammarWords are the words of every step: one scan of a statement that holds none of them.
var grammarWords = func() []string {
	var all []string
	for _, st := range grammarSteps {
		all = append(all, st.words...)
	}
	return all
}()

// rewriteGrammar applies the steps whose words the statement holds.
func rewriteGrammar(sql string) string {
	if !containsWord(sql, grammarWords...) {
		return sql
	}
	var steps []grammarStep
	for _, st := range grammarSteps {
		if containsWord(sql, st.words...) {
			steps = append(steps, st)
		}
	}
	if len(steps) == 0 {
		return sql
	}
	toks, ok := tokenize(sql)
	if !ok {
		return sql
	}
	var edits []edit
	for _, st := range steps {
		edits = append(edits, st.edits(sql, toks)...)
	}
	return applyEdits(sql, toks, edits)
}

// containsWord reports whether s holds one of the lower-case ASCII words in any case as a whole
// word outside quotes (not inside a name: Tasks holds no "as", createdTime no "time"; not in a
// string: 'as it is' holds no keyword), without copying s: the
// rewrites tokenise only the statements that may need them, not every large INSERT.
func containsWord(s string, words ...string) bool {
	isNameByte := func(c byte) bool {
		return c == '_' || c == '$' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
	}
	for i := 0; i < len(s); i++ {
		if q := s[i]; q == '\'' || q == '"' || q == '`' {
			// A quoted string or name holds no keyword: skip to its closing quote (a doubled quote
			// or, outside backquotes, a backslash escape stays inside).
			for i++; i < len(s); i++ {
				if s[i] == '\\' && q != '`' {
					i++
				} else if s[i] == q {
					if i+1 < len(s) && s[i+1] == q {
						i++
						continue
					}
					break
				}
			}
			continue
		}
		if i > 0 && isNameByte(s[i-1]) {
			continue
		}
		c := s[i] | 0x20
		for _, w := range words {
			if c == w[0] && len(s)-i >= len(w) && strings.EqualFold(s[i:i+len(w)], w) && (i+len(w) == len(s) || !isNameByte(s[i+len(w)])) {
				return true
			}
		}
	}
	return false
}

// applyEdits writes sql with the text of each edited token replaced.
func applyEdits(sql string, toks []token, edits []edit) string {
	if len(edits) == 0 {
		return sql
	}
	replace := make(map[int]string, len(edits))
	for _, e := range edits {
		replace[e.tok] = e.text
	}
	var b strings.Builder
	b.Grow(len(sql) + 16*len(edits))
	pos := 0
	for i, t := range toks {
		text, ok := replace[i]
		if !ok {
			continue
		}
		b.WriteString(sql[pos:t.start])
		b.WriteString(text)
		pos = t.end
	}
	b.WriteString(sql[pos:])
	return b.String()
}

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

// keywordAliasEdits: quotes a non-reserved keyword written as an alias after AS: AS offset is
// AS `offset`.
func keywordAliasEdits(sql string, toks []token) []edit {
	var edits []edit
	for i := 0; i+1 < len(toks); i++ {
		next := toks[i+1]
		if toks[i].typ == sqlparser.AS && next.typ != sqlparser.ID && aliasKeywords[next.val] &&
			(i+2 == len(toks) || toks[i+2].typ != '(') {
			edits = append(edits, edit{i + 1, "`" + next.val + "`"})
		}
	}
	return edits
}

// Typed literals DATE 'str', TIME 'str' and TIMESTAMP 'str' (ANSI SQL, and MySQL's) are read as
// calls of these entries of funcTable; formatRewritten writes them back as written.
const (
	dateLiteral      = "DATE LITERAL"
	timeLiteral      = "TIME LITERAL"
	timestampLiteral = "TIMESTAMP LITERAL"
)

// typedLiteralEdits: rewrites DATE '2024-05-15' as `DATE LITERAL`('2024-05-15'), and TIME and
// TIMESTAMP likewise: the grammar reads DATE '…' as a column date with an alias.
func typedLiteralEdits(sql string, toks []token) []edit {
	var edits []edit
	for i := 0; i+1 < len(toks); i++ {
		var name string
		switch toks[i].typ {
		case sqlparser.DATE:
			name = dateLiteral
		case sqlparser.TIME:
			name = timeLiteral
		case sqlparser.TIMESTAMP:
			name = timestampLiteral
		default:
			continue
		}
		if toks[i+1].typ != sqlparser.STRING || i > 0 && (toks[i-1].typ == '.' || toks[i-1].typ == sqlparser.AS) {
			continue
		}
		str := toks[i+1]
		edits = append(edits, edit{i, "`" + name + "`("}, edit{i + 1, sql[str.start:str.end] + ")"})
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

// allQuantifierEdits: drops the quantifier ALL where it is the default, as MySQL reads it:
// SELECT ALL … and COUNT(ALL x), MIN(ALL x), …; UNION ALL is left alone. SELECT DISTINCTROW is
// SELECT DISTINCT (the grammar reads distinctrow as a column name).
func allQuantifierEdits(sql string, toks []token) []edit {
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

// refuseViews refuses CREATE [OR REPLACE] … VIEW and DROP VIEW by name: the grammar reads them as
// a CREATE or DROP TABLE with no trace of the view (DROP VIEW v was refused as "DROP TABLE").
func refuseViews(sql string) error {
	if !containsWord(sql, "view") {
		return nil
	}
	head := strings.TrimLeft(sql, " \t\r\n(")
	if len(head) < 4 || !strings.EqualFold(head[:4], "drop") && !(len(head) >= 6 && strings.EqualFold(head[:6], "create")) && !(len(head) >= 5 && strings.EqualFold(head[:5], "alter")) {
		return nil
	}
	toks, ok := tokenize(sql)
	if !ok || len(toks) < 2 {
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

// intervalFunctionEdits: reads the function INTERVAL(n, n1, n2, …) — INTERVAL followed by a
// parenthesis whose closing one is not followed by a unit (INTERVAL (1 + 1) DAY is a time
// interval) — as a call of `INTERVAL`, which funcTable knows.
func intervalFunctionEdits(sql string, toks []token) []edit {
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
		if end < 0 || end+1 < len(toks) && intervalUnits[strings.ToUpper(toks[end+1].val)] {
			continue
		}
		edits = append(edits, edit{i, "`INTERVAL`"})
	}
	return edits
}

// rollupMark is the call rollupEdits puts last in GROUP BY for WITH ROLLUP (queryPlanner.groupBy).
const rollupMark = "WITH ROLLUP"

// rollupEdits: reads GROUP BY a, b WITH ROLLUP as GROUP BY a, b, `WITH ROLLUP`(): the grammar
// has no ROLLUP, and the mark keeps it in the statement for the planner.
func rollupEdits(sql string, toks []token) []edit {
	var edits []edit
	for i := 1; i+1 < len(toks); i++ {
		if toks[i].typ == sqlparser.WITH && toks[i+1].val == "rollup" && toks[i-1].typ != sqlparser.WITH {
			edits = append(edits, edit{i, ", `" + rollupMark + "`("}, edit{i + 1, ")"})
		}
	}
	return edits
}

// showSchemasEdits: SHOW SCHEMAS is SHOW DATABASES, its synonym.
func showSchemasEdits(sql string, toks []token) []edit {
	if len(toks) < 2 || toks[0].val != "show" || toks[1].val != "schemas" {
		return nil
	}
	return []edit{{1, "DATABASES"}}
}
