package airsql

import (
	"context"
	"database/sql"
	"errors"
	"runtime"
	"strings"
	"testing"

	"github.com/airsql/airsql/transport"
)

// A value no request could carry is refused before anything is built from it, with an error
// naming the limit, and nothing is sent.
func TestValueTooLargeRefusedBeforeBuilding(t *testing.T) {
	srv := newEmulator(t)
	db, _ := openDB(t, srv, "")
	warmSchema(t, db, srv)
	ctx := context.Background()
	big := strings.Repeat("ab%_", 10<<20/4) // 10 MB
	for _, tt := range []struct {
		name  string
		query string
		args  []any
	}{
		{"LIKE argument", "SELECT id FROM Tasks WHERE Name LIKE ?", []any{big}},
		{"[]byte argument", "SELECT id FROM Tasks WHERE Name = ?", []any{[]byte(big)}},
		{"INSERT argument", "INSERT INTO Tasks (Name) VALUES (?)", []any{big}},
		{"literal", "SELECT id FROM Tasks WHERE Name LIKE '" + big + "'", nil},
	} {
		var m0, m1 runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&m0)
		_, err := db.ExecContext(ctx, tt.query, tt.args...)
		if tt.name != "INSERT argument" {
			var rows interface{ Close() error }
			rows, err = db.QueryContext(ctx, tt.query, tt.args...)
			if err == nil {
				rows.Close()
			}
		}
		runtime.ReadMemStats(&m1)
		var tl *ValueTooLargeError
		if !errors.As(err, &tl) || !strings.Contains(err.Error(), "5 MiB") {
			t.Errorf("%s: got %.200v, want a *ValueTooLargeError naming the 5 MiB limit", tt.name, err)
		}
		// The SQL text and database/sql's copies aside, nothing proportional to the value is built.
		if grew := int64(m1.TotalAlloc - m0.TotalAlloc); grew > 8*int64(len(tt.query)+len(big))+(8<<20) {
			t.Errorf("%s: %d MB allocated to refuse a 10 MB value", tt.name, grew>>20)
		}
		if n := len(dataRequests(srv)); n != 0 {
			t.Errorf("%s: %d requests sent", tt.name, n)
		}
	}
}

// A value under the limit whose formula would still be too large is refused by transport before
// sending: the service would answer 413.
func TestFormulaTooLargeRefusedBeforeSending(t *testing.T) {
	srv := newEmulator(t)
	db, _ := openDB(t, srv, "")
	warmSchema(t, db, srv)
	arg := strings.Repeat(`"`, 4<<20) // 4 MiB of quotes: escaped in the formula and again in JSON
	rows, err := db.QueryContext(context.Background(), "SELECT id FROM Tasks WHERE Name = ? OR Notes = ?", arg, arg)
	if err == nil {
		for rows.Next() {
		}
		err = rows.Err()
		rows.Close()
	}
	if !errors.Is(err, transport.ErrInvalidOption) || !strings.Contains(err.Error(), "5 MiB") {
		t.Fatalf("got %.300v, want a refusal naming the 5 MiB limit", err)
	}
	if n := len(dataRequests(srv)); n != 0 {
		t.Errorf("%d requests sent", n)
	}
}

// A LIKE pattern under the value limit whose formula would pass it is refused before the formula
// is built.
func TestLikePatternTooLongForAFormula(t *testing.T) {
	srv := newEmulator(t)
	db, _ := openDB(t, srv, "")
	warmSchema(t, db, srv)
	pattern := strings.Repeat("abc%", 2<<20/4) // 2 MB: a regular expression of about 6.5 MB
	for _, q := range []struct {
		sql  string
		args []any
	}{
		{"SELECT id FROM Tasks WHERE Name LIKE ?", []any{pattern}},
		{"SELECT id FROM Tasks WHERE Name NOT LIKE :p", []any{sql.Named("p", pattern)}},
		{"DELETE FROM Tasks WHERE Name LIKE '" + pattern + "'", nil},
	} {
		var m0, m1 runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&m0)
		_, err := db.ExecContext(context.Background(), q.sql, q.args...)
		runtime.ReadMemStats(&m1)
		if err == nil || !strings.Contains(err.Error(), "LIKE pattern of 2097152 bytes") || !strings.Contains(err.Error(), "5 MiB") {
			t.Errorf("%.60s: got %.200v", q.sql, err)
		}
		if grew := int64(m1.TotalAlloc - m0.TotalAlloc); grew > 8*int64(len(q.sql)+len(pattern))+(8<<20) {
			t.Errorf("%.60s: %d MB allocated to refuse it", q.sql, grew>>20)
		}
	}
	if n := len(dataRequests(srv)); n != 0 {
		t.Errorf("%d requests sent", n)
	}
}
