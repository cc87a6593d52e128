package airsql_test

import (
	"context"
	"database/sql"
	"fmt"
	"log"
	"net/http/httptest"
	"os"
	"strings"

	"github.com/jmoiron/sqlx"

	"github.com/airsql/airsql"
	"github.com/airsql/airsql/emulator"
)

// startEmulator serves testdata/base.json on a loopback port, as cmd/airtable-emulator would.
func startEmulator() (*emulator.Server, *httptest.Server) {
	data, err := os.ReadFile("testdata/base.json")
	if err != nil {
		log.Fatal(err)
	}
	fixture, err := emulator.ParseFixture(data)
	if err != nil {
		log.Fatal(err)
	}
	srv, err := emulator.New(emulator.WithFixture(fixture))
	if err != nil {
		log.Fatal(err)
	}
	return srv, httptest.NewServer(srv)
}

// Example opens a base with sql.Open and runs a SELECT that goes out as one list request
// (filterByFormula, sort, maxRecords and fields[]).
func Example() {
	srv, listener := startEmulator()
	defer srv.Close()
	defer listener.Close()
	host := strings.TrimPrefix(listener.URL, "http://")

	// tls=false is accepted because the host is a loopback address.
	db, err := sql.Open("airtable", "airtable://"+emulator.DefaultToken+"@"+host+"/appTEST0000000001?tls=false")
	if err != nil {
		log.Fatal(err)
	}
	defer db.Close()

	rows, err := db.Query("SELECT Name, Priority FROM Tasks WHERE Priority >= ? ORDER BY Priority DESC LIMIT 10", 3)
	if err != nil {
		log.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var name string
		var priority int64
		if err := rows.Scan(&name, &priority); err != nil {
			log.Fatal(err)
		}
		fmt.Println(name, priority)
	}
	if err := rows.Err(); err != nil {
		log.Fatal(err)
	}
	// Output:
	// Ship it 5
	// write tests 4
	// Write spec 3
}

// Example_sqlx scans into tagged structs with sqlx; an empty cell is NULL, an unchecked checkbox
// is false, a multiple select is JSON text that airsql.List scans.
func Example_sqlx() {
	srv, _ := startEmulatorInProcess()
	defer srv.Close()
	cfg, err := airsql.ParseDSN("airtable://" + emulator.DefaultToken + "@localhost/appTEST0000000001?tls=false")
	if err != nil {
		log.Fatal(err)
	}
	cfg.HTTPClient = srv.Client() // in-process: no port, no network
	connector, err := airsql.NewConnector(cfg)
	if err != nil {
		log.Fatal(err)
	}
	db := sqlx.NewDb(sql.OpenDB(connector), "airtable")
	defer db.Close()

	type task struct {
		Name     string        `db:"Name"`
		Priority sql.NullInt64 `db:"Priority"`
		Done     bool          `db:"Done"`
		Tags     airsql.List   `db:"Tags"`
	}
	var tasks []task
	err = db.Select(&tasks, "SELECT Name, Priority, Done, Tags FROM Tasks WHERE Status = ? ORDER BY Name", "Todo")
	if err != nil {
		log.Fatal(err)
	}
	for _, t := range tasks {
		fmt.Printf("%s | priority %v (valid %v) | done %v | tags %q\n", t.Name, t.Priority.Int64, t.Priority.Valid, t.Done, []string(t.Tags))
	}
	// Output:
	// No priority | priority 0 (valid false) | done false | tags []
	// Write spec | priority 3 (valid true) | done false | tags ["red" "blue"]
	// it's quoted "twice" | priority 1 (valid true) | done false | tags []
}

// Example_insertReturning runs an INSERT with QueryContext to get the created records' ids
// (Result.LastInsertId answers 0, as MySQL for a table without AUTO_INCREMENT: record ids are strings).
func Example_insertReturning() {
	srv, _ := startEmulatorInProcess()
	defer srv.Close()
	cfg, _ := airsql.ParseDSN("airtable://" + emulator.DefaultToken + "@localhost/appTEST0000000001?tls=false")
	cfg.HTTPClient = srv.Client()
	connector, _ := airsql.NewConnector(cfg)
	db := sql.OpenDB(connector)
	defer db.Close()

	rows, err := db.QueryContext(context.Background(),
		"INSERT INTO Tasks (Name, Priority, Tags) VALUES (?, ?, ?), (?, ?, NULL)",
		"Plan launch", 4, []string{"green"}, "Book venue", 2)
	if err != nil {
		log.Fatal(err)
	}
	defer rows.Close()
	var ids []string
	for rows.Next() {
		var r struct {
			id, name string
			fields   [9]any
		}
		dest := []any{&r.id, &r.name}
		for i := range r.fields {
			dest = append(dest, &r.fields[i])
		}
		if err := rows.Scan(dest...); err != nil {
			log.Fatal(err)
		}
		fmt.Println(strings.HasPrefix(r.id, "rec"), r.name)
		ids = append(ids, r.id)
	}
	var score int64
	if err := db.QueryRow("SELECT Score FROM Tasks WHERE id = ?", ids[0]).Scan(&score); err != nil {
		log.Fatal(err)
	}
	fmt.Println("score of the first:", score)
	// Output:
	// true Plan launch
	// true Book venue
	// score of the first: 8
}

// ExampleParseDSN reads a DSN; String never shows the token.
func ExampleParseDSN() {
	cfg, err := airsql.ParseDSN("airtable://patXXXXXXXXXXXXXX.secret@/appXXXXXXXXXXXXXX?typecast=true&readTimeout=1m")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(cfg.BaseID, cfg.Host, cfg.TLS, cfg.Typecast, cfg.ReadTimeout)
	fmt.Println(cfg)
	// Output:
	// appXXXXXXXXXXXXXX api.airtable.com true true 1m0s
	// airtable://REDACTED@/appXXXXXXXXXXXXXX?readTimeout=1m0s&typecast=true
}

func startEmulatorInProcess() (*emulator.Server, error) {
	data, err := os.ReadFile("testdata/base.json")
	if err != nil {
		return nil, err
	}
	fixture, err := emulator.ParseFixture(data)
	if err != nil {
		return nil, err
	}
	return emulator.New(emulator.WithFixture(fixture))
}

// Example_groupBy runs a report: the service is asked for the one field the GROUP BY reads
// (fields[]=Status), and the counts, sums and averages are computed as the pages arrive.
func Example_groupBy() {
	srv, listener := startEmulator()
	defer srv.Close()
	defer listener.Close()
	host := strings.TrimPrefix(listener.URL, "http://")
	db, err := sql.Open("airtable", "airtable://"+emulator.DefaultToken+"@"+host+"/appTEST0000000001?tls=false")
	if err != nil {
		log.Fatal(err)
	}
	defer db.Close()

	rows, err := db.Query(`SELECT Status, COUNT(*) AS tasks, SUM(Priority) AS total, AVG(Priority) AS average
		FROM Tasks WHERE Status IS NOT NULL GROUP BY Status HAVING COUNT(*) > 1 ORDER BY tasks DESC, Status`)
	if err != nil {
		log.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var status string
		var tasks, total int64
		var average float64
		if err := rows.Scan(&status, &tasks, &total, &average); err != nil {
			log.Fatal(err)
		}
		fmt.Printf("%s: %d tasks, priority %d in all, %.1f on average\n", status, tasks, total, average)
	}
	if err := rows.Err(); err != nil {
		log.Fatal(err)
	}
	// Output:
	// Todo: 3 tasks, priority 4 in all, 2.0 on average
	// Doing: 2 tasks, priority 6 in all, 3.0 on average
}
