package frontend

import (
	"errors"
	"fmt"
	"strconv"

	"github.com/xwb1989/sqlparser"
)

// Statement is one statement read by Read: one concrete type per kind of statement.
type Statement interface {
	// ReturnsRows reports whether the statement answers with rows (a result set) rather than
	// with a count of rows affected: what a client needs to know to run it with Query or Exec.
	ReturnsRows() bool
	// Text is the statement as read: comments blanked, from its first word to its end.
	Text() string
}

// text is the part every statement type shares.
type text struct{ sql string }

func (t text) Text() string { return t.sql }

// Select is SELECT, UNION, a parenthesised SELECT or WITH … SELECT.
type Select struct {
	text
	AST sqlparser.SelectStatement
	// Labels are the column labels MySQL gives the select list of the statement (of the first
	// SELECT of a UNION), by select expression; nil when the list could not be matched with the
	// text.
	Labels Labels
}

// Insert is INSERT or REPLACE (AST.Action says which), with or without … SELECT and RETURNING.
type Insert struct {
	text
	AST       *sqlparser.Insert
	Returning sqlparser.SelectExprs // RETURNING's list (MariaDB), nil when none
	// ReturningLabels are the labels of the RETURNING list, as Select.Labels.
	ReturningLabels Labels
}

// Update is UPDATE.
type Update struct {
	text
	AST *sqlparser.Update
}

// Delete is DELETE, with or without RETURNING.
type Delete struct {
	text
	AST             *sqlparser.Delete
	Returning       sqlparser.SelectExprs
	ReturningLabels Labels
}

// Explain is EXPLAIN (or DESCRIBE, DESC) of a statement: describe its work, do none of it.
type Explain struct {
	text
	Inner Statement
}

// ShowColumns is SHOW [FULL] COLUMNS|FIELDS {FROM|IN} [db.]table [{FROM|IN} db] [LIKE 'pattern'],
// the form MySQL Connector/J's DatabaseMetaData.getColumns sends (… FROM `t` FROM `db` LIKE '%'),
// and DESCRIBE table, DESC table and EXPLAIN table, MySQL's shortcuts for it. The driver answers
// it from the schema.
type ShowColumns struct {
	text
	Table, Database string
	Full            bool   // FULL: MySQL's Collation, Privileges and Comment columns too
	Like            string // the LIKE pattern, unquoted; "" with HasLike false: every column
	HasLike         bool
}

// ShowVariables is SHOW [GLOBAL | SESSION] VARIABLES [LIKE 'pattern'].
type ShowVariables struct {
	text
	Global bool
	Like   string // the pattern as written between its quotes; "": every variable
}

// ShowQuery is a SHOW statement answered by a SELECT over information_schema (show.go).
type ShowQuery struct {
	text
	SQL string // the SELECT that answers it
	AST sqlparser.SelectStatement
	// Table is the table the statement names (SHOW CREATE TABLE, SHOW INDEX), "" when none:
	// MySQL answers an unknown one with error 1146, where the SELECT would give no row.
	Table string
	// Database is the database named with FROM/IN or as db.table, "" when none: it must be the
	// connection's base.
	Database string
}

// Show is a SHOW statement the grammar reads (SHOW TABLES, SHOW DATABASES, …).
type Show struct {
	text
	AST *sqlparser.Show
	// Rest is the text after SHOW's second word (LIKE 'a%', WHERE …), which the grammar may
	// drop: "" when the statement is two words.
	Rest string
}

// Set is SET (variables, NAMES, TRANSACTION).
type Set struct {
	text
	AST *sqlparser.Set
}

// Begin is BEGIN or START TRANSACTION.
type Begin struct{ text }

// Commit is COMMIT.
type Commit struct{ text }

// Rollback is ROLLBACK.
type Rollback struct{ text }

// Use is USE database.
type Use struct {
	text
	Database string // as written, without backquotes
}

// Kill is KILL [CONNECTION | QUERY] id.
type Kill struct {
	text
	ID        uint64
	QueryOnly bool // KILL QUERY: end the statement, keep the connection
}

// Other is a statement the grammar reads that the driver does not run (DROP TABLE, RENAME,
// CREATE DATABASE, REPAIR, …): AST says which, for the refusal.
type Other struct {
	text
	AST sqlparser.Statement
}

func (*Select) ReturnsRows() bool        { return true }
func (s *Insert) ReturnsRows() bool      { return s.Returning != nil }
func (*Update) ReturnsRows() bool        { return false }
func (s *Delete) ReturnsRows() bool      { return s.Returning != nil }
func (*Explain) ReturnsRows() bool       { return true }
func (*ShowColumns) ReturnsRows() bool   { return true }
func (*ShowVariables) ReturnsRows() bool { return true }
func (*ShowQuery) ReturnsRows() bool     { return true }
func (*Show) ReturnsRows() bool          { return true }
func (*Set) ReturnsRows() bool           { return false }
func (*Begin) ReturnsRows() bool         { return false }
func (*Commit) ReturnsRows() bool        { return false }
func (*Rollback) ReturnsRows() bool      { return false }
func (*Use) ReturnsRows() bool           { return false }
func (*Kill) ReturnsRows() bool          { return false }
func (*Other) ReturnsRows() bool         { return false }
func (*DDL) ReturnsRows() bool           { return false }

// ReturnsRows is true for EXECUTE, which answers as the statement it runs (a SELECT's rows), and
// false for PREPARE and DEALLOCATE PREPARE.
func (c *PreparedCommand) ReturnsRows() bool { return c.Kind == Execute }

// Each kind implements Statement.
var (
	_ Statement = (*Select)(nil)
	_ Statement = (*Insert)(nil)
	_ Statement = (*Update)(nil)
	_ Statement = (*Delete)(nil)
	_ Statement = (*Explain)(nil)
	_ Statement = (*ShowColumns)(nil)
	_ Statement = (*ShowVariables)(nil)
	_ Statement = (*ShowQuery)(nil)
	_ Statement = (*Show)(nil)
	_ Statement = (*Set)(nil)
	_ Statement = (*Begin)(nil)
	_ Statement = (*Commit)(nil)
	_ Statement = (*Rollback)(nil)
	_ Statement = (*Use)(nil)
	_ Statement = (*Kill)(nil)
	_ Statement = (*Other)(nil)
	_ Statement = (*DDL)(nil)
	_ Statement = (*PreparedCommand)(nil)
)

// SyntaxError is a statement the front end or the SQL parser cannot read (MySQL's error 1064):
// the driver's one type for it (airsql.SyntaxError is this type). Unwrap gives the parser's
// error, which names the position.
type SyntaxError struct{ Err error }

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("airsql: %v (SQL is read in the MySQL dialect: quote names with spaces in backquotes, strings in single quotes)", e.Err)
}
func (e *SyntaxError) Unwrap() error { return e.Err }

// Read reads one statement: the only place that decides what a statement is. The text is read
// once with sqlparser's tokenizer (lex): comments before and inside the statement are skipped
// there, so they never change what it is, and a version comment's text is part of it. Then the
// first words choose the kind, and each kind is read by its named step:
//
//	EXPLAIN | DESCRIBE | DESC stmt     Explain of the inner statement
//	DESCRIBE | DESC | EXPLAIN table    ShowColumns (readDescribe)
//	SHOW [FULL] COLUMNS|FIELDS …       ShowColumns (readShowColumns)
//	SHOW … VARIABLES …                 ShowVariables (readShowVariables)
//	SHOW TABLE STATUS | CREATE TABLE | INDEX | ENGINES | CHARSET | COLLATION
//	                                   ShowQuery (rewriteShow: a SELECT over information_schema)
//	PREPARE | EXECUTE | DEALLOCATE     PreparedCommand (readPrepared)
//	CREATE TABLE | ALTER | CREATE INDEX DDL (readDDL)
//	KILL, USE                          Kill, Use
//	INSERT | REPLACE | DELETE … RETURNING
//	                                   the list cut off (cutReturning), the rest parsed
//	anything else                      ParseSQL: the grammar, after the rewrites it needs
//	                                   (WITH, OFFSET, :=, LIKE escapes, calls it cannot read)
func Read(sql string) (Statement, error) {
	src, err := lex(sql)
	if err != nil {
		return nil, &SyntaxError{Err: err}
	}
	if len(src.toks) == 0 {
		return nil, &SyntaxError{Err: errors.New("the statement is empty (nothing but blanks and comments)")}
	}
	return src.statement()
}

// sub is the statement that starts at token i (EXPLAIN's).
func (s *source) sub(i int) *source {
	return &source{text: s.text, orig: s.orig, toks: s.toks[i:], from: s.toks[i].start}
}

func (s *source) statement() (Statement, error) {
	first := s.toks[0]
	t := text{sql: s.rest(0)}
	if first.typ == sqlparser.CREATE || first.typ == sqlparser.ALTER || first.typ == sqlparser.DROP {
		if err := s.viewRefusal(); err != nil {
			return nil, err
		}
	}
	switch {
	case s.word(0, "explain") || s.word(0, "describe") || s.word(0, "desc"):
		return s.readExplain(t)
	case s.word(0, "show"):
		if sc, ok, err := s.readShowColumns(); ok {
			if err != nil {
				return nil, err
			}
			sc.text = t
			return sc, nil
		}
		if sv, ok, err := s.readShowVariables(); ok {
			if err != nil {
				return nil, err
			}
			sv.text = t
			return sv, nil
		}
		if sq, ok, err := s.rewriteShow(); ok {
			if err != nil {
				return nil, err
			}
			ast, err := ParseSQL(sq.SQL)
			if err != nil {
				return nil, &SyntaxError{Err: err} // a WHERE condition the grammar cannot read
			}
			sel, isSelect := ast.(sqlparser.SelectStatement)
			if !isSelect {
				return nil, fmt.Errorf("translate: SHOW: the condition did not read as a SELECT's")
			}
			sq.text, sq.AST = t, sel
			return sq, nil
		}
		if s.word(1, "schemas") {
			// MySQL's synonym of SHOW DATABASES, which the grammar does not know.
			return &Show{text: t, AST: &sqlparser.Show{Type: "databases"}, Rest: s.rest(2)}, nil
		}
	case s.word(0, "prepare") || s.word(0, "execute") || s.word(0, "deallocate") || first.typ == sqlparser.DROP && s.word(1, "prepare"):
		pc, err := s.readPrepared()
		if err != nil {
			return nil, &SyntaxError{Err: err}
		}
		pc.text = t
		return pc, nil
	case first.typ == sqlparser.CREATE || first.typ == sqlparser.ALTER || first.typ == sqlparser.RENAME:
		if d, ok, err := s.readDDL(); ok {
			if err != nil {
				return nil, err
			}
			d.text = t
			return d, nil
		}
	case s.word(0, "kill"):
		return s.readKill(t)
	case first.typ == sqlparser.USE:
		if len(s.toks) == 2 && s.toks[1].typ >= 256 { // a name, a keyword or a string; not punctuation
			return &Use{text: t, Database: s.toks[1].raw}, nil
		}
	case first.typ == sqlparser.INSERT || first.typ == sqlparser.REPLACE || first.typ == sqlparser.DELETE:
		return s.readWrite(t)
	}
	ast, err := s.parse()
	if err != nil {
		return nil, err
	}
	return s.fromAST(t, ast)
}

// parse runs the grammar on the statement, turning a syntax error into a *SyntaxError (one that
// names a construct the grammar cannot read stays an *UnsupportedError).
func (s *source) parse() (sqlparser.Statement, error) {
	ast, err := s.parseAST()
	if err != nil {
		var ue *UnsupportedError
		if errors.As(err, &ue) {
			return nil, err
		}
		return nil, &SyntaxError{Err: err}
	}
	return ast, nil
}

// fromAST gives the statement the grammar read its type.
func (s *source) fromAST(t text, ast sqlparser.Statement) (Statement, error) {
	switch a := ast.(type) {
	case sqlparser.SelectStatement:
		return &Select{text: t, AST: a, Labels: s.selectLabels(a)}, nil
	case *sqlparser.Insert:
		return &Insert{text: t, AST: a}, nil
	case *sqlparser.Update:
		return &Update{text: t, AST: a}, nil
	case *sqlparser.Delete:
		return &Delete{text: t, AST: a}, nil
	case *sqlparser.Set:
		return &Set{text: t, AST: a}, nil
	case *sqlparser.Show:
		return &Show{text: t, AST: a, Rest: s.rest(2)}, nil
	case *sqlparser.Begin:
		return &Begin{t}, nil
	case *sqlparser.Commit:
		return &Commit{t}, nil
	case *sqlparser.Rollback:
		return &Rollback{t}, nil
	}
	return &Other{text: t, AST: ast}, nil
}

// readExplain reads EXPLAIN, DESCRIBE or DESC: of a statement, an Explain; of a table, MySQL's
// shortcut for SHOW COLUMNS.
func (s *source) readExplain(t text) (Statement, error) {
	if len(s.toks) < 2 {
		return nil, &UnsupportedError{Construct: "DESCRIBE without a table", Hint: "name the table: DESCRIBE `Tasks`"}
	}
	next := s.toks[1]
	switch {
	case next.typ == sqlparser.SELECT || next.typ == sqlparser.INSERT || next.typ == sqlparser.UPDATE ||
		next.typ == sqlparser.DELETE || next.typ == sqlparser.REPLACE || next.typ == '(' || s.word(1, "with") ||
		s.word(1, "show") || s.word(1, "explain") || s.word(1, "describe") || s.word(1, "desc") ||
		next.typ == sqlparser.SET || next.typ == sqlparser.CREATE || next.typ == sqlparser.ALTER || next.typ == sqlparser.RENAME ||
		s.word(1, "prepare") || s.word(1, "execute") || s.word(1, "deallocate"):
		inner, err := s.sub(1).statement()
		if err != nil {
			return nil, err
		}
		if _, twice := inner.(*Explain); twice {
			return nil, &UnsupportedError{Construct: "EXPLAIN EXPLAIN"}
		}
		return &Explain{text: t, Inner: inner}, nil
	}
	r := showReader{query: s.text, toks: s.toks, i: 1}
	db, table, err := r.tableName()
	if err != nil {
		return nil, &UnsupportedError{Construct: "DESCRIBE without a table", Hint: "name the table: DESCRIBE `Tasks`"}
	}
	if !r.done() {
		return nil, &UnsupportedError{Construct: fmt.Sprintf("text after the table name %q in SHOW COLUMNS/DESCRIBE", table),
			Hint: "write SHOW COLUMNS FROM table or DESCRIBE table, with nothing after the table"}
	}
	return &ShowColumns{text: t, Table: table, Database: db}, nil
}

// readKill reads KILL [CONNECTION | QUERY] id: the server answers it, since it is about the
// server's connections, not about a base.
func (s *source) readKill(t text) (Statement, error) {
	k := &Kill{text: t}
	i := 1
	switch {
	case s.word(i, "query"):
		k.QueryOnly = true
		i++
	case s.word(i, "connection"):
		i++
	}
	if i+1 != len(s.toks) || s.toks[i].typ != sqlparser.INTEGRAL {
		return nil, &SyntaxError{Err: fmt.Errorf("translate: %s: write KILL [CONNECTION | QUERY] id", t.sql)}
	}
	id, err := strconv.ParseUint(s.toks[i].raw, 10, 32)
	if err != nil {
		return nil, &SyntaxError{Err: fmt.Errorf("translate: %s: the connection id is out of range", t.sql)}
	}
	k.ID = id
	return k, nil
}

// readWrite reads INSERT, REPLACE and DELETE, cutting off a RETURNING list first.
func (s *source) readWrite(t text) (Statement, error) {
	stmt, list, labels, err := s.cutReturning()
	if err != nil {
		return nil, err
	}
	ast, err := stmt.parse()
	if err != nil {
		return nil, err
	}
	st, err := s.fromAST(t, ast)
	if err != nil {
		return nil, err
	}
	switch w := st.(type) {
	case *Insert:
		w.Returning, w.ReturningLabels = list, labels
	case *Delete:
		w.Returning, w.ReturningLabels = list, labels
	}
	return st, nil
}

// cutReturning splits an INSERT, REPLACE or DELETE statement at a top-level RETURNING (MariaDB's;
// GORM's MySQL dialector uses it to read the ids of created records when the server's version
// says MariaDB 10.5 or later). The pinned grammar cannot read it: the statement before it is
// parsed on its own and the list after it as a SELECT's.
func (s *source) cutReturning() (stmt *source, list sqlparser.SelectExprs, labels Labels, err error) {
	depth := 0
	for i, tok := range s.toks {
		switch {
		case tok.typ == '(':
			depth++
		case tok.typ == ')':
			depth--
		case depth == 0 && s.word(i, "returning"):
			if i+1 == len(s.toks) {
				return nil, nil, nil, &UnsupportedError{Construct: "RETURNING without columns", Hint: "name them: RETURNING id, Name"}
			}
			rest := s.rest(i + 1)
			ast, perr := ParseSQL("SELECT " + rest)
			sel, isSelect := ast.(*sqlparser.Select)
			if perr != nil || !isSelect || sqlparser.String(sel.From) != "dual" || sel.Where != nil || sel.GroupBy != nil || sel.OrderBy != nil || sel.Limit != nil {
				return nil, nil, nil, fmt.Errorf("airsql: cannot read the RETURNING list %q: write RETURNING expr [, expr …] at the end of the statement", rest)
			}
			before := &source{text: s.text, orig: s.orig, toks: s.toks[:i], from: s.from}
			return before, sel.SelectExprs, s.listLabels(i+1, len(s.toks), sel.SelectExprs), nil
		}
	}
	return s, nil, nil, nil
}
