package airsql

import (
	"database/sql/driver"

	"github.com/xwb1989/sqlparser"

	"github.com/airsql/airsql/translate"
)

// Each connection has a session, as a MySQL connection has: what DATABASE() and CONNECTION_ID()
// answer, and the system variables set with SET (SET NAMES utf8mb4, SET SESSION sql_mode = …),
// which later statements on the same connection read back (@@sql_mode). translate.Session says
// which settings are accepted and why the others are refused.

// newSession is the session of a new connection to the connector's base.
func (c *Connector) newSession() *translate.Session {
	return &translate.Session{Database: c.cfg.BaseID, ConnectionID: c.connectionIDs.Add(1)}
}

// statementArgs reads a statement's arguments and stamps it with the connector's clock (NOW(),
// CURDATE(): one value for the whole statement, as in MySQL; the fake clock in tests) and the
// connection's session.
func (cn *conn) statementArgs(nvs []driver.NamedValue) (translate.Args, error) {
	args, err := translateArgs(nvs)
	if err != nil {
		return args, err
	}
	args.Now = cn.c.clock.Now()
	args.Session = cn.session
	return args, nil
}

// set runs SET on the connection's session: all of it, or nothing when one assignment is refused.
// As in MySQL, turning autocommit back on commits the open transaction.
func (cn *conn) set(ast *sqlparser.Set, args translate.Args) error {
	wasOff := !cn.autocommit()
	if err := cn.session.Set(ast, args); err != nil {
		return fromTranslate(err)
	}
	if wasOff && cn.autocommit() {
		return cn.commit()
	}
	return nil
}

// autocommit is the session's @@autocommit: with it off, every write begins a transaction (if
// none is open) that lasts until COMMIT or ROLLBACK.
func (cn *conn) autocommit() bool {
	v, err := cn.session.Variable("autocommit", false)
	return err != nil || v != int64(0)
}

// noRows is the result of a statement run with Query that returns none (SET).
func noRows() driver.Rows { return &staticRows{} }

// showVariables is SHOW [GLOBAL | SESSION] VARIABLES [LIKE 'pattern'].
type showVariables struct {
	global bool
	like   string
}

// showVariables answers SHOW VARIABLES from the session: Variable_name and Value, by name.
func (cn *conn) showVariables(sv *showVariables) driver.Rows {
	rows := &staticRows{resultColumns: []translate.Column{textColumn("Variable_name", false), textColumn("Value", false)}}
	for _, v := range cn.session.Variables(sv.global, sv.like) {
		rows.values = append(rows.values, []driver.Value{v[0], v[1]})
	}
	return rows
}
