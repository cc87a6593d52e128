// Package airsql is a database/sql driver for Airtable: a base is a database, a table is a
// table, a field is a column.
//
//	db, err := sql.Open("airtable", "airtable://"+token+"@/appXXXXXXXXXXXXXX")
//	rows, err := db.QueryContext(ctx,
//		"SELECT Name, Priority FROM `Open Tasks` WHERE Priority >= ? ORDER BY Priority DESC LIMIT 10", 2)
//
// SQL is MySQL's dialect (github.com/xwb1989/sqlparser). A SELECT becomes one list request:
// WHERE becomes filterByFormula (with SQL's NULL logic, never Airtable's), ORDER BY becomes sort,
// LIMIT becomes maxRecords and the select list becomes fields[]. What the service cannot answer
// exactly is checked again locally, and what cannot be run at all (JOIN, GROUP BY, OFFSET,
// subqueries, ORDER BY an expression) is refused with an error naming it. INSERT, UPDATE, DELETE
// and INSERT … ON DUPLICATE KEY UPDATE go out in batches of 10 records.
//
// The DSN is airtable://[TOKEN@][HOST[:PORT]]/BASE_ID[?key=value&...]; see Config for every key
// and its default, and README.md for the whole reference.
package airsql

import (
	"context"
	"database/sql"
	"database/sql/driver"
)

// DriverName is the name the driver is registered under.
const DriverName = "airtable"

func init() {
	sql.Register(DriverName, &Driver{})
}

// Driver is the database/sql driver registered as "airtable".
type Driver struct{}

// Driver implements driver.Driver and driver.DriverContext.
var (
	_ driver.Driver        = (*Driver)(nil)
	_ driver.DriverContext = (*Driver)(nil)
)

// Open returns a connection of a connector of its own. database/sql calls OpenConnector instead,
// so that its connections share one HTTP client, rate limiter and schema cache.
func (d *Driver) Open(dsn string) (driver.Conn, error) {
	c, err := d.OpenConnector(dsn)
	if err != nil {
		return nil, err
	}
	return c.Connect(context.Background())
}

// OpenConnector parses dsn and returns a *Connector.
func (d *Driver) OpenConnector(dsn string) (driver.Connector, error) {
	cfg, err := ParseDSN(dsn)
	if err != nil {
		return nil, err
	}
	return NewConnector(cfg)
}
