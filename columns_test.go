package airsql

import (
	"context"
	"database/sql"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/airsql/airsql/internal/clock"
	"github.com/airsql/airsql/translate"
)

// TestResultColumns: the columns announced before a statement runs are those its rows report
// when it runs, and announcing them lists no records.
func TestResultColumns(t *testing.T) {
	srv := newEmulator(t)
	db, _ := openDB(t, srv, "")
	ctx := context.Background()
	c := connOn(t, db)
	type col struct {
		Name, Type string
		Nullable   bool
	}
	for _, tc := range []struct {
		query string
		args  []any // for the execution that checks the columns
		known bool
		none  bool // known to have no columns
	}{
		{query: "SELECT Name, Priority, Done, `Due Date`, Tags FROM Tasks WHERE Priority >= ?", args: []any{2}, known: true},
		{query: "SELECT * FROM Tasks WHERE Name = :name", args: []any{sql.Named("name", "x")}, known: true},
		{query: "SELECT Status, COUNT(*) AS n, AVG(Estimate) FROM Tasks GROUP BY Status", known: true},
		{query: "SELECT t.Name, m.`Full Name` FROM Tasks t JOIN `Team Members` m ON m.`Full Name` = t.Name", known: true},
		{query: "SELECT ? + 1 AS x", args: []any{1}, known: true},
		{query: "SELECT Name FROM Tasks UNION SELECT `Full Name` FROM `Team Members`", known: true},
		{query: "SHOW TABLES", known: true},
		{query: "SHOW FULL TABLES", known: true},
		{query: "DESCRIBE Tasks", known: true},
		{query: "SHOW VARIABLES LIKE 'sql_mode'", known: true},
		{query: "EXPLAIN SELECT Name FROM Tasks", known: true},
		{query: "SELECT Name FROM Tasks ORDER BY Name LIMIT ? OFFSET ?", args: []any{1, 2}, known: true},
		{query: "SELECT Name FROM Tasks WHERE Name = ? LIMIT ?, ?", args: []any{"x", 1, 2}, known: true},
		{query: "SELECT Name FROM Tasks WHERE Name LIKE ? ESCAPE ?", args: []any{"x", "!"}},
		{query: "INSERT INTO Tasks (Name) VALUES (?)", known: true, none: true},
		{query: "UPDATE Tasks SET Priority = 1 WHERE Name = ?", known: true, none: true},
		{query: "SET NAMES utf8mb4", known: true, none: true},
		{query: "INSERT INTO Tasks (Name) VALUES (?) RETURNING id"},
	} {
		t.Run(tc.query, func(t *testing.T) {
			srv.ResetRequests()
			cols, known, err := ResultColumns(ctx, c, tc.query)
			if err != nil {
				t.Fatal(err)
			}
			if reqs := dataRequests(srv); len(reqs) != 0 {
				t.Errorf("sent %d requests for records: %v", len(reqs), reqs)
			}
			if known != tc.known || (tc.none && len(cols) != 0) {
				t.Fatalf("known %v with %d columns, want known %v (none: %v)", known, len(cols), tc.known, tc.none)
			}
			if !known || tc.none {
				return
			}
			var got []col
			for _, c := range cols {
				got = append(got, col{c.Name, c.DatabaseType, c.Nullable})
			}
			rows, err := c.QueryContext(ctx, tc.query, tc.args...)
			if err != nil {
				t.Fatal(err)
			}
			defer rows.Close()
			types, err := rows.ColumnTypes()
			if err != nil {
				t.Fatal(err)
			}
			var want []col
			for _, ct := range types {
				nullable, _ := ct.Nullable()
				want = append(want, col{ct.Name(), ct.DatabaseTypeName(), nullable})
			}
			// Planned with NULL placeholders, an expression of one may be announced nullable
			// when its value is not: a client then only checks for a NULL that never comes.
			for i := range got {
				if i < len(want) && got[i].Nullable && !want[i].Nullable && tc.args != nil {
					got[i].Nullable = false
				}
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("announced %v\nthe rows have %v", got, want)
			}
		})
	}
}

// TestResultColumnsErrors: a table or column the base lacks is refused before the statement
// runs, as MySQL refuses it at prepare; so is a syntax error.
func TestResultColumnsErrors(t *testing.T) {
	srv := newEmulator(t)
	db, _ := openDB(t, srv, "")
	ctx := context.Background()
	c := connOn(t, db)
	for query, want := range map[string]any{
		"SELECT Nope FROM Tasks":   new(*translate.UnknownColumnError),
		"SELECT Name FROM Nope":    new(*NoTableError),
		"DESCRIBE Nope":            new(*NoTableError),
		"SELEC Name FROM Tasks":    new(*SyntaxError),
		"SELECT Name FROM Tasks t": nil,
	} {
		_, _, err := ResultColumns(ctx, c, query)
		switch {
		case want == nil && err != nil:
			t.Errorf("%s: %v", query, err)
		case want != nil && (err == nil || !errors.As(err, want)):
			t.Errorf("%s: error %v (%T), want a %T", query, err, err, reflect.ValueOf(want).Elem().Interface())
		}
	}
}

// TestResultColumnsSchemaRecheck: a plan that fails only because the placeholders are NULL does
// not fetch the schema again (a server prepares every statement: that would be a request per
// prepare); an unknown column does, as its execution would.
func TestResultColumnsSchemaRecheck(t *testing.T) {
	srv := newEmulator(t)
	db, connector := openDB(t, srv, "schemaTTL=1h")
	fake := clock.NewFake(time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC))
	connector.clock = fake
	ctx := context.Background()
	c := connOn(t, db)
	schemaRequests := func() int {
		n := 0
		for _, r := range srv.Requests() {
			if strings.HasPrefix(r.Path, "/v0/meta/") {
				n++
			}
		}
		return n
	}
	if _, _, err := ResultColumns(ctx, c, "SELECT Name FROM Tasks"); err != nil {
		t.Fatal(err)
	}
	fake.Advance(time.Minute) // older than schemaRecheckAfter, younger than the TTL
	before := schemaRequests()
	if _, known, err := ResultColumns(ctx, c, "SELECT Name FROM Tasks WHERE Name LIKE ? ESCAPE ?"); known || err != nil {
		t.Fatalf("known %v, %v", known, err)
	}
	if n := schemaRequests() - before; n != 0 {
		t.Errorf("%d schema requests for a plan that failed on NULL placeholders", n)
	}
	if _, _, err := ResultColumns(ctx, c, "SELECT Nope FROM Tasks"); err == nil {
		t.Fatal("an unknown column was announced")
	}
	if n := schemaRequests() - before; n != 1 {
		t.Errorf("%d schema requests for an unknown column, want 1 (the recheck)", n)
	}
}
