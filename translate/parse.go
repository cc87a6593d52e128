package translate

import (
	"github.com/xwb1989/sqlparser"

	"github.com/airsql/airsql/frontend"
)

// Parse parses one SQL statement with the front end's rewrites (frontend.ParseSQL): the planner
// reads the texts it builds itself (information_schema queries, SHOW rewrites) the same way as a
// client's statement.
func Parse(sql string) (sqlparser.Statement, error) { return frontend.ParseSQL(sql) }
