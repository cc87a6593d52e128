package mysqlserver

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"net/url"
	"os"
	"os/exec"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/airsql/airsql"
	"github.com/airsql/airsql/emulator"
	"github.com/airsql/airsql/internal/oracle"
)

// oracleEnv is `airsql serve` over the emulator holding the oracle's fixture, and MariaDB
// holding the same data (internal/oracle's server and loader).
type oracleEnv struct {
	*env
	maria *oracle.Server
	fx    *oracle.Fixture
}

// oracleFixtureSeed is the root package's: the same fixture the differential test uses.
const oracleFixtureSeed = 11

// startOracleServer starts MariaDB (or skips, one line, without it), loads the oracle's fixture
// into it and into an emulator, and serves the emulator's base through a server (with demo, the
// demo base too, as a second database); adjust changes the fixture base's driver configuration.
func startOracleServer(t *testing.T, demo bool, adjust ...func(*airsql.Config)) *oracleEnv {
	t.Helper()
	maria := oracle.Start(t)
	fx := oracle.NewFixture(oracleFixtureSeed)
	fixture := fx.Emulator
	if demo {
		// The demo base beside the fixture's, in one emulator whose tokens reach both: each
		// database's driver serves the other too (DSN key bases), as airsql serve opens them, so
		// one statement can join tables of both.
		both := *fx.Emulator
		demoFx := emulator.DemoFixture()
		both.Bases = append(slices.Clone(fx.Emulator.Bases), demoFx.Bases...)
		both.Tokens = nil
		for _, tok := range append(slices.Clone(fx.Emulator.Tokens), demoFx.Tokens...) {
			tok.Bases = []string{fx.Schema.BaseID, demoDB}
			both.Tokens = append(both.Tokens, tok)
		}
		fixture = &both
	}
	emu, err := emulator.New(emulator.WithFixture(fixture), emulator.WithRate(0, 0), emulator.WithTokenRate(0))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { emu.Close() })
	if err := fx.Load(context.Background(), maria, emu.Client()); err != nil {
		t.Fatal(err)
	}
	e := &env{emu: emu, log: newLogBuffer()}
	e.block = newBlocker(emu.Transport())
	if demo {
		adjust = append(adjust, withBases(demoDB))
	}
	e.db = openDriver(t, emu, fx.Schema.BaseID, fx.Schema.Token, e.block, adjust...)
	cfg := Config{
		Databases: []Database{{Name: fx.Schema.BaseID, DB: e.db}},
		User:      testUser, Password: testPass,
		Logger:  log.New(e.log, "", 0),
		Secrets: []string{fx.Schema.Token},
	}
	if demo {
		cfg.Databases = append(cfg.Databases, Database{Name: demoDB, DB: openDriver(t, emu, demoDB, emulator.DemoToken, emu.Transport(), withBases(fx.Schema.BaseID))})
		cfg.Secrets = append(cfg.Secrets, emulator.DemoToken)
	}
	e.start(t, cfg)
	return &oracleEnv{env: e, maria: maria, fx: fx}
}

// pythonWith finds a python3 that imports every module of imports ("pymysql, sqlalchemy"), or
// skips naming the apt packages that bring them (fails under CI=true). Debian's python3 is tried
// first: the apt packages install for it, not for another python3 on PATH.
func pythonWith(t *testing.T, imports, packages string) string {
	t.Helper()
	for _, p := range []string{"/usr/bin/python3", "python3"} {
		if path, err := exec.LookPath(p); err == nil && exec.Command(path, "-c", "import "+imports).Run() == nil {
			return path
		}
	}
	return skipOrFail(t, fmt.Sprintf("python3 cannot import %s: install it with `apt-get install %s`", imports, packages))
}

// runPython runs a testdata script with the job on its standard input and decodes the JSON it
// prints into out.
func runPython(t *testing.T, py string, job any, out any, args ...string) {
	t.Helper()
	in, err := json.Marshal(job)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(py, args...)
	cmd.Stdin = bytes.NewReader(in)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s: %v\n%s%s", args[0], err, stdout.String(), stderr.String())
	}
	if err := json.Unmarshal(stdout.Bytes(), out); err != nil {
		t.Fatalf("%s printed no JSON (%v):\n%s%s", args[0], err, stdout.String(), stderr.String())
	}
}

// sqlalchemyAnswer is what testdata/sqlalchemy_client.py prints.
type sqlalchemyAnswer struct {
	Schemas       json.RawMessage            `json:"schemas"`
	DefaultSchema json.RawMessage            `json:"default_schema"`
	Tables        json.RawMessage            `json:"tables"`
	TablesSchema  json.RawMessage            `json:"tables_schema"`
	Views         json.RawMessage            `json:"views"`
	HasTable      json.RawMessage            `json:"has_table"`
	Reflect       map[string]json.RawMessage `json:"reflect"`
	Core          map[string]json.RawMessage `json:"core"`
	ORM           map[string]json.RawMessage `json:"orm"`
	Reports       map[string]json.RawMessage `json:"reports"`
}

// TestSQLAlchemyAndPandas: SQLAlchemy's MySQL dialect (over PyMySQL) reflects the base and
// selects from it, and pandas reads reports, through `airsql serve` and from MariaDB holding the
// same data; testdata/sqlalchemy_client.py prints what each read, compared here. Debian's
// python3-sqlalchemy and python3-pandas install for /usr/bin/python3.
func TestSQLAlchemyAndPandas(t *testing.T) {
	py := pythonWith(t, "pymysql, sqlalchemy, pandas", "python3-pymysql python3-sqlalchemy python3-pandas")
	o := startOracleServer(t, false)
	host, port, _ := strings.Cut(o.addr, ":")
	base := o.fx.Schema.BaseID
	airsqlURL := fmt.Sprintf("mysql+pymysql://%s:%s@%s:%s/%s?charset=utf8mb4", testUser, url.QueryEscape(testPass), host, port, base)
	mariaURL := "mysql+pymysql://root@localhost/oracle?charset=utf8mb4&unix_socket=" + url.QueryEscape(o.maria.Socket())

	job := map[string]any{
		"tables": []string{"People", "Items", "Projects"},
		"core": []map[string]any{
			{"name": "items", "table": "Items", "schema": false, "columns": []string{"id", "Name", "Qty", "Price", "Due Date", "At", "Done"}, "where": "Qty"},
			// Tags and Owner declared JSON, as their values are: information_schema says set(…)
			// for a multiple select (what SHOW CREATE TABLE and GORM's AutoMigrate compare with
			// the SET that made it), which SQLAlchemy reflects as SET and would split the JSON
			// array's text at its commas; MariaDB's JSON is LONGTEXT, which SQLAlchemy would not
			// parse.
			{"name": "items lists", "table": "Items", "schema": false, "columns": []string{"id", "Status", "Tags", "Owner"}, "where": "Tags", "json": []string{"Tags", "Owner"}},
			{"name": "items schema=", "table": "Items", "schema": true, "columns": []string{"id", "Name", "Qty", "Price", "Due Date", "At", "Done"}, "where": "Qty"},
		},
		"orm": []map[string]any{
			{"name": "people", "table": "People", "schema": false, "columns": []string{"id", "Name", "Age", "Score", "Born", "Active"}, "where": "Age"},
			{"name": "people schema=", "table": "People", "schema": true, "columns": []string{"id", "Name", "Age", "Score", "Born", "Active"}, "where": "Age"},
		},
	}
	reports := func(side int) []map[string]string {
		var out []map[string]string
		for _, r := range pandasReports {
			out = append(out, map[string]string{"name": r.name, "sql": r.sql[min(side, len(r.sql)-1)]})
		}
		return out
	}
	job["reports"] = reports(0)
	var got, want sqlalchemyAnswer
	runPython(t, py, job, &got, "testdata/sqlalchemy_client.py", airsqlURL, base)
	job["init"] = oracle.SessionInit()
	job["junction"] = true
	job["reports"] = reports(1)
	runPython(t, py, job, &want, "testdata/sqlalchemy_client.py", mariaURL, "oracle")
	if *keepClientAnswers != "" {
		for side, a := range map[string]sqlalchemyAnswer{"airsql": got, "mariadb": want} {
			b, _ := json.MarshalIndent(a, "", " ")
			if err := os.WriteFile(*keepClientAnswers+"."+side+".json", b, 0o644); err != nil {
				t.Error(err)
			}
		}
	}
	compareSQLAlchemy(t, o.fx.Schema, base, &got, &want)
}

// keepClientAnswers writes what the Python clients printed, for reading a failure.
var keepClientAnswers = flag.String("clients.keep", "", "write the Python clients' answers to `PREFIX`.airsql.json and PREFIX.mariadb.json")

// compareSQLAlchemy holds what SQLAlchemy and pandas read through `airsql serve` to what they
// read from MariaDB holding the same data, except where the two copies differ by construction
// (said at each place).
func compareSQLAlchemy(t *testing.T, schema *oracle.Schema, base string, got, want *sqlalchemyAnswer) {
	t.Run("get_schema_names", func(t *testing.T) {
		var g, w []string
		decodeStep(t, got.Schemas, &g)
		decodeStep(t, want.Schemas, &w)
		// MariaDB also lists its own mysql, performance_schema and sys, as MySQL 8 does; a
		// served base lists the base and information_schema, both of which MariaDB has as well.
		if want := []string{base, "information_schema"}; !sameSet(g, want) {
			t.Errorf("got %q, want %q", g, want)
		}
		if !slices.Contains(w, "information_schema") || !slices.Contains(w, "oracle") {
			t.Errorf("MariaDB listed %q", w)
		}
		var gd, wd string
		decodeStep(t, got.DefaultSchema, &gd)
		decodeStep(t, want.DefaultSchema, &wd)
		if gd != base || wd != "oracle" {
			t.Errorf("default schema %q (MariaDB %q), want %q", gd, wd, base)
		}
	})
	t.Run("get_table_names", func(t *testing.T) {
		var w []string
		decodeStep(t, want.Tables, &w)
		// MariaDB keeps each link in a junction table Table__Field; the base has none.
		w = slices.DeleteFunc(w, func(n string) bool { return strings.Contains(n, "__") })
		for _, raw := range []json.RawMessage{got.Tables, got.TablesSchema} {
			var g []string
			decodeStep(t, raw, &g)
			if !sameSet(g, w) {
				t.Errorf("got %q, want %q (MariaDB's, without its junction tables)", g, w)
			}
		}
	})
	t.Run("get_view_names and has_table", func(t *testing.T) {
		// No views on either side (SHOW FULL TABLES … WHERE table_type = 'VIEW'); has_table of
		// each table and of one that does not exist.
		if !jsonEqual(got.Views, want.Views) || !jsonEqual(got.HasTable, want.HasTable) || !jsonEqual(got.HasTable, []byte("[true, true, true, false]")) {
			t.Errorf("views %s, has_table %s; MariaDB: %s, %s", got.Views, got.HasTable, want.Views, want.HasTable)
		}
	})
	for _, table := range schema.Tables {
		t.Run("reflect "+table.Name, func(t *testing.T) {
			g, w := got.Reflect[table.Name], want.Reflect[table.Name]
			var gr, wr map[string]json.RawMessage
			decodeStep(t, g, &gr)
			decodeStep(t, w, &wr)
			for _, key := range []string{"columns", "columns_schema"} {
				var gc, wc []reflectedColumn
				decodeStep(t, gr[key], &gc)
				decodeStep(t, wr[key], &wc)
				compareColumns(t, key, table, gc, wc)
			}
			for _, key := range []string{"pk", "indexes", "unique", "checks", "comment"} {
				if !jsonEqual(gr[key], wr[key]) {
					t.Errorf("%s: got %s, want %s", key, gr[key], wr[key])
				}
			}
			// A link field is a foreign key to the linked table's id; MariaDB's copy keeps links
			// in junction tables and has no foreign key, so the fixture's links are the answer.
			type fk struct {
				Columns         []string `json:"columns"`
				ReferredTable   string   `json:"referred_table"`
				ReferredColumns []string `json:"referred_columns"`
			}
			var gf, wf []fk
			decodeStep(t, gr["fks"], &gf)
			for _, c := range table.Columns {
				if c.Link != "" {
					wf = append(wf, fk{Columns: []string{c.Name}, ReferredTable: c.Link, ReferredColumns: []string{"id"}})
				}
			}
			if !reflect.DeepEqual(gf, wf) {
				t.Errorf("get_foreign_keys: got %+v, want %+v", gf, wf)
			}
		})
	}
	for _, part := range []struct {
		name      string
		got, want map[string]json.RawMessage
	}{{"core", got.Core, want.Core}, {"orm", got.ORM, want.ORM}} {
		for name, g := range part.got {
			t.Run(part.name+" "+name, func(t *testing.T) {
				var ga, wa struct {
					SQL     string `json:"sql"`
					Columns []string
					Rows    [][]any
				}
				decodeStep(t, g, &ga)
				decodeStep(t, part.want[name], &wa)
				if strings.Contains(name, "schema=") && ga.SQL != "" && !strings.Contains(ga.SQL, "`"+base+"`.`Items`.`Name`") {
					t.Errorf("SQLAlchemy wrote no three-part name: %s", ga.SQL)
				}
				if strings.Contains(name, "foreign key") && !strings.Contains(ga.SQL, "ON `People`.id = `Items`.`Owner`") {
					t.Errorf("SQLAlchemy did not join on the link's foreign key: %s", ga.SQL)
				}
				if len(wa.Rows) < 5 || !reflect.DeepEqual(ga.Columns, wa.Columns) || !reflect.DeepEqual(roundRows(ga.Rows), roundRows(wa.Rows)) {
					t.Errorf("got %v %v,\nwant %v %v", ga.Columns, ga.Rows, wa.Columns, wa.Rows)
				}
			})
		}
	}
	for _, r := range pandasReports {
		t.Run("read_sql "+r.name, func(t *testing.T) {
			var g, w struct {
				Columns []string
				Dtypes  []string
				Rows    [][]any
			}
			decodeStep(t, got.Reports[r.name], &g)
			decodeStep(t, want.Reports[r.name], &w)
			if !reflect.DeepEqual(g.Columns, w.Columns) {
				t.Errorf("columns %q, want %q", g.Columns, w.Columns)
			}
			for i := range min(len(g.Dtypes), len(w.Dtypes), len(g.Columns)) {
				if g.Dtypes[i] == w.Dtypes[i] {
					continue
				}
				// README, deliberate differences: SUM of integers is an int64 (MySQL: DECIMAL,
				// which pandas makes float64).
				if slices.Contains(r.sumOfIntegers, g.Columns[i]) && g.Dtypes[i] == "int64" && w.Dtypes[i] == "float64" {
					continue
				}
				t.Errorf("column %s: dtype %s, want %s", g.Columns[i], g.Dtypes[i], w.Dtypes[i])
			}
			if len(g.Dtypes) != len(w.Dtypes) {
				t.Errorf("dtypes %q, want %q", g.Dtypes, w.Dtypes)
			}
			if len(w.Rows) < 2 || !reflect.DeepEqual(roundRows(g.Rows), roundRows(w.Rows)) {
				t.Errorf("rows:\n%v\nwant:\n%v", g.Rows, w.Rows)
			}
		})
	}
}

// reflectedColumn is one column as Inspector.get_columns reflects it.
type reflectedColumn struct {
	Name     string
	Type     string // the SQLAlchemy type's class
	SQL      string // the type as SQLAlchemy writes it
	Nullable bool
}

// airtableTypeClass is the SQLAlchemy type class MySQL 8 reflects for a column the driver
// declares from an Airtable text field, whose copy in MariaDB is TEXT by the oracle's loader
// (every text is TEXT there, compared in one collation).
var airtableTypeClass = map[string]string{
	"singleLineText":  "VARCHAR", // varchar(255)
	"multilineText":   "LONGTEXT",
	"singleSelect":    "ENUM",
	"multipleSelects": "SET",
	"email":           "TEXT",
}

func compareColumns(t *testing.T, what string, table *oracle.Table, got, want []reflectedColumn) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("%s: got %d columns %+v, want %d %+v", what, len(got), got, len(want), want)
		return
	}
	for i, g := range got {
		w := want[i]
		c := table.Column(w.Name)
		wantType := w.Type
		switch {
		case c == nil:
		case c.Kind == oracle.JSON:
			// MariaDB's JSON is an alias of LONGTEXT (with a json_valid CHECK); MySQL 8 has a
			// JSON type, which SQLAlchemy reflects as JSON.
			if w.Type == "LONGTEXT" {
				wantType = "JSON"
			}
			if c.AirType == "multipleSelects" {
				wantType = airtableTypeClass[c.AirType]
			}
		case c.Kind == oracle.Text && c.Name != "id":
			if tc, ok := airtableTypeClass[c.AirType]; ok && w.Type == "TEXT" {
				wantType = tc
			}
		}
		if g.Name != w.Name || g.Type != wantType || g.Nullable != w.Nullable {
			t.Errorf("%s: column %d: got %+v, want %s %s nullable=%v (MariaDB: %s)", what, i+1, g, w.Name, wantType, w.Nullable, w.SQL)
		}
	}
}

// roundRows writes each number of rows (a JSON number, or a Decimal the client printed as
// "Decimal:…") to 12 significant digits, as the oracle compares them: a sum of doubles depends
// in its last digits on the order it adds them, which is the plan's on either side.
func roundRows(rows [][]any) [][]any {
	out := make([][]any, len(rows))
	for i, row := range rows {
		out[i] = make([]any, len(row))
		for j, v := range row {
			if s, ok := v.(string); ok {
				if d, isDecimal := strings.CutPrefix(s, "Decimal:"); isDecimal {
					if f, err := strconv.ParseFloat(d, 64); err == nil {
						v = f
					}
				}
			}
			if f, ok := v.(float64); ok {
				v = oracle.Canonical(f, "DOUBLE")
			}
			out[i][j] = v
		}
	}
	return out
}

// decodeStep decodes one step's answer, failing the test with the client's error when the step
// failed.
func decodeStep(t *testing.T, raw json.RawMessage, v any) {
	t.Helper()
	var failed struct{ Error string }
	if json.Unmarshal(raw, &failed) == nil && failed.Error != "" {
		t.Fatalf("the client failed: %s", failed.Error)
	}
	if err := json.Unmarshal(raw, v); err != nil {
		t.Fatalf("%v: %s", err, raw)
	}
}

func jsonEqual(a, b json.RawMessage) bool {
	var x, y any
	return json.Unmarshal(a, &x) == nil && json.Unmarshal(b, &y) == nil && reflect.DeepEqual(x, y)
}

func sameSet(a, b []string) bool {
	return reflect.DeepEqual(slices.Sorted(slices.Values(a)), slices.Sorted(slices.Values(b)))
}

// pandasReports are the reports read with pandas.read_sql: grouped, windowed and joined, each as
// the driver takes it and, where MariaDB's copy of the data differs in shape, as MariaDB takes it
// (a link is a junction table there: Items__Project(id, linked_id)).
var pandasReports = []struct {
	name          string
	sql           []string // the driver's, then MariaDB's when it differs
	sumOfIntegers []string // columns that are SUM of integers: README's deliberate difference
}{
	{"grouped", []string{"SELECT Status, COUNT(*) AS n, SUM(Qty) AS total_qty, AVG(Price) AS avg_price, MIN(`Due Date`) AS first_due, MAX(`At`) AS last_at, SUM(Done) AS done, GROUP_CONCAT(DISTINCT Stars ORDER BY Stars) AS stars FROM Items GROUP BY Status ORDER BY Status"}, []string{"total_qty", "done"}},
	// Conditions are MySQL's BIGINT 1/0/NULL: int64 (float64 with a NULL) in pandas, as from MariaDB.
	{"flags", []string{"SELECT id, Qty > 100 AS big, Price IS NULL AS no_price, Done AS done, Done = (Qty > 100) AS same, " +
		"EXISTS(SELECT 1 FROM People pe WHERE pe.Age > 30) AS any_older FROM Items ORDER BY id"}, nil},
	{"by year", []string{"SELECT YEAR(`Due Date`) AS y, COUNT(*) AS n, ROUND(SUM(Price), 2) AS value, MAX(Qty) AS top FROM Items WHERE `Due Date` IS NOT NULL GROUP BY YEAR(`Due Date`) ORDER BY y"}, nil},
	{"windowed", []string{"SELECT id, Status, Qty, ROW_NUMBER() OVER (PARTITION BY Status ORDER BY Qty DESC, id) AS rn, " +
		"RANK() OVER (PARTITION BY Status ORDER BY Qty DESC) AS rnk, DENSE_RANK() OVER (PARTITION BY Status ORDER BY Qty DESC) AS drnk, " +
		"SUM(Qty) OVER (PARTITION BY Status ORDER BY id ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS running, " +
		"LAG(Qty) OVER (PARTITION BY Status ORDER BY id) AS prev_qty FROM Items ORDER BY Status, rn"}, nil},
	{"top 3 per status", []string{"SELECT * FROM (SELECT Status, Name, Price, ROW_NUMBER() OVER (PARTITION BY Status ORDER BY Price DESC, id) AS rn FROM Items WHERE Price IS NOT NULL) t WHERE rn <= 3 ORDER BY Status, rn"}, nil},
	{"running total by day", []string{"SELECT `Due Date` AS day, SUM(Price) AS value, SUM(SUM(Price)) OVER (ORDER BY `Due Date`) AS running FROM Items WHERE `Due Date` IS NOT NULL GROUP BY `Due Date` ORDER BY day"}, nil},
	{"joined", []string{
		"SELECT p.Name AS project, p.Budget, COUNT(i.id) AS items, SUM(i.Price) AS value, MAX(i.`At`) AS last_at FROM Items i JOIN Projects p ON p.id = i.Project GROUP BY p.id, p.Name, p.Budget ORDER BY p.id",
		"SELECT p.Name AS project, p.Budget, COUNT(i.id) AS items, SUM(i.Price) AS value, MAX(i.`At`) AS last_at FROM Items i JOIN Items__Project ip ON ip.id = i.id JOIN Projects p ON p.id = ip.linked_id GROUP BY p.id, p.Name, p.Budget ORDER BY p.id",
	}, nil},
	{"left joined", []string{
		"SELECT i.id, i.Name, pe.Name AS owner, pe.Age FROM Items i LEFT JOIN People pe ON pe.id = i.Owner WHERE i.Qty > 100 ORDER BY i.id, pe.id",
		"SELECT i.id, i.Name, pe.Name AS owner, pe.Age FROM Items i LEFT JOIN Items__Owner io ON io.id = i.id LEFT JOIN People pe ON pe.id = io.linked_id WHERE i.Qty > 100 ORDER BY i.id, pe.id",
	}, nil},
}
