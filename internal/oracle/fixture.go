package oracle

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"net/http"
	"sort"
	"strings"
	"time"

	"github.com/airsql/airsql/emulator"
	"github.com/airsql/airsql/transport"
)

// Kind is the SQL type of a column, as the driver maps Airtable types (see the README's Types).
type Kind int

const (
	Text Kind = iota
	Int
	Float
	Bool
	Date
	DateTime
	JSON
)

var mariaType = [...]string{
	Text:     "TEXT COLLATE " + TextCollation,
	Int:      "BIGINT",
	Float:    "DOUBLE",
	Bool:     "BOOL",
	Date:     "DATE",
	DateTime: "DATETIME(3)",
	JSON:     "JSON",
}

func (k Kind) String() string {
	return [...]string{"TEXT", "INT64", "FLOAT64", "BOOL", "DATE", "DATETIME", "JSON"}[k]
}

// Numeric reports the kinds that arithmetic takes.
func (k Kind) Numeric() bool { return k == Int || k == Float }

// Schema is the fixture's tables, as both the emulator and MariaDB hold them.
type Schema struct {
	BaseID, Token string
	Tables        []*Table
}

// Table is one Airtable table: in MariaDB a table of the same name with the columns id, the
// fields and createdTime, and one junction table Table__Field(id, linked_id) per link field.
type Table struct {
	Name    string
	Columns []*Column // id, the fields in schema order, createdTime
	rows    int
}

// Column is one SQL column of a table.
type Column struct {
	Name     string
	Kind     Kind
	Nullable bool
	// AirType is the Airtable field type ("recordId" for id and createdTime).
	AirType string
	// Computed: a formula (its cells can be errors or NaN, which read NULL).
	Computed bool
	// Link names the linked table of a multipleRecordLinks field.
	Link string
	// Pseudo: id or createdTime, the record's own.
	Pseudo bool

	field *emulator.FixtureField
	gen   func(r *rand.Rand, row int) any // the cell written to the fixture; nil: absent
}

// Table returns the table named name.
func (s *Schema) Table(name string) *Table {
	for _, t := range s.Tables {
		if t.Name == name {
			return t
		}
	}
	return nil
}

// Column returns the column named name.
func (t *Table) Column(name string) *Column {
	for _, c := range t.Columns {
		if c.Name == name {
			return c
		}
	}
	return nil
}

// Fixture is a generated base: the same records in the emulator and in MariaDB.
type Fixture struct {
	Schema   *Schema
	Emulator *emulator.Fixture
}

const (
	fixtureBase  = "appORACLE00000001"
	fixtureToken = "patORACLE.secret"
)

// Tricky text: quotes, backslashes, braces, LIKE's wildcards and escapes, case pairs (ASCII and
// not), unicode outside the BMP, white space at the ends, empty text (a blank in Airtable: NULL).
var trickyText = []string{
	"", " ", "  ", "a", "A", "ab", "AB", "abc", "Abc", "ABC", "abc ", " abc", "a b", "a  b",
	"O'Brien", "o'brien", `say "hi"`, `back\slash`, `\`, `\\`, `a\%b`, `50%`, `50\%`, "100% sure", `%`, `_`, `a_b`, `a%b`,
	"{braces}", "{Name}", "}{", "#ERROR!", "NULL", "null", "0", "00", "-1", "1e3", "2024-01-05",
	"école", "École", "ÉCOLE", "straße", "STRASSE", "ǅemal", "İstanbul", "ıi", "日本語", "中文字", "😀 smile", "a😀b",
	"Zebra", "zebra", "apple", "Apple", "banana", "Ünïcödé", "tab\there", "line\nbreak", "ends with space ",
	"x'); DROP TABLE t; --", "a,b", "a;b", "[1,2]", `{"k":"v"}`, "ümlaut", "~tilde", "`tick`",
	"\uFFFD", "\uFFFDga", "x\uFFFD", // U+FFFD, which invalid UTF-8 decodes to
}

var words = []string{"alpha", "beta", "gamma", "delta", "Echo", "FOXTROT", "golf", "Hotel", "india", "juliet", "kilo", "Lima", "mike"}

func pickText(r *rand.Rand) string {
	switch r.IntN(3) {
	case 0:
		return words[r.IntN(len(words))] + " " + words[r.IntN(len(words))]
	case 1:
		return words[r.IntN(len(words))] + trickyText[r.IntN(len(trickyText))]
	}
	return trickyText[r.IntN(len(trickyText))]
}

var trickyInts = []int64{0, 0, 0, 1, -1, 2, -2, 3, 5, 7, 10, 12, 42, 99, 100, -100, 1000, 65535, 2147483647, -2147483648, 3000000000, -3000000000}
var trickyFloats = []float64{0, 0, 0.5, -0.5, 0.01, -0.01, 0.1, 0.25, 1, -1, 1.5, 2.5, -2.5, 3.14, 99.99, 100, 1234567.89, -1234567.89, 1e12, -1e12}
var trickyDates = []string{"2024-01-01", "2023-12-31", "2024-02-28", "2024-02-29", "2024-03-01", "1999-12-31", "2000-01-01", "1970-01-01", "2038-01-19", "2024-12-31"}
var trickyTimes = []string{
	"2024-01-01T00:00:00.000Z", "2023-12-31T23:59:59.999Z", "2024-02-29T12:00:00.000Z", "2024-03-01T00:00:00.001Z",
	"1999-12-31T23:59:59.000Z", "2000-01-01T00:00:00.000Z", "2024-06-15T08:30:00.500Z", "1970-01-01T00:00:00.000Z",
}

// blankOr returns nil (a blank cell) with probability p, else v().
func blankOr(r *rand.Rand, p float64, v func() any) any {
	if r.Float64() < p {
		return nil
	}
	return v()
}

func genText(p float64) func(r *rand.Rand, _ int) any {
	return func(r *rand.Rand, _ int) any { return blankOr(r, p, func() any { return pickText(r) }) }
}

func genInt(p float64) func(r *rand.Rand, _ int) any {
	return func(r *rand.Rand, _ int) any {
		return blankOr(r, p, func() any {
			if r.IntN(2) == 0 {
				return trickyInts[r.IntN(len(trickyInts))]
			}
			return int64(r.IntN(200) - 50)
		})
	}
}

func genFloat(p float64, scale float64) func(r *rand.Rand, _ int) any {
	return func(r *rand.Rand, _ int) any {
		return blankOr(r, p, func() any {
			if r.IntN(2) == 0 {
				return trickyFloats[r.IntN(len(trickyFloats))] * scale
			}
			return math.Round((r.Float64()*2000-500)*100) / 100 * scale
		})
	}
}

func genDate(p float64) func(r *rand.Rand, _ int) any {
	return func(r *rand.Rand, _ int) any {
		return blankOr(r, p, func() any {
			if r.IntN(2) == 0 {
				return trickyDates[r.IntN(len(trickyDates))]
			}
			d := time.Date(2023, 11, 1, 0, 0, 0, 0, time.UTC).AddDate(0, 0, r.IntN(400))
			return d.Format(time.DateOnly)
		})
	}
}

func genDateTime(p float64) func(r *rand.Rand, _ int) any {
	return func(r *rand.Rand, _ int) any {
		return blankOr(r, p, func() any {
			if r.IntN(2) == 0 {
				return trickyTimes[r.IntN(len(trickyTimes))]
			}
			t := time.Date(2023, 11, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(r.Int64N(400*24*3600*1000)) * time.Millisecond)
			return t.Format("2006-01-02T15:04:05.000Z")
		})
	}
}

// NewFixture generates the fixture of seed: three tables (People, Items, Projects), linked, with
// every common field type, tricky values and blanks everywhere, a few hundred records.
func NewFixture(seed uint64) *Fixture {
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	people := peopleTable()
	s := &Schema{BaseID: fixtureBase, Token: fixtureToken, Tables: []*Table{people, itemsTable(people), projectsTable()}}
	base := emulator.FixtureBase{ID: fixtureBase, Name: "Oracle"}
	for _, t := range s.Tables {
		base.Tables = append(base.Tables, t.fixture(r))
		t.Columns = append([]*Column{{Name: "id", Kind: Text, AirType: "recordId", Pseudo: true}}, t.Columns...)
		t.Columns = append(t.Columns, &Column{Name: "createdTime", Kind: DateTime, AirType: "recordId", Pseudo: true})
	}
	return &Fixture{Schema: s, Emulator: &emulator.Fixture{
		Tokens: []emulator.FixtureToken{{Token: fixtureToken, Bases: []string{fixtureBase},
			Scopes: []string{"data.records:read", "data.records:write", "schema.bases:read"}}},
		Bases: []emulator.FixtureBase{base},
	}}
}

// fixture is the emulator's table of t, its records drawn from r (in table order, then row, then
// column order); it sets each column's kind and nullability.
func (t *Table) fixture(r *rand.Rand) emulator.FixtureTable {
	ft := emulator.FixtureTable{Name: t.Name, PrimaryFieldID: t.Columns[0].Name}
	for _, c := range t.Columns {
		f := emulator.FixtureField{Name: c.Name, Type: c.AirType}
		if c.field != nil {
			f.Options = c.field.Options
		}
		ft.Fields = append(ft.Fields, f)
		c.Kind, c.Nullable = kindOf(c)
	}
	for i := range t.rows {
		rec := emulator.FixtureRecord{ID: recordID(t.Name, i), Fields: map[string]any{},
			CreatedTime: createdTime(r, i)}
		for _, c := range t.Columns {
			if c.gen == nil {
				continue
			}
			if v := c.gen(r, i); v != nil {
				rec.Fields[c.Name] = v
			}
		}
		ft.Records = append(ft.Records, rec)
	}
	return ft
}

// peopleTable is People: text, numbers, a date, a checkbox and a link to itself (a manager).
func peopleTable() *Table {
	people := &Table{Name: "People", rows: 120}
	people.Columns = []*Column{
		{Name: "Name", AirType: "singleLineText", gen: genText(0.05)},
		{Name: "Email", AirType: "email", gen: genText(0.3)},
		{Name: "Age", AirType: "number", field: &emulator.FixtureField{Options: map[string]any{"precision": 0}}, gen: genInt(0.2)},
		{Name: "Score", AirType: "number", field: &emulator.FixtureField{Options: map[string]any{"precision": 2}}, gen: genFloat(0.2, 1)},
		{Name: "Born", AirType: "date", field: &emulator.FixtureField{Options: map[string]any{"dateFormat": map[string]any{"name": "iso"}}}, gen: genDate(0.25)},
		{Name: "Active", AirType: "checkbox", gen: func(r *rand.Rand, _ int) any { return blankOr(r, 0.5, func() any { return true }) }},
		{Name: "Bio", AirType: "multilineText", gen: genText(0.4)},
		{Name: "Seq", AirType: "autoNumber"},
		// A link to the same table (a person's manager): a table joined with itself through a
		// link. Its own random stream keeps the other cells as they were before it was added.
		{Name: "Manager", AirType: "multipleRecordLinks", Link: "People", field: &emulator.FixtureField{Options: map[string]any{"linkedTableId": "People"}},
			gen: genLinks("People", 120, 0.4, 101)},
	}
	return people
}

// itemsTable is Items: the most field types, tricky values, links to People and Projects.
func itemsTable(people *Table) *Table {
	statuses := []string{"Todo", "todo", "Doing", "Done", "Wont do", "Ça va"}
	tags := []string{"red", "Red", "blue", "x%y", "a_b", "ünï"}
	items := &Table{Name: "Items", rows: 300}
	items.Columns = []*Column{
		{Name: "Name", AirType: "singleLineText", gen: genText(0.05)},
		{Name: "Code", AirType: "singleLineText", gen: func(r *rand.Rand, row int) any {
			return blankOr(r, 0.2, func() any {
				return strings.Repeat(" ", r.IntN(3)) + fmt.Sprintf("%c%c-%03d", 'A'+r.IntN(4), 'a'+r.IntN(3), r.IntN(1000)) + strings.Repeat(" ", r.IntN(2))
			})
		}},
		{Name: "Qty", AirType: "number", field: &emulator.FixtureField{Options: map[string]any{"precision": 0}}, gen: genInt(0.2)},
		{Name: "Price", AirType: "currency", field: &emulator.FixtureField{Options: map[string]any{"precision": 2, "symbol": "$"}}, gen: genFloat(0.2, 1)},
		{Name: "Pct", AirType: "percent", field: &emulator.FixtureField{Options: map[string]any{"precision": 1}}, gen: genFloat(0.3, 0.01)},
		{Name: "Done", AirType: "checkbox", gen: func(r *rand.Rand, _ int) any { return blankOr(r, 0.6, func() any { return true }) }},
		{Name: "Due Date", AirType: "date", field: &emulator.FixtureField{Options: map[string]any{"dateFormat": map[string]any{"name": "iso"}}}, gen: genDate(0.3)},
		{Name: "At", AirType: "dateTime", field: &emulator.FixtureField{Options: map[string]any{"dateFormat": map[string]any{"name": "iso"},
			"timeFormat": map[string]any{"name": "24hour"}, "timeZone": "utc"}}, gen: genDateTime(0.3)},
		{Name: "Status", AirType: "singleSelect", field: &emulator.FixtureField{Options: choices(statuses)},
			gen: func(r *rand.Rand, _ int) any {
				return blankOr(r, 0.2, func() any { return statuses[r.IntN(len(statuses))] })
			}},
		{Name: "Tags", AirType: "multipleSelects", field: &emulator.FixtureField{Options: choices(tags)},
			gen: func(r *rand.Rand, _ int) any {
				n := r.IntN(3)
				if n == 0 {
					return nil
				}
				var out []any
				for _, i := range r.Perm(len(tags))[:n] {
					out = append(out, tags[i])
				}
				return out
			}},
		{Name: "Owner", AirType: "multipleRecordLinks", Link: "People", field: &emulator.FixtureField{Options: map[string]any{"linkedTableId": "People"}},
			gen: func(r *rand.Rand, _ int) any {
				n := r.IntN(3)
				if n == 0 {
					return nil
				}
				var out []any
				for _, i := range r.Perm(people.rows)[:n] {
					out = append(out, recordID("People", i))
				}
				return out
			}},
		{Name: "Stars", AirType: "rating", field: &emulator.FixtureField{Options: map[string]any{"max": 5, "icon": "star", "color": "yellowBright"}},
			gen: func(r *rand.Rand, _ int) any { return blankOr(r, 0.3, func() any { return int64(1 + r.IntN(5)) }) }},
		{Name: "N", AirType: "autoNumber"},
		{Name: "Ratio", AirType: "formula", Computed: true, field: &emulator.FixtureField{Options: map[string]any{"formula": "{Price}/{Qty}",
			"result": map[string]any{"type": "number", "options": map[string]any{"precision": 2}}}}},
		// A second link of Items: chains through two links (Items → People, Items → Projects).
		{Name: "Project", AirType: "multipleRecordLinks", Link: "Projects", field: &emulator.FixtureField{Options: map[string]any{"linkedTableId": "Projects"}},
			gen: genLinks("Projects", 30, 0.25, 102)},
	}
	return items
}

// projectsTable is Projects: a small third table, linked from Items and linking to People (its
// lead); Name and Active share their names with People's and Items' columns (USING).
func projectsTable() *Table {
	projects := &Table{Name: "Projects", rows: 30}
	projects.Columns = []*Column{
		{Name: "Name", AirType: "singleLineText", gen: genText(0.1)},
		{Name: "Budget", AirType: "number", field: &emulator.FixtureField{Options: map[string]any{"precision": 0}}, gen: genInt(0.2)},
		{Name: "Start", AirType: "date", field: &emulator.FixtureField{Options: map[string]any{"dateFormat": map[string]any{"name": "iso"}}}, gen: genDate(0.25)},
		{Name: "Active", AirType: "checkbox", gen: func(r *rand.Rand, _ int) any { return blankOr(r, 0.5, func() any { return true }) }},
		{Name: "Lead", AirType: "multipleRecordLinks", Link: "People", field: &emulator.FixtureField{Options: map[string]any{"linkedTableId": "People"}},
			gen: genLinks("People", 120, 0.2, 103)},
	}
	return projects
}

// genLinks links a record to 1 or 2 records of table (of rows records), none with probability
// blank. It draws from a random stream of its own (stream, the row), so that adding a link field
// leaves every other cell of the fixture as it was.
func genLinks(table string, rows int, blank float64, stream uint64) func(_ *rand.Rand, row int) any {
	return func(_ *rand.Rand, row int) any {
		r := rand.New(rand.NewPCG(stream, uint64(row)))
		return blankOr(r, blank, func() any {
			n := 1
			if r.IntN(4) == 0 {
				n = 2
			}
			var out []any
			for _, i := range r.Perm(rows)[:n] {
				out = append(out, recordID(table, i))
			}
			return out
		})
	}
}

func choices(names []string) map[string]any {
	var cs []any
	for _, n := range names {
		cs = append(cs, map[string]any{"name": n})
	}
	return map[string]any{"choices": cs}
}

// recordID is the id of row i of a table: rec + 14 letters and digits.
func recordID(table string, i int) string {
	return fmt.Sprintf("rec%-6.6s%08d", strings.ToUpper(table)+"XXXXXX", i)
}

// createdTime: mostly one second apart, some records on the same millisecond or at day ends.
func createdTime(r *rand.Rand, i int) string {
	t := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(i) * time.Second)
	switch r.IntN(10) {
	case 0:
		t = time.Date(2023, 12, 31, 23, 59, 59, 999e6, time.UTC)
	case 1:
		t = t.Add(time.Duration(r.IntN(1000)) * time.Millisecond)
	}
	return t.Format("2006-01-02T15:04:05.000Z")
}

// kindOf is the driver's type mapping (README, Types) for the field types the fixture uses.
func kindOf(c *Column) (Kind, bool) {
	prec := -1.0
	if c.field != nil {
		if p, ok := c.field.Options["precision"].(int); ok {
			prec = float64(p)
		}
	}
	switch c.AirType {
	case "number", "currency":
		if prec == 0 {
			return Int, true
		}
		return Float, true
	case "percent":
		return Float, true
	case "rating":
		return Int, true
	case "autoNumber":
		return Int, false
	case "checkbox":
		return Bool, false
	case "date":
		return Date, true
	case "dateTime":
		return DateTime, true
	case "multipleSelects", "multipleRecordLinks":
		return JSON, true
	case "formula":
		return Float, true
	}
	return Text, true
}

// Load creates the tables in MariaDB and fills them with what the emulator serves for the same
// fixture, read back through transport: computed cells (autoNumber, the formula) are the
// emulator's, and what the service would not store (empty text) is absent there as here.
func (f *Fixture) Load(ctx context.Context, s *Server, client *http.Client) error {
	for _, t := range f.Schema.Tables {
		table, err := transport.NewTable(f.Schema.Token, f.Schema.BaseID, t.Name,
			transport.WithHTTPClient(client), transport.WithEndpointURL("http://localhost"))
		if err != nil {
			return err
		}
		recs, err := table.All(ctx, transport.ListOptions{})
		if err != nil {
			return fmt.Errorf("oracle: reading %s back from the emulator: %v", t.Name, err)
		}
		sort.Slice(recs, func(i, j int) bool { return recs[i].ID < recs[j].ID })
		var cols, marks []string
		ddl := []string{"id VARCHAR(32) COLLATE " + TextCollation + " NOT NULL PRIMARY KEY"}
		for _, c := range t.Columns {
			cols = append(cols, quoteName(c.Name))
			marks = append(marks, "?")
			if c.Name == "id" {
				continue
			}
			null := " NULL"
			if !c.Nullable {
				null = " NOT NULL"
			}
			ddl = append(ddl, quoteName(c.Name)+" "+mariaType[c.Kind]+null)
		}
		stmts := []string{fmt.Sprintf("CREATE TABLE %s (%s) ENGINE=InnoDB", quoteName(t.Name), strings.Join(ddl, ", "))}
		for _, c := range t.Columns {
			if c.Link != "" {
				stmts = append(stmts, fmt.Sprintf("CREATE TABLE %s (id VARCHAR(32) COLLATE %s NOT NULL, linked_id VARCHAR(32) COLLATE %s NOT NULL, PRIMARY KEY (id, linked_id))",
					quoteName(t.Name+"__"+c.Name), TextCollation, TextCollation))
			}
		}
		if err := s.Exec(ctx, stmts...); err != nil {
			return err
		}
		insert := fmt.Sprintf("INSERT INTO %s (%s) VALUES (%s)", quoteName(t.Name), strings.Join(cols, ", "), strings.Join(marks, ", "))
		for _, rec := range recs {
			vals := make([]any, len(t.Columns))
			for i, c := range t.Columns {
				switch c.Name {
				case "id":
					vals[i] = rec.ID
				case "createdTime":
					vals[i] = rec.CreatedTime.UTC().Format("2006-01-02 15:04:05.000")
				default:
					v, err := mariaValue(c, rec.Fields[c.Name])
					if err != nil {
						return fmt.Errorf("oracle: %s.%s of %s: %v", t.Name, c.Name, rec.ID, err)
					}
					vals[i] = v
				}
				if c.Link != "" {
					links, _ := rec.Fields[c.Name].([]any)
					for _, l := range links {
						if _, err := s.DB.ExecContext(ctx, fmt.Sprintf("INSERT INTO %s (id, linked_id) VALUES (?, ?)", quoteName(t.Name+"__"+c.Name)), rec.ID, l); err != nil {
							return fmt.Errorf("oracle: %v", err)
						}
					}
				}
			}
			if _, err := s.DB.ExecContext(ctx, insert, vals...); err != nil {
				return fmt.Errorf("oracle: loading %s %s: %v", t.Name, rec.ID, err)
			}
		}
	}
	return s.Exec(ctx, asciiLowerFunction)
}

// asciiLowerFunction lowers ASCII letters only: the driver's LIKE ignores ASCII case and nothing
// else, which no MariaDB collation does (the _ci ones also fold É and é, ß and ss).
var asciiLowerFunction = func() string {
	s := "s"
	for c := 'A'; c <= 'Z'; c++ {
		s = fmt.Sprintf("REPLACE(%s, '%c', '%c')", s, c, c+'a'-'A')
	}
	return "CREATE FUNCTION ascii_lower(s LONGTEXT CHARSET utf8mb4 COLLATE " + TextCollation + ") RETURNS LONGTEXT CHARSET utf8mb4 COLLATE " + TextCollation + " DETERMINISTIC RETURN " + s
}()

// mariaValue converts a cell in the API's JSON form to the value MariaDB stores, by the driver's
// documented mapping: absent is NULL (false for a checkbox), formula errors and NaN are NULL.
func mariaValue(c *Column, cell any) (any, error) {
	if cell == nil {
		if c.Kind == Bool {
			return false, nil
		}
		return nil, nil
	}
	if m, ok := cell.(map[string]any); ok && c.Kind != JSON {
		if _, isErr := m["error"]; isErr {
			return nil, nil
		}
		if _, special := m["specialValue"]; special {
			return nil, nil
		}
		return nil, fmt.Errorf("unexpected object %v", m)
	}
	switch c.Kind {
	case Text:
		s, ok := cell.(string)
		if !ok {
			return nil, fmt.Errorf("text cell %T", cell)
		}
		return s, nil
	case Int, Float:
		var f float64
		switch v := cell.(type) {
		case float64:
			f = v
		case json.Number:
			var err error
			if f, err = v.Float64(); err != nil {
				return nil, err
			}
		default:
			return nil, fmt.Errorf("number cell %T", cell)
		}
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return nil, nil
		}
		if c.Kind == Int {
			if f != math.Trunc(f) {
				return nil, fmt.Errorf("fraction %v in an integer column", f)
			}
			return int64(f), nil
		}
		return f, nil
	case Bool:
		b, ok := cell.(bool)
		if !ok {
			return nil, fmt.Errorf("checkbox cell %T", cell)
		}
		return b, nil
	case Date:
		s, _ := cell.(string)
		t, err := time.Parse(time.DateOnly, s)
		if err != nil {
			return nil, err
		}
		return t.Format(time.DateOnly), nil
	case DateTime:
		s, _ := cell.(string)
		t, err := time.Parse(time.RFC3339Nano, s)
		if err != nil {
			return nil, err
		}
		return t.UTC().Format("2006-01-02 15:04:05.000"), nil
	default:
		b, err := json.Marshal(cell)
		return string(b), err
	}
}

// quoteName writes a name in backquotes, a backquote doubled.
func quoteName(n string) string { return "`" + strings.ReplaceAll(n, "`", "``") + "`" }
