package ormtest

import (
	"reflect"
	"testing"
	"time"

	"gorm.io/driver/mysql"
	"gorm.io/gorm"
	"gorm.io/gorm/clause"
	"gorm.io/gorm/logger"
)

func TestGormUpdateDelete(t *testing.T) {
	g, sent := migrated(t)
	byCode := seed(t, g)
	sent()

	// Save of a loaded record: one UPDATE by id (found by id, no list), one PATCH.
	p := byCode["H1"]
	p.Price, p.Stock = 27.5, 11
	if err := g.Save(&p).Error; err != nil {
		t.Fatal(err)
	}
	if s := sent(); !reflect.DeepEqual(s, []string{"GET tbl/rec", "PATCH tbl"}) {
		t.Errorf("Save sent %q", s)
	}
	// Update with gorm.Expr reads the record's current value.
	if err := g.Model(&p).Update("stock", gorm.Expr("stock + ?", 4)).Error; err != nil {
		t.Fatal(err)
	}
	// Updates with a struct (zero fields skipped) and with a map (zero values written).
	if err := g.Model(&p).Updates(Product{Name: "Claw hammer", Price: 30}).Error; err != nil {
		t.Fatal(err)
	}
	if err := g.Model(&p).Updates(map[string]any{"active": false, "category": "tools"}).Error; err != nil {
		t.Fatal(err)
	}
	var got Product
	if err := g.First(&got, "id = ?", p.ID).Error; err != nil {
		t.Fatal(err)
	}
	if got.Name != "Claw hammer" || got.Price != 30 || got.Stock != 15 || got.Active || got.Code != "H1" {
		t.Errorf("after updates: %+v", got)
	}
	sent()

	// A batch update by condition, with an expression.
	res := g.Model(&Product{}).Where("category = ?", "parts").Update("price", gorm.Expr("price * 2"))
	if res.Error != nil || res.RowsAffected != 2 {
		t.Fatalf("Update by condition: %d, %v", res.RowsAffected, res.Error)
	}
	if s := sent(); !reflect.DeepEqual(s, []string{"GET tbl", "PATCH tbl"}) {
		t.Errorf("Update by condition sent %q: one list, one PATCH of both", s)
	}
	var prices []float64
	g.Model(&Product{}).Where("category = ?", "parts").Order("price").Pluck("price", &prices)
	if !reflect.DeepEqual(prices, []float64{0.5, 1}) {
		t.Errorf("prices after update: %v", prices)
	}
	// GORM refuses an update or delete without a condition (ErrMissingWhereClause), as it should.
	if err := g.Model(&Product{}).Update("stock", 0).Error; err != gorm.ErrMissingWhereClause {
		t.Errorf("Update without WHERE: %v", err)
	}
	sent()

	// Delete by primary key (the model, an id, several ids) and by condition.
	if err := g.Delete(&Product{}, "id = ?", byCode["A1"].ID).Error; err != nil {
		t.Fatal(err)
	}
	glue := byCode["G1"]
	if err := g.Delete(&glue).Error; err != nil {
		t.Fatal(err)
	}
	// Each: a GET of the record (a DELETE of an id Airtable does not have fails the whole request,
	// and RowsAffected must say whether it existed), then one DELETE; no list.
	if s := sent(); !reflect.DeepEqual(s, []string{"GET tbl/rec", "DELETE tbl", "GET tbl/rec", "DELETE tbl"}) {
		t.Errorf("Delete by id sent %q", s)
	}
	if err := g.Delete(&Product{}, []string{byCode["B1"].ID, byCode["N1"].ID}).Error; err != nil {
		t.Fatal(err)
	}
	res = g.Where("stock = ?", 0).Delete(&Product{})
	if res.Error != nil || res.RowsAffected != 1 {
		t.Errorf("Delete by condition: %d, %v", res.RowsAffected, res.Error)
	}
	var left []string
	g.Model(&Product{}).Order("code").Pluck("code", &left)
	if !reflect.DeepEqual(left, []string{"H1"}) {
		t.Errorf("left after deletes: %q", left)
	}
}

// TestGormTransaction: GORM's Transaction is the driver's client-side unit of work: its writes go
// out at COMMIT, and a rollback before anything was sent leaves nothing behind.
func TestGormTransaction(t *testing.T) {
	g, sent := migrated(t)
	err := g.Transaction(func(tx *gorm.DB) error {
		for _, c := range []string{"T1", "T2", "T3"} {
			if err := tx.Exec("INSERT INTO products (code, name) VALUES (?, ?)", c, "queued").Error; err != nil {
				return err
			}
		}
		if s := sent(); len(s) != 0 {
			t.Errorf("writes inside the transaction sent %q before COMMIT", s)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if s := sent(); !reflect.DeepEqual(s, []string{"POST tbl"}) {
		t.Errorf("COMMIT of three one-row INSERTs sent %q, want one POST", s)
	}
	err = g.Transaction(func(tx *gorm.DB) error {
		if err := tx.Exec("INSERT INTO products (code) VALUES ('R1')").Error; err != nil {
			return err
		}
		return gorm.ErrInvalidData // any error: GORM rolls back
	})
	if err != gorm.ErrInvalidData {
		t.Fatalf("Transaction: %v", err)
	}
	if s := sent(); len(s) != 0 {
		t.Errorf("a rolled-back transaction sent %q", s)
	}
	var n int64
	if err := g.Model(&Product{}).Count(&n).Error; err != nil || n != 3 {
		t.Errorf("Count = %d, %v; want 3", n, err)
	}
}

// Note has GORM's conventional timestamps and soft delete (DeletedAt, indexed).
type Note struct {
	ID        string `gorm:"primaryKey;default:(-)"`
	Text      string
	CreatedAt time.Time
	UpdatedAt time.Time
	DeletedAt gorm.DeletedAt `gorm:"index"`
}

// TestGormSoftDelete: CreatedAt/UpdatedAt are written by GORM, Delete sets deleted_at (a PATCH,
// nothing deleted), later queries leave the record out and Unscoped finds it.
func TestGormSoftDelete(t *testing.T) {
	srv, db := newBase(t)
	g := openGorm(t, db)
	for range 2 { // the second run, with its CREATE INDEX, writes nothing
		if err := g.AutoMigrate(&Note{}); err != nil {
			t.Fatal(err)
		}
	}
	if w := writes(sent(t, srv)); len(w) != 1 {
		t.Errorf("two AutoMigrates wrote %q, want the one CREATE TABLE", w)
	}
	n := Note{Text: "a"}
	if err := g.Create(&n).Error; err != nil || n.ID == "" || n.CreatedAt.IsZero() {
		t.Fatalf("Create: %+v, %v", n, err)
	}
	sent(t, srv)
	if err := g.Delete(&n).Error; err != nil {
		t.Fatal(err)
	}
	if w := writes(sent(t, srv)); !reflect.DeepEqual(w, []string{"PATCH tbl"}) {
		t.Errorf("soft Delete wrote %q, want one PATCH", w)
	}
	var c int64
	if err := g.Model(&Note{}).Count(&c).Error; err != nil || c != 0 {
		t.Errorf("Count after soft delete: %d, %v", c, err)
	}
	var all []Note
	if err := g.Unscoped().Find(&all).Error; err != nil || len(all) != 1 || !all[0].DeletedAt.Valid {
		t.Errorf("Unscoped: %+v, %v", all, err)
	}
	if err := g.Unscoped().Delete(&n).Error; err != nil {
		t.Fatal(err)
	}
	if err := g.Unscoped().Model(&Note{}).Count(&c).Error; err != nil || c != 0 {
		t.Errorf("Count after Unscoped Delete: %d, %v", c, err)
	}
}

// TestGormFirstOrCreateAndUpsert: FirstOrCreate finds or creates; an upsert (OnConflict with
// DoUpdates of every column but the key) merges on the key column and returns each record's id,
// the existing one's for a match.
func TestGormFirstOrCreateAndUpsert(t *testing.T) {
	g, sent := migrated(t)
	byCode := seed(t, g)
	sent()
	var found, made Product
	if err := g.Where(Product{Code: "A1"}).FirstOrCreate(&found).Error; err != nil || found.ID != byCode["A1"].ID {
		t.Errorf("FirstOrCreate of an existing record: %+v, %v", found, err)
	}
	if w := writes(sent()); len(w) != 0 {
		t.Errorf("FirstOrCreate of an existing record wrote %q", w)
	}
	if err := g.Where(Product{Code: "Z9"}).Attrs(Product{Name: "new"}).FirstOrCreate(&made).Error; err != nil || made.ID == "" || made.Name != "new" {
		t.Errorf("FirstOrCreate of a new record: %+v, %v", made, err)
	}
	sent()

	up := []Product{{Code: "A1", Name: "Anvil 2", Price: 91, Stock: 2, Active: true, Category: "tools"}, {Code: "X1", Name: "Xylo", Category: "toys"}}
	err := g.Clauses(clause.OnConflict{Columns: []clause.Column{{Name: "code"}},
		DoUpdates: clause.AssignmentColumns([]string{"name", "price", "stock", "active", "category"})}).Create(&up).Error
	if err != nil {
		t.Fatal(err)
	}
	if up[0].ID != byCode["A1"].ID || up[1].ID == "" || up[1].ID == up[0].ID {
		t.Errorf("upsert ids: %q, %q; want %q and a new one", up[0].ID, up[1].ID, byCode["A1"].ID)
	}
	reqs := sent()
	if !reflect.DeepEqual(reqs, []string{"PATCH tbl"}) {
		t.Errorf("upsert sent %q, want one PATCH with performUpsert", reqs)
	}
	var a1 Product
	if err := g.First(&a1, "id = ?", byCode["A1"].ID).Error; err != nil || a1.Name != "Anvil 2" || a1.Price != 91 {
		t.Errorf("A1 after upsert: %+v, %v", a1, err)
	}
	var n int64
	if err := g.Model(&Product{}).Count(&n).Error; err != nil || n != 8 {
		t.Errorf("Count = %d, %v; want 8", n, err)
	}
}

// KeyedNote is a model whose string key the database assigns, with GORM told nothing of the server's
// version (SkipInitializeWithVersion): GORM then uses no RETURNING and, after the INSERT, asks
// Result.LastInsertId for the key.
type KeyedNote struct {
	ID   string `gorm:"primaryKey;default:null"`
	Text string
}

// TestGormCreateWithoutReturning: LastInsertId answers 0 and no error, as MySQL does for a table
// without AUTO_INCREMENT, so Create reports the write that succeeded as a success (an error there
// made applications retry and create the record twice).
func TestGormCreateWithoutReturning(t *testing.T) {
	srv, db := newBase(t)
	if _, err := db.Exec("CREATE TABLE keyed_notes (id VARCHAR(32) PRIMARY KEY, text LONGTEXT)"); err != nil {
		t.Fatal(err)
	}
	g, err := gorm.Open(mysql.New(mysql.Config{Conn: db, SkipInitializeWithVersion: true}), &gorm.Config{Logger: logger.Discard})
	if err != nil {
		t.Fatal(err)
	}
	sent(t, srv)
	n := KeyedNote{Text: "first"}
	if err := g.Create(&n).Error; err != nil {
		t.Fatalf("Create: %v", err)
	}
	if s := sent(t, srv); !reflect.DeepEqual(s, []string{"POST tbl"}) {
		t.Errorf("Create sent %q, want one POST", s)
	}
	var count int64
	if err := g.Model(&KeyedNote{}).Where("text = ?", "first").Count(&count).Error; err != nil || count != 1 {
		t.Errorf("records after Create: %d, %v; want 1", count, err)
	}
}
