package airsql

import (
	"context"
	"database/sql"
	"errors"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/airsql/airsql/emulator"
	"github.com/airsql/airsql/internal/clock"
	"github.com/airsql/airsql/transport"
)

// Two bases served by one emulator, and a third the test token cannot reach: a connector on
// mbOrders with bases=mbCustomers reads both as databases.
const (
	mbOrders    = "appORDERS00000001"
	mbCustomers = "appCUSTOMERS00001"
	mbSecret    = "appSECRET00000001"
)

func multiBaseFixture() *emulator.Fixture {
	text := func(name string) emulator.FixtureField {
		return emulator.FixtureField{Name: name, Type: "singleLineText"}
	}
	rec := func(kv ...any) emulator.FixtureRecord {
		f := map[string]any{}
		for i := 0; i < len(kv); i += 2 {
			f[kv[i].(string)] = kv[i+1]
		}
		return emulator.FixtureRecord{Fields: f}
	}
	return &emulator.Fixture{
		Tokens: []emulator.FixtureToken{{Token: emulator.DefaultToken, Bases: []string{mbOrders, mbCustomers},
			Scopes: []string{"data.records:read", "data.records:write", "schema.bases:read", "schema.bases:write", "webhook:manage"}}},
		Bases: []emulator.FixtureBase{
			{ID: mbOrders, Name: "Orders", Tables: []emulator.FixtureTable{{ID: "tblORDERS00000001", Name: "Orders",
				Fields: []emulator.FixtureField{text("Item"), text("Customer"), {Name: "Qty", Type: "number", Options: map[string]any{"precision": 0}}},
				Records: []emulator.FixtureRecord{rec("Item", "Pen", "Customer", "Ann", "Qty", 2), rec("Item", "Ink", "Customer", "Bob", "Qty", 5),
					rec("Item", "Pad", "Customer", "Ann", "Qty", 1), rec("Item", "Cap", "Customer", "Zoe", "Qty", 3)}}}},
			{ID: mbCustomers, Name: "Customers", Tables: []emulator.FixtureTable{{ID: "tblCUSTOMERS00001", Name: "Customers",
				Fields:  []emulator.FixtureField{text("Name"), text("City")},
				Records: []emulator.FixtureRecord{rec("Name", "Ann", "City", "Oslo"), rec("Name", "Bob", "City", "Rome"), rec("Name", "Cid", "City", "Lima")}}}},
			{ID: mbSecret, Name: "Secret", Tables: []emulator.FixtureTable{{ID: "tblSECRET00000001", Name: "Secrets",
				Fields: []emulator.FixtureField{text("Name")}, Records: []emulator.FixtureRecord{rec("Name", "x")}}}},
		},
	}
}

// openMultiBase serves the fixture and opens a connector on mbOrders serving mbCustomers
// (and params' other keys).
func openMultiBase(t *testing.T, params string, extra ...transport.Option) (*sql.DB, *Connector, *emulator.Server) {
	t.Helper()
	srv, err := emulator.New(emulator.WithFixture(multiBaseFixture()), emulator.WithRate(0, 0), emulator.WithTokenRate(0))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	dsn := "airtable://" + emulator.DefaultToken + "@localhost/" + mbOrders + "?tls=false&bases=" + mbCustomers
	if params != "" {
		dsn += "&" + params
	}
	cfg, err := ParseDSN(dsn)
	if err != nil {
		t.Fatal(err)
	}
	cfg.HTTPClient = srv.Client()
	c, err := newConnector(cfg, extra...)
	if err != nil {
		t.Fatal(err)
	}
	db := sql.OpenDB(c)
	t.Cleanup(func() { db.Close() })
	return db, c, srv
}

// requestsPerBase counts the data requests (not the schema's) by the base their path names.
func requestsPerBase(srv *emulator.Server) map[string]int {
	n := map[string]int{}
	for _, r := range dataRequests(srv) {
		if base, _, ok := strings.Cut(strings.TrimPrefix(r.Path, "/v0/"), "/"); ok {
			n[base]++
		}
	}
	return n
}

// TestMultiBaseReads: one statement reads tables of two bases — a join (both orders of the
// tables, pushdown and bind join per table), a subquery, a UNION, three-part column names — and
// each table's requests go to its own base.
func TestMultiBaseReads(t *testing.T) {
	db, _, srv := openMultiBase(t, "")
	cases := []struct {
		name, query string
		want        []string
		requests    map[string]int // data requests per base
	}{
		{"join", "SELECT o.Item, c.City FROM " + mbOrders + ".Orders o JOIN " + mbCustomers + ".Customers c ON c.Name = o.Customer ORDER BY o.Item",
			[]string{"Ink|Rome", "Pad|Oslo", "Pen|Oslo"}, map[string]int{mbOrders: 1, mbCustomers: 1}},
		{"join from the default database", "SELECT o.Item, c.City FROM Orders o JOIN " + mbCustomers + ".Customers c ON c.Name = o.Customer WHERE o.Qty > 1 ORDER BY o.Item",
			[]string{"Ink|Rome", "Pen|Oslo"}, map[string]int{mbOrders: 1, mbCustomers: 1}},
		{"left join, other base first", "SELECT c.Name, COUNT(o.Item) FROM " + mbCustomers + ".Customers c LEFT JOIN Orders o ON o.Customer = c.Name GROUP BY c.Name ORDER BY c.Name",
			[]string{"Ann|2", "Bob|1", "Cid|0"}, map[string]int{mbOrders: 1, mbCustomers: 1}},
		{"pushdown per table", "SELECT o.Item FROM Orders o JOIN " + mbCustomers + ".Customers c ON c.Name = o.Customer WHERE c.City = 'Rome'",
			[]string{"Ink"}, map[string]int{mbOrders: 1, mbCustomers: 1}},
		{"subquery", "SELECT Item FROM Orders WHERE Customer IN (SELECT Name FROM " + mbCustomers + ".Customers WHERE City = 'Oslo') ORDER BY Item",
			[]string{"Pad", "Pen"}, map[string]int{mbOrders: 1, mbCustomers: 1}},
		{"union", "SELECT Name FROM " + mbCustomers + ".Customers UNION SELECT Customer FROM " + mbOrders + ".Orders ORDER BY 1",
			[]string{"Ann", "Bob", "Cid", "Zoe"}, map[string]int{mbOrders: 1, mbCustomers: 1}},
		{"three-part column names", "SELECT " + mbCustomers + ".Customers.City FROM " + mbCustomers + ".Customers WHERE " + mbCustomers + ".Customers.Name = 'Bob'",
			[]string{"Rome"}, map[string]int{mbCustomers: 1}},
		{"other base alone", "SELECT COUNT(*) FROM " + mbCustomers + ".Customers", []string{"3"}, map[string]int{mbCustomers: 1}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv.ResetRequests()
			if got := rowTexts(t, db, tc.query); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %q, want %q", got, tc.want)
			}
			if got := requestsPerBase(srv); !reflect.DeepEqual(got, tc.requests) {
				t.Errorf("data requests per base: got %v, want %v", got, tc.requests)
			}
			for _, r := range dataRequests(srv) {
				if strings.Contains(r.Path, mbCustomers) && strings.Contains(tc.query, "City = 'Rome'") && !strings.Contains(r.Query, "Rome") {
					t.Errorf("the customers' request %s?%s does not carry the WHERE on City: not pushed down to its base", r.Path, r.Query)
				}
			}
		})
	}
}

// TestMultiBaseBindJoin: a join whose other side is small reads the big side by key, in the
// big side's own base (a filterByFormula request there), once the small side's size is known.
func TestMultiBaseBindJoin(t *testing.T) {
	db, _, srv := openMultiBase(t, "")
	rowTexts(t, db, "SELECT COUNT(*) FROM Orders") // the sizes the planner weighs
	rowTexts(t, db, "SELECT COUNT(*) FROM "+mbCustomers+".Customers")
	srv.ResetRequests()
	got := rowTexts(t, db, "SELECT c.City FROM Orders o JOIN "+mbCustomers+".Customers c ON c.Name = o.Customer WHERE o.Item = 'Ink'")
	if want := []string{"Rome"}; !reflect.DeepEqual(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
	for _, r := range dataRequests(srv) {
		if strings.Contains(r.Path, mbCustomers) && !strings.Contains(r.Query, "filterByFormula") {
			t.Errorf("the customers' request %s?%s carries no formula: the key of the orders found was not pushed to its base", r.Path, r.Query)
		}
	}
	if n := requestsPerBase(srv); n[mbOrders] != 1 || n[mbCustomers] != 1 {
		t.Errorf("data requests per base: got %v, want one each", n)
	}
}

// TestMultiBaseWrites: INSERT … SELECT across bases, and writes to a table of another served
// base, which reach that base.
func TestMultiBaseWrites(t *testing.T) {
	db, _, srv := openMultiBase(t, "")
	ctx := context.Background()
	srv.ResetRequests()
	res, err := db.ExecContext(ctx, "INSERT INTO Orders (Item, Customer) SELECT 'Mug', Name FROM "+mbCustomers+".Customers WHERE City = 'Lima'")
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := res.RowsAffected(); n != 1 {
		t.Errorf("INSERT … SELECT: got %d rows affected, want 1", n)
	}
	if got, want := requestsPerBase(srv), map[string]int{mbCustomers: 1, mbOrders: 1}; !reflect.DeepEqual(got, want) {
		t.Errorf("INSERT … SELECT: data requests per base: got %v, want %v", got, want)
	}
	for _, q := range []string{
		"INSERT INTO " + mbCustomers + ".Customers (Name, City) VALUES ('Dee', 'Kyiv')",
		"UPDATE " + mbCustomers + ".Customers SET City = 'Riga' WHERE Name = 'Dee'",
		"INSERT INTO " + mbCustomers + ".Customers (Name, City) SELECT Item, 'Pisa' FROM " + mbOrders + ".Orders WHERE Item = 'Cap'",
		"DELETE FROM " + mbCustomers + ".Customers WHERE Name = 'Cap'",
	} {
		srv.ResetRequests()
		if _, err := db.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		for _, r := range dataRequests(srv) {
			if r.Method != "GET" && !strings.Contains(r.Path, mbCustomers) {
				t.Errorf("%s: wrote %s %s, not in %s", q, r.Method, r.Path, mbCustomers)
			}
		}
	}
	if got, want := rowTexts(t, db, "SELECT Name, City FROM "+mbCustomers+".Customers ORDER BY Name"),
		[]string{"Ann|Oslo", "Bob|Rome", "Cid|Lima", "Dee|Riga"}; !reflect.DeepEqual(got, want) {
		t.Errorf("customers after the writes: got %q, want %q", got, want)
	}
	if got, want := rowTexts(t, db, "SELECT Customer FROM Orders WHERE Item = 'Mug'"), []string{"Cid"}; !reflect.DeepEqual(got, want) {
		t.Errorf("orders after INSERT … SELECT: got %q, want %q", got, want)
	}
	// MySQL's multi-table forms writing a table of another base.
	for _, q := range []string{
		"UPDATE " + mbCustomers + ".Customers c JOIN Orders o ON o.Customer = c.Name SET c.City = 'Bari' WHERE o.Item = 'Ink'",
		"DELETE c FROM " + mbCustomers + ".Customers c JOIN Orders o ON o.Customer = c.Name WHERE o.Item = 'Mug'",
	} {
		srv.ResetRequests()
		if _, err := db.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		for _, r := range dataRequests(srv) {
			if r.Method != "GET" && !strings.Contains(r.Path, mbCustomers) {
				t.Errorf("%s: wrote %s %s, not in %s", q, r.Method, r.Path, mbCustomers)
			}
		}
	}
	if got, want := rowTexts(t, db, "SELECT Name, City FROM "+mbCustomers+".Customers WHERE Name IN ('Bob', 'Cid') ORDER BY Name"),
		[]string{"Bob|Bari"}; !reflect.DeepEqual(got, want) {
		t.Errorf("after the multi-table UPDATE and DELETE: got %q, want %q", got, want)
	}
	if _, err := db.ExecContext(ctx, "UPDATE "+mbCustomers+".Customers SET City = 'Rome' WHERE Name = 'Bob'"); err != nil {
		t.Fatal(err)
	}
	if _, err := db.ExecContext(ctx, "INSERT INTO "+mbCustomers+".Customers (Name, City) VALUES ('Cid', 'Lima')"); err != nil {
		t.Fatal(err)
	}
	// In a transaction, writes to both bases are queued and each goes to its base at COMMIT.
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{"INSERT INTO Orders (Item, Customer) VALUES ('Cup', 'Eve')", "INSERT INTO " + mbCustomers + ".Customers (Name, City) VALUES ('Eve', 'Bern')"} {
		if _, err := tx.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	srv.ResetRequests()
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	if got, want := requestsPerBase(srv), map[string]int{mbOrders: 1, mbCustomers: 1}; !reflect.DeepEqual(got, want) {
		t.Errorf("COMMIT: data requests per base: got %v, want %v", got, want)
	}
	if got, want := rowTexts(t, db, "SELECT c.City FROM Orders o JOIN "+mbCustomers+".Customers c ON c.Name = o.Customer WHERE o.Item = 'Cup'"),
		[]string{"Bern"}; !reflect.DeepEqual(got, want) {
		t.Errorf("after COMMIT: got %q, want %q", got, want)
	}
	// A bare name in a write to another base would silently mean that base's table: refused.
	_, err = db.ExecContext(ctx, "DELETE FROM "+mbCustomers+".Customers WHERE Name IN (SELECT Customer FROM Orders)")
	var ue *UnsupportedError
	if !errors.As(err, &ue) || !strings.Contains(err.Error(), mbOrders+".Table") {
		t.Errorf("a write to another base naming a bare table: got %v, want a refusal saying to name its database", err)
	}
}

// TestMultiBaseCatalog: USE, DATABASE(), SHOW and information_schema see every served base.
func TestMultiBaseCatalog(t *testing.T) {
	db, _, _ := openMultiBase(t, "")
	db.SetMaxOpenConns(1) // one connection: what USE sets lasts for the statements after it
	use := func(name string) {
		t.Helper()
		if _, err := db.Exec("USE " + name); err != nil {
			t.Fatalf("USE %s: %v", name, err)
		}
	}
	steps := []struct {
		use, query string
		want       []string
	}{
		{"", "SELECT DATABASE()", []string{mbOrders}},
		{"", "SHOW DATABASES", []string{mbCustomers, mbOrders, "information_schema"}}, // sorted by name, as MySQL 8 lists them
		{"", "SELECT SCHEMA_NAME FROM information_schema.SCHEMATA ORDER BY SCHEMA_NAME", []string{mbCustomers, mbOrders, "information_schema"}},
		{"", "SELECT TABLE_SCHEMA, TABLE_NAME FROM information_schema.TABLES WHERE TABLE_TYPE = 'BASE TABLE' ORDER BY TABLE_SCHEMA, TABLE_NAME",
			[]string{mbCustomers + "|Customers", mbOrders + "|Orders"}},
		{"", "SELECT COLUMN_NAME FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = '" + mbCustomers + "' AND TABLE_NAME = 'Customers' ORDER BY ORDINAL_POSITION",
			[]string{"id", "Name", "City", "createdTime"}},
		{"", "SHOW TABLES FROM " + mbCustomers, []string{"Customers"}},
		{"", "SHOW FULL TABLES IN " + mbCustomers, []string{"Customers|BASE TABLE"}},
		{mbCustomers, "SELECT DATABASE()", []string{mbCustomers}},
		{"", "SELECT Name FROM Customers WHERE City = 'Rome'", []string{"Bob"}},
		{"", "SHOW TABLES", []string{"Customers"}},
		{"", "SELECT COUNT(*) FROM " + mbOrders + ".Orders", []string{"4"}},
		{"", "SELECT o.Item FROM " + mbOrders + ".Orders o JOIN Customers c ON c.Name = o.Customer WHERE c.City = 'Rome'", []string{"Ink"}},
		{"", "SELECT TABLE_NAME FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE()", []string{"Customers"}},
		{mbOrders, "SELECT DATABASE()", []string{mbOrders}},
		{"", "SELECT COUNT(*) FROM Orders", []string{"4"}},
	}
	for _, st := range steps {
		if st.use != "" {
			use(st.use)
		}
		if got := rowTexts(t, db, st.query); !reflect.DeepEqual(got, st.want) {
			t.Errorf("%s (after USE %s): got %q, want %q", st.query, st.use, got, st.want)
		}
	}
	use(mbCustomers) // a write to a bare name after USE goes to that base
	if _, err := db.Exec("INSERT INTO Customers (Name, City) VALUES ('Fay', 'Bonn')"); err != nil {
		t.Fatal(err)
	}
	if got, want := rowTexts(t, db, "SELECT City FROM "+mbCustomers+".Customers WHERE Name = 'Fay'"), []string{"Bonn"}; !reflect.DeepEqual(got, want) {
		t.Errorf("INSERT after USE %s: got %q, want %q", mbCustomers, got, want)
	}
	use(mbOrders)
	if got := len(rowTexts(t, db, "SHOW COLUMNS FROM Customers FROM "+mbCustomers)); got != 4 {
		t.Errorf("SHOW COLUMNS FROM Customers FROM %s: got %d columns, want 4", mbCustomers, got)
	}
}

// TestMultiBaseErrors: a database not served is MySQL's 1049 saying to add it to bases=; a
// served base the token cannot read fails with the service's error naming the base.
func TestMultiBaseErrors(t *testing.T) {
	db, _, _ := openMultiBase(t, "")
	ctx := context.Background()
	cases := []struct {
		query, wantCode, wantText string
	}{
		{"SELECT * FROM appNOPE0000000001.Orders", "1049", "bases=appNOPE0000000001"},
		{"SELECT o.Item FROM Orders o JOIN appNOPE0000000001.Customers c ON c.Name = o.Customer", "1049", "Unknown database 'appNOPE0000000001'"},
		{"SHOW TABLES FROM appNOPE0000000001", "1049", "bases=appNOPE0000000001"},
		{"SELECT appNOPE0000000001.Orders.Item FROM Orders", "1054", "appNOPE0000000001.Orders.Item"},
		{"SELECT * FROM " + mbCustomers + ".Orders", "1146", "the base " + mbCustomers + " has no table \"Orders\""},
		{"INSERT INTO appNOPE0000000001.Orders (Item) VALUES ('x')", "1049", "Unknown database"},
	}
	for _, tc := range cases {
		t.Run(tc.query, func(t *testing.T) {
			var err error
			if strings.HasPrefix(tc.query, "INSERT") {
				_, err = db.ExecContext(ctx, tc.query)
			} else {
				var rows *sql.Rows
				if rows, err = db.QueryContext(ctx, tc.query); err == nil {
					rows.Close()
				}
			}
			if err == nil {
				t.Fatal("no error")
			}
			code, _ := MySQLErrorCode(err)
			if got := strconv.Itoa(int(code)); got != tc.wantCode {
				t.Errorf("got MySQL error %s (%v), want %s", got, err, tc.wantCode)
			}
			if !strings.Contains(err.Error(), tc.wantText) {
				t.Errorf("got %q, want it to contain %q", err, tc.wantText)
			}
		})
	}
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "USE appNOPE0000000001"); err == nil {
		t.Error("USE of a base not served succeeded")
	} else if code, _ := MySQLErrorCode(err); code != 1049 {
		t.Errorf("USE of a base not served: got %d (%v), want 1049", code, err)
	}

	// A base the token cannot reach, served by the DSN.
	srv, err := emulator.New(emulator.WithFixture(multiBaseFixture()), emulator.WithRate(0, 0), emulator.WithTokenRate(0))
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	other, _ := openDSN(t, "airtable://"+emulator.DefaultToken+"@localhost/"+mbOrders+"?tls=false&bases="+mbSecret, srv.Client())
	// information_schema lists only the bases the token can read, as MySQL lists only the
	// databases a user may use.
	if got, want := rowTexts(t, other, "SELECT SCHEMA_NAME FROM information_schema.SCHEMATA"), []string{"information_schema", mbOrders}; !reflect.DeepEqual(got, want) {
		t.Errorf("SCHEMATA with a base the token cannot read: got %q, want %q", got, want)
	}
	_, err = other.QueryContext(ctx, "SELECT * FROM "+mbSecret+".Secrets")
	if err == nil || !strings.Contains(err.Error(), "base "+mbSecret) || strings.Contains(err.Error(), emulator.DefaultToken) {
		t.Errorf("reading a base the token cannot reach: got %v, want the service's error naming %s (and no token)", err, mbSecret)
	}
}

// TestMultiBaseExplain: EXPLAIN names each table's base.
func TestMultiBaseExplain(t *testing.T) {
	db, _, _ := openMultiBase(t, "")
	for query, wants := range map[string][]string{
		"EXPLAIN SELECT o.Item, c.City FROM Orders o JOIN " + mbCustomers + ".Customers c ON c.Name = o.Customer": {
			mbOrders + ".Orders (tblORDERS00000001)", mbCustomers + ".Customers (tblCUSTOMERS00001)"},
		"EXPLAIN INSERT INTO " + mbCustomers + ".Customers (Name) VALUES ('Eve')":           {mbCustomers + ".Customers (tblCUSTOMERS00001)"},
		"EXPLAIN UPDATE " + mbCustomers + ".Customers SET City = 'Nice' WHERE Name = 'Ann'": {mbCustomers + ".Customers (tblCUSTOMERS00001)"},
		"EXPLAIN DELETE FROM " + mbCustomers + ".Customers WHERE Name = 'Ann'":              {mbCustomers + ".Customers (tblCUSTOMERS00001)"},
		"EXPLAIN INSERT INTO Orders (Item) SELECT Name FROM " + mbCustomers + ".Customers":  {mbCustomers + ".Customers (tblCUSTOMERS00001)"},
	} {
		got := strings.Join(rowTexts(t, db, query), "\n")
		for _, want := range wants {
			if !strings.Contains(got, want) {
				t.Errorf("%s does not name %q:\n%s", query, want, got)
			}
		}
	}
}

// TestMultiBaseReplica: with replica=, the DSN's base is read from the copy and a read of
// another base is refused by name.
func TestMultiBaseReplica(t *testing.T) {
	db, _, _ := openMultiBase(t, "replica=memory")
	if got, want := rowTexts(t, db, "SELECT COUNT(*) FROM Orders"), []string{"4"}; !reflect.DeepEqual(got, want) {
		t.Errorf("the DSN's base through the replica: got %q, want %q", got, want)
	}
	_, err := db.Query("SELECT * FROM " + mbCustomers + ".Customers")
	var ue *UnsupportedError
	if !errors.As(err, &ue) || !strings.Contains(err.Error(), mbCustomers) || !strings.Contains(err.Error(), "replica") {
		t.Errorf("reading another base with replica=: got %v, want a refusal naming the base and the replica", err)
	}
}

// TestMultiBasePacing: each base has its own budget of 5 requests per second. With the clock
// stopped, the orders base's budget is spent and its next request waits on the clock; the
// customers base's requests go out meanwhile, without the clock moving.
func TestMultiBasePacing(t *testing.T) {
	saved := transport.APILimit
	transport.APILimit = 200 * time.Millisecond
	t.Cleanup(func() { transport.APILimit = saved })
	clk := clock.NewFake(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	db, _, srv := openMultiBase(t, "schemaTTL=1000h&connectTimeout=0&readTimeout=0", transport.WithClock(clk))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()

	ordersDone := make(chan error, 1)
	go func() {
		// The schema request and then list requests, more than one window holds.
		for range 6 {
			if _, err := countRows(ctx, db, "SELECT Item FROM Orders"); err != nil {
				ordersDone <- err
				return
			}
		}
		ordersDone <- nil
	}()
	if err := clk.BlockUntil(ctx, 1); err != nil { // the orders base waits for its budget
		t.Fatal(err)
	}
	spent := requestsTo(srv, mbOrders)
	if spent != 5 {
		t.Fatalf("the orders base waited after %d requests, want 5 (one window)", spent)
	}

	customersDone := make(chan error, 1)
	go func() {
		_, err := countRows(ctx, db, "SELECT Name FROM "+mbCustomers+".Customers")
		customersDone <- err
	}()
	// Either the customers' read finishes with the clock stopped, or it waits on the clock too.
	waited := waitersOn(ctx, clk, 2)
	select {
	case err := <-customersDone:
		if err != nil {
			t.Fatal(err)
		}
	case <-waited:
		t.Fatal("the customers base's request waited on the orders base's budget")
	}
	if got := requestsTo(srv, mbCustomers); got != 2 { // its schema and its list
		t.Errorf("requests to the customers base: got %d, want 2", got)
	}
	if got := requestsTo(srv, mbOrders); got != spent {
		t.Errorf("the orders base sent %d requests while waiting, want %d", got, spent)
	}
	// Now let the clock run, a second each time the orders base waits, until its reads end.
	for {
		orderWaits := waitersOn(ctx, clk, 1)
		select {
		case err := <-ordersDone:
			if err != nil {
				t.Fatal(err)
			}
			if got := requestsTo(srv, mbOrders); got != 7 {
				t.Errorf("requests to the orders base: got %d, want 7 (its schema and 6 lists)", got)
			}
			return
		case <-orderWaits:
			clk.Advance(time.Second)
		}
	}
}

// waitersOn is closed once n waits on the fake clock are pending (never, if ctx ends first).
func waitersOn(ctx context.Context, clk *clock.Fake, n int) <-chan struct{} {
	ch := make(chan struct{})
	go func() {
		if clk.BlockUntil(ctx, n) == nil {
			close(ch)
		}
	}()
	return ch
}

// requestsTo counts the requests (schema included) whose path names base.
func requestsTo(srv *emulator.Server, base string) int {
	n := 0
	for _, r := range srv.Requests() {
		if strings.Contains(r.Path, "/"+base+"/") || strings.HasSuffix(r.Path, "/"+base) {
			n++
		}
	}
	return n
}

// countRows runs a query and reads its rows.
func countRows(ctx context.Context, db *sql.DB, query string) (int, error) {
	rows, err := db.QueryContext(ctx, query)
	if err != nil {
		return 0, err
	}
	defer rows.Close()
	n := 0
	for rows.Next() {
		n++
	}
	return n, rows.Err()
}

// TestMultiBaseDDL: a schema statement changes the base written before its table (the
// connection's default when none); a link must stay within the base; a table cannot move to
// another base.
func TestMultiBaseDDL(t *testing.T) {
	db, _, srv := openMultiBase(t, "")
	ctx := context.Background()
	srv.ResetRequests()
	if _, err := db.ExecContext(ctx, "CREATE TABLE "+mbCustomers+".Visits (Place TEXT, Who VARCHAR(17) REFERENCES "+mbCustomers+".Customers(id))"); err != nil {
		t.Fatal(err)
	}
	for _, r := range srv.Requests() {
		if r.Method == "POST" && !strings.Contains(r.Path, mbCustomers) {
			t.Errorf("CREATE TABLE %s.Visits sent %s %s", mbCustomers, r.Method, r.Path)
		}
	}
	if got, want := rowTexts(t, db, "SELECT TABLE_SCHEMA, TABLE_NAME FROM information_schema.TABLES WHERE TABLE_TYPE = 'BASE TABLE' ORDER BY TABLE_SCHEMA, TABLE_NAME"),
		[]string{mbCustomers + "|Customers", mbCustomers + "|Visits", mbOrders + "|Orders"}; !reflect.DeepEqual(got, want) {
		t.Errorf("tables after CREATE TABLE: got %q, want %q", got, want)
	}
	if _, err := db.ExecContext(ctx, "ALTER TABLE "+mbCustomers+".Customers ADD COLUMN Zip TEXT"); err != nil {
		t.Fatal(err)
	}
	if got, want := rowTexts(t, db, "SELECT COLUMN_NAME FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = '"+mbCustomers+"' AND TABLE_NAME = 'Customers' AND COLUMN_NAME = 'Zip'"),
		[]string{"Zip"}; !reflect.DeepEqual(got, want) {
		t.Errorf("ALTER TABLE %s.Customers ADD COLUMN: got %q, want %q", mbCustomers, got, want)
	}
	for query, want := range map[string]string{
		"CREATE TABLE " + mbOrders + ".Refs (Name TEXT, Who VARCHAR(17) REFERENCES " + mbCustomers + ".Customers(id))": "a link to a table of another base",
		"CREATE TABLE appNOPE0000000001.T (Name TEXT)":                                                                 "Unknown database 'appNOPE0000000001'",
		"RENAME TABLE " + mbCustomers + ".Visits TO " + mbOrders + ".Visits":                                           "into another database",
		"CREATE TABLE information_schema.T (Name TEXT)":                                                                "CREATE TABLE in information_schema",
	} {
		if _, err := db.ExecContext(ctx, query); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: got %v, want an error saying %q", query, err, want)
		}
	}
}

// TestMultiBaseSchemaRecheck: a statement naming a column added to another base since its schema
// was cached is planned again against that base's fresh schema, as within one base.
func TestMultiBaseSchemaRecheck(t *testing.T) {
	db, c, srv := openMultiBase(t, "schemaTTL=1h")
	fake := clock.NewFake(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	for _, d := range c.databases() {
		d.clock = fake
	}
	query := "SELECT c.Zip FROM Orders o JOIN " + mbCustomers + ".Customers c ON c.Name = o.Customer WHERE o.Item = 'Ink'"
	rowTexts(t, db, "SELECT o.Item FROM Orders o JOIN "+mbCustomers+".Customers c ON c.Name = o.Customer")
	// Another client adds the column.
	other, _ := openDSN(t, "airtable://"+emulator.DefaultToken+"@localhost/"+mbCustomers+"?tls=false", srv.Client())
	if _, err := other.Exec("ALTER TABLE Customers ADD COLUMN Zip TEXT"); err != nil {
		t.Fatal(err)
	}
	if _, err := other.Exec("UPDATE Customers SET Zip = '00100' WHERE Name = 'Bob'"); err != nil {
		t.Fatal(err)
	}
	fake.Advance(time.Minute) // older than schemaRecheckAfter, younger than the TTL
	if got, want := rowTexts(t, db, query), []string{"00100"}; !reflect.DeepEqual(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}

// TestMultiBaseSameTableName: two bases' tables of one name join without aliases, told apart by
// their database as in MySQL (appA.T.col); T.col alone is refused.
func TestMultiBaseSameTableName(t *testing.T) {
	db, _, srv := openMultiBase(t, "")
	ctx := context.Background()
	for _, q := range []string{
		"CREATE TABLE " + mbCustomers + ".Orders (Item TEXT, Note TEXT)",
		"INSERT INTO " + mbCustomers + ".Orders (Item, Note) VALUES ('Ink', 'fragile'), ('Cap', 'blue')",
	} {
		if _, err := db.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	srv.ResetRequests()
	query := "SELECT " + mbOrders + ".Orders.Customer, " + mbCustomers + ".Orders.Note FROM " + mbOrders + ".Orders JOIN " + mbCustomers +
		".Orders ON " + mbOrders + ".Orders.Item = " + mbCustomers + ".Orders.Item ORDER BY 1"
	if got, want := rowTexts(t, db, query), []string{"Bob|fragile", "Zoe|blue"}; !reflect.DeepEqual(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
	if got, want := requestsPerBase(srv), map[string]int{mbOrders: 1, mbCustomers: 1}; !reflect.DeepEqual(got, want) {
		t.Errorf("data requests per base: got %v, want %v", got, want)
	}
	_, err := db.QueryContext(ctx, "SELECT Orders.Item FROM "+mbOrders+".Orders JOIN "+mbCustomers+".Orders ON "+mbOrders+".Orders.Item = "+mbCustomers+".Orders.Item")
	if err == nil || !strings.Contains(err.Error(), "Orders") {
		t.Errorf("Orders.Item with two Orders: got %v, want an error naming the qualifier", err)
	}
	_, err = db.QueryContext(ctx, "SELECT 1 FROM "+mbOrders+".Orders JOIN "+mbOrders+".Orders")
	if err == nil || !strings.Contains(err.Error(), "not unique table/alias") {
		t.Errorf("one base's table twice without aliases: got %v, want MySQL's not unique table/alias", err)
	}
}
