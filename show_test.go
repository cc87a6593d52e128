package airsql

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/airsql/airsql/emulator"
)

// TestShowStatements checks the SHOW statements tools send (DBeaver's table properties, DDL tab,
// index list and pickers) against what information_schema answers, and their errors.
func TestShowStatements(t *testing.T) {
	db, _ := openDemo(t, "")
	show := func(q string) ([]string, [][]any) {
		t.Helper()
		rows, err := db.Query(q)
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		cols, _ := rows.Columns()
		return cols, scanAll(t, rows)
	}
	cols, rows := show("SHOW TABLE STATUS")
	if want := "Name Engine Version Row_format Rows Avg_row_length Data_length Max_data_length Index_length Data_free Auto_increment Create_time Update_time Check_time Collation Checksum Create_options Comment"; strings.Join(cols, " ") != want {
		t.Errorf("SHOW TABLE STATUS columns:\n got %s\nwant %s", strings.Join(cols, " "), want)
	}
	var names []string
	for _, r := range rows {
		names = append(names, fmt.Sprint(r[0]))
		if r[1] != "Airtable" {
			t.Errorf("Engine of %v = %v", r[0], r[1])
		}
	}
	if got := strings.Join(names, ","); got != "People,Projects,Tasks" {
		t.Errorf("SHOW TABLE STATUS names = %s", got)
	}
	if _, rows := show("SHOW TABLE STATUS LIKE 'ta%'"); len(rows) != 1 || rows[0][0] != "Tasks" {
		t.Errorf("SHOW TABLE STATUS LIKE 'ta%%' = %v", rows)
	}
	if _, rows := show("SHOW TABLE STATUS FROM `" + emulator.DemoBaseID + "` WHERE Name <> 'Tasks';"); len(rows) != 2 {
		t.Errorf("SHOW TABLE STATUS FROM … WHERE = %v", rows)
	}

	cols, rows = show("SHOW CREATE TABLE `Projects`")
	if strings.Join(cols, ",") != "Table,Create Table" || len(rows) != 1 {
		t.Fatalf("SHOW CREATE TABLE = %v %v", cols, rows)
	}
	ddl := fmt.Sprint(rows[0][1])
	t.Logf("%s", ddl)
	for _, want := range []string{"CREATE TABLE `Projects` (\n  `id` varchar(", ") NOT NULL,\n", "  PRIMARY KEY (`id`),\n  CONSTRAINT `Projects_ibfk_1` FOREIGN KEY (`Lead`) REFERENCES `People` (`id`)", "\n) ENGINE=Airtable"} {
		if !strings.Contains(ddl, want) {
			t.Errorf("SHOW CREATE TABLE lacks %q:\n%s", want, ddl)
		}
	}
	// Every column of SELECT * is in it, in order.
	star, err := db.Query("SELECT * FROM Projects LIMIT 1")
	if err != nil {
		t.Fatal(err)
	}
	starCols, _ := star.Columns()
	star.Close()
	at := 0
	for _, c := range starCols {
		i := strings.Index(ddl[at:], "\n  `"+c+"` ")
		if i < 0 {
			t.Errorf("SHOW CREATE TABLE lacks column %s (or out of order)", c)
			continue
		}
		at += i + 1
	}

	cols, rows = show("SHOW INDEX FROM Tasks")
	if len(cols) != 13 || len(rows) != 1 || rows[0][2] != "PRIMARY" || rows[0][4] != "id" {
		t.Errorf("SHOW INDEX = %v %v", cols, rows)
	}
	if _, rows := show("SHOW KEYS IN Tasks WHERE Key_name = 'x'"); len(rows) != 0 {
		t.Errorf("SHOW KEYS … WHERE = %v", rows)
	}
	if _, rows := show("SHOW ENGINES"); len(rows) != 1 || rows[0][0] != "Airtable" {
		t.Errorf("SHOW ENGINES = %v", rows)
	}
	if _, rows := show("SHOW CHARACTER SET LIKE 'utf8%'"); len(rows) != 1 || rows[0][2] != "utf8mb4_bin" {
		t.Errorf("SHOW CHARACTER SET = %v", rows)
	}
	if _, rows := show("SHOW CHARSET WHERE Maxlen > 4"); len(rows) != 0 {
		t.Errorf("SHOW CHARSET WHERE = %v", rows)
	}
	if _, rows := show("SHOW COLLATION LIKE 'latin1%'"); len(rows) != 0 {
		t.Errorf("SHOW COLLATION LIKE 'latin1%%' = %v", rows)
	}
	if _, rows := show("SHOW COLLATION"); len(rows) != 1 || rows[0][0] != "utf8mb4_bin" {
		t.Errorf("SHOW COLLATION = %v", rows)
	}

	for q, want := range map[string]string{
		"SHOW CREATE TABLE Nope":          "Nope",
		"SHOW INDEX FROM Nope":            "Nope",
		"SHOW TABLE STATUS FROM appOther": "another base",
		"SHOW CREATE TABLE Tasks extra":   "text after",
		"SHOW INDEX Tasks":                "SHOW INDEX FROM table",
		"SHOW ENGINES LIKE 'x'":           "text after",
	} {
		_, err := db.Query(q)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: err = %v, want one naming %q", q, err, want)
		}
	}
	var nt *NoTableError
	if _, err := db.Query("SHOW CREATE TABLE Nope"); !errors.As(err, &nt) {
		t.Errorf("SHOW CREATE TABLE of an unknown table: %T, want *NoTableError (1146 through serve)", err)
	}
}
