package airsql

import (
	"strings"

	"github.com/airsql/airsql/translate"
)

// useDatabase runs USE db. A connection reaches the one base of its DSN, and information_schema:
// after USE information_schema its tables are found by their bare names (SELECT … FROM TABLES)
// before the base's, and DATABASE() answers information_schema, as in MySQL; USE of the base
// goes back. Any other database is refused.
func (cn *conn) useDatabase(db string) error {
	switch {
	case strings.EqualFold(db, translate.InformationSchema):
		cn.session.Database = translate.InformationSchema
	case db == cn.c.cfg.BaseID:
		cn.session.Database = cn.c.cfg.BaseID
	default:
		return &UnsupportedError{Construct: "USE " + db,
			Hint: "a connection reaches the base named in its DSN (" + cn.c.cfg.BaseID + ") and information_schema: open another connector for another base"}
	}
	return nil
}

// inInformationSchema reports whether USE information_schema is in force on the connection.
func (cn *conn) inInformationSchema() bool {
	return cn.session.Database == translate.InformationSchema
}
