package ormtest

import (
	"testing"
	"time"

	"github.com/jmoiron/sqlx"
)

// TestSqlx: sqlx's documented forms — Select/Get into structs, NamedExec of a struct slice (one
// INSERT of several rows), sqlx.In with Rebind, NamedQuery, a transaction with MustBegin.
func TestSqlx(t *testing.T) {
	srv, sdb := newItems(t)
	db := sqlx.NewDb(sdb, "mysql") // the mysql bind type: ?

	type item struct {
		ID    string  `db:"id"`
		Name  string  `db:"name"`
		Qty   int64   `db:"qty"`
		Price float64 `db:"price"`
		Kind  *string `db:"kind"`
		// SELECT * has the record's creation time too; sqlx wants a destination for every column.
		Created time.Time `db:"createdTime"`
	}
	var fruit []item
	if err := db.Select(&fruit, "SELECT id, name, qty, price, kind FROM items WHERE kind = ? ORDER BY name LIMIT 2 OFFSET 1", "fruit"); err != nil {
		t.Fatal(err)
	}
	if len(fruit) != 2 || fruit[0].Name != "Banana" || fruit[1].Name != "apricot" || fruit[0].ID == "" {
		t.Errorf("Select: %+v", fruit)
	}
	var salt item
	if err := db.Get(&salt, "SELECT * FROM items WHERE name = ?", "Salt"); err != nil || salt.Kind != nil || salt.Qty != 1 {
		t.Errorf("Get: %+v, %v", salt, err)
	}
	sent(t, srv)

	res, err := db.NamedExec("INSERT INTO items (name, qty, price, kind) VALUES (:name, :qty, :price, :kind)",
		[]item{{Name: "Fig", Qty: 3, Price: 1.5}, {Name: "Kale", Qty: 4, Price: 2}})
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := res.RowsAffected(); n != 2 {
		t.Errorf("NamedExec RowsAffected = %d", n)
	}
	eq(t, "NamedExec of two rows sent", sent(t, srv), []string{"POST tbl"})

	q, args, err := sqlx.In("SELECT name FROM items WHERE name IN (?) AND qty >= ? ORDER BY name", []string{"Fig", "Kale", "Leek"}, 1)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	if err := db.Select(&names, db.Rebind(q), args...); err != nil {
		t.Fatal(err)
	}
	eq(t, "sqlx.In", names, []string{"Fig", "Kale"})

	rows, err := db.NamedQuery("SELECT name FROM items WHERE price > :min ORDER BY price DESC", map[string]any{"min": 1.0})
	if err != nil {
		t.Fatal(err)
	}
	names = nil
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			t.Fatal(err)
		}
		names = append(names, n)
	}
	rows.Close()
	eq(t, "NamedQuery", names, []string{"Kale", "Fig", "Leek"})
	sent(t, srv)

	tx := db.MustBegin()
	tx.MustExec("UPDATE items SET qty = qty + 1 WHERE name = ?", "Fig")
	tx.MustExec("DELETE FROM items WHERE name = ?", "Salt")
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	var qty int64
	if err := db.Get(&qty, "SELECT qty FROM items WHERE name = 'Fig'"); err != nil || qty != 4 {
		t.Errorf("after the transaction: qty %d, %v", qty, err)
	}
	if err := db.Get(&qty, "SELECT COUNT(*) FROM items WHERE name = 'Salt'"); err != nil || qty != 0 {
		t.Errorf("after the transaction: %d Salt, %v", qty, err)
	}
}
