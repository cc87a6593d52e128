package frontend

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/xwb1989/sqlparser"
)

// DDL is a schema-changing statement read: CREATE TABLE, ALTER TABLE … ADD COLUMN, or CREATE
// INDEX. Airtable's metadata API can create tables and fields, and nothing more: it cannot
// delete a table or a field, nor change a field's type safely, and it has no indexes or
// constraints. So the statements that would need those are refused, naming why.
type DDL struct {
	text
	Table       string     // the table created, altered or indexed, as written
	Create      bool       // CREATE TABLE; otherwise ALTER TABLE … ADD or CREATE INDEX
	IfNotExists bool       // CREATE TABLE IF NOT EXISTS: an existing table makes it a no-op
	Fields      []FieldDef // the fields to create, in order; for CREATE TABLE the first is the primary field
	// Index is set for CREATE INDEX (and nothing else is): a non-unique index changes no result,
	// and Airtable keeps none, so running it does nothing.
	Index bool
	// Keep lists the columns of ALTER TABLE … MODIFY, each as the field it would make. The API
	// cannot change a field, so MODIFY runs only when it changes nothing Airtable keeps: the
	// field exists with that type (and precision, or choices) — what a schema tool sends when it
	// cannot tell INT from BIGINT or NULL from NOT NULL in a checkbox. The driver checks that
	// against the base; Type is empty for the built-in columns id and createdTime.
	Keep []FieldDef
}

// FieldDef is one Airtable field to create, with the options its type needs.
type FieldDef struct {
	Name, Type, Description string
	Options                 map[string]any
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

// readDDL reads CREATE TABLE, ALTER TABLE and CREATE INDEX statements; ok is false for any
// other statement. It reads the statement with sqlparser's tokenizer first because the pinned
// grammar drops what matters here: IF NOT EXISTS of CREATE TABLE, and every detail of ALTER
// TABLE and CREATE INDEX.
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
	name, i, err := tableName(toks, i, "CREATE TABLE")
	if err != nil {
		return nil, true, err
	}
	d.Table = name
	if i >= len(toks) || toks[i].typ != '(' {
		return nil, true, unsupported("CREATE TABLE without column definitions (CREATE TABLE … AS SELECT, LIKE)", "",
			"list the columns: CREATE TABLE t (Name VARCHAR(255), …)")
	}
	end := closing(toks, i)
	if end < 0 {
		return nil, true, fmt.Errorf("translate: CREATE TABLE %s: unbalanced parentheses", name)
	}
	// What follows the columns is table options (ENGINE=…, DEFAULT CHARSET=…, COMMENT=…): they
	// describe MySQL's storage, which Airtable replaces, and change no result.
	for _, el := range splitTopLevel(toks[i+1 : end]) {
		if len(el) == 0 {
			return nil, true, fmt.Errorf("translate: CREATE TABLE %s: an empty column definition between commas", name)
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
		f, isID, err := fieldFor(col)
		if err != nil {
			return nil, true, err
		}
		if !isID {
			d.Fields = append(d.Fields, f)
		}
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
func tableName(toks []ddlToken, i int, stmt string) (string, int, error) {
	if i >= len(toks) || toks[i].typ != sqlparser.ID {
		return "", i, fmt.Errorf("translate: %s needs a table name", stmt)
	}
	name := toks[i].val
	i++
	if i+1 < len(toks) && toks[i].typ == '.' && toks[i+1].typ == sqlparser.ID {
		name, i = toks[i+1].val, i+2
	}
	return name, i, nil
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
	case first.is(sqlparser.CONSTRAINT) || first.is(sqlparser.FOREIGN) || first.word() == "CHECK":
		return true, unsupported("constraints (CONSTRAINT, FOREIGN KEY, CHECK)", "",
			"Airtable enforces none; a link between tables is a linked-record field, created in Airtable itself")
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
				c.comment, i = el[i].val, i+1
			}
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
	f.Name, f.Description = c.name, c.comment
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

// alterTable reads ALTER TABLE t ADD [COLUMN] def [, ADD [COLUMN] def …] (also ADD COLUMN (def,
// def)). Each column definition is read by the parser's CREATE TABLE grammar.
func alterTable(toks []ddlToken) (*DDL, bool, error) {
	i := 1
	if toks[i].word() == "IGNORE" {
		i++
	}
	if i >= len(toks) || !toks[i].is(sqlparser.TABLE) {
		return nil, false, nil // ALTER of something else: the parser refuses it
	}
	name, i, err := tableName(toks, i+1, "ALTER TABLE")
	if err != nil {
		return nil, true, err
	}
	d := &DDL{Table: name}
	if i >= len(toks) {
		return nil, true, unsupported("ALTER TABLE without an operation", "", "write ALTER TABLE t ADD COLUMN name type")
	}
	for _, clause := range splitTopLevel(toks[i:]) {
		if len(clause) == 0 {
			return nil, true, fmt.Errorf("translate: ALTER TABLE %s: an empty clause between commas", d.Table)
		}
		op := clause[0].word()
		if op == "MODIFY" {
			f, err := modifyColumn(clause[1:])
			if err != nil {
				return nil, true, err
			}
			d.Keep = append(d.Keep, f)
			continue
		}
		if op != "ADD" {
			return nil, true, alterRefusal(op, clause)
		}
		rest := clause[1:]
		if len(rest) > 0 && rest[0].is(sqlparser.COLUMN) {
			rest = rest[1:]
		}
		if len(rest) == 0 {
			return nil, true, unsupported("ALTER TABLE … ADD without a column", "", "write ADD COLUMN name type")
		}
		switch rest[0].word() {
		case "INDEX", "KEY", "CONSTRAINT", "PRIMARY", "UNIQUE", "FOREIGN", "FULLTEXT", "SPATIAL", "CHECK", "PARTITION":
			return nil, true, unsupported("ALTER TABLE … ADD "+rest[0].word(), "", "Airtable has no indexes or constraints; only ADD COLUMN runs")
		}
		defs := [][]ddlToken{rest}
		if rest[0].typ == '(' && closing(rest, 0) == len(rest)-1 {
			defs = splitTopLevel(rest[1 : len(rest)-1])
		}
		for _, def := range defs {
			if len(def) == 0 {
				return nil, true, fmt.Errorf("translate: ALTER TABLE %s: an empty column definition", d.Table)
			}
			col, err := columnDef(def)
			if err != nil {
				return nil, true, err
			}
			f, isID, err := fieldFor(col)
			if err != nil {
				return nil, true, err
			}
			if isID {
				return nil, true, unsupported("ADD COLUMN "+col.name, "", "every table already has the column "+col.name+" (the record's id and creation time)")
			}
			d.Fields = append(d.Fields, f)
		}
	}
	return d, true, nil
}

// modifyColumn reads MODIFY [COLUMN] def [FIRST | AFTER col] as the field it would make.
func modifyColumn(rest []ddlToken) (FieldDef, error) {
	if len(rest) > 0 && rest[0].is(sqlparser.COLUMN) {
		rest = rest[1:]
	}
	for i, t := range rest { // the position of a column changes nothing in Airtable's records
		if w := t.word(); i > 0 && (w == "FIRST" || w == "AFTER") {
			rest = rest[:i]
			break
		}
	}
	if len(rest) == 0 {
		return FieldDef{}, unsupported("ALTER TABLE … MODIFY without a column", "", "write MODIFY COLUMN name type")
	}
	col, err := columnDef(rest)
	if err != nil {
		return FieldDef{}, err
	}
	f, builtin, err := fieldFor(col)
	if err != nil {
		return FieldDef{}, err
	}
	if builtin {
		f = FieldDef{Name: col.name}
	}
	return f, nil
}

// alterRefusal says why an ALTER TABLE operation other than ADD COLUMN cannot run.
func alterRefusal(op string, clause []ddlToken) error {
	switch op {
	case "DROP":
		return unsupported("ALTER TABLE … DROP", "", "the Airtable API cannot delete fields: delete it in Airtable itself")
	case "CHANGE", "ALTER":
		return unsupported("ALTER TABLE … "+op, "", "the Airtable API cannot change a field's type safely: change it in Airtable itself (renaming a field works there too)")
	case "RENAME":
		return unsupported("ALTER TABLE … RENAME", "", "rename tables and fields in Airtable itself")
	}
	word := op
	if word == "" && len(clause) > 0 {
		word = clause[0].val
	}
	return unsupported("ALTER TABLE … "+word, "", "only ALTER TABLE t ADD COLUMN name type runs")
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
			return &DDL{Table: toks[j+1].val, Index: true}, true, nil
		}
	}
	return nil, true, fmt.Errorf("translate: CREATE INDEX needs ON table")
}
