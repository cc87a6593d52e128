package frontend

import (
	"fmt"
	"strings"

	"github.com/xwb1989/sqlparser"
)

// WITH (common table expressions). The pinned parser cannot read WITH, so parseWith recognises
// "WITH name [(columns)] AS (query) [, …] statement" with the parser's own tokenizer (never a
// regular expression on the text: quotes, backquotes and comments are the tokenizer's business),
// parses each query and the statement on their own, and replaces every reference to a name in a
// FROM clause by the query as a derived table (FROM (query) AS name): each reference runs it, as
// MySQL may. A WITH query may name the ones before it. WITH RECURSIVE is refused by name.

type cte struct {
	name    string
	columns []string
	sel     sqlparser.SelectStatement
}

// parseWith parses a statement starting with WITH. Each query and the statement are parts of the
// statement's tokens, parsed on their own (parseAST) with their ? numbered as in the whole.
func (s *source) parseWith() (sqlparser.Statement, error) {
	toks, sql := s.toks, s.text
	// part is the statement made of tokens [from, to).
	part := func(from, to int) *source {
		return &source{text: s.text, orig: s.orig, toks: toks[from:to], from: toks[from].start}
	}
	i := 1
	if i < len(toks) && toks[i].val == "recursive" {
		return nil, unsupported("WITH RECURSIVE", "", "recursive queries are not run; write the levels as joins")
	}
	var ctes []cte
	seen := map[string]bool{}
	for {
		if i >= len(toks) || (toks[i].typ != sqlparser.ID && toks[i].typ < sqlparser.LEX_ERROR) {
			return nil, fmt.Errorf("translate: WITH: a name is expected at position %d", posOf(toks, i, sql))
		}
		c := cte{name: strings.Trim(sql[toks[i].start:toks[i].end], "`")}
		if seen[strings.ToLower(c.name)] {
			return nil, fmt.Errorf("translate: not unique table/alias: '%s': WITH names it twice", c.name)
		}
		seen[strings.ToLower(c.name)] = true
		i++
		if i < len(toks) && toks[i].typ == '(' {
			i++
			for i < len(toks) && toks[i].typ != ')' {
				if toks[i].typ != ',' {
					c.columns = append(c.columns, strings.Trim(sql[toks[i].start:toks[i].end], "`"))
				}
				i++
			}
			i++
		}
		if i >= len(toks) || toks[i].typ != sqlparser.AS || i+1 >= len(toks) || toks[i+1].typ != '(' {
			return nil, fmt.Errorf("translate: WITH %s: AS (SELECT …) is expected", c.name)
		}
		i += 2
		start, depth := i, 1
		for i < len(toks) && depth > 0 {
			switch toks[i].typ {
			case '(':
				depth++
			case ')':
				depth--
			}
			i++
		}
		if depth != 0 {
			return nil, fmt.Errorf("translate: WITH %s: the query's parenthesis is not closed", c.name)
		}
		if i-1 <= start {
			return nil, fmt.Errorf("translate: WITH %s: the query is empty", c.name)
		}
		st, err := part(start, i-1).parseAST()
		if err != nil {
			return nil, fmt.Errorf("translate: WITH %s: %w", c.name, err)
		}
		sel, isSel := st.(sqlparser.SelectStatement)
		if !isSel {
			return nil, fmt.Errorf("translate: WITH %s: the query must be a SELECT", c.name)
		}
		c.sel = sel
		ctes = append(ctes, c)
		if i < len(toks) && toks[i].typ == ',' {
			i++
			continue
		}
		break
	}
	if i >= len(toks) {
		return nil, fmt.Errorf("translate: WITH: a statement is expected after the WITH queries")
	}
	st, err := part(i, len(toks)).parseAST()
	if err != nil {
		return nil, err
	}
	sel, isSel := st.(sqlparser.SelectStatement)
	if !isSel {
		return nil, unsupported("WITH before "+strings.ToUpper(toks[i].val), "", "WITH is read before SELECT only")
	}
	// Each query may name the ones before it; the statement may name all of them.
	for k := range ctes {
		if err := replaceCTEs(ctes[k].sel, ctes[:k]); err != nil {
			return nil, err
		}
		if err := renameColumns(&ctes[k]); err != nil {
			return nil, err
		}
	}
	if err := replaceCTEs(sel, ctes); err != nil {
		return nil, err
	}
	return sel, nil
}

func posOf(toks []token, i int, sql string) int {
	if i < len(toks) {
		return toks[i].start + 1
	}
	return len(sql)
}

// renameColumns applies WITH name (a, b) AS (SELECT x, y …): the select list's aliases.
func renameColumns(c *cte) error {
	if len(c.columns) == 0 {
		return nil
	}
	sel, ok := c.sel.(*sqlparser.Select)
	if !ok {
		return unsupported("a column list on a WITH query that is not a plain SELECT", c.name, "alias the columns in the SELECT")
	}
	if len(sel.SelectExprs) != len(c.columns) {
		return fmt.Errorf("translate: WITH %s names %d columns but its query selects %d", c.name, len(c.columns), len(sel.SelectExprs))
	}
	for i, se := range sel.SelectExprs {
		ae, ok := se.(*sqlparser.AliasedExpr)
		if !ok {
			return unsupported("a column list on a WITH query that selects *", c.name, "name the columns in the SELECT")
		}
		ae.As = sqlparser.NewColIdent(c.columns[i])
	}
	return nil
}

// replaceCTEs turns every FROM reference to a WITH name into a derived table of its query.
func replaceCTEs(stmt sqlparser.SQLNode, ctes []cte) error {
	if len(ctes) == 0 {
		return nil
	}
	return sqlparser.Walk(func(n sqlparser.SQLNode) (bool, error) {
		ate, ok := n.(*sqlparser.AliasedTableExpr)
		if !ok {
			return true, nil
		}
		tn, ok := ate.Expr.(sqlparser.TableName)
		if !ok || !tn.Qualifier.IsEmpty() {
			return true, nil
		}
		for _, c := range ctes {
			if strings.EqualFold(c.name, tn.Name.String()) {
				if ate.As.IsEmpty() {
					ate.As = sqlparser.NewTableIdent(c.name)
				}
				ate.Expr = &sqlparser.Subquery{Select: c.sel}
				return false, nil
			}
		}
		return true, nil
	}, stmt)
}
