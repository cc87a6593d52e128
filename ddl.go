package airsql

import (
	"context"
	"database/sql/driver"
	"fmt"
	"strings"

	"github.com/airsql/airsql/frontend"
	"github.com/airsql/airsql/transport"
)

// ExistsError is returned by CREATE TABLE of a table the base has (without IF NOT EXISTS) and by
// ALTER TABLE … ADD COLUMN of a column the table has (MySQL's errors 1050 and 1060).
type ExistsError struct {
	Kind  string // "table" or "column"
	Name  string // as the base spells it
	Table string // the column's table (Kind "column")
}

func (e *ExistsError) Error() string {
	if e.Kind == "column" {
		return fmt.Sprintf("airsql: table %q already has a column %q (names differing only in case are the same field in Airtable): choose another name", e.Table, e.Name)
	}
	return fmt.Sprintf("airsql: the base already has a table %q: write CREATE TABLE IF NOT EXISTS to accept it as it is, or choose another name", e.Name)
}

// execDDL runs CREATE TABLE, ALTER TABLE … ADD COLUMN and CREATE INDEX through the metadata
// API (the token needs the schema.bases:write scope). As in MySQL, a schema statement first
// commits the open transaction.
func (cn *conn) execDDL(ctx context.Context, d *frontend.DDL) (driver.Result, error) {
	if err := cn.commit(); err != nil {
		return nil, err
	}
	schema, err := cn.c.loadSchema(ctx, true) // the base as it is now: another client may have changed it
	if err != nil {
		return nil, err
	}
	existing, found := schema.Table(d.Table)
	switch {
	case d.Create && found:
		if d.IfNotExists {
			return result{}, nil
		}
		return nil, &ExistsError{Kind: "table", Name: existing.Name}
	case d.Create:
		spec := transport.TableSpec{Name: d.Table, Fields: fieldSpecs(d.Fields)}
		_, err := cn.c.base.CreateTable(ctx, spec)
		cn.c.forgetSchema()
		if err != nil {
			return nil, fmt.Errorf("airsql: CREATE TABLE %q: %w", d.Table, err)
		}
		return result{}, nil
	case !found:
		return nil, &NoTableError{Table: d.Table, Tables: schema.tableNames()}
	case d.Index:
		return result{}, nil // no index to keep: see frontend.DDL
	}
	if err := checkKeep(existing, d.Keep); err != nil {
		return nil, err
	}
	for _, f := range d.Fields {
		for _, have := range existing.Fields {
			if strings.EqualFold(have.Name, f.Name) {
				return nil, &ExistsError{Kind: "column", Name: have.Name, Table: existing.Name}
			}
		}
	}
	// One request per field: the API has no batch. A failure part-way leaves the fields before it.
	defer cn.c.forgetSchema()
	var created []string
	for _, spec := range fieldSpecs(d.Fields) {
		if _, err := cn.c.base.CreateField(ctx, existing.ID, spec); err != nil {
			done := "no column was added"
			if len(created) > 0 {
				done = fmt.Sprintf("the columns %q were added before it", created)
			}
			return nil, fmt.Errorf("airsql: ALTER TABLE %q: adding column %q failed (%s): %w", existing.Name, spec.Name, done, err)
		}
		created = append(created, spec.Name)
	}
	return result{}, nil
}

// fieldSpecs gives translate's field definitions the metadata API's form.
func fieldSpecs(defs []frontend.FieldDef) []transport.FieldSpec {
	specs := make([]transport.FieldSpec, len(defs))
	for i, f := range defs {
		specs[i] = transport.FieldSpec{Name: f.Name, Type: f.Type, Description: f.Description, Options: f.Options}
	}
	return specs
}
