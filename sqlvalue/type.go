package sqlvalue

// Type is the SQL type of a value or column.
type Type uint8

const (
	Null     Type = iota // the NULL literal: no type of its own
	Text                 // string
	Int                  // int64
	Float                // float64
	Bool                 // bool: a checkbox (MySQL's TINYINT(1))
	Date                 // time.Time at midnight UTC
	DateTime             // time.Time in UTC
	JSON                 // string holding JSON text (arrays and objects)
	// Cond is the value of a condition — a comparison, AND, OR, NOT, IS, [NOT] IN, LIKE, REGEXP,
	// EXISTS, TRUE, FALSE — as MySQL 8 gives it (Item_bool_func): a BIGINT 1, 0 or NULL, which
	// JSON functions write as true or false (is_bool_func). It is held as a bool, which every
	// reader of numbers takes as 1 or 0, and the driver delivers an int64.
	Cond
)

// databaseTypeName is the Column.DatabaseType of each type.
var databaseTypeName = [...]string{
	Null:     "TEXT",
	Text:     "TEXT",
	Int:      "INT64",
	Float:    "FLOAT64",
	Bool:     "BOOL",
	Date:     "DATE",
	DateTime: "DATETIME",
	JSON:     "JSON",
	Cond:     "INT64",
}

func (t Type) String() string { return databaseTypeName[t] }

// Numeric reports a number type (a BOOL and a condition are numbers).
func (t Type) Numeric() bool { return t == Int || t == Float || t == Bool || t == Cond }

// Integer reports a type whose values are integers: INT64, a checkbox's 0 and 1, a condition's.
func (t Type) Integer() bool { return t == Int || t == Bool || t == Cond }

// Temporal reports a DATE or DATETIME.
func (t Type) Temporal() bool { return t == Date || t == DateTime }
