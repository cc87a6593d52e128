package ormtest

import (
	"strings"
	"testing"

	sq "github.com/Masterminds/squirrel"
)

// TestSquirrel: squirrel's documented Select/Insert/Update/Delete forms (with ? placeholders,
// MySQL's) run unchanged through RunWith(db).
func TestSquirrel(t *testing.T) {
	srv, db := newItems(t)

	rows, err := sq.Select("name", "qty").From("items").
		Where(sq.And{sq.Eq{"kind": "fruit"}, sq.Gt{"qty": 1}}).
		OrderBy("qty DESC").Limit(2).Offset(1).RunWith(db).Query()
	eq(t, "Eq/Gt/OrderBy/Limit/Offset", rowStrings(t, rows, err), []string{"Apple|5", "apricot|2"})
	// The WHERE goes to Airtable as the list's formula; the rest (order, offset) runs locally.
	if reqs := requests(srv); len(reqs) != 1 {
		t.Errorf("%d requests, want one list", len(reqs))
	} else if f := formula(t, reqs[0]); !strings.Contains(f, "'fruit'") || !strings.Contains(f, "{qty}>1") {
		t.Errorf("the WHERE was not pushed down: formula %q", f)
	}
	eq(t, "one list request", sent(t, srv), []string{"GET tbl"})

	rows, err = sq.Select("name").From("items").Where(sq.Or{sq.Eq{"kind": nil}, sq.Eq{"name": []string{"Leek", "Nope"}}}).
		OrderBy("name").RunWith(db).Query()
	eq(t, "Or/IS NULL/IN", rowStrings(t, rows, err), []string{"Leek", "Salt"})
	rows, err = sq.Select("name").From("items").Where(sq.Like{"name": "a%"}).OrderBy("name").RunWith(db).Query()
	eq(t, "Like (ASCII case ignored, as MySQL's default collation)", rowStrings(t, rows, err), []string{"Apple", "apricot"})
	rows, err = sq.Select("name").From("items").Where(sq.NotLike{"name": "%a%"}).Where("name LIKE BINARY ?", "L%").RunWith(db).Query()
	eq(t, "NotLike, LIKE BINARY", rowStrings(t, rows, err), []string{"Leek"})
	rows, err = sq.Select("name").From("items").OrderBy("name").Offset(4).RunWith(db).Query()
	eq(t, "Offset without Limit", rowStrings(t, rows, err), []string{"Salt", "apricot"})
	rows, err = sq.Select("kind", "COUNT(*) AS n", "SUM(qty) AS stock").From("items").Where("kind IS NOT NULL").
		GroupBy("kind").Having("SUM(qty) > ?", 10).OrderBy("kind").RunWith(db).Query()
	eq(t, "GroupBy/Having", rowStrings(t, rows, err), []string{"fruit|3|19"})
	var n int
	if err := sq.Select("COUNT(*)").From("items").Where(sq.LtOrEq{"price": 0.5}).RunWith(db).QueryRow().Scan(&n); err != nil || n != 3 {
		t.Errorf("QueryRow COUNT: %d, %v", n, err)
	}
	sent(t, srv)

	// Insert, Update with an expression, Delete: what each sends.
	res, err := sq.Insert("items").Columns("name", "qty", "price", "kind").
		Values("Fig", 3, 1.5, "fruit").Values("Kale", 4, 2.0, "veg").RunWith(db).Exec()
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := res.RowsAffected(); n != 2 {
		t.Errorf("Insert RowsAffected = %d", n)
	}
	eq(t, "Insert sent", sent(t, srv), []string{"POST tbl"})
	res, err = sq.Update("items").Set("qty", sq.Expr("qty * ?", 2)).Set("price", 9.5).Where(sq.Eq{"name": "Kale"}).RunWith(db).Exec()
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := res.RowsAffected(); n != 1 {
		t.Errorf("Update RowsAffected = %d", n)
	}
	eq(t, "Update sent", sent(t, srv), []string{"GET tbl", "PATCH tbl"})
	res, err = sq.Delete("items").Where(sq.Lt{"qty": 2}).RunWith(db).Exec()
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := res.RowsAffected(); n != 2 { // Leek (0) and Salt (1)
		t.Errorf("Delete RowsAffected = %d", n)
	}
	eq(t, "Delete sent", sent(t, srv), []string{"GET tbl", "DELETE tbl"})
	rows, err = sq.Select("name", "qty", "price").From("items").OrderBy("name").RunWith(db).Query()
	eq(t, "after writes", rowStrings(t, rows, err), []string{"Apple|5|0.5", "Banana|12|0.25", "Carrot|7|0.1", "Fig|3|1.5", "Kale|8|9.5", "apricot|2|0.8"})

	// A statement builder with a cache of prepared statements.
	cache := sq.NewStmtCache(db)
	defer cache.Clear()
	rows, err = sq.StatementBuilder.RunWith(cache).Select("name").From("items").Where(sq.Eq{"kind": "veg"}).OrderBy("name").Query()
	eq(t, "StmtCache", rowStrings(t, rows, err), []string{"Carrot", "Kale"})

	// Join (issue 10).
	rows, err = sq.Select("items.name", "kinds.label").From("items").Join("kinds ON kinds.code = items.kind").
		Where(sq.Eq{"items.name": "Carrot"}).RunWith(db).Query()
	skipIfNoJoin(t, err)
	eq(t, "Join", rowStrings(t, rows, err), []string{"Carrot|Vegetables"})
}
