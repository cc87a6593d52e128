package ormtest

import (
	"testing"

	"github.com/doug-martin/goqu/v9"
	_ "github.com/doug-martin/goqu/v9/dialect/mysql" // goqu's MySQL dialect
)

// TestGoqu: goqu's documented Select/Insert/Update/Delete forms with the mysql dialect, both
// interpolated (goqu's default) and prepared, run unchanged.
func TestGoqu(t *testing.T) {
	for _, prepared := range []bool{false, true} {
		name := map[bool]string{false: "interpolated", true: "prepared"}[prepared]
		t.Run(name, func(t *testing.T) {
			srv, db := newItems(t)
			g := goqu.New("mysql", db)
			from := func(table string) *goqu.SelectDataset { return g.From(table).Prepared(prepared) }

			// Like renders LIKE BINARY (case-sensitive); ILike renders LIKE.
			var names []string
			if err := from("items").Select("name").Where(goqu.C("name").Like("A%")).ScanVals(&names); err != nil {
				t.Fatal(err)
			}
			eq(t, "Like", names, []string{"Apple"})
			names = nil
			if err := from("items").Select("name").Where(goqu.C("name").ILike("a%")).Order(goqu.C("name").Asc()).ScanVals(&names); err != nil {
				t.Fatal(err)
			}
			eq(t, "ILike", names, []string{"Apple", "apricot"})
			names = nil
			if err := from("items").Select("name").Where(goqu.C("name").NotLike("%a%")).Order(goqu.C("name").Asc()).ScanVals(&names); err != nil {
				t.Fatal(err)
			}
			eq(t, "NotLike (case-sensitive: NOT LIKE BINARY)", names, []string{"Apple", "Leek"})

			// Where with Ex/ExOr, In, IsNull, Order, Limit and Offset, Count.
			type item struct {
				Name  string  `db:"name"`
				Qty   int64   `db:"qty"`
				Price float64 `db:"price"`
			}
			var items []item
			err := from("items").Select("name", "qty", "price").
				Where(goqu.Ex{"kind": "fruit", "qty": goqu.Op{"gt": 1}}).
				Order(goqu.C("qty").Desc()).Limit(2).Offset(1).ScanStructs(&items)
			if err != nil {
				t.Fatal(err)
			}
			eq(t, "Ex/Order/Limit/Offset", items, []item{{"Apple", 5, 0.5}, {"apricot", 2, 0.8}})
			names = nil
			if err := from("items").Select("name").Where(goqu.ExOr{"kind": goqu.Op{"is": nil}, "name": []string{"Leek", "Nope"}}).Order(goqu.C("name").Asc()).ScanVals(&names); err != nil {
				t.Fatal(err)
			}
			eq(t, "ExOr/IsNull/In", names, []string{"Leek", "Salt"})
			names = nil
			if err := from("items").Select("name").Order(goqu.C("name").Asc()).Offset(4).ScanVals(&names); err != nil {
				t.Fatal(err)
			}
			eq(t, "Offset without Limit", names, []string{"Salt", "apricot"})
			n, err := from("items").Where(goqu.C("price").Lt(1)).Count()
			if err != nil || n != 5 {
				t.Errorf("Count: %d, %v", n, err)
			}

			// GroupBy, Having, aggregates, Distinct.
			type group struct {
				Kind  *string `db:"kind"`
				Items int64   `db:"items"`
				Stock int64   `db:"stock"`
			}
			var groups []group
			err = from("items").Select(goqu.C("kind"), goqu.COUNT("*").As("items"), goqu.SUM("qty").As("stock")).
				GroupBy("kind").Having(goqu.COUNT("*").Gt(1)).Order(goqu.C("kind").Asc()).ScanStructs(&groups)
			if err != nil {
				t.Fatal(err)
			}
			if len(groups) != 2 || *groups[0].Kind != "fruit" || groups[0].Items != 3 || groups[0].Stock != 19 || *groups[1].Kind != "veg" || groups[1].Stock != 7 {
				t.Errorf("GroupBy/Having: %+v", groups)
			}
			var kinds []string
			if err := from("items").Select("kind").Distinct().Where(goqu.C("kind").IsNotNull()).Order(goqu.C("kind").Asc()).ScanVals(&kinds); err != nil {
				t.Fatal(err)
			}
			eq(t, "Distinct", kinds, []string{"fruit", "veg"})
			srv.ResetRequests()

			// Insert (rows as records and as structs), Update with a literal expression, Delete.
			ins := g.Insert("items").Prepared(prepared).Rows(
				goqu.Record{"name": "Fig", "qty": 3, "price": 1.5, "kind": "fruit"},
				goqu.Record{"name": "Kale", "qty": 4, "price": 2.0, "kind": "veg"},
			)
			if res, err := ins.Executor().Exec(); err != nil {
				t.Fatal(err)
			} else if n, _ := res.RowsAffected(); n != 2 {
				t.Errorf("Insert RowsAffected = %d", n)
			}
			eq(t, "Insert sent", sent(t, srv), []string{"POST tbl"})
			upd := g.Update("items").Prepared(prepared).Set(goqu.Record{"qty": goqu.L("qty + ?", 10)}).Where(goqu.C("kind").Eq("veg"))
			if res, err := upd.Executor().Exec(); err != nil {
				t.Fatal(err)
			} else if n, _ := res.RowsAffected(); n != 3 {
				t.Errorf("Update RowsAffected = %d", n)
			}
			eq(t, "Update sent", sent(t, srv), []string{"GET tbl", "PATCH tbl"})
			del := g.Delete("items").Prepared(prepared).Where(goqu.C("qty").Eq(0))
			if res, err := del.Executor().Exec(); err != nil {
				t.Fatal(err)
			} else if n, _ := res.RowsAffected(); n != 0 {
				t.Errorf("Delete of none: RowsAffected = %d", n) // Leek now has 10
			}
			del = g.Delete("items").Prepared(prepared).Where(goqu.C("name").In("Salt", "Fig"))
			if res, err := del.Executor().Exec(); err != nil {
				t.Fatal(err)
			} else if n, _ := res.RowsAffected(); n != 2 {
				t.Errorf("Delete RowsAffected = %d", n)
			}
			var left []string
			if err := from("items").Select(goqu.L("CONCAT(name, ':', qty)")).Order(goqu.C("name").Asc()).ScanVals(&left); err != nil {
				t.Fatal(err)
			}
			eq(t, "after writes", left, []string{"Apple:5", "Banana:12", "Carrot:17", "Kale:14", "Leek:10", "apricot:2"})

			// Join (issue 10).
			var labels []string
			err = from("items").Select(goqu.I("kinds.label")).Join(goqu.T("kinds"), goqu.On(goqu.I("kinds.code").Eq(goqu.I("items.kind")))).
				Where(goqu.I("items.name").Eq("Carrot")).ScanVals(&labels)
			skipIfNoJoin(t, err)
			if err != nil {
				t.Fatal(err)
			}
			eq(t, "Join", labels, []string{"Vegetables"})
		})
	}
}
