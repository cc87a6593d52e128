// Package syncdb copies an Airtable base into a SQL database (SQLite or PostgreSQL) and keeps it
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
	maxIdent int               // the longest identifier in bytes (0: no limit)
	types    map[string]string // translate's DatabaseType -> the column type
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
	placeholder: func(i int) string { return fmt.Sprintf("$%d", i) },
	bind: func(dbType string, v any) any {
		if t, ok := v.(time.Time); ok && dbType == "DATE" {
			return t.Format(time.DateOnly)
		}
		return v
	},
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

// fit shortens a name to the dialect's identifier limit, keeping it distinct with a hash of the
// whole name (PostgreSQL would cut it silently, and two long names could then meet).
func (d *dialect) fit(name string) string {
	if d.maxIdent == 0 || len(name) <= d.maxIdent {
		return name
	}
	h := fnv.New32a()
	h.Write([]byte(name))
	suffix := fmt.Sprintf("_%08x", h.Sum32())
	cut := d.maxIdent - len(suffix)
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
