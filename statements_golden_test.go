package airsql

import (
	"context"
	"database/sql"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/airsql/airsql/frontend"
)

var updateGolden = flag.Bool("update", false, "rewrite the golden files of testdata/statements")

// airtableID matches a record, field or table id; those the emulator made up (random, mixed case,
// unlike the fixture's upper-case ones) are masked in the golden files.
var airtableID = regexp.MustCompile(`\b(rec|fld|tbl)[0-9A-Za-z]{14}\b`)

func maskMadeUpIDs(s string) string {
	return airtableID.ReplaceAllStringFunc(s, func(id string) string {
		if strings.ToUpper(id[3:]) == id[3:] {
			return id // the fixture's
		}
		return id[:3] + "…"
	})
}

// TestStatementGolden runs each testdata/statements/<kind>.sql — the statements of one kind,
// refusals included, split by the front end — through the driver on one connection to a fresh
// emulator of testdata/base.json, and compares what each answers (its columns and rows, the rows
// it affected, or its error with MySQL's number from MySQLErrorCode) with <kind>.golden.
// go test -run TestStatementGolden -update rewrites them.
func TestStatementGolden(t *testing.T) {
	inputs, err := filepath.Glob("testdata/statements/*.sql")
	if err != nil || len(inputs) == 0 {
		t.Fatalf("no inputs in testdata/statements (%v)", err)
	}
	for _, in := range inputs {
		kind := strings.TrimSuffix(filepath.Base(in), ".sql")
		t.Run(kind, func(t *testing.T) {
			data, err := os.ReadFile(in)
			if err != nil {
				t.Fatal(err)
			}
			stmts, rest := frontend.Split(string(data))
			if strings.TrimSpace(rest) != "" {
				t.Fatalf("%s: text after the last ';': %q", in, rest)
			}
			db, _ := openDB(t, newEmulator(t), "")
			ctx := context.Background()
			conn, err := db.Conn(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			var b strings.Builder
			for _, sql := range stmts {
				fmt.Fprintf(&b, "-- %s\n%s\n", strings.ReplaceAll(sql, "\n", "\n-- "), answer(ctx, conn, sql))
			}
			got := maskMadeUpIDs(b.String())
			out := strings.TrimSuffix(in, ".sql") + ".golden"
			if *updateGolden {
				if err := os.WriteFile(out, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(out)
			if err != nil {
				t.Fatalf("%v (go test -run TestStatementGolden -update creates it)", err)
			}
			if got != string(want) {
				t.Errorf("%s differs (go test -run TestStatementGolden -update rewrites it)\ngot:\n%s\nwant:\n%s", out, got, want)
			}
		})
	}
}

// answer runs one statement as a client would — QueryContext when the front end says it returns
// rows, else ExecContext — and writes what it answered.
func answer(ctx context.Context, conn *sql.Conn, sql string) string {
	st, err := frontend.Read(sql)
	if err == nil && !st.ReturnsRows() {
		res, err := conn.ExecContext(ctx, sql)
		if err != nil {
			return errorLine(err)
		}
		n, err := res.RowsAffected()
		if err != nil {
			return "ok"
		}
		return fmt.Sprintf("ok, %d row(s) affected", n)
	}
	rows, err := conn.QueryContext(ctx, sql)
	if err != nil {
		return errorLine(err)
	}
	defer rows.Close()
	cols, _ := rows.ColumnTypes()
	var b strings.Builder
	for i, c := range cols {
		if i > 0 {
			b.WriteString(" | ")
		}
		fmt.Fprintf(&b, "%s %s", c.Name(), c.DatabaseTypeName())
	}
	vals := make([]any, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			return errorLine(err)
		}
		b.WriteString("\n")
		for i, v := range vals {
			if i > 0 {
				b.WriteString(" | ")
			}
			switch v := v.(type) {
			case nil:
				b.WriteString("NULL")
			case time.Time:
				b.WriteString(v.UTC().Format(time.RFC3339Nano))
			default:
				fmt.Fprint(&b, v)
			}
		}
	}
	if err := rows.Err(); err != nil {
		b.WriteString("\n" + errorLine(err))
	}
	return b.String()
}

// errorLine is an error as a MySQL client shows it: number, SQLSTATE, message.
func errorLine(err error) string {
	code, state := MySQLErrorCode(err)
	return fmt.Sprintf("error %d (%s): %v", code, state, err)
}
