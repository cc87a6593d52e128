package translate

import (
	"strings"
	"time"

	"github.com/airsql/airsql/sqlvalue"
)

// User variables and SQL-level prepared statements.
//
// SET @name = <constant expression> keeps a typed value in the connection's session, and @name
// reads it anywhere a constant may stand (NULL when never set, as in MySQL). PREPARE, EXECUTE …
// USING @a, @b and DEALLOCATE PREPARE let a client without a prepared-statement API — the mariadb
// command-line client, a SQL script — bind values: ParsePrepared reads those statements (sqlparser
// has no grammar for them) and the root package keeps the prepared statements of each connection.

// Limits of one session: MySQL bounds prepared statements too (max_prepared_stmt_count); these
// keep a connection's memory bounded whatever a client sends.
const (
	MaxUserVariables      = 1024
	MaxUserVariableBytes  = 16 << 20 // the text of all of a connection's user variables
	MaxPreparedStatements = 1024
	MaxPreparedBytes      = 16 << 20 // the text of all of a connection's prepared statements
	maxUserVariableName   = 64       // MySQL's limit on a user variable's name
)

// userVar is a user variable's value and its SQL type.
type userVar struct {
	val any
	typ sqlType
}

// UserVariable is the value of @name: nil when it was never set (or set to NULL). Names are read
// regardless of case, as MySQL reads them.
func (sess *Session) UserVariable(name string) any {
	v, _ := sess.userVariable(name)
	return v.val
}

func (sess *Session) userVariable(name string) (userVar, bool) {
	if sess == nil {
		return userVar{typ: typeNull}, false
	}
	key := strings.ToLower(name)
	if v, ok := sess.pendingUser[key]; ok {
		return v, true
	}
	v, ok := sess.user[key]
	if !ok {
		return userVar{typ: typeNull}, false
	}
	return v, true
}

// userValue checks and normalises the value of SET @name = …: MySQL keeps integers, decimals,
// strings and NULL; a boolean is the integer 1 or 0 and JSON its text. Dates and times keep their
// type, so that a variable compared with a date field compares as a date.
func userValue(x *expr) userVar {
	switch v := x.val.(type) {
	case nil:
		return userVar{typ: typeNull}
	case bool:
		return userVar{val: sqlvalue.BoolInt(v), typ: typeInt}
	case time.Time:
		return userVar{val: v, typ: x.typ}
	}
	if x.typ == typeJSON {
		return userVar{val: x.val, typ: typeText}
	}
	return userVar{val: x.val, typ: x.typ}
}

// setUser checks a user variable's name and records its new value among the pending ones of a SET.
func (sess *Session) setUser(name string, x *expr) error {
	key := strings.ToLower(strings.TrimPrefix(name, "@"))
	if key == "" || len(key) > maxUserVariableName {
		return fmtErr("SET %s: a user variable's name has 1 to %d characters", name, maxUserVariableName)
	}
	if _, exists := sess.user[key]; !exists {
		if _, pending := sess.pendingUser[key]; !pending && len(sess.user)+len(sess.pendingUser) >= MaxUserVariables {
			return fmtErr("SET %s: the connection already has %d user variables (MaxUserVariables): reuse one, or open a new connection", name, MaxUserVariables)
		}
	}
	sess.pendingUser[key] = userValue(x)
	return nil
}

// size is what a value holds in memory beyond its fixed part: a string's bytes.
func (v userVar) size() int {
	if s, ok := v.val.(string); ok {
		return len(s)
	}
	return 0
}

// checkUserBytes refuses a SET whose pending values would take the connection's user variables
// past MaxUserVariableBytes.
func (sess *Session) checkUserBytes() error {
	total := sess.userBytes
	for k, v := range sess.pendingUser {
		total += v.size() - sess.user[k].size()
	}
	if total > MaxUserVariableBytes {
		return fmtErr("SET: the connection's user variables would hold %d bytes of text, more than %d (MaxUserVariableBytes): SET large ones to NULL first", total, MaxUserVariableBytes)
	}
	return nil
}

// compileUserVariable compiles @name: the session's value, a constant for the statement.
func (s *scope) compileUserVariable(name, text string) (*expr, error) {
	v, _ := s.session().userVariable(strings.TrimPrefix(name, "@"))
	return &expr{kind: exConst, typ: v.typ, val: v.val, nullable: v.val == nil, sql: text}, nil
}
