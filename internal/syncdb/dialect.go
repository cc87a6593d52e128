// Package syncdb copies an Airtable base into a SQL database (SQLite, PostgreSQL, MySQL or MariaDB) and keeps it
// current with the base's webhook payloads: the engine of `airsql sync`.
//
// Each Airtable table becomes a SQL table with a column per field, typed as the driver announces
// the field (translate's SELECT * columns: BIGINT, DOUBLE, BOOL, DATE, DATETIME, JSON, TEXT), plus
// the record's id (the primary key) and createdTime. A link field is also a junction table
// "<table>__<field>" (record_id, linked_id, position). What a payload does to a table is computed
// by replica.PlanChange, the same change set the in-memory replica applies; here each payload is
// one transaction of the target, which also moves the table's cursor in _airsql_sync, so that a
// restart goes on exactly where the last commit left off. A copy (first, or again after a cursor
// gap, an error payload or an expired webhook) is one transaction too.
//
// MySQL and MariaDB commit implicitly before and after each DDL statement, so there a payload's
// schema steps (ddl.go) come first, each skipped when information_schema shows it done, and its
// rows and cursor then are one transaction; a run stopped inside a copy copies the table again.
package syncdb

import (
	"fmt"
	"hash/fnv"
	"strings"
	"time"
	"unicode/utf8"
)

// dialect is what differs between the target databases.
type dialect struct {
	name     string
	maxIdent int // the longest identifier in bytes, or in characters with identChars (0: no limit)
	// identChars says that maxIdent counts characters (MySQL's 64), not bytes (PostgreSQL's 63).
	identChars bool
	// legal makes a name one the target accepts as an identifier (nil: every name is).
	legal func(name string) string
	types map[string]string // translate's DatabaseType -> the column type
	// keyType is the type of a key column (a record, table, field or base id).
	keyType string
	// tableOptions follow every CREATE TABLE's column list.
	tableOptions string
	// upsert is the clause of an INSERT that overwrites cols of the row whose key is taken.
	upsert func(key, cols []string) string
	// ddlCommits says that DDL commits the transaction it runs in (MySQL, MariaDB): see ddl.go.
	ddlCommits bool
	// placeholder is the i-th (from 1) bind parameter.
	placeholder func(i int) string
	// bind converts a driver value (nil, int64, float64, bool, string, time.Time) of a column of
	// the given DatabaseType to what the target stores.
	bind func(dbType string, v any) any
}

var sqliteDialect = &dialect{
	name: "sqlite",
	types: map[string]string{"INT64": "INTEGER", "FLOAT64": "REAL", "BOOL": "INTEGER", "DATE": "TEXT",
		"DATETIME": "TEXT", "JSON": "TEXT", "TEXT": "TEXT"},
	keyType:     "TEXT",
	upsert:      onConflict,
	placeholder: func(int) string { return "?" },
	bind: func(dbType string, v any) any {
		switch x := v.(type) {
		case bool:
			if x {
				return int64(1)
			}
			return int64(0)
		case time.Time:
			// Text that sorts as time does and that SQLite's date functions read.
			if dbType == "DATE" {
				return x.Format(time.DateOnly)
			}
			return x.UTC().Format("2006-01-02T15:04:05.000Z")
		}
		return v
	},
}

var postgresDialect = &dialect{
	name:     "postgres",
	maxIdent: 63,
	types: map[string]string{"INT64": "bigint", "FLOAT64": "double precision", "BOOL": "boolean", "DATE": "date",
		"DATETIME": "timestamptz", "JSON": "jsonb", "TEXT": "text"},
	keyType:     "text",
	upsert:      onConflict,
	placeholder: func(i int) string { return fmt.Sprintf("$%d", i) },
	bind:        bindDateAsText,
}

// mysqlDialect is MySQL 8 and MariaDB (10.5 and later: RENAME COLUMN). The connection runs with
// ANSI_QUOTES (OpenTarget), so identifiers are quoted as in the other dialects. JSON is MySQL's
// JSON type, in MariaDB a LONGTEXT checked with JSON_VALID; the ids are ASCII and case matters
// in them (recA and reca are two records), hence their binary collation.
var mysqlDialect = &dialect{
	name:       "mysql",
	maxIdent:   64,
	identChars: true,
	legal:      mysqlIdentifier,
	types: map[string]string{"INT64": "BIGINT", "FLOAT64": "DOUBLE", "BOOL": "TINYINT(1)", "DATE": "DATE",
		"DATETIME": "DATETIME(3)", "JSON": "JSON", "TEXT": "LONGTEXT"},
	keyType:      "VARCHAR(32) CHARACTER SET ascii COLLATE ascii_bin",
	tableOptions: " DEFAULT CHARSET=utf8mb4",
	upsert: func(_, cols []string) string {
		set := make([]string, len(cols))
		for i, c := range cols {
			set[i] = c + " = VALUES(" + c + ")"
		}
		return " ON DUPLICATE KEY UPDATE " + strings.Join(set, ", ")
	},
	ddlCommits:  true,
	placeholder: func(int) string { return "?" },
	bind:        bindDateAsText, // a time.Time goes as DATETIME text; a DATE column wants none
}

func bindDateAsText(dbType string, v any) any {
	if t, ok := v.(time.Time); ok && dbType == "DATE" {
		return t.Format(time.DateOnly)
	}
	return v
}

// onConflict is SQLite's and PostgreSQL's upsert clause.
func onConflict(key, cols []string) string {
	set := make([]string, len(cols))
	for i, c := range cols {
		set[i] = c + " = excluded." + c
	}
	return " ON CONFLICT (" + strings.Join(key, ", ") + ") DO UPDATE SET " + strings.Join(set, ", ")
}

// mysqlIdentifier makes a name a MySQL identifier: identifiers are utf8mb3 (a character outside
// the Basic Multilingual Plane, an emoji, becomes "_"), hold no NUL and end in no white space
// (trimmed); an empty result is "_". A name changed so may meet another: uniqueName tells them
// apart.
func mysqlIdentifier(name string) string {
	var b strings.Builder
	for _, r := range name {
		switch {
		case r > 0xFFFF || r == 0 || r == utf8.RuneError:
			b.WriteByte('_')
		default:
			b.WriteRune(r)
		}
	}
	s := strings.TrimRight(b.String(), " \t\n\v\f\r")
	if s == "" {
		return "_"
	}
	return s
}

// quote quotes an identifier (both targets use the SQL standard's double quotes).
func quote(name string) string { return `"` + strings.ReplaceAll(name, `"`, `""`) + `"` }

// columnType is the column type of a DatabaseType.
func (d *dialect) columnType(dbType string) string {
	if t, ok := d.types[dbType]; ok {
		return t
	}
	return d.types["TEXT"]
}

// fit makes a name a legal identifier of the dialect and shortens it to the dialect's limit,
// keeping it distinct with a hash of the whole name (PostgreSQL would cut it silently, MySQL
// refuses it, and two long names could then meet).
func (d *dialect) fit(name string) string {
	whole := name
	if d.legal != nil {
		name = d.legal(name)
	}
	size := func(s string) int { return len(s) }
	if d.identChars {
		size = utf8.RuneCountInString
	}
	if d.maxIdent == 0 || size(name) <= d.maxIdent {
		return name
	}
	h := fnv.New32a()
	h.Write([]byte(whole))
	suffix := fmt.Sprintf("_%08x", h.Sum32())
	cut := d.maxIdent - len(suffix)
	if d.identChars {
		cut = len(string([]rune(name)[:cut])) // the bytes of the first cut characters
	}
	for cut > 0 && !utf8.RuneStart(name[cut]) {
		cut--
	}
	return name[:cut] + suffix
}

// uniqueName is want (fitted), or want with the id appended when another name in taken (compared
// without case: SQLite's identifiers ignore it) holds it already.
func (d *dialect) uniqueName(want, id string, taken map[string]bool) string {
	name := d.fit(want)
	if !taken[strings.ToLower(name)] {
		return name
	}
	return d.fit(want + "_" + id)
}
