package mysqlserver

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/go-mysql-org/go-mysql/mysql"

	"github.com/airsql/airsql"
)

// MySQL error numbers the server answers that the library's table lacks.
const (
	erQueryTimeout            = 3024 // ER_QUERY_TIMEOUT (MySQL 8)
	erSecureTransportRequired = 3159 // ER_SECURE_TRANSPORT_REQUIRED (MySQL 8)
)

// Causes of a query's context ending, each answered with its own MySQL error.
var (
	errKilled       = errors.New("killed")
	errClientGone   = errors.New("the client closed the connection")
	errShutdown     = errors.New("the server is shutting down")
	errQueryTimeout = errors.New("query timeout")
)

// mysqlError maps an error of the driver (or of the server itself) to a MySQL error: number and
// SQLSTATE from the driver's airsql.MySQLErrorCode, the driver's own message, never the token. cause is why the statement's context ended, if it did.
func (s *Server) mysqlError(err error, cause error) *mysql.MyError {
	var my *mysql.MyError
	if errors.As(err, &my) {
		return my
	}
	if cause != nil && (errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) || errors.Is(err, cause)) {
		// MySQL rolls an interrupted statement back, so its 1317, 3024 or 1053 means nothing
		// was written; Airtable keeps each batch it applied, so the error says what was.
		written := s.redact(interruptedWrite(err))
		var my *mysql.MyError
		switch {
		case errors.Is(cause, errQueryTimeout):
			my = newError(erQueryTimeout, "HY000", fmt.Sprintf(
				"Query execution was interrupted, maximum statement execution time exceeded (the server's -query-timeout is %v)", s.cfg.QueryTimeout))
		case errors.Is(cause, errShutdown):
			my = mysql.NewError(mysql.ER_SERVER_SHUTDOWN, "Server shutdown in progress: the query was cancelled")
		case errors.Is(cause, errClientGone):
			my = mysql.NewError(mysql.ER_QUERY_INTERRUPTED, "Query execution was interrupted: the client closed the connection")
		default: // KILL
			my = mysql.NewError(mysql.ER_QUERY_INTERRUPTED, "Query execution was interrupted")
		}
		if written != "" {
			my.Message += "; " + written
		}
		return my
	}
	code, state := airsql.MySQLErrorCode(err)
	return newError(code, state, s.redact(err.Error()))
}

// interruptedWrite says what a write the driver stopped part-way had written: the table, the
// records written (with their ids, up to 20) and those that may or may not have been; "" when
// err is not a write's.
func interruptedWrite(err error) string {
	var we *airsql.WriteError
	if !errors.As(err, &we) {
		// The driver says "(nothing was written)" of a write stopped before its first batch.
		if msg := err.Error(); strings.Contains(msg, "(nothing was written)") {
			return strings.TrimSuffix(strings.TrimPrefix(msg[:strings.Index(msg, "(nothing was written)")], "airsql: "), " ") + ": nothing was written"
		}
		return ""
	}
	done := map[string]string{"INSERT": "created", "UPDATE": "updated", "DELETE": "deleted"}[we.Op]
	if done == "" {
		done = "written"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s on table %q was stopped part-way: %d record(s) %s, %d may or may not have been written",
		we.Op, we.Table, len(we.Written), done, len(we.UncertainIDs)+len(we.UncertainRows))
	b.WriteString(" (MySQL would have rolled the statement back; Airtable keeps what was written)")
	if n := len(we.Written); n > 0 {
		const shown = 20
		ids := we.Written[:min(n, shown)]
		fmt.Fprintf(&b, "; %s: %s", done, strings.Join(ids, ", "))
		if n > shown {
			fmt.Fprintf(&b, " and %d more", n-shown)
		}
	}
	if len(we.UncertainIDs) > 0 {
		ids := we.UncertainIDs[:min(len(we.UncertainIDs), 20)]
		fmt.Fprintf(&b, "; uncertain: %s", strings.Join(ids, ", "))
		if len(we.UncertainIDs) > 20 {
			fmt.Fprintf(&b, " and %d more", len(we.UncertainIDs)-20)
		}
	}
	return b.String()
}

func newError(code uint16, state, msg string) *mysql.MyError {
	return &mysql.MyError{Code: code, State: state, Message: msg}
}

// redact removes every secret the server knows (the Airtable tokens) from a message, as a last
// guard: the driver's messages never hold the token, and this keeps it so if one ever did.
func (s *Server) redact(msg string) string {
	for _, secret := range s.cfg.Secrets {
		if len(secret) >= 4 {
			msg = strings.ReplaceAll(msg, secret, "[redacted]")
		}
	}
	return msg
}
