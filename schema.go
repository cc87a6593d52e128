package airsql

import (
	"context"
	"fmt"
	"strings"

	"github.com/airsql/airsql/translate"
	"github.com/airsql/airsql/transport"
)

// baseSchema is the base's tables as translate sees them; it is immutable once built, so
// connections share it without locking.
type baseSchema struct {
	tables []*translate.Table
	byID   map[string]*translate.Table
	byName map[string]*translate.Table
	byFold map[string][]*translate.Table // lower-cased name -> tables, for a case-insensitive match
}

// baseSchema implements translate.Schema.
var _ translate.Schema = (*baseSchema)(nil)

func newBaseSchema(s *transport.BaseSchema, baseID string) *baseSchema {
	bs := &baseSchema{
		byID:   map[string]*translate.Table{},
		byName: map[string]*translate.Table{},
		byFold: map[string][]*translate.Table{},
	}
	for _, ts := range s.Tables {
		t := &translate.Table{ID: ts.ID, Name: ts.Name, PrimaryFieldID: ts.PrimaryFieldID, Description: ts.Description, Database: baseID}
		for _, f := range ts.Fields {
			t.Fields = append(t.Fields, translate.Field{ID: f.ID, Name: f.Name, Type: f.Type, Options: f.Options, Description: f.Description})
		}
		for _, v := range ts.Views {
			t.Views = append(t.Views, translate.View{ID: v.ID, Name: v.Name})
		}
		bs.tables = append(bs.tables, t)
		bs.byID[t.ID] = t
		bs.byName[t.Name] = t
		fold := strings.ToLower(t.Name)
		bs.byFold[fold] = append(bs.byFold[fold], t)
	}
	return bs
}

// Table finds a table by id, by exact name, or by a name that differs only in case when exactly
// one table has it (SQL code often capitalises table names differently).
func (s *baseSchema) Table(nameOrID string) (*translate.Table, bool) {
	if t, ok := s.byID[nameOrID]; ok {
		return t, true
	}
	if t, ok := s.byName[nameOrID]; ok {
		return t, true
	}
	if ts := s.byFold[strings.ToLower(nameOrID)]; len(ts) == 1 {
		return ts[0], true
	}
	return nil, false
}

// tableNames lists the tables' names, for "no such table" errors.
func (s *baseSchema) tableNames() string {
	names := make([]string, len(s.tables))
	for i, t := range s.tables {
		names[i] = "`" + t.Name + "`"
	}
	return strings.Join(names, ", ")
}

// schemaError says what to do about a failed schema request: the driver cannot plan a statement
// without the base's schema, which needs the token's schema.bases:read scope.
func schemaError(err error, baseID string) error {
	if deniedAccess(err) {
		return fmt.Errorf("airsql: read the schema of base %s: %w (the driver needs the token's "+
			"schema.bases:read scope and access to that base, named in the DSN or its key bases)", baseID, err)
	}
	return fmt.Errorf("airsql: read the schema of base %s: %w", baseID, err)
}

// NoTableError says a statement names a table the base does not have.
type NoTableError struct {
	Table  string // as written in the statement
	Tables string // the base's tables, for the message
	Base   string // the base's id ("" when not known)
}

func (e *NoTableError) Error() string {
	if e.Base != "" {
		return fmt.Sprintf("airsql: the base %s has no table %q; its tables are %s", e.Base, e.Table, e.Tables)
	}
	return fmt.Sprintf("airsql: the base has no table %q; its tables are %s", e.Table, e.Tables)
}

// schemaFor returns the schema, fetched again once when it lacks one of the named tables (a table
// created after the schema was cached).
func (c *Connector) schemaFor(ctx context.Context, tables ...string) (*baseSchema, error) {
	s, err := c.loadSchema(ctx, false)
	if err != nil {
		return nil, err
	}
	for _, name := range tables {
		if _, ok := s.Table(name); !ok {
			if s, err = c.loadSchema(ctx, true); err != nil {
				return nil, err
			}
			break
		}
	}
	for _, name := range tables {
		if _, ok := s.Table(name); !ok {
			return nil, &NoTableError{Table: name, Tables: s.tableNames(), Base: c.cfg.BaseID}
		}
	}
	return s, nil
}

// tableFor returns the schema and the table name names (a NoTableError when the base has none).
func (c *Connector) tableFor(ctx context.Context, name string) (*baseSchema, *translate.Table, error) {
	s, err := c.schemaFor(ctx, name)
	if err != nil {
		return nil, nil, err
	}
	t, _ := s.Table(name) // schemaFor made sure it is there
	return s, t, nil
}
