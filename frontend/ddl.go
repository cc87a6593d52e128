package frontend

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/xwb1989/sqlparser"
)

// DDL is a schema-changing statement read: CREATE TABLE, ALTER TABLE, RENAME TABLE or CREATE
// INDEX. Airtable's metadata API can create tables and fields, rename them and change their
// descriptions, and nothing more: it cannot delete a table or a field, nor change a field's type
// or options, and it has no indexes or constraints. So the statements that would need those are
// refused, naming why.
type DDL struct {
	text
	Table string // the table created, altered, renamed or indexed, as written
	// Database is the database written before Table (appB.Tasks), "" when none: the base the
	// statement changes. A new name (RENAME) may name the same database only.
	Database    string
	Create      bool       // CREATE TABLE; otherwise ALTER TABLE, RENAME TABLE or CREATE INDEX
	IfNotExists bool       // CREATE TABLE IF NOT EXISTS: an existing table makes it a no-op
	Fields      []FieldDef // the fields to create, in order; for CREATE TABLE the first is the primary field
	// Index is set for CREATE INDEX (and nothing else is): a non-unique index changes no result,
	// and Airtable keeps none, so running it does nothing.
	Index bool
	// Description is the table's COMMENT (CREATE TABLE … COMMENT='…', ALTER TABLE … COMMENT '…'),
	// Airtable's table description; nil when none was written.
	Description *string
	// RenameTo is the table's new name (ALTER TABLE … RENAME TO, RENAME TABLE a TO b), "" if none.
	RenameTo string
	// Changes are the MODIFY, CHANGE and RENAME COLUMN clauses of ALTER TABLE, in order. The API
	// can rename a field and change its description; a definition that would change anything else
	// Airtable keeps (the type, a number's precision, a select's choices) is refused by the driver,
	// which compares it with the base: a schema tool sends MODIFY when it cannot tell INT from
	// BIGINT, and that changes nothing.
	Changes []ColumnChange
}

// ColumnChange is one MODIFY, CHANGE or RENAME COLUMN clause.
type ColumnChange struct {
	Column  string    // the column as written (the old name of CHANGE and RENAME COLUMN)
	NewName string    // CHANGE's or RENAME COLUMN's new name; "" keeps the name
	Def     *FieldDef // the definition MODIFY or CHANGE writes; nil for RENAME COLUMN
	// Builtin: Column is id or createdTime, which every table has and which cannot change.
	Builtin bool
}

// FieldDef is one Airtable field to create, with the options its type needs.
type FieldDef struct {
	Name, Type, Description string
	Options                 map[string]any
	// SQLType is the column's SQL type as written, lower case and without its length (varchar,
	// longtext, bigint, double): MODIFY accepts another spelling of the type a field already has.
	SQLType string
	// Commented: the definition wrote COMMENT (Description, maybe ''); without it MODIFY and
	// CHANGE leave a field's description as it is.
	Commented bool
	// LinkTable is the table a link field (REFERENCES t(id), FOREIGN KEY) points at, as written;
	// the driver gives its id as the option linkedTableId.
	LinkTable string
	// LinkDatabase is the database written before LinkTable, "" when none: a link points at a
	// table of the same base.
	LinkDatabase string
}

// The options Airtable requires for the field types DDL creates (a date in ISO form, a time in
// 24-hour form in UTC, as the driver reads and writes them). Each call gives new maps: a caller
// may change its copy.
func dateOptions() map[string]any {
	return map[string]any{"dateFormat": map[string]any{"name": "iso", "format": "YYYY-MM-DD"}}
}

func timeOptions() map[string]any {
	o := dateOptions()
	o["timeFormat"] = map[string]any{"name": "24hour", "format": "HH:mm"}
	o["timeZone"] = "utc"
	return o
}

func checkOptions() map[string]any { return map[string]any{"icon": "check", "color": "greenBright"} }

func numberOptions(precision int) map[string]any { return map[string]any{"precision": precision} }

// maxPrecision is the most decimal places an Airtable number field keeps.
const maxPrecision = 8

// readDDL reads CREATE TABLE, ALTER TABLE, RENAME TABLE and CREATE INDEX statements; ok is
// false for any other statement. It reads the statement with sqlparser's tokenizer first because
// the pinned grammar drops what matters here: IF NOT EXISTS and COMMENT of CREATE TABLE, and
// every detail of ALTER TABLE, RENAME TABLE and CREATE INDEX.
func (s *source) readDDL() (ddl *DDL, ok bool, err error) {
	toks := make([]ddlToken, len(s.toks))
	for i, t := range s.toks {
		if t.typ == sqlparser.LEX_ERROR {
			return nil, false, nil // not ours: the parser says what is wrong
		}
		toks[i] = ddlToken{typ: t.typ, val: t.raw}
	}
	if len(toks) < 2 {
		return nil, false, nil
	}
	switch {
	case toks[0].is(sqlparser.CREATE) && toks[1].is(sqlparser.TABLE):
		return createTable(toks)
	case toks[0].is(sqlparser.ALTER):
		return alterTable(toks)
	case toks[0].is(sqlparser.RENAME) && toks[1].is(sqlparser.TABLE):
		return renameTable(toks)
	case toks[0].is(sqlparser.CREATE):
		return createIndex(toks)
	}
	return nil, false, nil
}

// ddlToken is one token of a statement.
type ddlToken struct {
	typ int
	val string
}

func (t ddlToken) is(typ int) bool { return t.typ == typ }

// word is the token's keyword or identifier text in upper case ("" for literals and punctuation).
func (t ddlToken) word() string {
	switch t.typ {
	case sqlparser.STRING, sqlparser.INTEGRAL, sqlparser.FLOAT, sqlparser.HEXNUM, sqlparser.HEX,
		sqlparser.BIT_LITERAL, sqlparser.VALUE_ARG, sqlparser.LIST_ARG:
		return ""
	}
	if t.typ == sqlparser.ID || t.typ > sqlparser.LEX_ERROR {
		return strings.ToUpper(t.val)
	}
	return ""
}

// createTable reads CREATE TABLE [IF NOT EXISTS] t (column, …, [PRIMARY KEY (id)], [KEY …])
// [table options]. The pinned grammar cannot be used: it does not know BOOLEAN (GORM's type for
// bool), and on any syntax error inside CREATE TABLE it logs to stderr and returns a statement
// without its columns.
func createTable(toks []ddlToken) (*DDL, bool, error) {
	d := &DDL{Create: true}
	i := 2
	if len(toks) > 4 && toks[2].is(sqlparser.IF) && toks[3].is(sqlparser.NOT) && toks[4].is(sqlparser.EXISTS) {
		d.IfNotExists, i = true, 5
	}
	db, name, i, err := tableName(toks, i, "CREATE TABLE")
	if err != nil {
		return nil, true, err
	}
	d.Database, d.Table = db, name
	if i >= len(toks) || toks[i].typ != '(' {
		return nil, true, unsupported("CREATE TABLE without column definitions (CREATE TABLE … AS SELECT, LIKE)", "",
			"list the columns: CREATE TABLE t (Name VARCHAR(255), …)")
	}
	end := closing(toks, i)
	if end < 0 {
		return nil, true, fmt.Errorf("translate: CREATE TABLE %s: unbalanced parentheses", name)
	}
	// What follows the columns is table options (ENGINE=…, DEFAULT CHARSET=…): they describe
	// MySQL's storage, which Airtable replaces, and change no result; COMMENT is the table's
	// description.
	desc, err := tableComment(toks[end+1:])
	if err != nil {
		return nil, true, err
	}
	d.Description = desc
	var cols []colDef
	links := map[string]linkTarget{} // column (lower case) -> table, from FOREIGN KEY clauses
	for _, el := range splitTopLevel(toks[i+1 : end]) {
		if len(el) == 0 {
			return nil, true, fmt.Errorf("translate: CREATE TABLE %s: an empty column definition between commas", name)
		}
		if col, link, isFK, err := foreignKey(el); isFK {
			if err != nil {
				return nil, true, err
			}
			links[strings.ToLower(col)] = link
			continue
		}
		if isIndex, err := tableIndex(el); isIndex || err != nil {
			if err != nil {
				return nil, true, err
			}
			continue
		}
		col, err := columnDef(el)
		if err != nil {
			return nil, true, err
		}
		cols = append(cols, col)
	}
	for _, col := range cols {
		if t, ok := links[strings.ToLower(col.name)]; ok {
			if col.references.table != "" && !strings.EqualFold(col.references.table, t.table) {
				return nil, true, fmt.Errorf("translate: CREATE TABLE %s: column %q references both %q and %q", name, col.name, col.references.table, t.table)
			}
			col.references = t
			delete(links, strings.ToLower(col.name))
		}
		f, isID, err := fieldFor(col)
		if err != nil {
			return nil, true, err
		}
		if !isID {
			d.Fields = append(d.Fields, f)
		}
	}
	for col := range links {
		return nil, true, fmt.Errorf("translate: CREATE TABLE %s: FOREIGN KEY names the column %q, which the table does not define", name, col)
	}
	if len(d.Fields) == 0 {
		return nil, true, unsupported("a table with no column but id", "", "add at least one column: Airtable tables need a primary field")
	}
	// Airtable's primary field names each record; a checkbox or a select cannot be one.
	for i, f := range d.Fields {
		if canBePrimary(f.Type) {
			copy(d.Fields[1:i+1], d.Fields[:i])
			d.Fields[0] = f
			return d, true, nil
		}
	}
	return nil, true, unsupported("a table whose columns are all checkboxes or selects", "",
		"add a text, number or date column: Airtable's primary field (the first of those) must be one")
}

// tableName reads [db.]name at toks[i]; the database, if written, is the DSN's base.
func tableName(toks []ddlToken, i int, stmt string) (db, name string, next int, err error) {
	if i >= len(toks) || toks[i].typ != sqlparser.ID {
		return "", "", i, fmt.Errorf("translate: %s needs a table name", stmt)
	}
	name = toks[i].val
	i++
	if i+1 < len(toks) && toks[i].typ == '.' && toks[i+1].typ == sqlparser.ID {
		db, name, i = name, toks[i+1].val, i+2
	}
	return db, name, i, nil
}

// sameDatabase refuses a new name (RENAME) written with another database than the table's: a
// table stays in its base.
func sameDatabase(d *DDL, db, newName string) error {
	if db == "" || strings.EqualFold(db, d.Database) {
		return nil
	}
	return unsupported("RENAME of a table into another database", "",
		"Airtable cannot move a table between bases: name the new name alone ("+newName+")")
}

// closing is the index of the ')' that closes the '(' at toks[open]; -1 if none.
func closing(toks []ddlToken, open int) int {
	depth := 0
	for j := open; j < len(toks); j++ {
		switch toks[j].typ {
		case '(':
			depth++
		case ')':
			depth--
			if depth == 0 {
				return j
			}
		}
	}
	return -1
}

// tableIndex reads an index element of CREATE TABLE: PRIMARY KEY (id) is the record id, a plain
// KEY or INDEX changes no result and is left out, anything that constrains values is refused.
func tableIndex(el []ddlToken) (bool, error) {
	first := el[0]
	switch {
	case first.is(sqlparser.PRIMARY):
		var cols []string
		for _, t := range el[1:] {
			if t.typ == sqlparser.ID {
				cols = append(cols, t.val)
			}
		}
		if len(cols) != 1 || !strings.EqualFold(cols[0], "id") {
			return true, primaryKeyError()
		}
		return true, nil
	case first.is(sqlparser.KEY) || first.is(sqlparser.INDEX) || first.is(sqlparser.FULLTEXT) || first.is(sqlparser.SPATIAL):
		return true, nil
	case first.is(sqlparser.UNIQUE):
		return true, unsupported("UNIQUE", "", "Airtable cannot refuse duplicate values: leave the constraint out")
	case first.is(sqlparser.CONSTRAINT) || first.word() == "CHECK":
		return true, unsupported("CHECK constraints", "",
			"Airtable enforces none: leave it out (FOREIGN KEY … REFERENCES t(id) makes a linked-record field)")
	}
	return false, nil
}

// colDef is one column definition as written.
type colDef struct {
	name, typ     string
	length, scale int
	values        []string // ENUM and SET
	notNull       bool
	hasDefault    bool // a DEFAULT other than NULL
	autoIncrement bool
	key           string // "PRIMARY KEY", "UNIQUE" or "KEY" written on the column
	onUpdate      bool
	comment       string
	commented     bool       // COMMENT was written
	references    linkTarget // REFERENCES t(id): the table a link field points at
}

// columnDef reads "name type[(n[, m]) | ('a', 'b')] [attributes…]".
func columnDef(el []ddlToken) (colDef, error) {
	c := colDef{name: el[0].val}
	if el[0].typ != sqlparser.ID && el[0].word() == "" || len(el) < 2 {
		return c, fmt.Errorf("translate: cannot read the column definition starting at %q: write name type", el[0].val)
	}
	c.typ = strings.ToLower(el[1].val)
	i := 2
	if c.typ == "double" && i < len(el) && el[i].word() == "PRECISION" {
		i++
	}
	if i < len(el) && el[i].typ == '(' {
		end := closing(el, i)
		if end < 0 {
			return c, fmt.Errorf("translate: column %q: unbalanced parentheses", c.name)
		}
		var nums []int
		for _, t := range el[i+1 : end] {
			switch t.typ {
			case sqlparser.INTEGRAL:
				n, _ := strconv.Atoi(t.val)
				nums = append(nums, n)
			case sqlparser.STRING:
				c.values = append(c.values, t.val)
			}
		}
		if len(nums) > 0 {
			c.length = nums[0]
		}
		if len(nums) > 1 {
			c.scale = nums[1]
		}
		i = end + 1
	}
	for i < len(el) {
		t := el[i]
		i++
		switch {
		case t.is(sqlparser.UNSIGNED), t.is(sqlparser.ZEROFILL), t.is(sqlparser.NULL), t.word() == "SIGNED":
		case t.is(sqlparser.NOT):
			if i < len(el) && el[i].is(sqlparser.NULL) {
				c.notNull, i = true, i+1
			}
		case t.is(sqlparser.CHARACTER), t.is(sqlparser.CHARSET), t.is(sqlparser.COLLATE):
			if t.is(sqlparser.CHARACTER) && i < len(el) && el[i].is(sqlparser.SET) {
				i++
			}
			i++ // the character set or collation: text stays text
		case t.is(sqlparser.DEFAULT):
			if i < len(el) && !el[i].is(sqlparser.NULL) {
				c.hasDefault = true
			}
			i++
		case t.is(sqlparser.AUTO_INCREMENT):
			c.autoIncrement = true
		case t.is(sqlparser.PRIMARY):
			c.key = "PRIMARY KEY"
			if i < len(el) && el[i].is(sqlparser.KEY) {
				i++
			}
		case t.is(sqlparser.UNIQUE):
			c.key = "UNIQUE"
			if i < len(el) && el[i].is(sqlparser.KEY) {
				i++
			}
		case t.is(sqlparser.KEY):
			c.key = "KEY"
		case t.is(sqlparser.COMMENT_KEYWORD):
			if i < len(el) && el[i].typ == sqlparser.STRING {
				c.comment, c.commented, i = el[i].val, true, i+1
			}
		case t.word() == "REFERENCES":
			link, n, err := references(el[i:], fmt.Sprintf("column %q", c.name))
			if err != nil {
				return c, err
			}
			c.references, i = link, i+n
		case t.is(sqlparser.ON):
			c.onUpdate = true
			i += 2 // UPDATE CURRENT_TIMESTAMP
		default:
			return c, unsupported(fmt.Sprintf("the column attribute %q", t.val), fmt.Sprintf("column %q", c.name),
				"write name type [NULL] [COMMENT '…']")
		}
	}
	return c, nil
}

// tableComment reads the table options after CREATE TABLE's columns for COMMENT [=] '…'.
func tableComment(opts []ddlToken) (*string, error) {
	var desc *string
	for i := 0; i < len(opts); i++ {
		if !opts[i].is(sqlparser.COMMENT_KEYWORD) {
			continue
		}
		j := i + 1
		if j < len(opts) && opts[j].typ == '=' {
			j++
		}
		if j >= len(opts) || opts[j].typ != sqlparser.STRING {
			return nil, fmt.Errorf("translate: the table option COMMENT needs a string: COMMENT='…'")
		}
		v := opts[j].val
		desc, i = &v, j
	}
	return desc, nil
}

// foreignKey reads [CONSTRAINT [name]] FOREIGN KEY [name] (col) REFERENCES t (id) [ON DELETE
// SET NULL]: the column becomes a link field to t. isFK is false for any other element.
func foreignKey(el []ddlToken) (col string, link linkTarget, isFK bool, err error) {
	i := 0
	if el[0].is(sqlparser.CONSTRAINT) {
		i++
		if i < len(el) && !el[i].is(sqlparser.FOREIGN) {
			i++ // the constraint's name
		}
	}
	if i >= len(el) || !el[i].is(sqlparser.FOREIGN) {
		return "", linkTarget{}, false, nil
	}
	i++
	if i < len(el) && el[i].is(sqlparser.KEY) {
		i++
	}
	if i < len(el) && el[i].typ != '(' {
		i++ // the index's name
	}
	if i >= len(el) || el[i].typ != '(' {
		return "", linkTarget{}, true, fmt.Errorf("translate: FOREIGN KEY needs its column in parentheses: FOREIGN KEY (col) REFERENCES t(id)")
	}
	end := closing(el, i)
	if end != i+2 || el[i+1].typ != sqlparser.ID {
		return "", linkTarget{}, true, unsupported("a FOREIGN KEY of several columns", "",
			"a link field is one column: FOREIGN KEY (col) REFERENCES t(id)")
	}
	col = el[i+1].val
	if end+1 >= len(el) || el[end+1].word() != "REFERENCES" {
		return "", linkTarget{}, true, fmt.Errorf("translate: FOREIGN KEY (%s) needs REFERENCES t(id)", col)
	}
	link, n, err := references(el[end+2:], fmt.Sprintf("FOREIGN KEY (%s)", col))
	if err == nil && end+2+n != len(el) {
		err = fmt.Errorf("translate: FOREIGN KEY (%s): cannot read %q after REFERENCES %s(id)", col, el[end+2+n].val, link.table)
	}
	return col, link, true, err
}

// linkTarget is the table a link field points at, and the database written before it ("" when none).
type linkTarget struct{ database, table string }

// references reads what follows REFERENCES: t (id) [ON DELETE SET NULL], and says how many
// tokens it took. A link points at records, so the referenced column must be id; deleting a
// linked record takes it out of the links (SET NULL, per link), and nothing else is enforced.
func references(toks []ddlToken, where string) (link linkTarget, n int, err error) {
	db, table, i, err := tableName(toks, 0, "REFERENCES")
	if err != nil {
		return linkTarget{}, 0, err
	}
	link = linkTarget{database: db, table: table}
	if i+2 >= len(toks) || toks[i].typ != '(' || toks[i+2].typ != ')' || !strings.EqualFold(toks[i+1].val, "id") {
		return linkTarget{}, 0, unsupported("REFERENCES other than t(id)", where,
			"a link field points at records: write REFERENCES "+table+"(id)")
	}
	i += 3
	for i+1 < len(toks) && toks[i].is(sqlparser.ON) {
		action := toks[i+1].word()
		j := i + 2
		var rule []string
		for j < len(toks) && !toks[j].is(sqlparser.ON) && toks[j].word() != "" && len(rule) < 2 {
			rule = append(rule, toks[j].word())
			j++
		}
		if (action != "DELETE" && action != "UPDATE") || strings.Join(rule, " ") != "SET NULL" {
			return linkTarget{}, 0, unsupported("ON "+action+" "+strings.Join(rule, " "), where,
				"Airtable takes a deleted record out of the links that hold it (ON DELETE SET NULL) and enforces nothing else: leave the rule out")
		}
		i = j
	}
	return link, i, nil
}

// canBePrimary tells whether Airtable allows a field of this type as a table's primary field.
func canBePrimary(typ string) bool {
	switch typ {
	case "singleLineText", "multilineText", "number", "date", "dateTime":
		return true
	}
	return false
}

func primaryKeyError() error {
	return unsupported("a PRIMARY KEY other than id", "",
		"every Airtable table's key is its record id, the column id (text like recXXXXXXXXXXXXXX): declare `id VARCHAR(…) PRIMARY KEY` or no key")
}

// fieldFor maps a column definition to the Airtable field that holds its values the way the driver
// reads them back (README, "Schema through DDL"). isID is true for the column id, which is the
// record id every table already has.
func fieldFor(c colDef) (f FieldDef, isID bool, err error) {
	if strings.EqualFold(c.name, "createdTime") {
		// Every record has its creation time, read as the column createdTime: declaring it (as a
		// model with a CreatedTime field does) creates nothing.
		switch c.typ {
		case "datetime", "timestamp":
			return FieldDef{Name: c.name}, true, nil
		}
		return f, false, unsupported("createdTime of type "+strings.ToUpper(c.typ), "",
			"createdTime is the record's creation time, which every table has: declare it DATETIME, or name the column otherwise")
	}
	if strings.EqualFold(c.name, "id") {
		switch c.typ {
		case "char", "varchar", "text", "tinytext", "mediumtext", "longtext":
			return f, true, nil
		}
		return f, false, unsupported("id of type "+strings.ToUpper(c.typ), "",
			"record ids are text (recXXXXXXXXXXXXXX): declare id as VARCHAR (in GORM: ID string)")
	}
	where := fmt.Sprintf("column %q", c.name)
	checkbox := c.typ == "bool" || c.typ == "boolean" || (c.typ == "tinyint" || c.typ == "bit") && c.length == 1
	switch {
	case c.notNull && !checkbox: // a checkbox is never NULL: unchecked reads as FALSE
		return f, false, unsupported("NOT NULL", where, "Airtable cannot refuse blank cells: leave NOT NULL out")
	case c.hasDefault:
		return f, false, unsupported("DEFAULT", where, "Airtable fields created through the API have no default value: leave DEFAULT out and write the value")
	case c.autoIncrement:
		return f, false, unsupported("AUTO_INCREMENT", where, "only id is generated (the record id)")
	case c.onUpdate:
		return f, false, unsupported("ON UPDATE", where, "")
	case c.key == "PRIMARY KEY":
		return f, false, primaryKeyError()
	case c.key != "":
		return f, false, unsupported(c.key+" on a column", where, "Airtable has no unique keys or indexes")
	}
	f.Name, f.Description, f.Commented, f.SQLType = c.name, c.comment, c.commented, c.typ
	if c.references.table != "" {
		switch c.typ {
		case "char", "varchar", "text", "tinytext", "mediumtext", "longtext", "json":
		default:
			return f, false, unsupported(strings.ToUpper(c.typ)+" REFERENCES", where,
				"a link holds record ids, which are text: declare the column VARCHAR(17) REFERENCES t(id)")
		}
		f.Type, f.LinkTable, f.LinkDatabase = "multipleRecordLinks", c.references.table, c.references.database
		return f, false, nil
	}
	switch c.typ {
	case "char", "varchar", "tinytext":
		f.Type = "singleLineText"
	case "text", "mediumtext", "longtext":
		f.Type = "multilineText"
	case "bool", "boolean":
		f.Type, f.Options = "checkbox", checkOptions()
	case "tinyint", "bit":
		if c.length != 1 {
			if c.typ == "bit" {
				return f, false, unsupported(fmt.Sprintf("BIT(%d)", c.length), where, "use BOOL or an integer type")
			}
			f.Type, f.Options = "number", numberOptions(0)
			break
		}
		f.Type, f.Options = "checkbox", checkOptions() // MySQL's BOOL is TINYINT(1)
	case "smallint", "mediumint", "int", "integer", "bigint":
		f.Type, f.Options = "number", numberOptions(0)
	case "decimal", "numeric", "dec", "fixed":
		if c.scale > maxPrecision {
			return f, false, unsupported(fmt.Sprintf("%s with %d decimals", strings.ToUpper(c.typ), c.scale), where,
				fmt.Sprintf("Airtable numbers keep at most %d decimals", maxPrecision))
		}
		f.Type, f.Options = "number", numberOptions(c.scale)
	case "float", "double", "real":
		f.Type, f.Options = "number", numberOptions(maxPrecision)
	case "date":
		f.Type, f.Options = "date", dateOptions()
	case "datetime", "timestamp":
		f.Type, f.Options = "dateTime", timeOptions()
	case "enum", "set":
		if len(c.values) == 0 {
			return f, false, unsupported(strings.ToUpper(c.typ)+" without values", where, "list them: ENUM('a', 'b')")
		}
		choices := make([]any, len(c.values))
		for i, v := range c.values {
			choices[i] = map[string]any{"name": v}
		}
		f.Type, f.Options = "singleSelect", map[string]any{"choices": choices}
		if c.typ == "set" {
			f.Type = "multipleSelects"
		}
	case "json":
		return f, false, unsupported("JSON columns", where, "Airtable has no JSON field: store the text in a TEXT column (a long text field)")
	default:
		return f, false, unsupported("columns of type "+strings.ToUpper(c.typ), where,
			"use VARCHAR/TEXT, an integer, DECIMAL, DOUBLE, BOOL, DATE, DATETIME, ENUM or SET")
	}
	return f, false, nil
}

// alterTable reads ALTER TABLE t clause [, clause …] where a clause is ADD [COLUMN] def (also
// ADD COLUMN (def, def)), MODIFY [COLUMN] def, CHANGE [COLUMN] old def, RENAME COLUMN a TO b,
// RENAME [TO|AS] name or COMMENT [=] '…'.
func alterTable(toks []ddlToken) (*DDL, bool, error) {
	i := 1
	if toks[i].word() == "IGNORE" {
		i++
	}
	if i >= len(toks) || !toks[i].is(sqlparser.TABLE) {
		return nil, false, nil // ALTER of something else: the parser refuses it
	}
	db, name, i, err := tableName(toks, i+1, "ALTER TABLE")
	if err != nil {
		return nil, true, err
	}
	d := &DDL{Table: name, Database: db}
	if i >= len(toks) {
		return nil, true, unsupported("ALTER TABLE without an operation", "", "write ALTER TABLE t ADD COLUMN name type")
	}
	for _, clause := range splitTopLevel(toks[i:]) {
		if len(clause) == 0 {
			return nil, true, fmt.Errorf("translate: ALTER TABLE %s: an empty clause between commas", d.Table)
		}
		var err error
		switch op := clause[0].word(); {
		case op == "ADD":
			err = d.alterAdd(clause[1:])
		case op == "MODIFY" || op == "CHANGE":
			var ch ColumnChange
			ch, err = changeColumn(op, clause[1:])
			d.Changes = append(d.Changes, ch)
		case op == "RENAME":
			err = d.alterRename(clause[1:])
		case clause[0].is(sqlparser.COMMENT_KEYWORD):
			var desc *string
			if n := len(clause); n != 2 && (n != 3 || clause[1].typ != '=') {
				err = fmt.Errorf("translate: ALTER TABLE %s: write COMMENT [=] 'text'", d.Table)
			} else if desc, err = tableComment(clause); err == nil && d.Description != nil {
				err = fmt.Errorf("translate: ALTER TABLE %s: COMMENT is written twice", d.Table)
			}
			d.Description = desc
		default:
			err = alterRefusal(op, clause)
		}
		if err != nil {
			return nil, true, err
		}
	}
	return d, true, nil
}

// alterAdd reads ADD [COLUMN] def or ADD [COLUMN] (def, …).
func (d *DDL) alterAdd(rest []ddlToken) error {
	if len(rest) > 0 && rest[0].is(sqlparser.COLUMN) {
		rest = rest[1:]
	}
	if len(rest) == 0 {
		return unsupported("ALTER TABLE … ADD without a column", "", "write ADD COLUMN name type")
	}
	switch rest[0].word() {
	case "CONSTRAINT", "FOREIGN":
		return unsupported("ALTER TABLE … ADD FOREIGN KEY", "",
			"it would change an existing column into a link field, and the Airtable API cannot change a field's type: add a new column instead, ADD COLUMN name VARCHAR(17) REFERENCES t(id)")
	case "INDEX", "KEY", "PRIMARY", "UNIQUE", "FULLTEXT", "SPATIAL", "CHECK", "PARTITION":
		return unsupported("ALTER TABLE … ADD "+rest[0].word(), "", "Airtable has no indexes or constraints; only ADD COLUMN runs")
	}
	defs := [][]ddlToken{rest}
	if rest[0].typ == '(' && closing(rest, 0) == len(rest)-1 {
		defs = splitTopLevel(rest[1 : len(rest)-1])
	}
	for _, def := range defs {
		if len(def) == 0 {
			return fmt.Errorf("translate: ALTER TABLE %s: an empty column definition", d.Table)
		}
		col, err := columnDef(def)
		if err != nil {
			return err
		}
		f, isID, err := fieldFor(col)
		if err != nil {
			return err
		}
		if isID {
			return unsupported("ADD COLUMN "+col.name, "", "every table already has the column "+col.name+" (the record's id and creation time)")
		}
		d.Fields = append(d.Fields, f)
	}
	return nil
}

// alterRename reads what follows RENAME: COLUMN a TO b, or [TO|AS] name (the table).
func (d *DDL) alterRename(rest []ddlToken) error {
	if len(rest) > 0 && rest[0].is(sqlparser.COLUMN) {
		if len(rest) != 4 || !rest[2].is(sqlparser.TO) || rest[1].typ != sqlparser.ID && rest[1].word() == "" || rest[3].typ != sqlparser.ID && rest[3].word() == "" {
			return fmt.Errorf("translate: ALTER TABLE %s: write RENAME COLUMN old TO new", d.Table)
		}
		d.Changes = append(d.Changes, ColumnChange{Column: rest[1].val, NewName: rest[3].val, Builtin: builtinColumn(rest[1].val)})
		return nil
	}
	if len(rest) > 0 && (rest[0].word() == "INDEX" || rest[0].word() == "KEY") {
		return unsupported("ALTER TABLE … RENAME "+rest[0].word(), "", "Airtable keeps no indexes")
	}
	if len(rest) > 0 && (rest[0].is(sqlparser.TO) || rest[0].is(sqlparser.AS)) {
		rest = rest[1:]
	}
	toDB, to, n, err := tableName(rest, 0, "ALTER TABLE … RENAME TO")
	if err != nil {
		return err
	}
	if err := sameDatabase(d, toDB, to); err != nil {
		return err
	}
	if n != len(rest) {
		return fmt.Errorf("translate: ALTER TABLE %s: cannot read %q after RENAME TO %s", d.Table, rest[n].val, to)
	}
	if d.RenameTo != "" {
		return fmt.Errorf("translate: ALTER TABLE %s: RENAME TO is written twice", d.Table)
	}
	d.RenameTo = to
	return nil
}

// renameTable reads RENAME TABLE a TO b (one pair: Airtable renames one table per request, and
// MySQL renames several pairs all or none, which the API cannot promise).
func renameTable(toks []ddlToken) (*DDL, bool, error) {
	fromDB, from, i, err := tableName(toks, 2, "RENAME TABLE")
	if err != nil {
		return nil, true, err
	}
	d := &DDL{Table: from, Database: fromDB}
	if i >= len(toks) || !toks[i].is(sqlparser.TO) {
		return nil, true, fmt.Errorf("translate: write RENAME TABLE old TO new")
	}
	toDB, to, j, err := tableName(toks, i+1, "RENAME TABLE … TO")
	if err != nil {
		return nil, true, err
	}
	if err := sameDatabase(d, toDB, to); err != nil {
		return nil, true, err
	}
	if j < len(toks) {
		if toks[j].typ == ',' {
			return nil, true, unsupported("RENAME TABLE of several tables", "",
				"MySQL renames them all or none, which the Airtable API cannot promise: rename one table per statement")
		}
		return nil, true, fmt.Errorf("translate: RENAME TABLE: cannot read %q after %s TO %s", toks[j].val, from, to)
	}
	d.RenameTo = to
	return d, true, nil
}

func builtinColumn(name string) bool {
	return strings.EqualFold(name, "id") || strings.EqualFold(name, "createdTime")
}

// changeColumn reads MODIFY [COLUMN] def or CHANGE [COLUMN] old def, then [FIRST | AFTER col].
func changeColumn(op string, rest []ddlToken) (ColumnChange, error) {
	if len(rest) > 0 && rest[0].is(sqlparser.COLUMN) {
		rest = rest[1:]
	}
	var ch ColumnChange
	if op == "CHANGE" {
		if len(rest) < 2 {
			return ch, unsupported("ALTER TABLE … CHANGE without a column", "", "write CHANGE COLUMN old new type")
		}
		ch.Column, rest = rest[0].val, rest[1:]
	}
	for i, t := range rest { // the position of a column changes nothing in Airtable's records
		if w := t.word(); i > 0 && (w == "FIRST" || w == "AFTER") {
			rest = rest[:i]
			break
		}
	}
	if len(rest) == 0 {
		return ch, unsupported("ALTER TABLE … "+op+" without a column", "", "write "+op+" COLUMN name type")
	}
	col, err := columnDef(rest)
	if err != nil {
		return ch, err
	}
	if ch.Column == "" {
		ch.Column = col.name
	} else if col.name != ch.Column {
		ch.NewName = col.name
	}
	ch.Builtin = builtinColumn(ch.Column)
	f, builtin, err := fieldFor(col)
	if err != nil {
		return ch, err
	}
	if builtin {
		f = FieldDef{Name: col.name}
	}
	ch.Def = &f
	return ch, nil
}

// alterRefusal says why an ALTER TABLE operation the API cannot do does not run.
func alterRefusal(op string, clause []ddlToken) error {
	switch op {
	case "DROP":
		return unsupported("ALTER TABLE … DROP", "", "the Airtable API cannot delete fields: delete it in Airtable itself")
	case "ALTER":
		return unsupported("ALTER TABLE … ALTER COLUMN", "", "Airtable fields created through the API have no default value, and the API cannot change a field's type")
	}
	word := op
	if word == "" && len(clause) > 0 {
		word = clause[0].val
	}
	return unsupported("ALTER TABLE … "+word, "", "ALTER TABLE runs ADD COLUMN, MODIFY, CHANGE, RENAME COLUMN, RENAME TO and COMMENT")
}

// splitTopLevel splits tokens at the commas outside parentheses.
func splitTopLevel(toks []ddlToken) [][]ddlToken {
	var out [][]ddlToken
	for _, r := range topLevelItems(len(toks), func(i int) int { return toks[i].typ }) {
		out = append(out, toks[r[0]:r[1]])
	}
	return out
}

// topLevelItems gives the [start, end) ranges of the n tokens' items: the runs between commas
// outside parentheses (typ gives token i's type).
func topLevelItems(n int, typ func(i int) int) [][2]int {
	var out [][2]int
	depth, start := 0, 0
	for i := 0; i < n; i++ {
		switch typ(i) {
		case '(':
			depth++
		case ')':
			depth--
		case ',':
			if depth == 0 {
				out = append(out, [2]int{start, i})
				start = i + 1
			}
		}
	}
	return append(out, [2]int{start, n})
}

// createIndex reads CREATE [UNIQUE|FULLTEXT|SPATIAL] INDEX name ON t (…): a plain index is a
// no-op, a unique one is refused.
func createIndex(toks []ddlToken) (*DDL, bool, error) {
	i := 1
	kind := toks[i].word()
	if kind == "UNIQUE" || kind == "FULLTEXT" || kind == "SPATIAL" {
		i++
	}
	if i >= len(toks) || !toks[i].is(sqlparser.INDEX) {
		return nil, false, nil
	}
	if kind == "UNIQUE" {
		return nil, true, unsupported("CREATE UNIQUE INDEX", "", "Airtable cannot refuse duplicate values")
	}
	for j := i; j+1 < len(toks); j++ {
		if toks[j].is(sqlparser.ON) {
			db, table, _, err := tableName(toks, j+1, "CREATE INDEX … ON")
			if err != nil {
				return nil, true, err
			}
			return &DDL{Table: table, Database: db, Index: true}, true, nil
		}
	}
	return nil, true, fmt.Errorf("translate: CREATE INDEX needs ON table")
}
