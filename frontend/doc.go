// Package frontend reads SQL statements: the one place that decides what a statement is. The
// driver, `airsql serve` (internal/mysqlserver) and the shell (cmd/airsql) all call Read and act on
// the type it returns; none of them looks at the text itself.
//
// Read reads the text once with sqlparser's own tokenizer (lex.go; never a regular expression on
// SQL): comments (/* … */, # …, -- …) and blanks are skipped there, so a comment before or inside
// a statement never changes what it is, and a version comment /*!NNNNN … */ is read as MySQL reads
// it — its text is part of the statement when NNNNN is at most the server's version, as mysqldump
// output expects. The first words then choose the kind (statement.go), one concrete type each:
// Select (SELECT, UNION, WITH), Insert (INSERT, REPLACE, … SELECT, … RETURNING), Update, Delete,
// Explain (of any of them), ShowColumns (SHOW COLUMNS, DESCRIBE), ShowVariables, ShowQuery (SHOW
// forms answered by a SELECT over information_schema), Show, Set, PreparedCommand (PREPARE,
// EXECUTE, DEALLOCATE), Begin, Commit, Rollback, Use, DDL, Kill and Other; each says ReturnsRows.
//
// What the pinned grammar (MySQL 5.7's, 2018) cannot read is read here, as named steps over the
// same tokens, each fuzzed: readExplain, readShowColumns, readShowVariables, rewriteShow,
// readPrepared, readDDL, readKill, cutReturning, parseWith, and the edits applied before the
// grammar runs (setAssignEdits, offsetEdits, likeEscapeEdits, callEdits, placeholderEdits,
// jsonTableEdits — JSON_TABLE in FROM, parse_jsontable.go; see source.edits). A statement the grammar refuses because of a construct it cannot read at all is
// refused by name (parserLimitation).
//
// Column labels (labels.go) are read from the same tokens: MySQL names an unaliased expression by
// its text exactly as written, which the grammar's AST no longer holds.
//
// The package imports sqlparser and nothing of this module: the planner (translate) and everything
// above it import it.
package frontend
