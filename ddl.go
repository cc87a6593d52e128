package airsql

import (
	"context"
	"database/sql/driver"
	"fmt"
	"slices"
	"strings"

	"github.com/airsql/airsql/frontend"
	"github.com/airsql/airsql/translate"
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

// execDDL runs CREATE TABLE, ALTER TABLE, RENAME TABLE and CREATE INDEX through the metadata
// API (the token needs the schema.bases:write scope). As in MySQL, a schema statement first
// commits the open transaction. Everything the statement asks is checked against the base before
// the first request; the API has no batch, so a failure part-way says what was done before it.
// The schema cache is dropped afterwards, whatever happened, so information_schema, DESCRIBE and
// SHOW CREATE TABLE show the change at once.
func (cn *conn) execDDL(ctx context.Context, d *frontend.DDL) (driver.Result, error) {
	if err := cn.commit(); err != nil {
		return nil, err
	}
	db, err := cn.ddlDatabase(d)
	if err != nil {
		return nil, err
	}
	schema, err := db.loadSchema(ctx, true) // the base as it is now: another client may have changed it
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
		specs, err := fieldSpecs(schema, d.Table, d.Fields)
		if err != nil {
			return nil, err
		}
		spec := transport.TableSpec{Name: d.Table, Fields: specs}
		if d.Description != nil {
			spec.Description = *d.Description
		}
		_, err = db.base.CreateTable(ctx, spec)
		db.forgetSchema()
		if err != nil {
			return nil, fmt.Errorf("airsql: CREATE TABLE %q: %w", d.Table, err)
		}
		return result{}, nil
	case !found:
		return nil, &NoTableError{Table: d.Table, Tables: schema.tableNames(), Base: db.cfg.BaseID}
	case d.Index:
		return result{}, nil // no index to keep: see frontend.DDL
	}
	plan, err := planAlter(schema, existing, d)
	if err != nil {
		return nil, err
	}
	defer db.forgetSchema()
	return result{}, plan.run(ctx, db.base, existing)
}

// ddlDatabase is the connector of the base a schema statement changes: the database written before
// its table, else the connection's default; a link it adds must point at a table of that base
// (Airtable links records within one base).
func (cn *conn) ddlDatabase(d *frontend.DDL) (*Connector, error) {
	what := "ALTER TABLE"
	if d.Create {
		what = "CREATE TABLE"
	}
	db, err := cn.namedDatabase(d.Database, what)
	if err != nil {
		return nil, err
	}
	defs := d.Fields
	for _, ch := range d.Changes {
		if ch.Def != nil {
			defs = append(defs, *ch.Def)
		}
	}
	for _, f := range defs {
		if f.LinkDatabase == "" {
			continue
		}
		if ld, ok := cn.c.database(f.LinkDatabase); !ok {
			return nil, cn.c.unknownDatabase(f.LinkDatabase)
		} else if ld != db {
			return nil, &UnsupportedError{Construct: "a link to a table of another base (" + f.LinkDatabase + "." + f.LinkTable + ")",
				Hint: "Airtable links records within one base: link to a table of " + db.cfg.BaseID}
		}
	}
	return db, nil
}

// alterPlan is what an ALTER or RENAME TABLE sends, checked before anything is sent.
type alterPlan struct {
	add     []transport.FieldSpec
	fields  []fieldUpdate
	table   transport.TableUpdate
	stmt    string // "ALTER TABLE" or "RENAME TABLE", for errors
	changed bool   // the table update has something to send
}

type fieldUpdate struct {
	id, name string // the field's id and current name
	upd      transport.FieldUpdate
}

// planAlter checks the statement against the table t as the base has it now.
func planAlter(schema *baseSchema, t *translate.Table, d *frontend.DDL) (*alterPlan, error) {
	p := &alterPlan{stmt: "ALTER TABLE"}
	if d.RenameTo != "" && len(d.Fields) == 0 && len(d.Changes) == 0 && d.Description == nil {
		p.stmt = "RENAME TABLE"
	}
	// names are the table's column names after the statement, lower case (Airtable compares
	// field names ignoring case), with the field each belongs to.
	names := map[string]string{"id": "", "createdtime": ""}
	for _, f := range t.Fields {
		names[strings.ToLower(f.Name)] = f.ID
	}
	for _, f := range d.Fields {
		if id, taken := names[strings.ToLower(f.Name)]; taken {
			name := f.Name
			if i := slices.IndexFunc(t.Fields, func(have translate.Field) bool { return have.ID == id }); i >= 0 {
				name = t.Fields[i].Name
			}
			return nil, &ExistsError{Kind: "column", Name: name, Table: t.Name}
		}
		names[strings.ToLower(f.Name)] = "new"
	}
	var err error
	if p.add, err = fieldSpecs(schema, t.Name, d.Fields); err != nil {
		return nil, err
	}
	for _, ch := range d.Changes {
		fu, err := planChange(schema, t, ch, names)
		if err != nil {
			return nil, err
		}
		if fu != nil {
			p.fields = append(p.fields, *fu)
		}
	}
	if d.RenameTo != "" && d.RenameTo != t.Name {
		if other, ok := schema.Table(d.RenameTo); ok && other.ID != t.ID {
			return nil, &ExistsError{Kind: "table", Name: other.Name}
		}
		p.table.Name, p.changed = &d.RenameTo, true
	}
	if d.Description != nil && *d.Description != t.Description {
		p.table.Description, p.changed = d.Description, true
	}
	return p, nil
}

// planChange checks one MODIFY, CHANGE or RENAME COLUMN and returns the field update it sends (nil
// when it changes nothing). names is updated with the column's new name.
func planChange(schema *baseSchema, t *translate.Table, ch frontend.ColumnChange, names map[string]string) (*fieldUpdate, error) {
	if ch.Builtin {
		if ch.NewName != "" && !strings.EqualFold(ch.NewName, ch.Column) {
			return nil, &UnsupportedError{Construct: "renaming the column " + ch.Column,
				Hint: "every table has the columns id (the record id) and createdTime (its creation time); they cannot be renamed"}
		}
		return nil, nil
	}
	i := slices.IndexFunc(t.Fields, func(f translate.Field) bool { return strings.EqualFold(f.Name, ch.Column) })
	if i < 0 {
		return nil, fmt.Errorf("airsql: ALTER TABLE %q: the table has no column %q (add it with ADD COLUMN)", t.Name, ch.Column)
	}
	have := t.Fields[i]
	if ch.Def != nil {
		if err := checkKeep(have, *ch.Def); err != nil {
			return nil, err
		}
		if ch.Def.LinkTable != "" {
			lt, ok := schema.Table(ch.Def.LinkTable)
			if !ok {
				return nil, &NoTableError{Table: ch.Def.LinkTable, Tables: schema.tableNames()}
			}
			if linked, _ := have.Options["linkedTableId"].(string); linked != lt.ID {
				return nil, &UnsupportedError{Construct: "ALTER TABLE … MODIFY that changes a field's options",
					Hint: fmt.Sprintf("column %q links to another table than %q; the Airtable API cannot change which table a link points at: add a new column", have.Name, lt.Name)}
			}
		}
	}
	fu := &fieldUpdate{id: have.ID, name: have.Name}
	if ch.NewName != "" && ch.NewName != have.Name {
		if id, taken := names[strings.ToLower(ch.NewName)]; taken && id != have.ID {
			return nil, &ExistsError{Kind: "column", Name: ch.NewName, Table: t.Name}
		}
		delete(names, strings.ToLower(have.Name))
		names[strings.ToLower(ch.NewName)] = have.ID
		fu.upd.Name = &ch.NewName
	}
	if ch.Def != nil && ch.Def.Commented && ch.Def.Description != have.Description {
		fu.upd.Description = &ch.Def.Description
	}
	if fu.upd.Name == nil && fu.upd.Description == nil {
		return nil, nil
	}
	return fu, nil
}

// run sends the plan: new fields, then field updates, then the table's name and description
// (fields are addressed by the table's id, which a rename keeps).
func (p *alterPlan) run(ctx context.Context, base *transport.Base, t *translate.Table) error {
	var done []string
	failed := func(what string, err error) error {
		before := "nothing was changed"
		if len(done) > 0 {
			before = "done before it: " + strings.Join(done, "; ")
		}
		return fmt.Errorf("airsql: %s %q: %s failed (%s): %w", p.stmt, t.Name, what, before, err)
	}
	for _, spec := range p.add {
		if _, err := base.CreateField(ctx, t.ID, spec); err != nil {
			return failed(fmt.Sprintf("adding column %q", spec.Name), err)
		}
		done = append(done, fmt.Sprintf("column %q added", spec.Name))
	}
	for _, fu := range p.fields {
		what := fmt.Sprintf("changing column %q", fu.name)
		if fu.upd.Name != nil {
			what = fmt.Sprintf("renaming column %q to %q", fu.name, *fu.upd.Name)
		}
		if _, err := base.UpdateField(ctx, t.ID, fu.id, fu.upd); err != nil {
			return failed(what, err)
		}
		done = append(done, what)
	}
	if p.changed {
		what := "changing the table's comment"
		if p.table.Name != nil {
			what = fmt.Sprintf("renaming the table to %q", *p.table.Name)
		}
		if _, err := base.UpdateTable(ctx, t.ID, p.table); err != nil {
			return failed(what, err)
		}
	}
	return nil
}

// fieldSpecs gives translate's field definitions the metadata API's form; a link field's table
// is named by its id.
func fieldSpecs(schema *baseSchema, table string, defs []frontend.FieldDef) ([]transport.FieldSpec, error) {
	specs := make([]transport.FieldSpec, len(defs))
	for i, f := range defs {
		specs[i] = transport.FieldSpec{Name: f.Name, Type: f.Type, Description: f.Description, Options: f.Options}
		if f.LinkTable == "" {
			continue
		}
		lt, ok := schema.Table(f.LinkTable)
		if !ok {
			if strings.EqualFold(f.LinkTable, table) {
				return nil, &UnsupportedError{Construct: "a link to the table being created",
					Hint: fmt.Sprintf("create the table first, then ALTER TABLE `%s` ADD COLUMN `%s` VARCHAR(17) REFERENCES `%s`(id)", table, f.Name, table)}
			}
			return nil, &NoTableError{Table: f.LinkTable, Tables: schema.tableNames()}
		}
		specs[i].Options = map[string]any{"linkedTableId": lt.ID}
	}
	return specs, nil
}
