package translate

import (
	"fmt"

	"github.com/xwb1989/sqlparser"
)

// Parse parses one SQL statement with sqlparser, turning the parser's own panics into errors: the
// pinned sqlparser panics on some inputs (an empty MySQL comment "/*!*/" slices out of range), and a
// driver must not crash on a query string.
func Parse(sql string) (stmt sqlparser.Statement, err error) {
	defer func() {
		if r := recover(); r != nil {
			stmt, err = nil, fmt.Errorf("translate: cannot parse the statement (the SQL parser failed: %v)", r)
		}
	}()
	return sqlparser.Parse(sql)
}
