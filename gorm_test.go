package airsql

import (
	"database/sql"
	"reflect"
	"testing"

	"gorm.io/driver/mysql"
	"gorm.io/gorm"
	"gorm.io/gorm/logger"
)

// gormTask maps the test base's Tasks table for GORM (its default table name, "tasks", finds
// Tasks: table names are matched regardless of case when only one table has the name).
type gormTask struct {
	ID       string         `gorm:"column:id;primaryKey"`
	Name     sql.NullString `gorm:"column:Name"`
	Priority sql.NullInt64  `gorm:"column:Priority"`
	Status   sql.NullString `gorm:"column:Status"`
	Done     bool           `gorm:"column:Done"`
}

func (gormTask) TableName() string { return "Tasks" }

// openGorm opens GORM's MySQL dialector over an existing *sql.DB of this driver.
func openGorm(t *testing.T) *gorm.DB {
	t.Helper()
	srv := newEmulator(t)
	db, _ := openDB(t, srv, "")
	g, err := gorm.Open(mysql.New(mysql.Config{Conn: db, SkipInitializeWithVersion: true}),
		&gorm.Config{Logger: logger.Discard, SkipDefaultTransaction: true})
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// TestGormQueries: GORM's Group, Having, Distinct, Offset, Pluck and Count run unchanged.
func TestGormQueries(t *testing.T) {
	g := openGorm(t)

	type statusCount struct {
		Status sql.NullString
		N      int64
	}
	var groups []statusCount
	err := g.Model(&gormTask{}).Select("Status AS status, COUNT(*) AS n").Group("Status").
		Having("COUNT(*) > ?", 1).Order("n DESC, Status").Scan(&groups).Error
	if err != nil {
		t.Fatal(err)
	}
	want := []statusCount{{sql.NullString{String: "Todo", Valid: true}, 3}, {sql.NullString{}, 2}, {sql.NullString{String: "Doing", Valid: true}, 2}}
	if !reflect.DeepEqual(groups, want) {
		t.Errorf("Group/Having: %+v, want %+v", groups, want)
	}

	var statuses []string
	if err := g.Model(&gormTask{}).Distinct("Status").Where("Status IS NOT NULL").Order("Status").Pluck("Status", &statuses).Error; err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(statuses, []string{"Doing", "Done", "Todo"}) {
		t.Errorf("Distinct/Pluck: %q", statuses)
	}

	var page []gormTask
	if err := g.Where("Priority IS NOT NULL").Order("Priority DESC").Offset(1).Limit(2).Find(&page).Error; err != nil {
		t.Fatal(err)
	}
	if len(page) != 2 || page[0].Name.String != "write tests" || page[1].Name.String != "Write spec" {
		t.Errorf("Offset/Limit: %+v", page)
	}

	var n int64
	if err := g.Model(&gormTask{}).Where("Done = ?", false).Count(&n).Error; err != nil {
		t.Fatal(err)
	}
	if n != 6 {
		t.Errorf("Count = %d, want 6", n)
	}
	if err := g.Model(&gormTask{}).Distinct("Status").Count(&n).Error; err != nil {
		t.Fatal(err)
	}
	if n != 3 { // COUNT(DISTINCT Status) skips NULL
		t.Errorf("Count of distinct statuses = %d, want 3", n)
	}

	if err := g.Model(&gormTask{}).Group("Status").Count(&n).Error; err != nil {
		t.Fatal(err)
	}
	if n != 4 { // GORM counts the groups: NULL, Doing, Done, Todo
		t.Errorf("Group().Count = %d, want 4", n)
	}
	var page2 []string
	if err := g.Model(&gormTask{}).Distinct("Status").Order("Status").Limit(2).Offset(1).Pluck("Status", &page2).Error; err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(page2, []string{"Doing", "Done"}) { // after NULL, which sorts first
		t.Errorf("Distinct/Order/Offset/Limit: %q", page2)
	}

	var names []string
	if err := g.Model(&gormTask{}).Where("Priority >= ?", 4).Order("Name").Pluck("Name", &names).Error; err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(names, []string{"Ship it", "write tests"}) {
		t.Errorf("Pluck: %q", names)
	}
}

// TestGormMigratorReads: the Migrator's reads of information_schema (HasTable, HasColumn,
// HasIndex, ColumnTypes, GetTables) answer from the base schema.
func TestGormMigratorReads(t *testing.T) {
	g := openGorm(t)
	m := g.Migrator()
	if !m.HasTable(&gormTask{}) || !m.HasTable("Tasks") {
		t.Error("HasTable(Tasks) = false")
	}
	// GORM's default table name for a model Task is "tasks": the driver finds Tasks by it, and so
	// does information_schema.
	if !m.HasTable("tasks") || !m.HasColumn("tasks", "priority") {
		t.Error("HasTable(tasks) or HasColumn(tasks, priority) = false")
	}
	if m.HasTable("Nope") {
		t.Error("HasTable(Nope) = true")
	}
	if !m.HasColumn(&gormTask{}, "Priority") || m.HasColumn(&gormTask{}, "Nope") {
		t.Error("HasColumn wrong")
	}
	if !m.HasIndex(&gormTask{}, "PRIMARY") {
		t.Error("HasIndex(PRIMARY) = false")
	}
	tables, err := m.GetTables()
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(tables, []string{"Tasks", "Team Members", "Tricky"}) {
		t.Errorf("GetTables = %q", tables)
	}
	cols, err := m.ColumnTypes(&gormTask{})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, c := range cols {
		typ, _ := c.ColumnType()
		nullable, _ := c.Nullable()
		pk, _ := c.PrimaryKey()
		got[c.Name()] = c.DatabaseTypeName() + " " + typ + map[bool]string{true: " null", false: ""}[nullable] + map[bool]string{true: " pk", false: ""}[pk]
	}
	for name, want := range map[string]string{"id": "varchar varchar(17) pk", "Priority": "bigint bigint null", "Done": "tinyint tinyint(1)", "Name": "varchar varchar null"} {
		if got[name] != want {
			t.Errorf("ColumnTypes %s = %q, want %q", name, got[name], want)
		}
	}
}
