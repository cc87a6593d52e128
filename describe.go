package airsql

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"reflect"
	"slices"
	"strings"

	"github.com/xwb1989/sqlparser"

	"github.com/airsql/airsql/frontend"
	"github.com/airsql/airsql/translate"
)

// textColumn describes a TEXT column of a result the driver builds itself.
func textColumn(name string, nullable bool) translate.Column {
	scan := reflect.TypeFor[string]()
	if nullable {
		scan = reflect.TypeFor[sql.NullString]()
	}
	return translate.Column{Name: name, DatabaseType: "TEXT", ScanType: scan, Nullable: nullable}
}

func idColumn() translate.Column { return textColumn("id", false) }

// show answers SHOW DATABASES (the base of the DSN and information_schema) and SHOW [FULL] TABLES [LIKE 'pattern']:
// one row per table, sorted by name, with MySQL's columns only: Tables_in_<base>, plus
// Table_type with FULL (tools read them by position). The table's id is SHOW TABLE STATUS's
// Comment.
func (cn *conn) show(ctx context.Context, ast *sqlparser.Show) (driver.Rows, error) {
	if ast.Type == "databases" {
		// The bases the connector serves (the DSN's, then those of the DSN key bases) and
		// information_schema, which MySQL lists to every user (and information_schema.SCHEMATA
		// lists here too), sorted by name as MySQL 8 sorts them.
		var names []string
		for _, d := range cn.c.databases() {
			names = append(names, d.cfg.BaseID)
		}
		names = append(names, translate.InformationSchema)
		slices.Sort(names)
		rows := &staticRows{resultColumns: []translate.Column{textColumn("Database", false)}}
		for _, n := range names {
			rows.values = append(rows.values, []driver.Value{n})
		}
		return rows, nil
	}
	if typ := strings.ToLower(ast.Type); typ == "warnings" || typ == "errors" {
		// The driver raises no warnings (what MySQL would warn about, it refuses with an error),
		// and a failed statement's error went back with it: nothing to list. Clients ask after
		// every statement (the mysql client's --show-warnings, MySQL Connector/J at connect).
		return &staticRows{resultColumns: []translate.Column{textColumn("Level", false),
			{Name: "Code", DatabaseType: "INT64", ScanType: reflect.TypeFor[int64]()}, textColumn("Message", false)}}, nil
	}
	if ast.Type != "tables" || ast.ShowTablesOpt == nil {
		return nil, unsupportedStatement(ast)
	}
	opt := ast.ShowTablesOpt
	db, err := cn.namedDatabase(opt.DbName, "SHOW TABLES")
	if err != nil {
		return nil, err
	}
	var like string
	if opt.Filter != nil {
		if opt.Filter.Filter != nil {
			return nil, &UnsupportedError{Construct: "SHOW TABLES WHERE", Hint: "use SHOW TABLES LIKE 'pattern'"}
		}
		like = opt.Filter.Like
	}
	schema, err := db.loadSchema(ctx, false)
	if err != nil {
		return nil, err
	}
	rows := &staticRows{resultColumns: []translate.Column{textColumn("Tables_in_"+db.cfg.BaseID, false)}}
	if opt.Full != "" {
		rows.resultColumns = append(rows.resultColumns, textColumn("Table_type", false))
	}
	// Sorted by name, as MySQL 8 sorts them (its SHOW TABLES is a query over
	// information_schema.TABLES ordered by the name; SHOW TABLE STATUS is ordered the same way).
	tables := slices.SortedFunc(slices.Values(schema.tables), func(a, b *translate.Table) int { return strings.Compare(a.Name, b.Name) })
	for _, t := range tables {
		if opt.Filter != nil && !likeMatch(like, t.Name) {
			continue
		}
		row := []driver.Value{t.Name}
		if opt.Full != "" {
			row = append(row, "BASE TABLE")
		}
		rows.values = append(rows.values, row)
	}
	return rows, nil
}

// checkShow answers a SHOW statement that names another base or an unknown table with the error
// MySQL gives, where its SELECT over information_schema would list nothing.
func (cn *conn) checkShow(ctx context.Context, sq *frontend.ShowQuery) error {
	db, err := cn.namedDatabase(sq.Database, "SHOW")
	if err != nil {
		return err
	}
	if sq.Table == "" {
		return nil
	}
	_, err = db.schemaFor(ctx, sq.Table) // a *NoTableError naming the tables there are
	return err
}

// namedDatabase is the connector of the database a statement names for its table (SHOW … FROM
// db, db.table in SHOW, a schema statement or a multi-table write): the connection's default
// database when it names none; MySQL's 1049 for a database the connector does not serve.
func (cn *conn) namedDatabase(name, what string) (*Connector, error) {
	if name == "" {
		return cn.db(), nil
	}
	if strings.EqualFold(name, translate.InformationSchema) {
		return nil, &UnsupportedError{Construct: what + " in information_schema",
			Hint: "information_schema is read-only and built in memory: SELECT from information_schema.TABLES or COLUMNS WHERE TABLE_SCHEMA = 'information_schema'"}
	}
	if d, ok := cn.c.database(name); ok {
		return d, nil
	}
	return nil, cn.c.unknownDatabase(name)
}

// computedTypes are the Airtable field types whose values the service computes: they cannot be
// written.
var computedTypes = map[string]bool{
	"formula": true, "rollup": true, "count": true, "multipleLookupValues": true, "autoNumber": true,
	"createdTime": true, "lastModifiedTime": true, "createdBy": true, "lastModifiedBy": true,
	"button": true, "externalSyncSource": true, "aiText": true,
}

// describe answers SHOW [FULL] COLUMNS FROM t [FROM db] [LIKE 'p'] and DESCRIBE t: one row per
// column of SELECT * (id, the fields in schema order, createdTime). The first columns are MySQL's
// (Field, Type, Null, Key, Default, Extra; with FULL: Field, Type, Collation, Null, Key, Default,
// Extra, Privileges, Comment); Airtable_type and Field_id follow.
func (cn *conn) describe(ctx context.Context, st *frontend.ShowColumns) (driver.Rows, error) {
	db, err := cn.namedDatabase(st.Database, "SHOW COLUMNS")
	if err != nil {
		return nil, err
	}
	table := st.Table
	schema, err := db.schemaFor(ctx, table)
	if err != nil {
		return nil, err
	}
	t, _ := schema.Table(table)
	all, err := recordsQuery(schema, t, nil, nil)
	if err != nil {
		return nil, err
	}
	rows := &staticRows{resultColumns: []translate.Column{textColumn("Field", false), textColumn("Type", false)}}
	if st.Full {
		rows.resultColumns = append(rows.resultColumns, textColumn("Collation", true))
	}
	rows.resultColumns = append(rows.resultColumns, textColumn("Null", false),
		textColumn("Key", false), textColumn("Default", true), textColumn("Extra", false))
	if st.Full {
		rows.resultColumns = append(rows.resultColumns, textColumn("Privileges", false), textColumn("Comment", false))
	}
	rows.resultColumns = append(rows.resultColumns, textColumn("Airtable_type", false), textColumn("Field_id", false))
	for _, col := range all.Columns {
		if st.HasLike && !likeMatch(st.Like, col.Name) {
			continue
		}
		null := "NO"
		if col.Nullable {
			null = "YES"
		}
		var key, airtableType, fieldID string
		var extra []string
		switch {
		case col.Field != nil:
			airtableType, fieldID = col.Field.Type, col.Field.ID
			if col.Field.ID == t.PrimaryFieldID {
				extra = append(extra, "primary field")
			}
			if computedTypes[col.Field.Type] {
				extra = append(extra, "computed")
			}
		case col.Name == "id":
			key, airtableType = "PRI", "recordId"
			extra = append(extra, "computed")
		default:
			airtableType = col.Name
			extra = append(extra, "computed")
		}
		row := []driver.Value{col.Name, col.DatabaseType}
		computed := slices.Contains(extra, "computed")
		if st.Full {
			var collation driver.Value
			if col.DatabaseType == "TEXT" {
				collation = "utf8mb4_bin" // as information_schema.COLUMNS says
			}
			row = append(row, collation)
		}
		row = append(row, null, key, nil, strings.Join(extra, ", "))
		if st.Full {
			privileges, comment := "select,insert,update", ""
			if computed {
				privileges = "select"
			}
			if col.Field != nil {
				comment = col.Field.Description
			}
			row = append(row, privileges, comment)
		}
		rows.values = append(rows.values, append(row, airtableType, fieldID))
	}
	return rows, nil
}

// likeMatch is SQL LIKE with the rules of DESIGN.md: % and _ wildcards, \% and \_ literal,
// ASCII letters matched regardless of case.
func likeMatch(pattern, s string) bool {
	p := []rune(pattern)
	r := []rune(s)
	// memo[i][j]: whether p[i:] matches r[j:]; computed backwards.
	memo := make([][]bool, len(p)+1)
	for i := range memo {
		memo[i] = make([]bool, len(r)+1)
	}
	memo[len(p)][len(r)] = true
	for i := len(p) - 1; i >= 0; i-- {
		for j := len(r); j >= 0; j-- {
			switch {
			case p[i] == '%':
				memo[i][j] = memo[i+1][j] || (j < len(r) && memo[i][j+1])
			case p[i] == '\\' && i+1 < len(p):
				// The escaped character matches itself only; i+1 is handled by skipping.
				memo[i][j] = j < len(r) && foldASCII(p[i+1]) == foldASCII(r[j]) && i+2 <= len(p) && memo[i+2][j+1]
			case p[i] == '_':
				memo[i][j] = j < len(r) && memo[i+1][j+1]
			default:
				memo[i][j] = j < len(r) && foldASCII(p[i]) == foldASCII(r[j]) && memo[i+1][j+1]
			}
		}
	}
	return memo[0][0]
}

func foldASCII(r rune) rune {
	if r >= 'A' && r <= 'Z' {
		return r + 'a' - 'A'
	}
	return r
}
