package oracle

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/xwb1989/sqlparser"
)

func TestCanonical(t *testing.T) {
	tests := []struct {
		v        any
		typeName string
		want     string
	}{
		{nil, "TEXT", "NULL"},
		{true, "BOOL", "n:1"},
		{false, "BOOL", "n:0"},
		{int64(1), "TINYINT", "n:1"},
		{[]byte("1"), "TINYINT", "n:1"},
		{int64(-3000000000), "BIGINT", "n:-3000000000"},
		{float64(3), "DOUBLE", "n:3"},
		{[]byte("3.5000"), "DECIMAL", "n:3.5"},
		{3.5, "FLOAT64", "n:3.5"},
		{[]byte("2.333333333333333333333333333333"), "DECIMAL", "n:2.33333333333"},
		{7.0 / 3, "FLOAT64", "n:2.33333333333"},
		{-0.0, "DOUBLE", "n:0"},
		{int64(-4611686014132420608), "INT64", "n:-4.61168601413e+18"},
		{[]byte("-4611686014132420600"), "DECIMAL", "n:-4.61168601413e+18"},
		{"1e3", "TEXT", "s:1e3"},
		{[]byte("1e3"), "VARCHAR", "s:1e3"},
		{"", "TEXT", "s:"},
		{time.Date(2024, 2, 29, 23, 59, 59, 999e6, time.UTC), "DATETIME", "t:2024-02-29 23:59:59.999"},
		{time.Date(2024, 2, 29, 0, 0, 0, 0, time.UTC), "DATE", "t:2024-02-29 00:00:00.000"},
		{[]byte("2024-02-29"), "DATE", "t:2024-02-29 00:00:00.000"},
		{[]byte("2024-02-29 01:02:03.5"), "DATETIME", "t:2024-02-29 01:02:03.500"},
	}
	for _, tt := range tests {
		if got := Canonical(tt.v, tt.typeName); got != tt.want {
			t.Errorf("Canonical(%#v, %s) = %q, want %q", tt.v, tt.typeName, got, tt.want)
		}
	}
}

func TestDiff(t *testing.T) {
	a := &Result{Rows: [][]string{{"n:1"}, {"n:2"}}}
	b := &Result{Rows: [][]string{{"n:2"}, {"n:1"}}}
	c := &Result{Rows: [][]string{{"n:2"}}}
	failed := &Result{Err: errors.New("boom")}
	if d := Diff(a, b, false); d != "" {
		t.Errorf("unordered: %s", d)
	}
	if d := Diff(a, b, true); !strings.Contains(d, "another order") {
		t.Errorf("ordered: %q", d)
	}
	if !SameRowsOtherOrder(a, b) || SameRowsOtherOrder(a, a) || SameRowsOtherOrder(a, c) {
		t.Error("SameRowsOtherOrder")
	}
	if d := Diff(a, c, false); !strings.Contains(d, "missing 1") {
		t.Errorf("missing row: %q", d)
	}
	if d := Diff(a, failed, false); !strings.Contains(d, "got the error boom") {
		t.Errorf("error: %q", d)
	}
	if d := Diff(failed, failed, true); d != "" {
		t.Errorf("two errors: %q", d)
	}
}

func TestInstallHintIsOneLine(t *testing.T) {
	if strings.Contains(InstallHint, "\n") || !strings.Contains(InstallHint, "apt-get install mariadb-server") {
		t.Errorf("InstallHint: %q", InstallHint)
	}
}

// TestGenerator: the same seed writes the same query, every query parses, binds as many values
// as it has placeholders, and the constructs of DefaultConstructs all occur.
func TestGenerator(t *testing.T) {
	fx := NewFixture(11)
	g := NewGenerator(fx.Schema)
	carried := map[string]int{}
	tags := map[string]int{}
	ordered := 0
	for seed := range uint64(3000) {
		q := g.Query(seed)
		again := g.Query(seed)
		if q.Driver != again.Driver || q.MariaDB != again.MariaDB || len(q.Args) != len(again.Args) {
			t.Fatalf("seed %d is not reproducible:\n%s\n%s", seed, q.Driver, again.Driver)
		}
		// sqlparser cannot read WITH, OVER nor the grammar of TagMySQLGrammar (the driver rewrites
		// them before parsing).
		if _, err := sqlparser.Parse(q.Driver); err != nil && !q.Tags[TagSubstrExpr] && !q.Tags[TagMySQLGrammar] && !q.Tags[TagWindow] && !strings.HasPrefix(q.Driver, "WITH ") {
			t.Errorf("seed %d: %v\n%s", seed, err, q.Driver)
		}
		tokens := sqlparser.NewStringTokenizer(q.Driver)
		marks := 0
		for {
			typ, val := tokens.Scan()
			if typ == 0 || typ == sqlparser.LEX_ERROR {
				break
			}
			if typ == sqlparser.VALUE_ARG && strings.HasPrefix(string(val), ":v") {
				marks++ // the tokenizer names each ? :v1, :v2, …
			}
		}
		if marks != len(q.Args) {
			t.Errorf("seed %d: %d placeholders, %d arguments: %s", seed, marks, len(q.Args), q.Driver)
		}
		for _, c := range q.Constructs {
			carried[c]++
		}
		for tag := range q.Tags {
			tags[tag]++
		}
		if q.Ordered {
			ordered++
		}
	}
	for _, c := range DefaultConstructs() {
		if c.Mode != Off && c.Weight > 0 && carried[c.Name] == 0 { // weight 0: -oracle.only runs it
			t.Errorf("no query carries %s", c.Name)
		}
	}
	for _, tag := range []string{TagTimeInOrNot, TagFormulaSort, TagSubstrExpr, TagCheckboxNumber, TagLikeInvalidUTF8, TagLength, TagFloatText, TagTimeText, TagRound, TagMySQLGrammar} {
		if tags[tag] == 0 {
			t.Errorf("no query tagged %s", tag)
		}
	}
	if ordered < 500 {
		t.Errorf("only %d of 3000 queries ordered", ordered)
	}
}

func TestFixtureIsReproducible(t *testing.T) {
	a, b := NewFixture(11), NewFixture(11)
	ra, rb := a.Emulator.Bases[0].Tables[1].Records, b.Emulator.Bases[0].Tables[1].Records
	if len(ra) != 300 || len(rb) != 300 {
		t.Fatalf("%d and %d records", len(ra), len(rb))
	}
	for i := range ra {
		if ra[i].ID != rb[i].ID || ra[i].CreatedTime != rb[i].CreatedTime || len(ra[i].Fields) != len(rb[i].Fields) {
			t.Fatalf("record %d differs", i)
		}
	}
}

// TestServer: the server has the documented settings, and Close ends its process and removes
// its directory.
func TestServer(t *testing.T) {
	s := Start(t)
	ctx := context.Background()
	var collServer, collConn, tz, mode, networking string
	err := s.DB.QueryRowContext(ctx, "SELECT @@collation_server, @@collation_connection, @@time_zone, @@sql_mode, @@skip_networking").
		Scan(&collServer, &collConn, &tz, &mode, &networking)
	if err != nil {
		t.Fatal(err)
	}
	if collServer != "utf8mb4_bin" || collConn != TextCollation || tz != "+00:00" || mode != SQLMode || networking != "1" {
		t.Errorf("settings: %s %s %s %s skip_networking=%s", collServer, collConn, tz, mode, networking)
	}
	var same int
	if err := s.DB.QueryRowContext(ctx, "SELECT 'a' = 'a '").Scan(&same); err != nil || same != 0 {
		t.Errorf("'a' = 'a ' is %d (%v): trailing spaces must count", same, err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(s.dir); !os.IsNotExist(err) {
		t.Errorf("%s is left after Close: %v", s.dir, err)
	}
	select {
	case <-s.exited:
	default:
		t.Errorf("mariadbd %d still runs after Close", s.cmd.Process.Pid)
	}
}

// TestServerTimeout: a query MariaDB does not answer within the server's Timeout ends with
// ErrNoAnswer, and the next query on the pool is answered; arguments reach the query.
func TestServerTimeout(t *testing.T) {
	s := Start(t)
	s.Timeout = time.Second
	ctx := context.Background()
	for _, tc := range []struct {
		query   string
		args    []any
		timeout bool
	}{
		{"SELECT SLEEP(5) + ?", []any{1}, true},
		{"SELECT 40 + ?", []any{2}, false},
		{"SELECT SUM(a.seq * b.seq) FROM seq_1_to_100000 a, seq_1_to_100000 b", nil, true}, // busy, not asleep
		{"SELECT 'after'", nil, false},
	} {
		t.Run(tc.query, func(t *testing.T) {
			start := time.Now()
			res := s.Answer(ctx, tc.query, tc.args...)
			if got := errors.Is(res.Err, ErrNoAnswer); got != tc.timeout {
				t.Fatalf("got error %v (%d rows), timed out %v, want %v", res.Err, len(res.Rows), got, tc.timeout)
			}
			if d := time.Since(start); d > 3*time.Second {
				t.Errorf("took %v with a timeout of %v", d, s.Timeout)
			}
			if !tc.timeout && (res.Err != nil || len(res.Rows) != 1) {
				t.Errorf("got %v %v, want one row", res.Rows, res.Err)
			}
		})
	}
	if res := s.Answer(ctx, "SELECT 40 + ?", 2); res.Err != nil || res.Rows[0][0] != "n:42" {
		t.Errorf("got %v %v, want n:42", res.Rows, res.Err)
	}
}

// fakeTB records what Start does without MariaDB.
type fakeTB struct {
	testing.TB
	skipped, fatal string
}

func (f *fakeTB) Helper()                        {}
func (f *fakeTB) Skip(args ...any)               { f.skipped = fmt.Sprint(args...) }
func (f *fakeTB) Fatalf(format string, a ...any) { f.fatal = fmt.Sprintf(format, a...) }
func (f *fakeTB) Fatal(args ...any)              { f.fatal = fmt.Sprint(args...) }

// TestStartWithoutMariaDB: one line saying how to install it, and under CI=true a failure.
func TestStartWithoutMariaDB(t *testing.T) {
	saved := startServer
	t.Cleanup(func() { startServer = saved })
	startServer = func() (*Server, error) { return nil, errNotInstalled }

	t.Setenv("CI", "")
	f := &fakeTB{TB: t}
	if Start(f) != nil || f.skipped != InstallHint || f.fatal != "" {
		t.Errorf("without CI: skipped %q, failed %q", f.skipped, f.fatal)
	}
	t.Setenv("CI", "true")
	f = &fakeTB{TB: t}
	if Start(f) != nil || f.skipped != "" || !strings.Contains(f.fatal, "apt-get install mariadb-server") {
		t.Errorf("under CI=true: skipped %q, failed %q", f.skipped, f.fatal)
	}
}
