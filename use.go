package airsql

import (
	"strings"

	"github.com/airsql/airsql/translate"
)

// useDatabase runs USE db. A connection reaches the bases its connector serves (the DSN's and
// those of the DSN key bases) and information_schema: USE of a base makes it the default
// database (bare table names are its tables, DATABASE() answers it), as in MySQL; after USE
// information_schema its tables are found by their bare names before the base's. Any other
// database is MySQL's 1049.
func (cn *conn) useDatabase(db string) error {
	if strings.EqualFold(db, translate.InformationSchema) {
		cn.session.Database = translate.InformationSchema
		return nil
	}
	d, ok := cn.c.database(db)
	if !ok {
		return cn.c.unknownDatabase(db)
	}
	cn.session.Database = d.cfg.BaseID
	return nil
}

// inInformationSchema reports whether USE information_schema is in force on the connection.
func (cn *conn) inInformationSchema() bool {
	return cn.session.Database == translate.InformationSchema
}
