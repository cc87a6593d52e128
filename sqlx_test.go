package airsql

import (
	"database/sql"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/jmoiron/sqlx"
)

// task is a tagged struct as reporting code would declare it; names with spaces are tags too.
type task struct {
	ID       string          `db:"id"`
	Name     sql.NullString  `db:"Name"`
	Priority sql.NullInt64   `db:"Priority"`
	Done     bool            `db:"Done"`
	Due      sql.NullTime    `db:"Due Date"`
	Tags     List            `db:"Tags"`
	Estimate sql.NullFloat64 `db:"Estimate"`
	Created  time.Time       `db:"createdTime"`
}

func openSqlx(t *testing.T) *sqlx.DB {
	srv := newEmulator(t)
	db, _ := openDB(t, srv, "")
	// The driver name "airtable" is unknown to sqlx, which then binds with ?, as the driver wants.
	return sqlx.NewDb(db, DriverName)
}

func TestSqlxSelectAndGet(t *testing.T) {
	db := openSqlx(t)
	var tasks []task
	err := db.Select(&tasks, "SELECT id, Name, Priority, Done, `Due Date`, Tags, Estimate, createdTime FROM Tasks WHERE Priority >= ? ORDER BY Priority DESC", 3)
	if err != nil {
		t.Fatal(err)
	}
	if len(tasks) != 3 {
		t.Fatalf("%d tasks, want 3", len(tasks))
	}
	first := tasks[0]
	if first.ID != "recTASK0000000003" || first.Name.String != "Ship it" || first.Priority.Int64 != 5 || !first.Done ||
		!first.Due.Valid || first.Due.Time.Format("2006-01-02") != "2024-03-15" || first.Tags != nil || first.Estimate.Valid {
		t.Errorf("first task = %+v", first)
	}
	if last := tasks[2]; !reflect.DeepEqual(last.Tags, List{"red", "blue"}) || last.Estimate.Float64 != 2.5 || last.Done {
		t.Errorf("last task = %+v", last)
	}

	// SELECT * into a struct without every column fails in sqlx unless it is unsafe; Get with the
	// columns named works.
	var one task
	if err := db.Get(&one, "SELECT id, Name, Priority, Done, `Due Date`, Tags, Estimate, createdTime FROM Tasks WHERE id = ?", "recTASK0000000002"); err != nil {
		t.Fatal(err)
	}
	if one.Name.String != "Review spec" || !reflect.DeepEqual(one.Tags, List{"green"}) {
		t.Errorf("Get = %+v", one)
	}
	var all []task
	if err := db.Unsafe().Select(&all, "SELECT * FROM Tasks"); err != nil || len(all) != 8 {
		t.Errorf("Select * = %d tasks, %v", len(all), err)
	}
}

func TestSqlxNamedExecAndIn(t *testing.T) {
	db := openSqlx(t)
	type newTask struct {
		Name     string   `db:"name"`
		Priority int      `db:"priority"`
		Tags     []string `db:"tags"`
	}
	res, err := db.NamedExec("INSERT INTO Tasks (Name, Priority, Tags) VALUES (:name, :priority, :tags)",
		[]newTask{{"named one", 11, []string{"red"}}, {"named two", 12, nil}})
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := res.RowsAffected(); n != 2 {
		t.Errorf("RowsAffected = %d, want 2", n)
	}
	query, args, err := sqlx.In("SELECT Name FROM Tasks WHERE Name IN (?) ORDER BY Priority", []string{"named one", "named two", "Ship it"})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	if err := db.Select(&names, db.Rebind(query), args...); err != nil {
		t.Fatal(err)
	}
	if want := []string{"Ship it", "named one", "named two"}; !reflect.DeepEqual(names, want) {
		t.Errorf("sqlx.In: %q, want %q", names, want)
	}
}

// TestSliceWithoutSqlxIn: a []string bound to one placeholder of IN (?) against a text column would
// compare the column with the list's JSON text and silently match nothing; it is refused with an
// error that says to expand it (sqlx.In). Against a JSON column the slice is the whole value.
func TestSliceWithoutSqlxIn(t *testing.T) {
	db := openSqlx(t)
	var names []string
	err := db.Select(&names, "SELECT Name FROM Tasks WHERE Name IN (?)", []string{"Ship it", "Write spec"})
	if err == nil || !strings.Contains(err.Error(), "sqlx.In") {
		t.Errorf("IN (?) with a []string: %v, want an error pointing to sqlx.In", err)
	}
	query, args, err := sqlx.In("SELECT Name FROM Tasks WHERE Name IN (?) ORDER BY Name", []string{"Ship it", "Write spec"})
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Select(&names, query, args...); err != nil || !reflect.DeepEqual(names, []string{"Ship it", "Write spec"}) {
		t.Errorf("with sqlx.In: %q, %v", names, err)
	}
	names = nil
	if err := db.Select(&names, "SELECT Name FROM Tasks WHERE Tags = ?", []string{"green"}); err != nil || !reflect.DeepEqual(names, []string{"Review spec"}) {
		t.Errorf("Tags = []string{green}: %q, %v", names, err)
	}
	// An airsql.List is a driver.Valuer, so sqlx.In leaves it whole while it expands the []string.
	query, args, err = sqlx.In("SELECT Name FROM Tasks WHERE Tags = ? AND Name IN (?)", List{"red", "blue"}, []string{"Write spec", "Ship it"})
	if err != nil {
		t.Fatal(err)
	}
	names = nil
	if err := db.Select(&names, query, args...); err != nil || !reflect.DeepEqual(names, []string{"Write spec"}) {
		t.Errorf("List and sqlx.In: %q, %v", names, err)
	}
}

// statusSummary is a report row of a GROUP BY.
type statusSummary struct {
	Status   sql.NullString  `db:"Status"`
	Tasks    int64           `db:"tasks"`
	Total    sql.NullInt64   `db:"total"`
	Average  sql.NullFloat64 `db:"average"`
	Names    sql.NullString  `db:"names"`
	Earliest sql.NullTime    `db:"earliest"`
}

// TestSqlxSelectGroupBy: a GROUP BY report scanned into structs by sqlx.
func TestSqlxSelectGroupBy(t *testing.T) {
	db := openSqlx(t)
	var got []statusSummary
	err := db.Select(&got, "SELECT Status, COUNT(*) AS tasks, SUM(Priority) AS total, AVG(Priority) AS average, "+
		"GROUP_CONCAT(Name ORDER BY Name SEPARATOR ', ') AS names, MIN(`Due Date`) AS earliest "+
		"FROM Tasks GROUP BY Status HAVING COUNT(*) >= ? ORDER BY tasks DESC, Status", 2)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 {
		t.Fatalf("%d rows, want 3: %+v", len(got), got)
	}
	todo := got[0]
	if todo.Status.String != "Todo" || todo.Tasks != 3 || todo.Total.Int64 != 4 || todo.Average.Float64 != 2 ||
		todo.Names.String != `No priority, Write spec, it's quoted "twice"` || todo.Earliest.Time.Format("2006-01-02") != "2024-02-01" {
		t.Errorf("Todo row = %+v", todo)
	}
	if none := got[1]; none.Status.Valid || none.Tasks != 2 || none.Names.String != "Zero priority" || none.Earliest.Valid {
		t.Errorf("NULL-status row = %+v", none)
	}
	if doing := got[2]; doing.Status.String != "Doing" || doing.Total.Int64 != 6 || doing.Average.Float64 != 3 {
		t.Errorf("Doing row = %+v", doing)
	}
}
