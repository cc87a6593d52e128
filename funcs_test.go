package airsql

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/airsql/airsql/internal/clock"
	"github.com/airsql/airsql/translate"
)

// TestFunctionsEndToEnd runs a sample of the SQL functions through sql.Open against the emulator:
// the values, the clock (the connector's: the fake one here), and which are pushed into the formula.
func TestFunctionsEndToEnd(t *testing.T) {
	srv := newEmulator(t)
	db, c := openDB(t, srv, "")
	now := time.Date(2024, 3, 10, 15, 30, 45, 0, time.UTC)
	c.clock = clock.NewFake(now)
	warmSchema(t, db, srv)

	row := db.QueryRow("SELECT VERSION(), DATABASE(), NOW(), CURDATE(), DATEDIFF(CURDATE(), `Due Date`), " +
		"DATE_FORMAT(`Due Date`, '%W %D %M %Y'), CASE WHEN Priority >= 3 THEN 'high' ELSE 'low' END, " +
		"CAST(Estimate AS CHAR), SUBSTR(LTRIM(Name), 4, 2), `Due Date` + INTERVAL 1 MONTH, @@sql_mode " +
		"FROM Tasks WHERE id = 'recTASK0000000001'")
	var (
		version, database, dayName, bucket, estimate, sub, sqlMode string
		gotNow, today, nextMonth                                   time.Time
		age                                                        int64
	)
	if err := row.Scan(&version, &database, &gotNow, &today, &age, &dayName, &bucket, &estimate, &sub, &nextMonth, &sqlMode); err != nil {
		t.Fatal(err)
	}
	if version != translate.ServerVersion || database != testBase {
		t.Errorf("VERSION(), DATABASE() = %q, %q", version, database)
	}
	if !gotNow.Equal(now) || !today.Equal(time.Date(2024, 3, 10, 0, 0, 0, 0, time.UTC)) {
		t.Errorf("NOW(), CURDATE() = %v, %v; want the connector's clock %v", gotNow, today, now)
	}
	if age != 38 || dayName != "Thursday 1st February 2024" || bucket != "high" || estimate != "2.5" || sub != "te" {
		t.Errorf("got %d %q %q %q %q", age, dayName, bucket, estimate, sub)
	}
	if !nextMonth.Equal(time.Date(2024, 3, 1, 0, 0, 0, 0, time.UTC)) || !strings.HasPrefix(sqlMode, "ONLY_FULL_GROUP_BY") {
		t.Errorf("+ INTERVAL 1 MONTH = %v, @@sql_mode = %q", nextMonth, sqlMode)
	}

	// YEAR of a date field is pushed into the formula exactly; DATE_FORMAT is evaluated locally,
	// on a superset the formula cannot narrow.
	srv.ResetRequests()
	if got := queryColumn(t, db, "SELECT Name FROM Tasks WHERE YEAR(`Due Date`) = 2024 AND Priority >= 3 ORDER BY Name"); strings.Join(got, ",") != "Ship it,Write spec" {
		t.Errorf("YEAR() = 2024: %v", got)
	}
	reqs := dataRequests(srv)
	if len(reqs) != 1 || !strings.Contains(queryValues(t, reqs[0]).Get("filterByFormula"), "YEAR({Due Date})=2024") {
		t.Errorf("requests %v: want one with YEAR({Due Date})=2024 in its formula", reqs)
	}
	srv.ResetRequests()
	if got := queryColumn(t, db, "SELECT Name FROM Tasks WHERE DATE_FORMAT(`Due Date`, '%m') = '03'"); strings.Join(got, ",") != "Ship it" {
		t.Errorf("DATE_FORMAT() = '03': %v", got)
	}
	if reqs := dataRequests(srv); len(reqs) != 1 || queryValues(t, reqs[0]).Get("filterByFormula") != "" {
		t.Errorf("DATE_FORMAT is evaluated locally: want one request with no formula, got %v", reqs)
	}
	// DATE(x) compared with a day is sent as a range on x: exact, so LIMIT is sent too.
	srv.ResetRequests()
	if got := queryColumn(t, db, "SELECT Name FROM Tasks WHERE DATE(`Due Date`) = '2024-03-15' LIMIT 5"); strings.Join(got, ",") != "Ship it" {
		t.Errorf("DATE() = '2024-03-15': %v", got)
	}
	reqs = dataRequests(srv)
	if len(reqs) != 1 || !strings.Contains(queryValues(t, reqs[0]).Get("filterByFormula"), "DATETIME_DIFF({Due Date}, DATETIME_PARSE('2024-03-16T00:00:00.000Z'), 'milliseconds')<0") ||
		queryValues(t, reqs[0]).Get("maxRecords") != "5" {
		t.Errorf("DATE() = day: requests %v, want one range formula with maxRecords=5", reqs)
	}
	// goqu writes .Like() as LIKE BINARY: case-sensitive, also in the pushed formula.
	if got := queryColumn(t, db, "SELECT Name FROM Tasks WHERE Name LIKE BINARY 'ship%'"); len(got) != 0 {
		t.Errorf("LIKE BINARY 'ship%%' matched %v", got)
	}
	if got := queryColumn(t, db, "SELECT Name FROM Tasks WHERE Name LIKE BINARY 'Ship%'"); strings.Join(got, ",") != "Ship it" {
		t.Errorf("LIKE BINARY 'Ship%%': %v", got)
	}
}

// TestSessionVariables: SET is remembered per connection, read back with @@, and refused with a
// reason when the driver cannot honour it.
func TestSessionVariables(t *testing.T) {
	srv := newEmulator(t)
	db, _ := openDB(t, srv, "")
	warmSchema(t, db, srv)
	ctx := context.Background()
	c1, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer c1.Close()
	c2, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer c2.Close()
	for _, q := range []string{"SET NAMES utf8mb4", "SET autocommit = 1", "SET SESSION sql_mode = 'STRICT_TRANS_TABLES'",
		"SET @@session.time_zone = '+00:00'", "SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED"} {
		if _, err := c1.ExecContext(ctx, q); err != nil {
			t.Errorf("%s: %v", q, err)
		}
	}
	// Some clients send SET with Query.
	rows, err := c1.QueryContext(ctx, "SET wait_timeout = 600")
	if err != nil {
		t.Fatalf("SET with Query: %v", err)
	}
	rows.Close()
	if reqs := srv.Requests(); len(reqs) != 0 {
		t.Errorf("SET sent %d requests, want none", len(reqs))
	}
	read := func(conn *sql.Conn, q string) string {
		t.Helper()
		var s string
		if err := conn.QueryRowContext(ctx, q).Scan(&s); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		return s
	}
	const q = "SELECT CONCAT(@@sql_mode, ' ', @@transaction_isolation, ' ', @@wait_timeout) FROM Tasks LIMIT 1"
	if got := read(c1, q); got != "STRICT_TRANS_TABLES READ-COMMITTED 600" {
		t.Errorf("connection 1: %q", got)
	}
	if got := read(c2, q); !strings.HasPrefix(got, "ONLY_FULL_GROUP_BY") || !strings.HasSuffix(got, "REPEATABLE-READ 28800") {
		t.Errorf("connection 2 reads connection 1's settings: %q", got)
	}
	if read(c1, "SELECT CONNECTION_ID() FROM Tasks LIMIT 1") == read(c2, "SELECT CONNECTION_ID() FROM Tasks LIMIT 1") {
		t.Error("two connections have the same CONNECTION_ID()")
	}
	// SHOW VARIABLES reads the same session.
	var name, value string
	if err := c1.QueryRowContext(ctx, "SHOW SESSION VARIABLES LIKE 'sql\\_mode'").Scan(&name, &value); err != nil || name != "sql_mode" || value != "STRICT_TRANS_TABLES" {
		t.Errorf("SHOW VARIABLES LIKE 'sql\\_mode': %q %q %v", name, value, err)
	}
	if err := c1.QueryRowContext(ctx, "SHOW GLOBAL VARIABLES LIKE 'SQL_MODE'").Scan(&name, &value); err != nil || !strings.HasPrefix(value, "ONLY_FULL_GROUP_BY") {
		t.Errorf("SHOW GLOBAL VARIABLES LIKE 'SQL_MODE': %q %q %v", name, value, err)
	}
	all, err := c1.QueryContext(ctx, "SHOW VARIABLES")
	if err != nil {
		t.Fatal(err)
	}
	if n := len(scanAll(t, all)); n < 30 {
		t.Errorf("SHOW VARIABLES: %d rows", n)
	}
	if _, err := c1.QueryContext(ctx, "SHOW VARIABLES WHERE Variable_name = 'x'"); err == nil || !strings.Contains(err.Error(), "SHOW VARIABLES LIKE") {
		t.Errorf("SHOW VARIABLES WHERE: %v", err)
	}
	_, err = c1.ExecContext(ctx, "SET autocommit = 'sometimes'")
	var ue *UnsupportedError
	if err == nil || !strings.Contains(err.Error(), "0 or 1") {
		t.Errorf("SET autocommit = 'sometimes': %v", err)
	}
	if _, err := c1.ExecContext(ctx, "SET @@global.sql_mode = ''"); !errors.As(err, &ue) {
		t.Errorf("SET @@global: %T %v, want *UnsupportedError", err, err)
	}
}
