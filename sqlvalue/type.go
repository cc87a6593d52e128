package sqlvalue

// Type is the SQL type of a value or column.
type Type uint8

const (
	Null     Type = iota // the NULL literal: no type of its own
	Text                 // string
	Int                  // int64
	Float                // float64
	Bool                 // bool
	Date                 // time.Time at midnight UTC
	DateTime             // time.Time in UTC
	JSON                 // string holding JSON text (arrays and objects)
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
}

func (t Type) String() string { return databaseTypeName[t] }

// Numeric reports a number type (a BOOL is a number).
func (t Type) Numeric() bool { return t == Int || t == Float || t == Bool }

// Temporal reports a DATE or DATETIME.
func (t Type) Temporal() bool { return t == Date || t == DateTime }
