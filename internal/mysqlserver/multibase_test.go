package mysqlserver

import (
	"database/sql"
	"fmt"
	"log"
	"reflect"
	"strings"
	"testing"

	"github.com/airsql/airsql/emulator"
)

const (
	shopBase  = "appSHOP0000000001"
	crmBase   = "appCRM00000000001"
	crmSecret = "patCRM.secret"
)

// twoBaseFixture is an emulator holding two bases, both reachable with one token: orders in
// one, customers in the other.
func twoBaseFixture() *emulator.Fixture {
	text := func(name string) emulator.FixtureField {
		return emulator.FixtureField{Name: name, Type: "singleLineText"}
	}
	rec := func(a, b string, names ...string) emulator.FixtureRecord {
		return emulator.FixtureRecord{Fields: map[string]any{names[0]: a, names[1]: b}}
	}
	return &emulator.Fixture{
		Tokens: []emulator.FixtureToken{{Token: crmSecret, Bases: []string{shopBase, crmBase},
			Scopes: []string{"data.records:read", "data.records:write", "schema.bases:read"}}},
		Bases: []emulator.FixtureBase{
			{ID: shopBase, Name: "Shop", Tables: []emulator.FixtureTable{{ID: "tblORDERS00000001", Name: "Orders",
				Fields: []emulator.FixtureField{text("Item"), text("Customer")},
				Records: []emulator.FixtureRecord{rec("Pen", "Ann", "Item", "Customer"), rec("Ink", "Bob", "Item", "Customer"),
					rec("Pad", "Ann", "Item", "Customer")}}}},
			{ID: crmBase, Name: "CRM", Tables: []emulator.FixtureTable{{ID: "tblCUSTOMERS00001", Name: "Customers",
				Fields:  []emulator.FixtureField{text("Name"), text("City")},
				Records: []emulator.FixtureRecord{rec("Ann", "Oslo", "Name", "City"), rec("Bob", "Rome", "Name", "City")}}}},
		},
	}
}

// TestCrossBaseStatements: with two bases served, as `airsql serve` opens them (one connector per
// base, each serving the other too), a MySQL client's statement joins tables of both, from either
// database; SHOW DATABASES, information_schema and USE see both; an unknown database is 1049.
func TestCrossBaseStatements(t *testing.T) {
	emu, err := emulator.New(emulator.WithFixture(twoBaseFixture()), emulator.WithRate(0, 0), emulator.WithTokenRate(0))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { emu.Close() })
	e := &env{emu: emu, log: newLogBuffer()}
	e.start(t, Config{Databases: []Database{{Name: shopBase, DB: openDriver(t, emu, shopBase, crmSecret, emu.Transport(), withBases(crmBase))},
		{Name: crmBase, DB: openDriver(t, emu, crmBase, crmSecret, emu.Transport(), withBases(shopBase))}},
		User: testUser, Password: testPass, Secrets: []string{crmSecret}, Logger: log.New(e.log, "", 0)})
	c, err := sql.Open("mysql", fmt.Sprintf("%s:%s@tcp(%s)/%s", testUser, testPass, e.addr, shopBase))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	conn, err := c.Conn(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()

	join := "SELECT o.Item, c.City FROM %sOrders o JOIN %sCustomers c ON c.Name = o.Customer ORDER BY o.Item"
	steps := []struct {
		query string
		want  [][]string
		reqs  map[string]int // data requests per base; nil: not counted
	}{
		{fmt.Sprintf(join, "", crmBase+"."), [][]string{{"Ink", "Rome"}, {"Pad", "Oslo"}, {"Pen", "Oslo"}}, map[string]int{shopBase: 1, crmBase: 1}},
		{"SELECT Item FROM Orders WHERE Customer IN (SELECT Name FROM " + crmBase + ".Customers WHERE City = 'Rome')", [][]string{{"Ink"}},
			map[string]int{shopBase: 1, crmBase: 1}},
		{"SHOW DATABASES", [][]string{{crmBase}, {shopBase}, {"information_schema"}}, nil},
		{"SELECT TABLE_SCHEMA, TABLE_NAME FROM information_schema.TABLES WHERE TABLE_TYPE = 'BASE TABLE' ORDER BY TABLE_NAME",
			[][]string{{crmBase, "Customers"}, {shopBase, "Orders"}}, nil},
		{"USE " + crmBase, nil, nil},
		{"SELECT DATABASE()", [][]string{{crmBase}}, nil},
		{fmt.Sprintf(join, shopBase+".", ""), [][]string{{"Ink", "Rome"}, {"Pad", "Oslo"}, {"Pen", "Oslo"}}, map[string]int{shopBase: 1, crmBase: 1}},
		{"SHOW TABLES FROM " + shopBase, [][]string{{"Orders"}}, nil},
	}
	for _, st := range steps {
		emu.ResetRequests()
		if strings.HasPrefix(st.query, "USE ") {
			if _, err := conn.ExecContext(t.Context(), st.query); err != nil {
				t.Fatalf("%s: %v", st.query, err)
			}
			continue
		}
		rows, err := conn.QueryContext(t.Context(), st.query)
		if err != nil {
			t.Fatalf("%s: %v", st.query, err)
		}
		if _, _, got := scanAll(t, rows); !reflect.DeepEqual(got, st.want) {
			t.Errorf("%s: got %q, want %q", st.query, got, st.want)
		}
		if st.reqs == nil {
			continue
		}
		got := map[string]int{}
		for _, r := range emu.Requests() {
			if base, _, ok := strings.Cut(strings.TrimPrefix(r.Path, "/v0/"), "/"); ok && base != "meta" {
				got[base]++
			}
		}
		if !reflect.DeepEqual(got, st.reqs) {
			t.Errorf("%s: data requests per base: got %v, want %v", st.query, got, st.reqs)
		}
	}
	_, err = conn.QueryContext(t.Context(), "SELECT * FROM appNOPE0000000001.Orders")
	if me := mysqlErr(t, err, 1049, "42000"); !strings.Contains(me.Message, "bases=appNOPE0000000001") {
		t.Errorf("unknown database: %q does not say to add it to bases=", me.Message)
	}
}
