package frontend

import (
	"fmt"
	"strings"

	"github.com/xwb1989/sqlparser"

	"github.com/airsql/airsql/sqlvalue"
)

// SHOW statements that tools send to learn about a server and its tables — DBeaver's table
// properties (SHOW TABLE STATUS), its DDL tab (SHOW CREATE TABLE), index lists (SHOW INDEX),
// and the character-set and engine pickers. MySQL 8 answers them from its data dictionary
// through views; the driver does the same: each is rewritten into a SELECT over
// information_schema (or over constants), run by the engine like any other query, so that the
// answers agree with information_schema's by construction. The pinned parser reads these
// statements but drops their LIKE, WHERE, FROM and table names, so they are read here with its
// tokenizer.

// rewriteShow reads SHOW TABLE STATUS, SHOW CREATE TABLE, SHOW INDEX|INDEXES|KEYS, SHOW ENGINES,
// SHOW CHARACTER SET|CHARSET, SHOW COLLATION and SHOW REPLICA|SLAVE STATUS, each with MySQL's optional LIKE 'pattern' or
// WHERE condition where MySQL takes one. ok is false for any other statement.
func (s *source) rewriteShow() (sq *ShowQuery, ok bool, err error) {
	query := s.rest(0)
	if len(s.toks) < 2 {
		return nil, false, nil
	}
	r := showReader{query: s.text, toks: s.toks, i: 1}
	sq = &ShowQuery{}
	switch {
	case r.words("table", "status"):
		sq.Database, err = r.fromDatabase()
		if err != nil {
			return sq, true, err
		}
		schema := schemaLiteral(sq.Database)
		sq.SQL, err = r.filtered("SELECT `TABLE_NAME` AS Name, `ENGINE` AS Engine, `VERSION` AS Version, `ROW_FORMAT` AS Row_format, "+
			"`TABLE_ROWS` AS `Rows`, `AVG_ROW_LENGTH` AS Avg_row_length, `DATA_LENGTH` AS Data_length, "+
			"`MAX_DATA_LENGTH` AS Max_data_length, `INDEX_LENGTH` AS Index_length, `DATA_FREE` AS Data_free, "+
			"`AUTO_INCREMENT` AS `Auto_increment`, `CREATE_TIME` AS Create_time, `UPDATE_TIME` AS Update_time, "+
			"`CHECK_TIME` AS Check_time, `TABLE_COLLATION` AS `Collation`, `CHECKSUM` AS `Checksum`, "+
			"`CREATE_OPTIONS` AS Create_options, `TABLE_COMMENT` AS `Comment` "+
			"FROM information_schema.TABLES WHERE TABLE_SCHEMA = "+schema, "TABLE_NAME", "ORDER BY Name")
	case r.words("create", "table"):
		sq.Database, sq.Table, err = r.tableName()
		if err == nil && !r.done() {
			err = r.trailing()
		}
		if err != nil {
			return sq, true, err
		}
		sq.SQL = showCreateTable(sq.Database, sq.Table)
	case r.words("index") || r.words("indexes") || r.words("keys") ||
		r.words("extended", "index") || r.words("extended", "indexes") || r.words("extended", "keys"):
		if !r.words("from") && !r.words("in") {
			return sq, true, unsupported("this SHOW INDEX form", query, "write SHOW INDEX FROM table")
		}
		sq.Database, sq.Table, err = r.tableName()
		if err != nil {
			return sq, true, err
		}
		var db string
		db, err = r.fromDatabase()
		if err != nil {
			return sq, true, err
		}
		if db != "" {
			sq.Database = db
		}
		if r.words("like") {
			return sq, true, unsupported("SHOW INDEX … LIKE", query, "filter with WHERE, as MySQL requires")
		}
		schema := schemaLiteral(sq.Database)
		sq.SQL, err = r.filtered("SELECT `TABLE_NAME` AS `Table`, `NON_UNIQUE` AS Non_unique, `INDEX_NAME` AS Key_name, "+
			"`SEQ_IN_INDEX` AS Seq_in_index, `COLUMN_NAME` AS Column_name, `COLLATION` AS `Collation`, "+
			"`CARDINALITY` AS Cardinality, `SUB_PART` AS Sub_part, `PACKED` AS Packed, `NULLABLE` AS `Null`, "+
			"`INDEX_TYPE` AS Index_type, `COMMENT` AS `Comment`, `INDEX_COMMENT` AS Index_comment "+
			"FROM information_schema.STATISTICS WHERE TABLE_SCHEMA = "+schema+" AND TABLE_NAME = "+sqlvalue.QuoteText(sq.Table), "",
			"ORDER BY Key_name, Seq_in_index")
	case r.words("engines") || r.words("storage", "engines"):
		if !r.done() {
			return sq, true, r.trailing()
		}
		sq.SQL = "SELECT 'Airtable' AS Engine, 'DEFAULT' AS Support, " +
			"'Airtable bases through the airsql driver: every table is an Airtable table' AS `Comment`, " +
			"'NO' AS Transactions, 'NO' AS XA, 'NO' AS Savepoints"
	case r.words("character", "set") || r.words("charset"):
		// The driver's text is UTF-8 and SET accepts only utf8mb4 (sysvars.go).
		sq.SQL, err = r.filtered("SELECT 'utf8mb4' AS `Charset`, 'UTF-8 Unicode' AS `Description`, "+
			"'utf8mb4_bin' AS `Default collation`, 4 AS Maxlen", "`Charset`", "")
	case r.words("replica", "status") || r.words("slave", "status"):
		// MySQL 8.0.22's name and the older one; an empty set when the connection has no
		// replica, as MySQL answers on a server that is not one. The rows are the driver's:
		// one per table copied (information_schema.REPLICA_STATUS, ReplicaStatusTable).
		if !r.done() {
			return sq, true, r.trailing()
		}
		sq.SQL = "SELECT `Table`, Table_id, Mode, `Records`, Cursor, Last_transaction, Synced, Lag_seconds, Copies, Payloads_applied, Last_error " +
			"FROM information_schema." + ReplicaStatusTable + " ORDER BY `Table`"
	case r.words("collation"):
		// utf8mb4_bin is the collation the driver reports everywhere (collation_connection,
		// information_schema); its id is MySQL's and MariaDB's.
		sq.SQL, err = r.filtered("SELECT 'utf8mb4_bin' AS `Collation`, 'utf8mb4' AS `Charset`, 46 AS Id, "+
			"'Yes' AS `Default`, 'Yes' AS Compiled, 1 AS Sortlen", "`Collation`", "")
	default:
		return nil, false, nil
	}
	return sq, true, err
}

// ReplicaStatusTable is the information_schema table SHOW REPLICA STATUS reads: the driver adds
// it to a statement's catalog with its replica's rows.
const ReplicaStatusTable = "REPLICA_STATUS"

// showCreateTable builds CREATE TABLE from information_schema, in the form MariaDB's SHOW CREATE
// TABLE prints: one line per column with its type, NOT NULL and COMMENT (the field's description),
// then the primary key (the record id, as KEY_COLUMN_USAGE says), a FOREIGN KEY line per link
// field, and the table's COMMENT (its description). A single line text field, a VARCHAR without
// length in information_schema (Airtable keeps none), is written VARCHAR(255), so that the
// statement is valid MySQL and, run through this driver, makes the same fields (a link's column
// is JSON, which with its FOREIGN KEY line makes a link again).
func showCreateTable(database, table string) string {
	schema := schemaLiteral(database)
	where := "TABLE_SCHEMA = " + schema + " AND TABLE_NAME = " + sqlvalue.QuoteText(table)
	return "SELECT ANY_VALUE(TABLE_NAME) AS `Table`, CONCAT('CREATE TABLE `', REPLACE(ANY_VALUE(TABLE_NAME), '`', '``'), '` (\\n', " +
		"GROUP_CONCAT(CONCAT('  `', REPLACE(COLUMN_NAME, '`', '``'), '` ', IF(COLUMN_TYPE = 'varchar', 'varchar(255)', COLUMN_TYPE), IF(IS_NULLABLE = 'NO', ' NOT NULL', ''), " +
		"IF(COLUMN_COMMENT = '', '', CONCAT(' COMMENT ', " + sqlQuoted("COLUMN_COMMENT") + ")), ',\\n') " +
		"ORDER BY ORDINAL_POSITION SEPARATOR ''), " +
		"'  PRIMARY KEY (`id`)', " +
		"IFNULL((SELECT GROUP_CONCAT(CONCAT(',\\n  CONSTRAINT `', REPLACE(CONSTRAINT_NAME, '`', '``'), '` FOREIGN KEY (`', REPLACE(COLUMN_NAME, '`', '``'), " +
		"'`) REFERENCES `', REPLACE(REFERENCED_TABLE_NAME, '`', '``'), '` (`id`)') ORDER BY CONSTRAINT_NAME SEPARATOR '') " +
		"FROM information_schema.KEY_COLUMN_USAGE WHERE " + where + " AND REFERENCED_TABLE_NAME IS NOT NULL), ''), " +
		"'\\n) ENGINE=Airtable DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin', " +
		"IFNULL((SELECT CONCAT(' COMMENT=', " + sqlQuoted("TABLE_COMMENT") + ") FROM information_schema.TABLES WHERE " + where + " AND TABLE_COMMENT <> ''), '')) AS `Create Table` " +
		"FROM information_schema.COLUMNS WHERE " + where + " HAVING COUNT(*) > 0"
}

// sqlQuoted is SQL that writes the text of column as a MySQL string literal, as quoteText does.
func sqlQuoted(column string) string {
	return `CONCAT('''', REPLACE(REPLACE(` + column + `, '\\', '\\\\'), '''', ''''''), '''')`
}

// schemaLiteral is the database a SHOW statement names, as SQL: the connection's own without one.
func schemaLiteral(database string) string {
	if database == "" {
		return "DATABASE()"
	}
	return sqlvalue.QuoteText(database)
}

// showReader walks the tokens of a SHOW statement.
type showReader struct {
	query string
	toks  []token
	i     int
}

func (r *showReader) done() bool { return r.i >= len(r.toks) }

// words consumes the keywords ws if the next tokens are they.
func (r *showReader) words(ws ...string) bool {
	if r.i+len(ws) > len(r.toks) {
		return false
	}
	for k, w := range ws {
		t := r.toks[r.i+k]
		if t.val != w || t.typ == sqlparser.STRING || r.query[t.start] == '`' {
			return false
		}
	}
	r.i += len(ws)
	return true
}

func (r *showReader) trailing() error {
	return unsupported("text after "+strings.TrimSpace(r.query[:r.toks[r.i-1].end]), r.query,
		"end the SHOW statement there")
}

// name reads one identifier, in its own case, without backquotes.
func (r *showReader) name() (string, error) {
	if r.done() || r.toks[r.i].typ != sqlparser.ID {
		return "", unsupported("this SHOW statement", r.query, "name a table or database after FROM or IN")
	}
	t := r.toks[r.i]
	r.i++
	text := r.query[t.start:t.end]
	if strings.HasPrefix(text, "`") && strings.HasSuffix(text, "`") && len(text) >= 2 {
		text = strings.ReplaceAll(text[1:len(text)-1], "``", "`")
	}
	return text, nil
}

// tableName reads table or db.table.
func (r *showReader) tableName() (database, table string, err error) {
	table, err = r.name()
	if err != nil {
		return "", "", err
	}
	if !r.done() && r.toks[r.i].typ == '.' {
		r.i++
		database = table
		table, err = r.name()
	}
	return database, table, err
}

// fromDatabase reads an optional FROM db or IN db.
func (r *showReader) fromDatabase() (string, error) {
	if r.words("from") || r.words("in") {
		return r.name()
	}
	return "", nil
}

// filtered ends the statement: with nothing, LIKE 'pattern' (matched against likeColumn; "" when
// the statement takes no LIKE) or WHERE condition (over the statement's own columns, as MySQL
// reads it), and returns the SELECT with the filter and order applied.
func (r *showReader) filtered(sel, likeColumn, order string) (string, error) {
	switch {
	case r.done():
	case likeColumn != "" && r.words("like"):
		if r.done() || r.toks[r.i].typ != sqlparser.STRING || r.i+1 != len(r.toks) {
			return "", unsupported("this LIKE", r.query, "write LIKE 'pattern' at the end")
		}
		t := r.toks[r.i]
		if strings.Contains(sel, " WHERE ") {
			sel += " AND "
		} else {
			sel = "SELECT * FROM (" + sel + ") AS s WHERE "
			likeColumn = strings.TrimPrefix(likeColumn, "s.")
		}
		sel += likeColumn + " LIKE " + r.query[t.start:t.end]
	case r.words("where"):
		if r.done() {
			return "", unsupported("WHERE without a condition", r.query, "write a condition after WHERE")
		}
		cond := r.query[r.toks[r.i].start:r.toks[len(r.toks)-1].end]
		sel = "SELECT * FROM (" + sel + ") AS s WHERE " + cond
	default:
		return "", r.trailing()
	}
	if order != "" {
		sel += " " + order
	}
	return sel, nil
}

// readShowColumns reads SHOW [FULL] COLUMNS|FIELDS; ok is false for any other statement.
func (s *source) readShowColumns() (sc *ShowColumns, ok bool, err error) {
	query := s.rest(0)
	r := showReader{query: s.text, toks: s.toks, i: 1}
	sc = &ShowColumns{}
	sc.Full = r.words("full")
	if !r.words("columns") && !r.words("fields") {
		return nil, false, nil
	}
	if !r.words("from") && !r.words("in") {
		return sc, true, unsupported("this SHOW COLUMNS form", query, "write SHOW COLUMNS FROM table (or DESCRIBE table)")
	}
	if sc.Database, sc.Table, err = r.tableName(); err != nil {
		return sc, true, unsupported("SHOW COLUMNS without a table", query, "name the table: SHOW COLUMNS FROM `Tasks`")
	}
	db, err := r.fromDatabase()
	if err != nil {
		return sc, true, err
	}
	if db != "" {
		sc.Database = db
	}
	switch {
	case r.done():
	case r.words("like"):
		if r.done() || r.toks[r.i].typ != sqlparser.STRING || r.i+1 != len(r.toks) {
			return sc, true, unsupported("this LIKE", query, "write LIKE 'pattern' at the end")
		}
		t := r.toks[r.i]
		sc.Like, sc.HasLike = unquoteText(s.text[t.start:t.end]), true
	case r.words("where"):
		return sc, true, unsupported("SHOW COLUMNS … WHERE", query, "filter the column names with LIKE 'pattern', or query information_schema.COLUMNS")
	default:
		return sc, true, unsupported(fmt.Sprintf("text after the table name %q in SHOW COLUMNS", sc.Table), query,
			"write SHOW COLUMNS FROM table [FROM database] [LIKE 'pattern']")
	}
	return sc, true, nil
}

// unquoteText reads a MySQL string literal as MySQL reads a LIKE pattern: the parser's tokenizer
// decodes it, after keepLikeEscapes has kept \% and \_ from losing their backslash.
func unquoteText(lit string) string {
	if typ, val := sqlparser.NewStringTokenizer(keepLikeEscapes(lit)).Scan(); typ == sqlparser.STRING {
		return string(val)
	}
	return lit
}

// readShowVariables reads SHOW [GLOBAL | SESSION] VARIABLES [LIKE 'pattern'] (the parser reads the
// statement but drops its LIKE). ok is false for any other statement; SHOW VARIABLES WHERE … is
// refused.
func (s *source) readShowVariables() (sv *ShowVariables, ok bool, err error) {
	query, toks := s.rest(0), s.toks
	if len(toks) < 2 {
		return nil, false, nil
	}
	var global bool
	i := 1
	switch toks[i].val {
	case "global":
		global = true
		i++
	case "session", "local":
		i++
	}
	if i >= len(toks) || toks[i].val != "variables" {
		return nil, false, nil
	}
	i++
	switch {
	case i == len(toks):
		return &ShowVariables{Global: global}, true, nil
	case toks[i].typ == sqlparser.LIKE && i+2 == len(toks) && toks[i+1].typ == sqlparser.STRING:
		return &ShowVariables{Global: global, Like: s.text[toks[i+1].start+1 : toks[i+1].end-1]}, true, nil
	}
	return nil, true, unsupported("this SHOW VARIABLES form", query, "write SHOW VARIABLES LIKE 'pattern', or read one variable with SELECT @@name")
}
