package airsql

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"fmt"

	"github.com/xwb1989/sqlparser"

	"github.com/airsql/airsql/frontend"
	"github.com/airsql/airsql/translate"
)

// Each connection has a session, as a MySQL connection has: what DATABASE() and CONNECTION_ID()
// answer, and the system variables set with SET (SET NAMES utf8mb4, SET SESSION sql_mode = …),
// which later statements on the same connection read back (@@sql_mode). translate.Session says
// which settings are accepted and why the others are refused.

// newSession is the session of a new connection to the connector's base.
// USER() asks whoami the first time a statement of the connector names it (the request is not
// tied to that statement's context: its answer serves every later one).
func (c *Connector) newSession() *translate.Session {
	return &translate.Session{Database: c.cfg.BaseID, ConnectionID: c.connectionIDs.Add(1),
		User: func() (string, error) { return c.sessionUser(context.Background()) }}
}

// SetConnectionID makes CONNECTION_ID() on c answer id. A server in front of the driver (airsql
// serve) gives each client's driver connection the id the client's KILL takes; otherwise each
// connection numbers itself from the connector's counter.
//
// c must be a connection of this driver (db.Conn(ctx) on a *sql.DB opened with it).
func SetConnectionID(c *sql.Conn, id int64) error {
	return c.Raw(func(dc any) error {
		cn, ok := dc.(*conn)
		if !ok {
			return fmt.Errorf("airsql: SetConnectionID needs a connection of the airsql driver, not %T", dc)
		}
		cn.session.ConnectionID = id
		return nil
	})
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

// showVariables answers SHOW VARIABLES from the session: Variable_name and Value, by name.
func (cn *conn) showVariables(sv *frontend.ShowVariables) driver.Rows {
	rows := &staticRows{resultColumns: []translate.Column{textColumn("Variable_name", false), textColumn("Value", false)}}
	for _, v := range cn.session.Variables(sv.Global, sv.Like) {
		rows.values = append(rows.values, []driver.Value{v[0], v[1]})
	}
	return rows
}

// maxPreparedBytes is translate.MaxPreparedBytes (a variable so that a test can reach it with
// short statements).
var maxPreparedBytes = translate.MaxPreparedBytes

// sqlPrepared is a statement prepared with PREPARE: parsed once, run by each EXECUTE.
type sqlPrepared struct {
	st     statement
	params int // its ? placeholders
	bytes  int // its text's length (translate.MaxPreparedBytes)
}

// UnknownPreparedError is EXECUTE or DEALLOCATE PREPARE of a name the connection has not
// prepared (MySQL's error 1243).
type UnknownPreparedError struct {
	Name string
	Op   string // "EXECUTE" or "DEALLOCATE PREPARE"
}

func (e *UnknownPreparedError) Error() string {
	return fmt.Sprintf("airsql: unknown prepared statement handler (%s) given to %s: PREPARE %s FROM '…' first, on the same connection (prepared statements belong to the connection that prepared them)", e.Name, e.Op, e.Name)
}

// PreparedArgumentsError is EXECUTE … USING with as many variables as the statement has ?
// placeholders, or not (MySQL's error 1210, "Incorrect arguments to EXECUTE").
type PreparedArgumentsError struct {
	Name   string
	Params int // the statement's ? placeholders
	Given  int // the USING variables
}

func (e *PreparedArgumentsError) Error() string {
	return fmt.Sprintf("airsql: incorrect arguments to EXECUTE: the prepared statement %s has %d ? placeholder(s), and EXECUTE gives %d value(s): write EXECUTE %s USING with one @variable per placeholder",
		e.Name, e.Params, e.Given, e.Name)
}

// preparedCommand runs PREPARE, EXECUTE or DEALLOCATE PREPARE. EXECUTE runs the prepared
// statement as Query (asQuery: its rows) or as Exec (its result), with the values of its USING
// variables bound to its placeholders in order.
func (cn *conn) preparedCommand(ctx context.Context, pc *frontend.PreparedCommand, nvs []driver.NamedValue, asQuery bool) (driver.Rows, driver.Result, error) {
	if len(nvs) > 0 {
		return nil, nil, &UnsupportedError{Construct: "arguments to " + pc.Kind.String(),
			Hint: "EXECUTE reads its values from user variables: SET @a = …; EXECUTE name USING @a"}
	}
	switch pc.Kind {
	case frontend.Prepare:
		// As in MySQL, a statement of that name is dropped first, even if the new one fails.
		cn.deallocate(pc.Name)
		text := pc.SQL
		if pc.FromVar != "" {
			v := cn.session.UserVariable(pc.FromVar)
			s, ok := v.(string)
			if !ok {
				return nil, nil, &SyntaxError{Err: fmt.Errorf("PREPARE %s FROM @%s: @%s holds %s, not the text of a statement", pc.Name, pc.FromVar, pc.FromVar, describeValue(v))}
			}
			text = s
		}
		st, err := parseStatement(text)
		if err != nil {
			return nil, nil, err
		}
		if inner := st.prepared; inner != nil {
			return nil, nil, &UnsupportedError{Construct: inner.Kind.String() + " inside PREPARE",
				Hint: "prepare the statement itself; PREPARE, EXECUTE and DEALLOCATE run on their own"}
		}
		params := 0
		if st.ast != nil {
			positional, named := placeholderNulls(st.ast)
			if len(named) > 0 {
				return nil, nil, &UnsupportedError{Construct: ":name placeholders in PREPARE",
					Hint: "a statement prepared with PREPARE takes ? placeholders, bound in order by EXECUTE … USING"}
			}
			params = len(positional)
		}
		if len(cn.prepared) >= translate.MaxPreparedStatements {
			return nil, nil, fmt.Errorf("airsql: PREPARE %s: the connection already has %d prepared statements (translate.MaxPreparedStatements): DEALLOCATE PREPARE those it no longer needs", pc.Name, translate.MaxPreparedStatements)
		}
		if cn.preparedBytes+len(text) > maxPreparedBytes {
			return nil, nil, fmt.Errorf("airsql: PREPARE %s: the connection's prepared statements would hold %d bytes of SQL, more than %d (translate.MaxPreparedBytes): DEALLOCATE PREPARE those it no longer needs", pc.Name, cn.preparedBytes+len(text), maxPreparedBytes)
		}
		if cn.prepared == nil {
			cn.prepared = map[string]*sqlPrepared{}
		}
		cn.prepared[pc.Name] = &sqlPrepared{st: st, params: params, bytes: len(text)}
		cn.preparedBytes += len(text)
	case frontend.Execute:
		p, ok := cn.prepared[pc.Name]
		if !ok {
			return nil, nil, &UnknownPreparedError{Name: pc.Name, Op: "EXECUTE"}
		}
		if len(pc.Using) != p.params {
			return nil, nil, &PreparedArgumentsError{Name: pc.Name, Params: p.params, Given: len(pc.Using)}
		}
		args := make([]driver.NamedValue, len(pc.Using))
		for i, name := range pc.Using {
			args[i] = driver.NamedValue{Ordinal: i + 1, Value: cn.session.UserVariable(name)}
		}
		if asQuery {
			rows, err := cn.query(ctx, p.st, args)
			return rows, nil, err
		}
		res, err := cn.exec(ctx, p.st, args)
		return nil, res, err
	case frontend.Deallocate:
		if _, ok := cn.prepared[pc.Name]; !ok {
			return nil, nil, &UnknownPreparedError{Name: pc.Name, Op: "DEALLOCATE PREPARE"}
		}
		cn.deallocate(pc.Name)
	}
	if asQuery {
		return noRows(), nil, nil
	}
	return nil, result{}, nil
}

// deallocate forgets a prepared statement, if there is one of that name.
func (cn *conn) deallocate(name string) {
	if p, ok := cn.prepared[name]; ok {
		cn.preparedBytes -= p.bytes
		delete(cn.prepared, name)
	}
}

// describeValue names a user variable's value in a message.
func describeValue(v any) string {
	switch v.(type) {
	case nil:
		return "NULL (it was never set)"
	case string:
		return "a string"
	}
	return fmt.Sprintf("the %T %v", v, v)
}
