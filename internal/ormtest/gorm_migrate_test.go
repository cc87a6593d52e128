package ormtest

import (
	"testing"
	"time"

	"github.com/airsql/airsql/emulator"
)

// Person is a model written for a table made in Airtable itself (its fields named as GORM names
// columns): its Go types are GORM's defaults (a string is longtext, an int64 bigint, a float64 double), not the SQL types that
// would have created the fields.
type Person struct {
	ID      string `gorm:"primaryKey;default:(-)"`
	Name    string
	Notes   string
	Email   string
	Website string `gorm:"size:255"`
	Age     int64
	Small   int
	Score   float64
	Price   float64
	Done    bool
	Born    time.Time `gorm:"type:date"`
	Seen    *time.Time
	Stage   string `gorm:"type:enum('a','b')"`
}

// TestGormAutoMigrateExistingTable: AutoMigrate of a model that matches a table made in
// Airtable sends no metadata request: the ALTER … MODIFYs GORM sends where MySQL's spelling of
// a type differs from the model's (varchar → longtext, a number's bigint → int) change nothing
// Airtable stores, so they run without a request.
func TestGormAutoMigrateExistingTable(t *testing.T) {
	people := emulator.FixtureTable{Name: "people", Fields: []emulator.FixtureField{
		{Name: "name", Type: "singleLineText"},
		{Name: "notes", Type: "multilineText"},
		{Name: "email", Type: "email"},
		{Name: "website", Type: "url"},
		{Name: "age", Type: "number", Options: map[string]any{"precision": 0}},
		{Name: "small", Type: "number", Options: map[string]any{"precision": 0}},
		{Name: "score", Type: "number", Options: map[string]any{"precision": 2}},
		{Name: "price", Type: "currency", Options: map[string]any{"precision": 2, "symbol": "$"}},
		{Name: "done", Type: "checkbox", Options: map[string]any{"icon": "check", "color": "greenBright"}},
		{Name: "born", Type: "date", Options: map[string]any{"dateFormat": map[string]any{"name": "iso"}}},
		{Name: "seen", Type: "dateTime", Options: map[string]any{"dateFormat": map[string]any{"name": "iso"},
			"timeFormat": map[string]any{"name": "24hour"}, "timeZone": "utc"}},
		{Name: "stage", Type: "singleSelect", Options: map[string]any{"choices": []any{
			map[string]any{"name": "a"}, map[string]any{"name": "b"}}}},
	}}
	srv, db := newBaseWith(t, []emulator.FixtureTable{people})
	g := openGorm(t, db)
	srv.ResetRequests()
	for run := range 2 {
		if err := g.AutoMigrate(&Person{}); err != nil {
			t.Fatalf("AutoMigrate %d: %v", run+1, err)
		}
	}
	var meta []string
	for _, r := range srv.Requests() {
		if r.Method != "GET" {
			meta = append(meta, r.Method+" "+r.Path)
		}
	}
	if len(meta) != 0 {
		t.Errorf("AutoMigrate of a model matching its table sent %q, want no write", meta)
	}
	// The model reads and writes the table it matched.
	if err := g.Create(&Person{Name: "Ada", Age: 36, Score: 1.5, Done: true, Stage: "a"}).Error; err != nil {
		t.Fatal(err)
	}
	var got Person
	if err := g.First(&got, "name = ?", "Ada").Error; err != nil || got.Age != 36 || !got.Done || got.Stage != "a" {
		t.Errorf("got %+v, %v; want Ada, 36, done, stage a", got, err)
	}
}
