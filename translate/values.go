package translate

import (
	"time"

	"github.com/airsql/airsql/sqlvalue"
)

// The SQL types are sqlvalue's (the leaf package of values, comparison and the function library);
// these names keep the planner's code short.
type sqlType = sqlvalue.Type

const (
	typeNull     = sqlvalue.Null
	typeText     = sqlvalue.Text
	typeInt      = sqlvalue.Int
	typeFloat    = sqlvalue.Float
	typeBool     = sqlvalue.Bool
	typeDate     = sqlvalue.Date
	typeDateTime = sqlvalue.DateTime
	typeJSON     = sqlvalue.JSON
	typeCond     = sqlvalue.Cond
)

// The errors of the library's functions, as the driver reports them (MySQL's codes: mysqlerror.go).
type (
	JSONError    = sqlvalue.JSONError
	RuntimeError = sqlvalue.RuntimeError
)

// statementEnv is what the library's type rules ask of the statement being compiled.
type statementEnv struct{ s *scope }

func (env statementEnv) Now() time.Time { return env.s.now }

func (env statementEnv) Database() string {
	if sess := env.s.session(); sess != nil {
		return sess.Database
	}
	return ""
}

func (env statementEnv) User() (string, error) { return env.s.sessionUser() }

func (env statementEnv) ConnectionID() int64 {
	if sess := env.s.session(); sess != nil {
		return sess.ConnectionID
	}
	return 0
}

func (env statementEnv) WeekFormat() int64 { return env.s.session().weekFormat() }
