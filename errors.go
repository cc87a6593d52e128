package airsql

import (
	"errors"
	"fmt"
	"strings"

	"github.com/airsql/airsql/frontend"
	"github.com/airsql/airsql/translate"
)

// Sentinel errors. Each says what to change.
var (
	// ErrNoLastInsertID was returned by Result.LastInsertId, which now answers 0 as MySQL does
	// for a table without AUTO_INCREMENT.
	//
	// Deprecated: nothing returns it; kept so that code comparing with it still compiles.
	ErrNoLastInsertID = errors.New("airsql: Airtable record ids are strings, not integers, so " +
		"LastInsertId cannot return them: run the INSERT with QueryContext, which returns the " +
		"created rows with their id column")

	// ErrNoToken means neither the DSN nor the environment holds an access token.
	ErrNoToken = errors.New("airsql: no access token: write it in the DSN " +
		"(airtable://TOKEN@/appXXXXXXXXXXXXXX) or set AIRTABLE_TOKEN")

	// ErrNoBase means the configuration names no base.
	ErrNoBase = errors.New("airsql: no base id: the DSN path is the base, as in airtable://TOKEN@/appXXXXXXXXXXXXXX")

	// ErrConnectorClosed is returned by connections of a connector (or sql.DB) that was closed.
	ErrConnectorClosed = errors.New("airsql: the connector was closed: open a new one")
)

// DSNError describes what is wrong with a DSN. Its message never contains the token.
type DSNError struct{ Msg string }

func (e *DSNError) Error() string { return "airsql: DSN " + e.Msg }

// InsecureHostError refuses plain HTTP (tls=false) to a host that is not a loopback host,
// because the access token would cross the network in clear text.
type InsecureHostError struct{ Host string }

func (e *InsecureHostError) Error() string {
	return fmt.Sprintf("airsql: tls=false would send the token in clear text to %s: plain HTTP is "+
		"only for a local emulator on a loopback host (localhost, 127.0.0.1, [::1]); "+
		"remove tls=false, or add allowInsecure=true if you really mean it", quoteUnlessSecret(e.Host))
}

// UnsupportedError names a statement or construct the driver cannot run (yet): it is refused
// rather than run differently from SQL or silently dropped. Match it with errors.As. It is the
// front end's type (one for the whole driver, whichever part refuses): Construct is what was
// asked ("GROUP BY", "OFFSET", "CREATE TABLE"), SQL the text concerned when it says more (may be
// empty), Hint what to do instead (may be empty).
type UnsupportedError = frontend.UnsupportedError

// SyntaxError is a statement the SQL parser cannot read (MySQL's error 1064). Unwrap gives the
// parser's error, which names the position. It is the front end's type.
type SyntaxError = frontend.SyntaxError

// UnknownColumnError names a column no table of the statement has (MySQL's error 1054); it is the
// planner's type.
type UnknownColumnError = translate.UnknownColumnError

// UnknownTableError names a table that neither the base nor information_schema has, as the
// planner finds it (MySQL's error 1146; *NoTableError is the driver's own).
type UnknownTableError = translate.UnknownTableError

// SubqueryError is a scalar subquery that returned several rows (MySQL's error 1242).
type SubqueryError = translate.SubqueryError

// OutOfRangeError is integer arithmetic whose result does not fit in a BIGINT (MySQL's error 1690).
type OutOfRangeError = translate.OutOfRangeError

// WindowError is a misuse of window functions that MySQL refuses with its own error number
// (Code: 3579 an unknown window name, 3593 a window function where none may be, …); it is the
// front end's type.
type WindowError = frontend.WindowError

// JSONTableError is a JSON_TABLE MySQL refuses with its own error number (3667: it has no
// alias). Match it with errors.As.
type JSONTableError = frontend.JSONTableError

// JSONError is an argument of a JSON function that MySQL refuses with its own error number
// (Code: 3141 invalid JSON text, 3143 an invalid path, 3146 not a JSON value, …); it is the
// planner's type.
type JSONError = translate.JSONError

// fromTranslate gives a construct refused inside a statement as that *UnsupportedError alone
// (the refusal says all, whatever wrapped it); other errors pass unchanged.
func fromTranslate(err error) error {
	var te *UnsupportedError
	if errors.As(err, &te) {
		return te
	}
	return err
}

// WriteError is returned when a write of several batches failed part-way. Airtable applies
// each batch of up to 10 records on its own, so the batches before the failed one stay written:
// Written lists their record ids, in input order.
type WriteError struct {
	Op      string   // "INSERT", "UPDATE", "DELETE" or "UPSERT"
	Table   string   // the table's name
	Written []string // ids of the records created, updated or deleted before the failure
	// UncertainIDs (UPDATE, DELETE) and UncertainRows (INSERT, UPSERT: 0-based VALUES rows) name
	// what was sent in a request that failed after it may have reached Airtable (a 5xx or a
	// network error, on any of its tries): those records may or may not have been written.
	// Everything else was not. A DELETE retried after a lost answer and answered "not found"
	// counts as deleted (in Written).
	UncertainIDs  []string
	UncertainRows []int
	Err           error // the cause (often a *transport.APIError)

	writtenRows []int // input positions of Written, ascending (a transaction maps them to its statements)
}

func (e *WriteError) Error() string {
	var b strings.Builder
	done := map[string]string{"INSERT": "created", "UPDATE": "updated", "DELETE": "deleted"}[e.Op]
	if done == "" {
		done = "written"
	}
	fmt.Fprintf(&b, "airsql: %s on table %q failed part-way, after %d record(s) were %s", e.Op, e.Table, len(e.Written), done)
	if n := len(e.Written); n > 0 {
		const shown = 20
		ids := e.Written
		if n > shown {
			ids = ids[:shown]
		}
		fmt.Fprintf(&b, " (%s", strings.Join(ids, ", "))
		if n > shown {
			fmt.Fprintf(&b, ", and %d more in WriteError.Written", n-shown)
		}
		b.WriteString(")")
	}
	if n := len(e.UncertainIDs) + len(e.UncertainRows); n > 0 {
		fmt.Fprintf(&b, "; %d more may or may not have been written (see WriteError.UncertainIDs/UncertainRows)", n)
	}
	fmt.Fprintf(&b, ": %v", e.Err)
	return b.String()
}

func (e *WriteError) Unwrap() error { return e.Err }

// TxStatement is the fate of one write statement of a transaction.
type TxStatement struct {
	SQL string // the statement, as sqlparser prints it
	// State: "applied" (every record written), "partly applied" (some written, see Written and
	// the Uncertain lists), "uncertain" (none known written, some may have been), "not applied"
	// (refused: nothing written) or "not sent" (it came after a failure).
	State         string
	Written       []string // ids of the records it created, updated or deleted
	UncertainIDs  []string // UPDATE, DELETE: records that may or may not have been written
	UncertainRows []int    // INSERT: 0-based VALUES rows of this statement that may have been written
}

// TxError is returned by COMMIT, or by a statement inside a transaction that had to send the
// queued writes first, when one of the writes failed. Airtable applies each batch on its own: the
// statements before the failed one stay applied, the ones after it were not sent. Statements
// lists every write of the transaction in order with its fate; Err is the failure (a *WriteError
// when a batch failed part-way, with errors.As).
type TxError struct {
	Statements []TxStatement
	Err        error
}

func (e *TxError) Error() string {
	count := map[string]int{}
	for _, st := range e.Statements {
		count[st.State]++
	}
	var parts []string
	for _, state := range []string{"applied", "partly applied", "uncertain", "not applied", "not sent"} {
		if n := count[state]; n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, state))
		}
	}
	return fmt.Sprintf("airsql: the transaction's writes failed part-way (statements: %s; TxError.Statements "+
		"names each with its record ids): %v", strings.Join(parts, ", "), e.Err)
}

func (e *TxError) Unwrap() error { return e.Err }

// RollbackError is returned by ROLLBACK when writes of the transaction had already been sent to
// Airtable (a read of a table they changed, or a write run with QueryContext, sends the queue
// first). Those writes cannot be undone; the ones still queued were discarded.
type RollbackError struct {
	Applied   []TxStatement // what was sent, in order, with the ids written
	Discarded int           // statements still queued, now discarded
}

func (e *RollbackError) Error() string {
	n := 0
	for _, st := range e.Applied {
		n += len(st.Written)
	}
	return fmt.Sprintf("airsql: ROLLBACK cannot undo %d statement(s) already applied to Airtable (%d record(s) "+
		"written; RollbackError.Applied names them), sent because a statement of the transaction needed "+
		"them; the %d statement(s) still queued were discarded", len(e.Applied), n, e.Discarded)
}
