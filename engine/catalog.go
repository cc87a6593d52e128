package engine

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/xwb1989/sqlparser"

	"github.com/airsql/airsql/translate"
)

// Catalog is the schema a statement is planned against: the base's tables, plus the
// information_schema tables that describe them (TABLES, COLUMNS, SCHEMATA, KEY_COLUMN_USAGE,
// STATISTICS; REFERENTIAL_CONSTRAINTS and ROUTINES, empty), built in memory from the base schema
// when a statement names them. ORMs (GORM's Migrator: HasTable, HasColumn, ColumnTypes,
// HasIndex) and BI tools read them.
//
// A base is a database named by its id; the record id is each table's primary key (PRIMARY, on
// column id).
type Catalog struct {
	// dbs are the databases (bases) the statement may name, the default database (bare names)
	// first.
	dbs   []catalogDatabase
	info  map[string]*memTable // by upper-case name
	local map[string]*memTable // AddLocal's tables, by lower-case name

	// TableRows, when set, gives a table's number of records if it is known (the driver learns
	// it from whole-table scans): TABLES.TABLE_ROWS, an estimate as in MySQL; NULL when unknown.
	TableRows func(t *translate.Table) (int, bool)
	// InformationSchemaFirst finds a bare name among information_schema's tables before the
	// base's: the connection ran USE information_schema.
	InformationSchemaFirst bool
}

// catalogDatabase is one base of the catalog: its id, its schema and its tables in the base's order.
type catalogDatabase struct {
	name   string
	schema translate.Schema
	tables []*translate.Table
}

type memTable struct {
	table *translate.Table
	rows  []translate.Row
}

// NewCatalog returns a catalog of the base's tables (in the base's order); database is the base id.
// It is the default database: bare table names are its tables.
func NewCatalog(base translate.Schema, tables []*translate.Table, database string) *Catalog {
	return &Catalog{dbs: []catalogDatabase{{name: database, schema: base, tables: tables}}}
}

// AddDatabase adds another base the statement may name as database.table (a connector serving
// several bases); information_schema lists its tables too, after those added before.
func (c *Catalog) AddDatabase(database string, schema translate.Schema, tables []*translate.Table) {
	c.dbs = append(c.dbs, catalogDatabase{name: database, schema: schema, tables: tables})
}

// AddLocal adds an in-memory table of the given fields and rows (keyed by field name), found by
// its name regardless of case before the base's tables: the driver's comments tables
// (Tasks$comments), whose rows it fetched for the statement.
func (c *Catalog) AddLocal(name string, fields []translate.Field, rows []translate.Row) *translate.Table {
	t := &translate.Table{ID: name, Name: name, Local: true, Fields: fields}
	if c.local == nil {
		c.local = map[string]*memTable{}
	}
	c.local[strings.ToLower(name)] = &memTable{table: t, rows: rows}
	return t
}

// Table implements translate.Schema: "information_schema.NAME" names an in-memory table.
func (c *Catalog) Table(nameOrID string) (*translate.Table, bool) {
	if m, ok := c.local[strings.ToLower(nameOrID)]; ok {
		return m.table, true
	}
	if rest, ok := strings.CutPrefix(nameOrID, translate.InformationSchema+"."); ok {
		m, err := c.infoTable(rest)
		if err != nil || m == nil {
			return nil, false
		}
		return m.table, true
	}
	if c.InformationSchemaFirst && !strings.Contains(nameOrID, ".") {
		if m, err := c.infoTable(strings.ToUpper(nameOrID)); err == nil && m != nil {
			return m.table, true
		}
	}
	return c.dbs[0].schema.Table(nameOrID)
}

// TableIn implements translate.QualifiedSchema: a table of a base named with the base's id as
// its database (appXXX.Tasks); information_schema tables are found by Table.
func (c *Catalog) TableIn(database, name string) (*translate.Table, bool) {
	for _, d := range c.dbs {
		if strings.EqualFold(database, d.name) {
			return d.schema.Table(name)
		}
	}
	return nil, false
}

// Rows returns the rows of an in-memory table of the catalog.
func (c *Catalog) Rows(t *translate.Table) ([]translate.Row, bool) {
	if c == nil {
		return nil, false
	}
	for _, m := range c.info {
		if m.table == t {
			return m.rows, true
		}
	}
	for _, m := range c.local {
		if m.table == t {
			return m.rows, true
		}
	}
	return nil, false
}

// infoColumns are the columns of each information_schema table: MySQL's names, in MySQL's order
// (the ones clients read). A name ending in "#" is a number.
var infoColumns = map[string][]string{
	"SCHEMATA": {"CATALOG_NAME", "SCHEMA_NAME", "DEFAULT_CHARACTER_SET_NAME", "DEFAULT_COLLATION_NAME", "SQL_PATH", "DEFAULT_ENCRYPTION"},
	"TABLES": {"TABLE_CATALOG", "TABLE_SCHEMA", "TABLE_NAME", "TABLE_TYPE", "ENGINE", "VERSION#", "ROW_FORMAT", "TABLE_ROWS#",
		"AVG_ROW_LENGTH#", "DATA_LENGTH#", "MAX_DATA_LENGTH#", "INDEX_LENGTH#", "DATA_FREE#", "AUTO_INCREMENT#", "CREATE_TIME",
		"UPDATE_TIME", "CHECK_TIME", "TABLE_COLLATION", "CHECKSUM#", "CREATE_OPTIONS", "TABLE_COMMENT"},
	"COLUMNS": {"TABLE_CATALOG", "TABLE_SCHEMA", "TABLE_NAME", "COLUMN_NAME", "ORDINAL_POSITION#", "COLUMN_DEFAULT", "IS_NULLABLE",
		"DATA_TYPE", "CHARACTER_MAXIMUM_LENGTH#", "CHARACTER_OCTET_LENGTH#", "NUMERIC_PRECISION#", "NUMERIC_SCALE#",
		"DATETIME_PRECISION#", "CHARACTER_SET_NAME", "COLLATION_NAME", "COLUMN_TYPE", "COLUMN_KEY", "EXTRA", "PRIVILEGES",
		"COLUMN_COMMENT", "GENERATION_EXPRESSION"},
	"KEY_COLUMN_USAGE": {"CONSTRAINT_CATALOG", "CONSTRAINT_SCHEMA", "CONSTRAINT_NAME", "TABLE_CATALOG", "TABLE_SCHEMA", "TABLE_NAME",
		"COLUMN_NAME", "ORDINAL_POSITION#", "POSITION_IN_UNIQUE_CONSTRAINT#", "REFERENCED_TABLE_SCHEMA", "REFERENCED_TABLE_NAME",
		"REFERENCED_COLUMN_NAME"},
	// No foreign keys and no routines: empty, for the clients that list them (JDBC's
	// DatabaseMetaData.getImportedKeys and getProcedures, DBeaver's navigator).
	"REFERENTIAL_CONSTRAINTS": {"CONSTRAINT_CATALOG", "CONSTRAINT_SCHEMA", "CONSTRAINT_NAME", "UNIQUE_CONSTRAINT_CATALOG",
		"UNIQUE_CONSTRAINT_SCHEMA", "UNIQUE_CONSTRAINT_NAME", "MATCH_OPTION", "UPDATE_RULE", "DELETE_RULE", "TABLE_NAME",
		"REFERENCED_TABLE_NAME"},
	"ROUTINES": {"SPECIFIC_NAME", "ROUTINE_CATALOG", "ROUTINE_SCHEMA", "ROUTINE_NAME", "ROUTINE_TYPE", "DATA_TYPE",
		"CHARACTER_MAXIMUM_LENGTH#", "CHARACTER_OCTET_LENGTH#", "NUMERIC_PRECISION#", "NUMERIC_SCALE#", "DATETIME_PRECISION#",
		"CHARACTER_SET_NAME", "COLLATION_NAME", "DTD_IDENTIFIER", "ROUTINE_BODY", "ROUTINE_DEFINITION", "EXTERNAL_NAME",
		"EXTERNAL_LANGUAGE", "PARAMETER_STYLE", "IS_DETERMINISTIC", "SQL_DATA_ACCESS", "SQL_PATH", "SECURITY_TYPE", "CREATED",
		"LAST_ALTERED", "SQL_MODE", "ROUTINE_COMMENT", "DEFINER", "CHARACTER_SET_CLIENT", "COLLATION_CONNECTION",
		"DATABASE_COLLATION"},
	"STATISTICS": {"TABLE_CATALOG", "TABLE_SCHEMA", "TABLE_NAME", "NON_UNIQUE#", "INDEX_SCHEMA", "INDEX_NAME", "SEQ_IN_INDEX#",
		"COLUMN_NAME", "COLLATION", "CARDINALITY#", "SUB_PART#", "PACKED", "NULLABLE", "INDEX_TYPE", "COMMENT", "INDEX_COMMENT",
		"IS_VISIBLE", "EXPRESSION"},
}

// infoTable builds (once) the in-memory table of that name; nil when there is none.
func (c *Catalog) infoTable(name string) (*memTable, error) {
	name = strings.ToUpper(name)
	if m, ok := c.info[name]; ok {
		return m, nil
	}
	cols, ok := infoColumns[name]
	if !ok {
		return nil, nil
	}
	t := &translate.Table{ID: translate.InformationSchema + "." + name, Name: name, Local: true}
	for _, col := range cols {
		f := translate.Field{Name: strings.TrimSuffix(col, "#"), Type: "singleLineText"}
		if strings.HasSuffix(col, "#") {
			f.Type, f.Options = "number", map[string]any{"precision": float64(0)}
		} else if strings.HasSuffix(col, "_NAME") || strings.HasSuffix(col, "_SCHEMA") {
			// Names of schemas, tables, columns and indexes compare regardless of case, as the
			// driver resolves them (MySQL's lower_case_table_names=2).
			f.Options = map[string]any{translate.CaseInsensitive: true}
		}
		t.Fields = append(t.Fields, f)
	}
	rows, err := c.infoRows(name)
	if err != nil {
		return nil, err
	}
	if c.info == nil {
		c.info = map[string]*memTable{}
	}
	m := &memTable{table: t, rows: rows}
	c.info[name] = m
	return m, nil
}

// cells builds one row: pairs of column name and value (string, int, or nil for NULL).
func cells(kv ...any) translate.Row {
	fields := map[string]any{}
	for i := 0; i+1 < len(kv); i += 2 {
		switch v := kv[i+1].(type) {
		case nil:
		case int:
			fields[kv[i].(string)] = float64(v) // the API's JSON form of a number
		default:
			fields[kv[i].(string)] = v
		}
	}
	return translate.Row{Fields: fields}
}

// mysqlType maps a column's type to MySQL's DATA_TYPE and COLUMN_TYPE.
func mysqlType(col translate.Column) (dataType, columnType string) {
	if col.Field != nil && col.Field.Type == "multipleSelects" { // read as a JSON array, made by SET
		return "set", "set(" + choiceList(col.Field.Options) + ")"
	}
	switch col.DatabaseType {
	case "INT64":
		return "bigint", "bigint"
	case "FLOAT64":
		return "double", "double"
	case "BOOL":
		return "tinyint", "tinyint(1)"
	case "DATE":
		return "date", "date"
	case "DATETIME":
		return "datetime", "datetime(3)"
	case "JSON":
		return "json", "json"
	}
	if col.Name == "id" && col.Field == nil {
		return "varchar", "varchar(17)"
	}
	// The text types that DDL creates read back as the SQL types that create them, so that a
	// schema tool comparing its model with information_schema (GORM's AutoMigrate) finds them
	// equal: LONGTEXT/TEXT make a long text field, VARCHAR(n) a single line text field. Airtable
	// keeps no length, so a VARCHAR column has none (CHARACTER_MAXIMUM_LENGTH is NULL).
	if col.Field != nil {
		switch col.Field.Type {
		case "multilineText":
			return "longtext", "longtext"
		case "singleLineText":
			return "varchar", "varchar"
		case "singleSelect":
			return "enum", "enum(" + choiceList(col.Field.Options) + ")"
		}
	}
	return "text", "text"
}

// foreignKey is the foreign key of a link field: its name (MySQL's form, table_ibfk_n, numbered
// by *n in the table's field order) and the linked table's name. A link is a foreign key to the
// linked table's id; deleting a linked record takes it out of the link (ON DELETE SET NULL).
func foreignKey(db catalogDatabase, t *translate.Table, col translate.Column, n *int) (name, linked string, ok bool) {
	if col.Field == nil || col.Field.Type != "multipleRecordLinks" {
		return "", "", false
	}
	id, _ := col.Field.Options["linkedTableId"].(string)
	lt, found := db.schema.Table(id)
	if !found {
		return "", "", false
	}
	*n++
	return fmt.Sprintf("%s_ibfk_%d", t.Name, *n), lt.Name, true
}

// choiceList writes a select's choices as ENUM and SET list them: 'a','b' (the DDL that makes
// the same select field).
func choiceList(opts map[string]any) string {
	var names []string
	list, _ := opts["choices"].([]any)
	for _, c := range list {
		if m, ok := c.(map[string]any); ok {
			if n, ok := m["name"].(string); ok {
				names = append(names, "'"+strings.NewReplacer(`\`, `\\`, `'`, `''`).Replace(n)+"'")
			}
		}
	}
	return strings.Join(names, ",")
}

// columnsOf lists a table's columns as SELECT * returns them.
func columnsOf(schema translate.Schema, t *translate.Table) ([]translate.Column, error) {
	ast, err := translate.Parse("SELECT * FROM `" + strings.ReplaceAll(t.ID, "`", "``") + "`")
	if err != nil {
		return nil, err
	}
	sel, ok := ast.(*sqlparser.Select)
	if !ok {
		return nil, fmt.Errorf("engine: internal: SELECT * is not a SELECT")
	}
	q, err := translate.NewQuery(sel, schema, translate.Args{})
	if err != nil {
		return nil, err
	}
	return q.Columns, nil
}

func (c *Catalog) infoRows(name string) ([]translate.Row, error) {
	var rows []translate.Row
	switch name {
	case "ROUTINES":
		return nil, nil
	case "SCHEMATA":
		schemas := []string{translate.InformationSchema}
		for _, d := range c.dbs {
			schemas = append(schemas, d.name)
		}
		for _, s := range schemas {
			rows = append(rows, cells("CATALOG_NAME", "def", "SCHEMA_NAME", s, "DEFAULT_CHARACTER_SET_NAME", "utf8mb4",
				"DEFAULT_COLLATION_NAME", "utf8mb4_bin", "DEFAULT_ENCRYPTION", "NO"))
		}
		return rows, nil
	case "TABLES":
		for _, d := range c.dbs {
			rows = append(rows, c.tableRows(d)...)
		}
		for _, n := range slices.Sorted(maps.Keys(infoColumns)) {
			rows = append(rows, cells("TABLE_CATALOG", "def", "TABLE_SCHEMA", translate.InformationSchema, "TABLE_NAME", n,
				"TABLE_TYPE", "SYSTEM VIEW", "ENGINE", "MEMORY", "VERSION", 10, "TABLE_COLLATION", "utf8mb4_bin",
				"CREATE_OPTIONS", "", "TABLE_COMMENT", ""))
		}
		return rows, nil
	}
	for _, d := range c.dbs {
		more, err := columnRows(name, d)
		if err != nil {
			return nil, err
		}
		rows = append(rows, more...)
	}
	return rows, nil
}

// tableRows are the rows of information_schema.TABLES for the tables of one base.
func (c *Catalog) tableRows(d catalogDatabase) []translate.Row {
	db := d.name
	var rows []translate.Row
	for _, t := range d.tables {
		var tableRows any
		if c.TableRows != nil {
			if n, ok := c.TableRows(t); ok {
				tableRows = n
			}
		}
		rows = append(rows, cells("TABLE_CATALOG", "def", "TABLE_SCHEMA", db, "TABLE_NAME", t.Name, "TABLE_TYPE", "BASE TABLE",
			"ENGINE", "Airtable", "VERSION", 10, "ROW_FORMAT", "Dynamic", "TABLE_ROWS", tableRows,
			"TABLE_COLLATION", "utf8mb4_bin", "CREATE_OPTIONS", "", "TABLE_COMMENT", t.Description))
	}
	return rows
}

// columnRows are the rows of COLUMNS, KEY_COLUMN_USAGE, REFERENTIAL_CONSTRAINTS or STATISTICS
// (name) for the tables of one base.
func columnRows(name string, d catalogDatabase) ([]translate.Row, error) {
	db := d.name
	var rows []translate.Row
	for _, t := range d.tables {
		cols, err := columnsOf(d.schema, t)
		if err != nil {
			return nil, err
		}
		links := 0 // the link fields so far: their foreign keys are numbered as MySQL names them
		for i, col := range cols {
			isID := col.Field == nil && col.Name == "id"
			switch name {
			case "COLUMNS":
				rows = append(rows, columnsRow(db, t.Name, i, col, isID))
			case "KEY_COLUMN_USAGE":
				if isID {
					rows = append(rows, cells("CONSTRAINT_CATALOG", "def", "CONSTRAINT_SCHEMA", db, "CONSTRAINT_NAME", "PRIMARY",
						"TABLE_CATALOG", "def", "TABLE_SCHEMA", db, "TABLE_NAME", t.Name, "COLUMN_NAME", "id", "ORDINAL_POSITION", 1))
				}
				if fk, linked, ok := foreignKey(d, t, col, &links); ok {
					rows = append(rows, cells("CONSTRAINT_CATALOG", "def", "CONSTRAINT_SCHEMA", db, "CONSTRAINT_NAME", fk,
						"TABLE_CATALOG", "def", "TABLE_SCHEMA", db, "TABLE_NAME", t.Name, "COLUMN_NAME", col.Name, "ORDINAL_POSITION", 1,
						"POSITION_IN_UNIQUE_CONSTRAINT", 1, "REFERENCED_TABLE_SCHEMA", db, "REFERENCED_TABLE_NAME", linked, "REFERENCED_COLUMN_NAME", "id"))
				}
			case "REFERENTIAL_CONSTRAINTS":
				if fk, linked, ok := foreignKey(d, t, col, &links); ok {
					rows = append(rows, cells("CONSTRAINT_CATALOG", "def", "CONSTRAINT_SCHEMA", db, "CONSTRAINT_NAME", fk,
						"UNIQUE_CONSTRAINT_CATALOG", "def", "UNIQUE_CONSTRAINT_SCHEMA", db, "UNIQUE_CONSTRAINT_NAME", "PRIMARY",
						"MATCH_OPTION", "NONE", "UPDATE_RULE", "NO ACTION", "DELETE_RULE", "SET NULL", "TABLE_NAME", t.Name, "REFERENCED_TABLE_NAME", linked))
				}
			case "STATISTICS":
				if isID {
					rows = append(rows, cells("TABLE_CATALOG", "def", "TABLE_SCHEMA", db, "TABLE_NAME", t.Name, "NON_UNIQUE", 0,
						"INDEX_SCHEMA", db, "INDEX_NAME", "PRIMARY", "SEQ_IN_INDEX", 1, "COLUMN_NAME", "id", "COLLATION", "A",
						"NULLABLE", "", "INDEX_TYPE", "BTREE", "COMMENT", "", "INDEX_COMMENT", "", "IS_VISIBLE", "YES"))
				}
			}
		}
	}
	return rows, nil
}

// columnsRow is the information_schema.COLUMNS row of col, the i-th column of table: MySQL's type
// of it, with the lengths, precisions and character set that type has.
func columnsRow(db, table string, i int, col translate.Column, isID bool) translate.Row {
	dataType, columnType := mysqlType(col)
	nullable, key, comment := "NO", "", ""
	if col.Nullable {
		nullable = "YES"
	}
	if isID {
		key = "PRI"
	}
	if col.Field != nil {
		comment = col.Field.Description // MySQL's column comment, which DDL's COMMENT sets
	}
	var charLen, octetLen, precision, scale, dtPrecision, charset, collation any
	switch dataType {
	case "text":
		charLen, octetLen, charset, collation = 65535, 65535, "utf8mb4", "utf8mb4_bin"
	case "longtext":
		charLen, octetLen, charset, collation = 4294967295, 4294967295, "utf8mb4", "utf8mb4_bin"
	case "enum", "set":
		charset, collation = "utf8mb4", "utf8mb4_bin"
	case "varchar":
		charset, collation = "utf8mb4", "utf8mb4_bin"
		if isID {
			charLen, octetLen = 17, 68
		}
	case "bigint":
		precision, scale = 19, 0
	case "double":
		precision = 22
	case "tinyint":
		precision, scale = 3, 0
	case "datetime":
		dtPrecision = 3
	}
	return cells("TABLE_CATALOG", "def", "TABLE_SCHEMA", db, "TABLE_NAME", table, "COLUMN_NAME", col.Name,
		"ORDINAL_POSITION", i+1, "IS_NULLABLE", nullable, "DATA_TYPE", dataType,
		"CHARACTER_MAXIMUM_LENGTH", charLen, "CHARACTER_OCTET_LENGTH", octetLen, "NUMERIC_PRECISION", precision,
		"NUMERIC_SCALE", scale, "DATETIME_PRECISION", dtPrecision, "CHARACTER_SET_NAME", charset,
		"COLLATION_NAME", collation, "COLUMN_TYPE", columnType, "COLUMN_KEY", key, "EXTRA", "",
		"PRIVILEGES", "select,insert,update", "COLUMN_COMMENT", comment, "GENERATION_EXPRESSION", "")
}
