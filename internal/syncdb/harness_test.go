package syncdb

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"maps"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/airsql/airsql/emulator"
	"github.com/airsql/airsql/internal/clock"
	"github.com/airsql/airsql/replica"
	"github.com/airsql/airsql/transport"
)

var bg = context.Background()

const (
	syncBase = "appSYNC0000000001"
	tasksID  = "tblTASKS000000001"
	peopleID = "tblPEOPLE00000001"
	fldName  = "fldNAME0000000001"
	fldN     = "fldN0000000000001"
	fldCost  = "fldCOST0000000001"
	fldStat  = "fldSTATUS00000001"
	fldTags  = "fldTAGS0000000001"
	fldDone  = "fldDONE0000000001"
	fldDue   = "fldDUE00000000001"
	fldOwner = "fldOWNER000000001"
	fldPTask = "fldPTASKS00000001"
)

// fixture: Tasks (text, integer, decimal, single and multiple select, checkbox, date, a link to
// People with its inverse, a lookup through it, a formula) and People.
func fixture() *emulator.Fixture {
	return &emulator.Fixture{Bases: []emulator.FixtureBase{{ID: syncBase, Name: "Sync", Tables: []emulator.FixtureTable{
		{ID: peopleID, Name: "People", Fields: []emulator.FixtureField{
			{ID: "fldPNAME000000001", Name: "Name", Type: "singleLineText"},
			{ID: fldPTask, Name: "Tasks", Type: "multipleRecordLinks", Options: map[string]any{"linkedTableId": tasksID, "inverseLinkFieldId": fldOwner}},
		}, Records: []emulator.FixtureRecord{{ID: "recPERSON00000001", Fields: map[string]any{"Name": "Ada"}}}},
		{ID: tasksID, Name: "Tasks", Fields: []emulator.FixtureField{
			{ID: fldName, Name: "Name", Type: "singleLineText"},
			{ID: fldN, Name: "N", Type: "number", Options: map[string]any{"precision": 0}},
			{ID: fldCost, Name: "Cost", Type: "number", Options: map[string]any{"precision": 2}},
			{ID: fldStat, Name: "Status", Type: "singleSelect", Options: map[string]any{"choices": []any{map[string]any{"name": "Todo"}, map[string]any{"name": "Done"}}}},
			{ID: fldTags, Name: "Tags", Type: "multipleSelects", Options: map[string]any{"choices": []any{map[string]any{"name": "a"}, map[string]any{"name": "b"}}}},
			{ID: fldDone, Name: "Done", Type: "checkbox", Options: map[string]any{"icon": "check", "color": "greenBright"}},
			{ID: fldDue, Name: "Due", Type: "date", Options: map[string]any{"dateFormat": map[string]any{"name": "iso"}}},
			{ID: fldOwner, Name: "Owner", Type: "multipleRecordLinks", Options: map[string]any{"linkedTableId": peopleID, "inverseLinkFieldId": fldPTask}},
			{ID: "fldOWNERNAME00001", Name: "Owner Name", Type: "multipleLookupValues", Options: map[string]any{"recordLinkFieldId": fldOwner, "fieldIdInLinkedTable": "fldPNAME000000001"}},
			{ID: "fldSCORE000000001", Name: "Score", Type: "formula", Options: map[string]any{"formula": "{N} * 2"}},
		}, Records: []emulator.FixtureRecord{
			{ID: "recTASK0000000001", Fields: map[string]any{"Name": "first", "N": 1.0, "Status": "Todo", "Due": "2025-05-01", "Owner": []any{"recPERSON00000001"}}},
		}},
	}}}}
}

type harness struct {
	t    *testing.T
	s    *emulator.Server
	clk  *clock.Jump
	base *transport.Base // the test's writes and checks
	sync *transport.Base // the Syncer's client
}

func newBase(t *testing.T, hc *http.Client, endpoint string, clk *clock.Jump) *transport.Base {
	t.Helper()
	b, err := transport.NewBase(emulator.DefaultToken, syncBase, transport.WithEndpointURL(endpoint),
		transport.WithHTTPClient(hc), transport.WithClock(clk), transport.WithRetryStrategy(transport.RetryStrategy()))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func newHarness(t *testing.T) *harness {
	t.Helper()
	clk := clock.NewJump(time.Date(2025, 6, 1, 0, 0, 0, 0, time.UTC))
	s, err := emulator.New(emulator.WithFixture(fixture()), emulator.WithClock(clk), emulator.WithRate(0, 0))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return &harness{t: t, s: s, clk: clk, base: newBase(t, s.Client(), emulator.InProcessURL, clk), sync: newBase(t, s.Client(), emulator.InProcessURL, clk)}
}

// syncer opens the target afresh and a Syncer on it: each call is a restart of airsql sync.
func (h *harness) syncer(url string, opts Options) (*Syncer, *Target) {
	h.t.Helper()
	tg, err := OpenTarget(url)
	if err != nil {
		h.t.Fatal(err)
	}
	h.t.Cleanup(func() { tg.Close() })
	opts.Clock = h.clk
	s, err := New(bg, h.sync, tg, opts)
	if err != nil {
		h.t.Fatal(err)
	}
	return s, tg
}

// assertEqual compares the target with the base, record by record and field by field, through the
// target's SQL: every table of the base is a table with the columns the driver announces, holding
// the values the driver reads (typed by translate from a fresh listing), each link field a junction
// table holding the same ids in the same order, and there is no other table.
func (h *harness) assertEqual(tg *Target, when string) {
	h.t.Helper()
	schema, err := h.base.Schema(bg)
	if err != nil {
		h.t.Fatal(err)
	}
	wantTables := []string{syncTable, fieldsTable}
	for _, src := range schema.Tables {
		ts := &tableState{ID: src.ID, Name: src.Name, Fields: map[string]fieldState{}}
		for _, f := range src.Fields {
			ts.Fields[f.ID] = fieldState{Field: fieldOf(f), Options: f.Options}
			ts.Order = append(ts.Order, f.ID)
		}
		if err := ts.reshape(); err != nil {
			h.t.Fatal(err)
		}
		wantTables = append(wantTables, src.Name)
		recs, err := h.base.All(bg, src.ID, transport.ListOptions{ReturnFieldsByFieldID: true})
		if err != nil {
			h.t.Fatal(err)
		}
		want := map[string]map[string]string{}
		wantLinks := map[string][]string{} // junction -> "record linked position" rows
		for _, r := range recs {
			vals, err := ts.shape.values(r.ID, r.CreatedTime, r.Fields, true)
			if err != nil {
				h.t.Fatal(err)
			}
			row := map[string]string{"id": r.ID, "createdTime": norm("DATETIME", r.CreatedTime)}
			for fid, v := range vals {
				row[ts.Fields[fid].Name] = norm(ts.shape.dbType(fid), v)
			}
			want[r.ID] = row
			for _, fid := range ts.Order {
				if f := ts.Fields[fid]; isLink(f) {
					list, _ := r.Fields[fid].([]any)
					for pos, l := range list {
						wantLinks[src.Name+"__"+f.Name] = append(wantLinks[src.Name+"__"+f.Name], fmt.Sprintf("%s %s %d", r.ID, l, pos))
					}
				}
			}
		}
		types := map[string]string{"id": "TEXT", "createdTime": "DATETIME"}
		for fid, f := range ts.Fields {
			types[f.Name] = ts.shape.dbType(fid)
			if isLink(f) {
				wantTables = append(wantTables, src.Name+"__"+f.Name)
			}
		}
		got := h.readTable(tg, src.Name, types, when)
		if len(got) != len(want) {
			h.t.Fatalf("%s: table %s has %d rows, the base %d records", when, src.Name, len(got), len(want))
		}
		for id, wr := range want {
			gr, ok := got[id]
			if !ok {
				h.t.Fatalf("%s: record %s of %s is not in the target", when, id, src.Name)
			}
			if !maps.Equal(gr, wr) {
				for _, c := range slices.Sorted(maps.Keys(wr)) {
					if gr[c] != wr[c] {
						h.t.Fatalf("%s: %s record %s column %q: got %s, want %s", when, src.Name, id, c, gr[c], wr[c])
					}
				}
				h.t.Fatalf("%s: %s record %s: got columns %v, want %v", when, src.Name, id, slices.Sorted(maps.Keys(gr)), slices.Sorted(maps.Keys(wr)))
			}
		}
		for _, fid := range ts.Order {
			if f := ts.Fields[fid]; isLink(f) {
				j := src.Name + "__" + f.Name
				got := h.query(tg, `SELECT "record_id", "linked_id", "position" FROM `+quote(j))
				slices.Sort(got)
				w := wantLinks[j]
				slices.Sort(w)
				if !slices.Equal(got, w) {
					h.t.Fatalf("%s: junction %s: got %d rows %.300v, want %d %.300v", when, j, len(got), got, len(w), w)
				}
			}
		}
	}
	var list string
	if tg.d == postgresDialect {
		list = `SELECT table_name FROM information_schema.tables WHERE table_schema = 'public'`
	} else {
		list = `SELECT name FROM sqlite_master WHERE type = 'table'`
	}
	gotTables := h.query(tg, list)
	slices.Sort(gotTables)
	slices.Sort(wantTables)
	if !slices.Equal(gotTables, wantTables) {
		h.t.Fatalf("%s: the target's tables are %v, want %v", when, gotTables, wantTables)
	}
}

func fieldOf(f transport.FieldSchema) replica.Field {
	return replica.Field{ID: f.ID, Name: f.Name, Type: f.Type}
}

// readTable reads a table of the target: rows by id, each column's value normalized.
func (h *harness) readTable(tg *Target, name string, types map[string]string, when string) map[string]map[string]string {
	h.t.Helper()
	rows, err := tg.db.Query("SELECT * FROM " + quote(name))
	if err != nil {
		h.t.Fatalf("%s: read %s: %v", when, name, err)
	}
	cols, _ := rows.Columns()
	out := map[string]map[string]string{}
	for _, vals := range h.scanAll(rows) {
		row := map[string]string{}
		for i, c := range cols {
			typ, ok := types[c]
			if !ok {
				h.t.Fatalf("%s: table %s has column %q, which the base does not have (columns %v)", when, name, c, cols)
			}
			row[c] = norm(typ, vals[i])
		}
		out[row["id"]] = row
	}
	return out
}

func (h *harness) query(tg *Target, q string) []string {
	h.t.Helper()
	rows, err := tg.db.Query(q)
	if err != nil {
		h.t.Fatalf("%s: %v", q, err)
	}
	var out []string
	for _, vals := range h.scanAll(rows) {
		parts := make([]string, len(vals))
		for i, v := range vals {
			if b, ok := v.([]byte); ok {
				v = string(b)
			}
			parts[i] = fmt.Sprint(v)
		}
		out = append(out, strings.Join(parts, " "))
	}
	return out
}

// scanAll reads every row's values and closes rows.
func (h *harness) scanAll(rows *sql.Rows) [][]any {
	h.t.Helper()
	defer rows.Close()
	cols, _ := rows.Columns()
	var out [][]any
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			h.t.Fatal(err)
		}
		out = append(out, vals)
	}
	if err := rows.Err(); err != nil {
		h.t.Fatal(err)
	}
	return out
}

// norm writes a value of a column of a DatabaseType as text that is the same for the driver's value
// and for each target's (SQLite's text dates and 0/1 booleans, PostgreSQL's jsonb).
func norm(dbType string, v any) string {
	if b, ok := v.([]byte); ok {
		v = string(b)
	}
	if v == nil {
		return "NULL"
	}
	switch dbType {
	case "JSON":
		s, _ := v.(string)
		var x any
		if err := json.Unmarshal([]byte(s), &x); err != nil {
			return "bad JSON " + s
		}
		b, _ := json.Marshal(x)
		return string(b)
	case "BOOL":
		switch x := v.(type) {
		case bool:
			if x {
				return "1"
			}
			return "0"
		case int64:
			return strconv.FormatInt(x, 10)
		}
	case "DATE":
		switch x := v.(type) {
		case time.Time:
			return x.Format(time.DateOnly)
		case string:
			return x
		}
	case "DATETIME":
		switch x := v.(type) {
		case time.Time:
			return x.UTC().Format("2006-01-02T15:04:05.000Z")
		case string:
			if t, err := time.Parse(time.RFC3339Nano, x); err == nil {
				return t.UTC().Format("2006-01-02T15:04:05.000Z")
			}
			return x
		}
	case "INT64", "FLOAT64":
		switch x := v.(type) {
		case int64:
			return strconv.FormatFloat(float64(x), 'g', -1, 64)
		case float64:
			return strconv.FormatFloat(x, 'g', -1, 64)
		}
	}
	return fmt.Sprintf("%v", v)
}

// targets runs f against SQLite, and against PostgreSQL when it is installed.
func targets(t *testing.T, f func(t *testing.T, url string)) {
	t.Run("sqlite", func(t *testing.T) { f(t, "sqlite:"+filepath.Join(t.TempDir(), "copy.db")) })
	t.Run("postgres", func(t *testing.T) { f(t, startPostgres(t)) })
}

// pg is the PostgreSQL cluster the package's tests share: started by the first test that needs
// it (initdb and a start cost seconds), stopped by TestMain; each test gets a database of its own.
var pg struct {
	once  sync.Once
	admin string // the URL of the cluster's postgres database
	err   error
	stop  func()
	dbs   atomic.Int64
}

// startPostgres returns the URL of a new database in the package's PostgreSQL cluster (started on
// first use in a temporary directory, as the postgres user when the test runs as root: the server
// refuses root).
func startPostgres(t testing.TB) string {
	t.Helper()
	bin := ""
	if p, err := exec.LookPath("initdb"); err == nil {
		bin = filepath.Dir(p)
	} else if m, _ := filepath.Glob("/usr/lib/postgresql/*/bin/initdb"); len(m) > 0 {
		bin = filepath.Dir(m[len(m)-1])
	}
	if bin == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("PostgreSQL is not installed (initdb not found): CI installs it with apt-get install postgresql")
		}
		t.Skip("PostgreSQL is not installed: apt-get install postgresql")
	}
	pg.once.Do(func() { pg.admin, pg.stop, pg.err = startCluster(bin) })
	if pg.err != nil {
		t.Fatal(pg.err)
	}
	db, err := sql.Open("pgx", pg.admin)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	name := fmt.Sprintf("test%d", pg.dbs.Add(1))
	if _, err := db.Exec("CREATE DATABASE " + name); err != nil {
		t.Fatalf("create the test's database: %v", err)
	}
	return strings.Replace(pg.admin, "/postgres?", "/"+name+"?", 1)
}

// stopPostgres stops the package's cluster, if a test started it.
func stopPostgres() {
	if pg.stop != nil {
		pg.stop()
	}
}

// startCluster starts a PostgreSQL cluster in a temporary directory and returns the URL of its
// postgres database and how to stop it (and remove the directory).
func startCluster(bin string) (string, func(), error) {
	dir, err := os.MkdirTemp("", "airsql-pg")
	if err != nil {
		return "", nil, err
	}
	var asUser []string
	if os.Geteuid() == 0 {
		u, err := user.Lookup("postgres")
		if err != nil {
			return "", nil, fmt.Errorf("running as root, PostgreSQL needs the postgres user to run as: %v", err)
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		if err := os.Chown(dir, uid, gid); err != nil {
			return "", nil, err
		}
		asUser = []string{"runuser", "-u", "postgres", "--"}
	}
	run := func(args ...string) error {
		args = append(slices.Clone(asUser), args...)
		if out, err := exec.Command(args[0], args[1:]...).CombinedOutput(); err != nil {
			return fmt.Errorf("%s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return nil
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, err
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	data := filepath.Join(dir, "data")
	if err := run(filepath.Join(bin, "initdb"), "-D", data, "-U", "postgres", "--auth=trust", "-E", "UTF8", "--no-sync"); err != nil {
		os.RemoveAll(dir)
		return "", nil, err
	}
	if err := run(filepath.Join(bin, "pg_ctl"), "-D", data, "-l", filepath.Join(dir, "log"), "-w", "-o",
		fmt.Sprintf("-p %d -k %s -c listen_addresses=127.0.0.1 -c fsync=off", port, dir), "start"); err != nil {
		os.RemoveAll(dir)
		return "", nil, err
	}
	stop := func() {
		_ = run(filepath.Join(bin, "pg_ctl"), "-D", data, "-m", "immediate", "-w", "stop")
		os.RemoveAll(dir)
	}
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres?sslmode=disable", port), stop, nil
}
