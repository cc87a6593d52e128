package mysqlserver

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/go-mysql-org/go-mysql/mysql"

	"github.com/airsql/airsql"
	"github.com/airsql/airsql/frontend"
)

func TestSplitStatements(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []string
	}{
		{"SELECT 1", []string{"SELECT 1"}},
		{"SELECT 1;", []string{"SELECT 1"}},
		{"SET NAMES utf8mb4; SELECT a FROM t", []string{"SET NAMES utf8mb4", "SELECT a FROM t"}},
		{"SELECT 'a;b' FROM t WHERE `c;d` = \"e;f\"; SELECT 2", []string{"SELECT 'a;b' FROM t WHERE `c;d` = \"e;f\"", "SELECT 2"}},
		{"SELECT 1 /* ; */; -- trailing\n", []string{"SELECT 1 /* ; */"}},
		{";;SELECT 1;;", []string{"SELECT 1"}},
	} {
		if got := frontend.Statements(c.in); !reflect.DeepEqual(got, c.want) {
			t.Errorf("frontend.Statements(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// TestServerStatements: the statements the server answers itself (KILL, USE, SHOW DATABASES over
// several bases) are recognised by the front end, whatever comment comes before them.
func TestServerStatements(t *testing.T) {
	for _, c := range []struct {
		in        string
		id        uint64
		queryOnly bool
		ok        bool
	}{
		{"KILL 12", 12, false, true},
		{"kill query 7", 7, true, true},
		{"KILL CONNECTION 9", 9, false, true},
		{"/* x */ KILL QUERY 3", 3, true, true},
		{"KILL", 0, false, false},
		{"KILL 'a'", 0, false, false},
		{"KILL 1 2", 0, false, false},
		{"SELECT 1", 0, false, false},
		{"KILL 99999999999", 0, false, false},
	} {
		st, _ := frontend.Read(c.in)
		k, ok := st.(*frontend.Kill)
		if ok != c.ok || ok && (k.ID != c.id || k.QueryOnly != c.queryOnly) {
			t.Errorf("Read(%q) = %+v, want KILL %d (query only %v): %v", c.in, st, c.id, c.queryOnly, c.ok)
		}
	}
	for in, want := range map[string]string{"USE appX": "appX", "use `app X`": "app X", "-- c\nUSE appY": "appY", "USE": "", "USE a b": "", "USE ;": ""} {
		st, _ := frontend.Read(in)
		got := ""
		if u, ok := st.(*frontend.Use); ok {
			got = u.Database
		}
		if got != want {
			t.Errorf("Read(%q): USE %q, want %q", in, got, want)
		}
	}
	for in, want := range map[string]bool{"SHOW DATABASES": true, "show schemas": true, "/* c */ SHOW DATABASES;": true,
		"SHOW DATABASES LIKE 'a'": false, "SHOW TABLES": false} {
		st, _ := frontend.Read(in)
		sh, ok := st.(*frontend.Show)
		if got := ok && isShowDatabases(sh); got != want {
			t.Errorf("isShowDatabases(%q) = %v", in, got)
		}
	}
}

func TestLikeFold(t *testing.T) {
	for _, c := range []struct {
		p, s string
		want bool
	}{
		{"", "", true}, {"%", "anything", true}, {"n%", "Name", true}, {"_ame", "Name", true},
		{"name", "NAME", true}, {"n_", "Name", false}, {`a\%`, "a%", true}, {`a\%`, "ab", false}, {"%e%", "Due", true},
	} {
		if got := likeFold(c.p, c.s); got != c.want {
			t.Errorf("likeFold(%q, %q) = %v", c.p, c.s, got)
		}
	}
}

func TestLengthEncoding(t *testing.T) {
	for _, n := range []uint64{0, 250, 251, 65535, 65536, 1<<24 - 1, 1 << 24, math.MaxUint64} {
		if got, want := appendLenEnc(nil, n), mysql.PutLengthEncodedInt(n); !bytes.Equal(got, want) {
			t.Errorf("appendLenEnc(%d) = %x, want %x", n, got, want)
		}
	}
}

func TestTextValues(t *testing.T) {
	date := columnFor("", "d", "DATE", true)
	dt := columnFor("", "t", "DATETIME", true)
	text := columnFor("", "s", "TEXT", true)
	when := time.Date(2024, 3, 5, 7, 8, 9, 120e6, time.UTC)
	for _, c := range []struct {
		col  column
		v    any
		want string
	}{
		{text, "héllo", "héllo"}, {text, int64(-42), "-42"}, {text, true, "1"}, {text, false, "0"},
		{text, 1.5, "1.5"}, {text, 1e6, "1000000"}, {text, 1e20, "1e20"}, {text, 1.25e-7, "0.000000125"}, {text, -3e-300, "-3e-300"}, {text, 0.0, "0"},
		{date, when, "2024-03-05"}, {dt, when, "2024-03-05 07:08:09.120"},
	} {
		b, err := appendText(nil, &c.col, c.v)
		if err != nil {
			t.Fatal(err)
		}
		got, _, _, err := mysql.LengthEncodedString(b)
		if err != nil || string(got) != c.want {
			t.Errorf("%T %v: %q, want %q", c.v, c.v, got, c.want)
		}
	}
	if b, _ := appendText(nil, &text, nil); !bytes.Equal(b, []byte{0xfb}) {
		t.Errorf("NULL: %x", b)
	}
}

func TestBinaryRow(t *testing.T) {
	cols := []column{
		columnFor("", "i", "INT64", true), columnFor("", "f", "FLOAT64", true), columnFor("", "b", "BOOL", false),
		columnFor("", "d", "DATE", true), columnFor("", "t", "DATETIME", true), columnFor("", "s", "TEXT", true),
		columnFor("", "j", "JSON", true), columnFor("", "n", "TEXT", true),
	}
	when := time.Date(2024, 3, 5, 7, 8, 9, 120e6, time.UTC)
	row, err := appendBinaryRow(nil, cols, []any{int64(-2), 2.5, true, when, when, "ab", `["x"]`, nil})
	if err != nil {
		t.Fatal(err)
	}
	want := []byte{0x00, 0x00, 0x02} // header; NULL bitmap with offset 2: column 7 is bit 9
	want = append(want, 0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff)
	want = append(want, 0, 0, 0, 0, 0, 0, 0x04, 0x40)
	want = append(want, 1)
	want = append(want, 4, 0xe8, 0x07, 3, 5)
	want = append(want, 11, 0xe8, 0x07, 3, 5, 7, 8, 9, 0xc0, 0xd4, 0x01, 0x00)
	want = append(want, 2, 'a', 'b')
	want = append(want, 5, '[', '"', 'x', '"', ']')
	if !bytes.Equal(row, want) {
		t.Errorf("binary row\n got %x\nwant %x", row, want)
	}
	if _, err := appendBinaryRow(nil, cols[:1], []any{"not a number"}); err == nil || !strings.Contains(err.Error(), "driver bug") {
		t.Errorf("a mismatched value: %v", err)
	}
}

func TestErrorMapping(t *testing.T) {
	s := &Server{cfg: Config{Secrets: []string{"patSECRET.token", ""}, QueryTimeout: time.Second}}
	for _, c := range []struct {
		err   error
		cause error
		code  uint16
		state string
	}{
		// The driver's types map through airsql.MySQLErrorCode (TestMySQLErrorCode has them all).
		{fmt.Errorf("wrapped: %w", &airsql.NoTableError{Table: "x"}), nil, 1146, "42S02"},
		{fmt.Errorf("x: %w", &airsql.UnsupportedError{Construct: "JOIN"}), nil, 1235, "42000"},
		{fmt.Errorf("x: %w", &airsql.UnknownColumnError{Detail: `"x" in table "t"`}), nil, 1054, "42S22"},
		{errors.New("airsql: syntax error at position 6 near 'SELEC'"), nil, 1105, "HY000"}, // by type, not by wording
		{errors.New("something else"), nil, 1105, "HY000"},
		{context.Canceled, errKilled, 1317, "70100"},
		{context.Canceled, errClientGone, 1317, "70100"},
		{context.DeadlineExceeded, errQueryTimeout, 3024, "HY000"},
		{fmt.Errorf("request: %w", context.Canceled), errShutdown, 1053, "08S01"},
		{mysql.NewError(mysql.ER_BAD_DB_ERROR, "x"), nil, 1049, "42000"},
	} {
		my := s.mysqlError(c.err, c.cause)
		if my.Code != c.code || my.State != c.state {
			t.Errorf("%v (cause %v): %d %s, want %d %s", c.err, c.cause, my.Code, my.State, c.code, c.state)
		}
	}
	if my := s.mysqlError(errors.New("bad token patSECRET.token here"), nil); strings.Contains(my.Message, "patSECRET") {
		t.Errorf("the token reached a message: %q", my.Message)
	}
}

func FuzzSplitStatements(f *testing.F) {
	for _, s := range []string{"SELECT 1; SELECT 2", "SELECT ';'", "/* ; */ SELECT `;`", "SELECT \"a\\\";\"", "-- x\n;"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, piece := range frontend.Statements(s) {
			if !strings.Contains(s, piece) {
				t.Fatalf("piece %q is not part of %q", piece, s)
			}
		}
		if n := frontend.Placeholders(s); n > strings.Count(s, "?") {
			t.Fatalf("%d placeholders in %q", n, s)
		}
	})
}

func FuzzLikeFold(f *testing.F) {
	f.Add("a%b_", "aXXbY")
	f.Fuzz(func(t *testing.T, p, s string) {
		if len(p) > 64 || len(s) > 64 {
			return
		}
		likeFold(p, s)
		if !strings.ContainsAny(s, `%_\`) && !likeFold(s, s) {
			t.Fatalf("%q does not match itself", s)
		}
	})
}

func TestDecodeParam(t *testing.T) {
	for _, c := range []struct {
		b        []byte
		typ      byte
		unsigned bool
		want     any
		used     int
	}{
		{[]byte{0xff}, mysql.MYSQL_TYPE_TINY, false, int64(-1), 1},
		{[]byte{0xff}, mysql.MYSQL_TYPE_TINY, true, int64(255), 1},
		{[]byte{0xfe, 0xff}, mysql.MYSQL_TYPE_SHORT, false, int64(-2), 2},
		{[]byte{1, 0, 0, 0x80}, mysql.MYSQL_TYPE_LONG, false, int64(math.MinInt32 + 1), 4},
		{[]byte{1, 0, 0, 0x80}, mysql.MYSQL_TYPE_LONG, true, int64(1<<31 + 1), 4},
		{[]byte{0, 0, 0xc0, 0x3f}, mysql.MYSQL_TYPE_FLOAT, false, 1.5, 4},
		{[]byte{0, 0, 0, 0, 0, 0, 0xf8, 0x3f}, mysql.MYSQL_TYPE_DOUBLE, false, 1.5, 8},
		{[]byte{4, 0xe8, 0x07, 2, 29}, mysql.MYSQL_TYPE_DATE, false, time.Date(2024, 2, 29, 0, 0, 0, 0, time.UTC), 5},
		{[]byte{11, 0xe8, 0x07, 2, 29, 1, 2, 3, 0x40, 0x42, 0x0f, 0}, mysql.MYSQL_TYPE_DATETIME, false, time.Date(2024, 2, 29, 1, 2, 3, 1e9, time.UTC), 12},
		{[]byte{8, 1, 1, 0, 0, 0, 2, 3, 4}, mysql.MYSQL_TYPE_TIME, false, "-26:03:04", 9},
		{[]byte{3, 'a', 'b', 'c'}, mysql.MYSQL_TYPE_VAR_STRING, false, "abc", 4},
		{[]byte{4, '1', '.', '2', '5'}, mysql.MYSQL_TYPE_NEWDECIMAL, false, "1.25", 5},
		{append([]byte{0xfc, 0x2c, 0x01}, bytes.Repeat([]byte{'x'}, 300)...), mysql.MYSQL_TYPE_BLOB, false, strings.Repeat("x", 300), 303},
		{[]byte{0xfb}, mysql.MYSQL_TYPE_STRING, false, nil, 1},
	} {
		v, used, err := decodeParam(c.b, c.typ, c.unsigned)
		if err != nil || used != c.used || !reflect.DeepEqual(v, c.want) {
			t.Errorf("type %d % x: %v (%T), %d, %v; want %v, %d", c.typ, c.b, v, v, used, err, c.want, c.used)
		}
	}
	for _, c := range []struct {
		b   []byte
		typ byte
	}{{nil, mysql.MYSQL_TYPE_LONGLONG}, {[]byte{7, 1}, mysql.MYSQL_TYPE_DATETIME}, {[]byte{5, 'a'}, mysql.MYSQL_TYPE_STRING}, {[]byte{3, 0, 0, 0}, mysql.MYSQL_TYPE_DATE}, {[]byte{0xfe, 1}, mysql.MYSQL_TYPE_STRING}, {[]byte{0xfc, 5, 0, 'a'}, mysql.MYSQL_TYPE_STRING}} {
		if _, _, err := decodeParam(c.b, c.typ, false); err == nil {
			t.Errorf("type %d % x: no error", c.typ, c.b)
		}
	}
}

func FuzzBind(f *testing.F) {
	f.Add([]byte{0, 1, 0xfd, 0, 3, 'a', 'b', 'c', 8, 0}, 2)
	f.Fuzz(func(t *testing.T, b []byte, params int) {
		if params < 0 || params > 64 {
			return
		}
		st := &stmtState{params: params}
		st.bind(b) // no panic, whatever the bytes
		st.bind(b) // and again, with the types of the first (if it had any)
	})
}
