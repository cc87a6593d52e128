package ormtest

import (
	"database/sql"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"gorm.io/driver/mysql"
	"gorm.io/gorm"
	"gorm.io/gorm/logger"
)

// Product is the model README's GORM section shows: an Airtable record id as the primary key,
// which the database assigns (default:(-)), and the record's creation time, read-only.
type Product struct {
	ID          string    `gorm:"primaryKey;default:(-)"`
	CreatedTime time.Time `gorm:"column:createdTime;->;default:(-)"`
	Code        string    `gorm:"size:32"`
	Name        string
	Price       float64
	Stock       int64
	Active      bool
	Category    string `gorm:"size:32"`
}

// openGorm opens GORM with its defaults over the driver's *sql.DB: no Skip* flag, default
// transactions on.
func openGorm(t testing.TB, db *sql.DB) *gorm.DB {
	t.Helper()
	g, err := gorm.Open(mysql.New(mysql.Config{Conn: db}), &gorm.Config{Logger: logger.Discard})
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// migrated opens GORM on a new base and runs AutoMigrate of Product.
func migrated(t *testing.T) (*gorm.DB, func() []string) {
	t.Helper()
	srv, db := newBase(t)
	g := openGorm(t, db)
	if err := g.AutoMigrate(&Product{}); err != nil {
		t.Fatal(err)
	}
	sent(t, srv)
	return g, func() []string { return sent(t, srv) }
}

func TestGormAutoMigrate(t *testing.T) {
	srv, db := newBase(t)
	g := openGorm(t, db)
	sent(t, srv)
	if err := g.AutoMigrate(&Product{}); err != nil {
		t.Fatal(err)
	}
	reqs := requests(srv)
	if len(reqs) != 1 || reqs[0].Method != "POST" || !strings.HasSuffix(reqs[0].Path, "/tables") {
		t.Fatalf("AutoMigrate sent %q, want one POST …/tables", sent(t, srv))
	}
	body := string(reqs[0].Body)
	for _, f := range []string{`{"name":"code","type":"singleLineText"}`, `{"name":"name","type":"multilineText"}`,
		`{"name":"price","type":"number","options":{"precision":8}}`, `{"name":"stock","type":"number","options":{"precision":0}}`,
		`"name":"active","type":"checkbox"`} {
		if !strings.Contains(body, f) {
			t.Errorf("CREATE TABLE body lacks %s: %s", f, body)
		}
	}
	if strings.Contains(body, `"createdTime"`) || strings.Contains(body, `"name":"id"`) {
		t.Errorf("id and createdTime are built in, yet the body creates them: %s", body)
	}
	sent(t, srv)

	// A second AutoMigrate of the same model writes nothing; a new field is one ADD COLUMN.
	if err := g.AutoMigrate(&Product{}); err != nil {
		t.Fatal(err)
	}
	// It reads (GORM's SELECT * … LIMIT 1 for the column types may send one list request, or
	// none when it closes the rows first), and writes nothing.
	if s := writes(sent(t, srv)); len(s) != 0 {
		t.Errorf("second AutoMigrate wrote %q, want nothing", s)
	}
	type Product2 struct {
		Product
		Weight float64
	}
	if err := g.Table("products").AutoMigrate(&Product2{}); err != nil {
		t.Fatal(err)
	}
	if s := writes(sent(t, srv)); !reflect.DeepEqual(s, []string{"POST tables/tbl/fields"}) {
		t.Errorf("AutoMigrate with a new field sent %q, want one POST …/fields", s)
	}
	if !g.Migrator().HasTable(&Product{}) || !g.Migrator().HasColumn(&Product{}, "price") {
		t.Error("HasTable/HasColumn after AutoMigrate = false")
	}
}

func TestGormCreate(t *testing.T) {
	g, sent := migrated(t)

	// One record: its id and creation time come back through RETURNING, in the one POST.
	p := Product{Code: "A1", Name: "Anvil", Price: 9.5, Stock: 3, Active: true, Category: "tools"}
	if err := g.Create(&p).Error; err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(p.ID, "rec") || p.CreatedTime.IsZero() {
		t.Errorf("Create left ID %q, CreatedTime %v", p.ID, p.CreatedTime)
	}
	if s := sent(); !reflect.DeepEqual(s, []string{"POST tbl"}) {
		t.Errorf("Create sent %q", s)
	}

	// A slice: one INSERT, three POSTs of 10, 10 and 5, every model given its own id.
	var many []Product
	for i := range 25 {
		many = append(many, Product{Code: fmt.Sprintf("B%02d", i), Name: "Bolt", Price: float64(i), Stock: int64(i), Category: "parts"})
	}
	if err := g.Create(&many).Error; err != nil {
		t.Fatal(err)
	}
	if s := sent(); !reflect.DeepEqual(s, []string{"POST tbl", "POST tbl", "POST tbl"}) {
		t.Errorf("Create of 25 sent %q", s)
	}
	ids := map[string]bool{p.ID: true}
	for _, m := range many {
		ids[m.ID] = true
	}
	if len(ids) != 26 {
		t.Errorf("%d distinct ids for 26 records", len(ids))
	}
	// Each model got the id of its own record.
	for _, m := range many {
		var got Product
		if err := g.Take(&got, "id = ?", m.ID).Error; err != nil || got.Code != m.Code {
			t.Fatalf("record %s: %+v, %v; want code %s", m.ID, got, err, m.Code)
		}
	}
	sent()

	// CreateInBatches: one INSERT per batch, each filled in.
	var batch []Product
	for i := range 12 {
		batch = append(batch, Product{Code: fmt.Sprintf("C%02d", i), Name: "Cog", Price: 1, Category: "parts"})
	}
	if err := g.CreateInBatches(&batch, 5).Error; err != nil {
		t.Fatal(err)
	}
	if s := sent(); !reflect.DeepEqual(s, []string{"POST tbl", "POST tbl", "POST tbl"}) {
		t.Errorf("CreateInBatches(12, 5) sent %q", s)
	}
	for _, b := range batch {
		if !strings.HasPrefix(b.ID, "rec") {
			t.Errorf("CreateInBatches left %+v without an id", b)
		}
	}
	var n int64
	if err := g.Model(&Product{}).Count(&n).Error; err != nil || n != 38 {
		t.Errorf("Count = %d, %v; want 38", n, err)
	}
}

// TestGormUntaggedID: a string ID without default:(-) makes GORM send id = ” and never read the
// id back; the driver refuses that INSERT before anything is sent, saying which tag to write,
// rather than create a record whose model keeps the id ”.
func TestGormUntaggedID(t *testing.T) {
	srv, db := newBase(t)
	g := openGorm(t, db)
	type Plain struct {
		ID   string
		Name string
	}
	if err := g.AutoMigrate(&Plain{}); err != nil {
		t.Fatal(err)
	}
	sent(t, srv)
	err := g.Create(&Plain{Name: "x"}).Error
	if err == nil || !strings.Contains(err.Error(), `gorm:"primaryKey;default:(-)"`) {
		t.Errorf("Create with an untagged string ID: %v, want the refusal naming the tag", err)
	}
	if s := writes(sent(t, srv)); len(s) != 0 {
		t.Errorf("the refused Create sent %q", s)
	}
	// NULL for id lets Airtable assign it, as MySQL does for an AUTO_INCREMENT key.
	var id string
	if err := db.QueryRow("INSERT INTO plains (id, name) VALUES (NULL, 'y') RETURNING id").Scan(&id); err != nil || !strings.HasPrefix(id, "rec") {
		t.Errorf("INSERT with id NULL: %q, %v", id, err)
	}
}

// Gadget has the Go types a model commonly has; AutoMigrate maps each to a field, and running it
// again sends no write (MODIFYs of types Airtable cannot tell apart run as no-ops).
type Gadget struct {
	ID       string `gorm:"primaryKey;default:(-)"`
	Title    string `gorm:"size:100;comment:what it is called"`
	Small    int32
	Plain    int
	Count    uint
	Ratio    float32
	Amount   float64 `gorm:"type:decimal(10,2)"`
	Maybe    *string
	Score    sql.NullInt64
	Flag     bool `gorm:"not null"`
	Seen     *time.Time
	Day      time.Time `gorm:"type:date"`
	Kind     string    `gorm:"type:enum('a','b')"`
	Internal string    `gorm:"-:migration"`
}

func TestGormAutoMigrateTypes(t *testing.T) {
	srv, db := newBase(t)
	g := openGorm(t, db)
	if err := g.Migrator().CreateTable(&Gadget{}); err != nil {
		t.Fatal(err)
	}
	reqs := requests(srv)
	if len(reqs) != 1 {
		t.Fatalf("CreateTable sent %d requests", len(reqs))
	}
	body := string(reqs[0].Body)
	for _, f := range []string{`{"name":"title","type":"singleLineText","description":"what it is called"}`,
		`{"name":"amount","type":"number","options":{"precision":2}}`, `{"name":"day","type":"date"`,
		`{"name":"kind","type":"singleSelect"`, `{"name":"seen","type":"dateTime"`} {
		if !strings.Contains(body, f) {
			t.Errorf("CREATE TABLE lacks %s: %s", f, body)
		}
	}
	if strings.Contains(body, "internal") {
		t.Errorf("a -:migration field was created: %s", body)
	}
	sent(t, srv)
	for range 2 {
		if err := g.AutoMigrate(&Gadget{}); err != nil {
			t.Fatal(err)
		}
	}
	if w := writes(sent(t, srv)); len(w) != 0 {
		t.Errorf("AutoMigrate of an existing table wrote %q", w)
	}
}

// TestGormPrepareStmt: GORM's PrepareStmt mode (prepared statements cached per SQL text, also
// inside its default transactions) runs the same writes and reads.
func TestGormPrepareStmt(t *testing.T) {
	srv, db := newBase(t)
	g, err := gorm.Open(mysql.New(mysql.Config{Conn: db}), &gorm.Config{Logger: logger.Discard, PrepareStmt: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := g.AutoMigrate(&Product{}); err != nil {
		t.Fatal(err)
	}
	for _, code := range []string{"P1", "P2"} {
		p := Product{Code: code, Stock: 1}
		if err := g.Create(&p).Error; err != nil || p.ID == "" {
			t.Fatalf("Create: %+v, %v", p, err)
		}
	}
	var p Product
	if err := g.First(&p, "code = ?", "P1").Error; err != nil {
		t.Fatal(err)
	}
	p.Stock = 99
	if err := g.Save(&p).Error; err != nil {
		t.Fatal(err)
	}
	if err := g.Delete(&Product{}, "code = ?", "P2").Error; err != nil {
		t.Fatal(err)
	}
	var all []Product
	if err := g.Find(&all).Error; err != nil || len(all) != 1 || all[0].Stock != 99 || all[0].ID != p.ID {
		t.Errorf("after Save and Delete: %+v, %v", all, err)
	}
	if w := writes(sent(t, srv)); len(w) != 5 { // CREATE TABLE, 2 POST, PATCH, DELETE
		t.Errorf("writes %q", w)
	}
}
