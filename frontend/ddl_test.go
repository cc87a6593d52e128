package frontend

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

func TestReadDDL(t *testing.T) {
	text := func(name, sql string) FieldDef { return FieldDef{Name: name, Type: "singleLineText", SQLType: sql} }
	long := func(name, sql string) FieldDef { return FieldDef{Name: name, Type: "multilineText", SQLType: sql} }
	num := func(name string, p int, sql string) FieldDef {
		return FieldDef{Name: name, Type: "number", Options: map[string]any{"precision": p}, SQLType: sql}
	}
	check := func(name, sql string) FieldDef {
		return FieldDef{Name: name, Type: "checkbox", Options: checkOptions(), SQLType: sql}
	}
	desc := "what to do"
	cases := []struct {
		sql  string
		want *DDL
	}{
		// What GORM's AutoMigrate sends for struct{ID string; Name string; Priority int; Done bool; CreatedTime time.Time}.
		{"CREATE TABLE `tasks` (`id` varchar(191),`name` longtext,`priority` bigint,`done` boolean,`created_time` datetime(3) NULL,PRIMARY KEY (`id`))",
			&DDL{Table: "tasks", Create: true, Fields: []FieldDef{long("name", "longtext"), num("priority", 0, "bigint"), check("done", "boolean"),
				{Name: "created_time", Type: "dateTime", Options: timeOptions(), SQLType: "datetime"}}}},
		{"create table if not exists People (Done bool, `Full Name` varchar(100) comment 'who', Born date, Score decimal(10, 2), Ratio double precision, Small tinyint, Flag tinyint(1) unsigned) engine=InnoDB default charset=utf8mb4;",
			&DDL{Table: "People", Create: true, IfNotExists: true, Fields: []FieldDef{
				{Name: "Full Name", Type: "singleLineText", Description: "who", Commented: true, SQLType: "varchar"}, check("Done", "bool"),
				{Name: "Born", Type: "date", Options: dateOptions(), SQLType: "date"}, num("Score", 2, "decimal"), num("Ratio", 8, "double"), num("Small", 0, "tinyint"), check("Flag", "tinyint")}}},
		{"CREATE TABLE app.T (id char(17) PRIMARY KEY, s enum('a', 'b''c'), m set('x'), n int null default null, KEY idx_n (n))",
			&DDL{Table: "T", Database: "app", Create: true, Fields: []FieldDef{num("n", 0, "int"),
				{Name: "s", Type: "singleSelect", Options: map[string]any{"choices": []any{map[string]any{"name": "a"}, map[string]any{"name": "b'c"}}}, SQLType: "enum"},
				{Name: "m", Type: "multipleSelects", Options: map[string]any{"choices": []any{map[string]any{"name": "x"}}}, SQLType: "set"}}}},
		{"ALTER TABLE `tasks` ADD `notes` text", &DDL{Table: "tasks", Fields: []FieldDef{long("notes", "text")}}},
		{"alter table Tasks add column a varchar(10), add b int, ADD COLUMN (c bool, d text)",
			&DDL{Table: "Tasks", Fields: []FieldDef{text("a", "varchar"), num("b", 0, "int"), check("c", "bool"), long("d", "text")}}},
		{"CREATE INDEX `idx_tasks_name` ON `tasks`(`name`)", &DDL{Table: "tasks", Index: true}},
		// Links, from a column's REFERENCES or a FOREIGN KEY clause (SHOW CREATE TABLE writes those).
		{"CREATE TABLE Work (Name text, Owner varchar(17) REFERENCES People(id) ON DELETE SET NULL, Helper json, " +
			"CONSTRAINT `Work_Helper` FOREIGN KEY (`Helper`) REFERENCES `People` (`id`)) COMMENT='what to do'",
			&DDL{Table: "Work", Create: true, Description: &desc, Fields: []FieldDef{long("Name", "text"),
				{Name: "Owner", Type: "multipleRecordLinks", LinkTable: "People", SQLType: "varchar"},
				{Name: "Helper", Type: "multipleRecordLinks", LinkTable: "People", SQLType: "json"}}}},
		{"ALTER TABLE Tasks ADD COLUMN Lead varchar(17) REFERENCES People (id)",
			&DDL{Table: "Tasks", Fields: []FieldDef{{Name: "Lead", Type: "multipleRecordLinks", LinkTable: "People", SQLType: "varchar"}}}},
		{"ALTER TABLE Tasks RENAME TO Work", &DDL{Table: "Tasks", RenameTo: "Work"}},
		{"ALTER TABLE Tasks RENAME AS `My Work`, COMMENT = 'what to do'", &DDL{Table: "Tasks", RenameTo: "My Work", Description: &desc}},
		{"alter table Tasks rename Work", &DDL{Table: "Tasks", RenameTo: "Work"}},
		{"RENAME TABLE `Tasks` TO `Work`;", &DDL{Table: "Tasks", RenameTo: "Work"}},
		{"ALTER TABLE Tasks RENAME COLUMN Notes TO Details", &DDL{Table: "Tasks", Changes: []ColumnChange{{Column: "Notes", NewName: "Details"}}}},
		{"ALTER TABLE Tasks COMMENT ''", &DDL{Table: "Tasks", Description: new(string)}},
		// A database before the table: the base the statement changes (and a link's table's).
		{"ALTER TABLE appB.Tasks ADD COLUMN Lead varchar(17) REFERENCES appB.People (id)",
			&DDL{Table: "Tasks", Database: "appB", Fields: []FieldDef{{Name: "Lead", Type: "multipleRecordLinks", LinkTable: "People", LinkDatabase: "appB", SQLType: "varchar"}}}},
		{"CREATE INDEX i ON appB.Tasks (Name)", &DDL{Table: "Tasks", Database: "appB", Index: true}},
		{"RENAME TABLE appB.Tasks TO appB.Work", &DDL{Table: "Tasks", Database: "appB", RenameTo: "Work"}},
		{"ALTER TABLE appB.Tasks RENAME TO APPB.Work", &DDL{Table: "Tasks", Database: "appB", RenameTo: "Work"}},
	}
	for _, tc := range cases {
		got, ok, err := parseDDL(tc.sql)
		if err != nil || !ok {
			t.Errorf("%s: ok %v, %v", tc.sql, ok, err)
			continue
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s:\n got %+v\nwant %+v", tc.sql, got, tc.want)
		}
	}
}

func TestParseDDLRefusals(t *testing.T) {
	cases := []struct{ sql, construct string }{
		{"CREATE TABLE t (id int AUTO_INCREMENT PRIMARY KEY, n text)", "id of type INT"},
		{"CREATE TABLE t (n text NOT NULL)", "NOT NULL"},
		{"CREATE TABLE t (n int DEFAULT 3)", "DEFAULT"},
		{"CREATE TABLE t (n int, UNIQUE KEY (n))", "UNIQUE"},
		{"CREATE TABLE t (n varchar(9) UNIQUE)", "UNIQUE on a column"},
		{"CREATE TABLE t (code varchar(9), PRIMARY KEY (code))", "a PRIMARY KEY other than id"},
		{"CREATE TABLE t (doc json)", "JSON columns"},
		{"CREATE TABLE t (b blob)", "columns of type BLOB"},
		{"CREATE TABLE t (n int, FOREIGN KEY (n) REFERENCES u (id))", "INT REFERENCES"},
		{"CREATE TABLE t (n text, FOREIGN KEY (n) REFERENCES u (code))", "REFERENCES other than t(id)"},
		{"CREATE TABLE t (n text REFERENCES u (id) ON DELETE CASCADE)", "ON DELETE CASCADE"},
		{"CREATE TABLE t (n text, m text, FOREIGN KEY (n, m) REFERENCES u (id))", "a FOREIGN KEY of several columns"},
		{"CREATE TABLE t (n text, CHECK (n <> ''))", "CHECK constraints"},
		{"ALTER TABLE t ADD FOREIGN KEY (n) REFERENCES u (id)", "ALTER TABLE … ADD FOREIGN KEY"},
		{"ALTER TABLE t ADD CONSTRAINT fk FOREIGN KEY (n) REFERENCES u (id)", "ALTER TABLE … ADD FOREIGN KEY"},
		{"RENAME TABLE a TO b, c TO d", "RENAME TABLE of several tables"},
		{"RENAME TABLE appA.a TO appB.b", "RENAME of a table into another database"},
		{"ALTER TABLE a RENAME TO appB.b", "RENAME of a table into another database"},
		{"ALTER TABLE t RENAME INDEX a TO b", "ALTER TABLE … RENAME INDEX"},
		{"CREATE TABLE t (id varchar(20))", "a table with no column but id"},
		{"CREATE TABLE t (a bool, b enum('x'))", "a table whose columns are all checkboxes or selects"},
		{"CREATE TABLE t AS SELECT 1", "CREATE TABLE without column definitions (CREATE TABLE … AS SELECT, LIKE)"},
		{"ALTER TABLE t DROP COLUMN n", "ALTER TABLE … DROP"},
		{"ALTER TABLE t ALTER COLUMN n SET DEFAULT 1", "ALTER TABLE … ALTER COLUMN"},
		{"ALTER TABLE t MODIFY n text NOT NULL", "NOT NULL"},
		{"ALTER TABLE t MODIFY createdTime text", "createdTime of type TEXT"},
		{"ALTER TABLE t ADD INDEX (n)", "ALTER TABLE … ADD INDEX"},
		{"ALTER TABLE t ADD COLUMN n int NOT NULL", "NOT NULL"},
		{"CREATE UNIQUE INDEX u ON t (n)", "CREATE UNIQUE INDEX"},
	}
	for _, tc := range cases {
		_, ok, err := parseDDL(tc.sql)
		var ue *UnsupportedError
		if !ok || !errors.As(err, &ue) || ue.Construct != tc.construct || (ue.Hint == "" && !strings.HasPrefix(ue.Construct, "ON UPDATE")) {
			t.Errorf("%s: ok %v, %v; want the construct %q refused with a hint", tc.sql, ok, err, tc.construct)
		}
	}
	// Malformed: an error that says how to write it.
	for sql, want := range map[string]string{
		"ALTER TABLE t COMMENT 'x' y":                               "COMMENT [=] 'text'",
		"ALTER TABLE t RENAME COLUMN a b":                           "RENAME COLUMN old TO new",
		"RENAME TABLE a b":                                          "RENAME TABLE old TO new",
		"ALTER TABLE t RENAME TO a, RENAME TO b":                    "written twice",
		"CREATE TABLE t (a text, FOREIGN KEY (b) REFERENCES u(id))": "does not define",
	} {
		if _, ok, err := parseDDL(sql); !ok || err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: ok %v, %v; want an error saying %q", sql, ok, err, want)
		}
	}
	for _, sql := range []string{"SELECT 1", "DROP TABLE t", "INSERT INTO t VALUES (1)", "CREATE DATABASE x", "ALTER VIEW v AS SELECT 1"} {
		if _, ok, err := parseDDL(sql); ok || err != nil {
			t.Errorf("%s: ok %v, %v; want it left to the parser", sql, ok, err)
		}
	}
}

func FuzzReadDDL(f *testing.F) {
	for _, s := range []string{"CREATE TABLE t (a int)", "ALTER TABLE t ADD (a int, b", "CREATE TABLE t (a enum(", "alter table t add", "CREATE INDEX ON", "CREATE TABLE t (((", "/*!*/", "CREATE /*!*/ TABLE", "ALTER TABLE t MODIFY", "ALTER TABLE t MODIFY COLUMN c int AFTER", "alter table t modify createdTime datetime first", "RENAME TABLE a TO", "ALTER TABLE t RENAME COLUMN a TO", "CREATE TABLE t (a text REFERENCES", "CREATE TABLE t (a text, FOREIGN KEY (a) REFERENCES b(id) ON", "ALTER TABLE t COMMENT", "CREATE TABLE t (a text) COMMENT ="} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, sql string) {
		d, ok, err := parseDDL(sql)
		if !ok && (d != nil || err != nil) {
			t.Fatalf("not a DDL statement but %v, %v", d, err)
		}
		if ok && err == nil && d == nil {
			t.Fatal("no statement and no error")
		}
	})
}
