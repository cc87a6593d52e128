package frontend

import (
	"reflect"
	"testing"
)

// TestParseDDLKeep: ALTER TABLE … MODIFY is read as the field it would make (checked against the
// base by the driver); the built-in columns id and createdTime come with no type.
func TestParseDDLKeep(t *testing.T) {
	cases := []struct {
		sql  string
		keep []ColumnChange
		add  int
	}{
		{"ALTER TABLE `w` MODIFY COLUMN `active` boolean", []ColumnChange{{Column: "active", Def: &FieldDef{Name: "active", Type: "checkbox", Options: checkOptions(), SQLType: "boolean"}}}, 0},
		{"ALTER TABLE w MODIFY active tinyint(1) NOT NULL", []ColumnChange{{Column: "active", Def: &FieldDef{Name: "active", Type: "checkbox", Options: checkOptions(), SQLType: "tinyint"}}}, 0},
		{"ALTER TABLE w MODIFY COLUMN qty int AFTER name", []ColumnChange{{Column: "qty", Def: &FieldDef{Name: "qty", Type: "number", Options: numberOptions(0), SQLType: "int"}}}, 0},
		{"ALTER TABLE w MODIFY COLUMN `createdTime` datetime(3) NULL", []ColumnChange{{Column: "createdTime", Builtin: true, Def: &FieldDef{Name: "createdTime"}}}, 0},
		{"ALTER TABLE w MODIFY id varchar(191), ADD COLUMN n text", []ColumnChange{{Column: "id", Builtin: true, Def: &FieldDef{Name: "id"}}}, 1},
		{"ALTER TABLE w CHANGE COLUMN Notes Details text COMMENT 'why'", []ColumnChange{{Column: "Notes", NewName: "Details",
			Def: &FieldDef{Name: "Details", Type: "multilineText", Description: "why", Commented: true, SQLType: "text"}}}, 0},
		{"ALTER TABLE w CHANGE Notes Notes text", []ColumnChange{{Column: "Notes", Def: &FieldDef{Name: "Notes", Type: "multilineText", SQLType: "text"}}}, 0},
		{"ALTER TABLE w RENAME COLUMN `a b` TO c", []ColumnChange{{Column: "a b", NewName: "c"}}, 0},
		{"ALTER TABLE w RENAME COLUMN id TO rid", []ColumnChange{{Column: "id", NewName: "rid", Builtin: true}}, 0},
	}
	for _, tc := range cases {
		d, ok, err := parseDDL(tc.sql)
		if !ok || err != nil {
			t.Errorf("%s: ok %v, %v", tc.sql, ok, err)
			continue
		}
		if !reflect.DeepEqual(d.Changes, tc.keep) || len(d.Fields) != tc.add {
			t.Errorf("%s: keep %+v, %d fields; want %+v, %d", tc.sql, d.Changes, len(d.Fields), tc.keep, tc.add)
		}
	}
	// createdTime in CREATE TABLE is the built-in column: no field is created for it.
	d, _, err := parseDDL("CREATE TABLE w (id varchar(191), createdTime datetime(3) NULL, name longtext, PRIMARY KEY (id))")
	if err != nil || len(d.Fields) != 1 || d.Fields[0].Name != "name" {
		t.Errorf("CREATE TABLE with createdTime: %+v, %v", d, err)
	}
	// A checkbox may be NOT NULL: it never is NULL.
	if d, _, err := parseDDL("CREATE TABLE w (name text, active boolean NOT NULL)"); err != nil || len(d.Fields) != 2 {
		t.Errorf("NOT NULL checkbox: %+v, %v", d, err)
	}
}
