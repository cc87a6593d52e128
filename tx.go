package airsql

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/xwb1989/sqlparser"

	"github.com/airsql/airsql/translate"
)

// Airtable has no transactions: every request is applied on its own. A transaction here is a
// client-side unit of work that keeps its word (README, "Transactions"):
//
//   - a write inside it is checked at once (table, columns, values; UPDATE and DELETE also find
//     their records, which is a read) and queued; its RowsAffected is known then;
//   - COMMIT sends the queue in order; consecutive INSERTs into one table go out as one batch, so
//     many one-row INSERTs are sent as chunks of 10, pipelined, like one large INSERT;
//   - ROLLBACK before anything was sent discards the queue;
//   - a read of a table with queued writes sends the whole queue first (the reader sees its own
//     writes, and the order of writes is kept); so does a write run with QueryContext, which must
//     return its records at once. From then on ROLLBACK fails, naming what was already applied.
//
// Nothing is ever reported as done that was not, nor as undone that was.

// transaction is the unit of work of one connection.
type transaction struct {
	ctx      context.Context // BeginTx's: it bounds the sends of COMMIT, as database/sql intends
	readOnly bool
	queue    []*pendingWrite // checked, not yet sent
	sent     []TxStatement   // sent to the service (in full), in order
	broken   error           // a send failed: COMMIT refuses; ROLLBACK reports what was applied
}

// tx is the driver.Tx of a transaction begun with BeginTx.
type tx struct{ cn *conn }

func (t tx) Commit() error   { return t.cn.commit() }
func (t tx) Rollback() error { return t.cn.rollback() }

// Begin starts a transaction with the default options.
func (cn *conn) Begin() (driver.Tx, error) {
	return cn.BeginTx(context.Background(), driver.TxOptions{})
}

// BeginTx starts a client-side transaction. Isolation levels other than the default are refused:
// the service offers none, and pretending to one would be a lie.
func (cn *conn) BeginTx(ctx context.Context, opts driver.TxOptions) (driver.Tx, error) {
	if cn.c.closed.Load() {
		return nil, ErrConnectorClosed
	}
	if lvl := sql.IsolationLevel(opts.Isolation); lvl != sql.LevelDefault {
		return nil, &UnsupportedError{Construct: "isolation level " + lvl.String(),
			Hint: "Airtable applies every request on its own and isolates nothing; begin the transaction with the default level"}
	}
	if cn.tx != nil {
		return nil, fmt.Errorf("airsql: a transaction is already open on this connection: COMMIT or ROLLBACK it first")
	}
	cn.tx = &transaction{ctx: ctx, readOnly: opts.ReadOnly}
	return tx{cn}, nil
}

// commit sends the queued writes in order and ends the transaction, whatever the outcome. With
// no transaction open it does nothing, as COMMIT does in MySQL's autocommit mode.
func (cn *conn) commit() error {
	t := cn.tx
	if t == nil {
		return nil
	}
	cn.tx = nil
	if t.broken != nil {
		return fmt.Errorf("airsql: COMMIT refused: an earlier send of this transaction's writes failed, "+
			"and the %d statement(s) queued after it were discarded: %w", len(t.queue), t.broken)
	}
	return cn.sendQueue(t.ctx, t)
}

// rollback discards the queued writes and ends the transaction. Writes already sent cannot be
// undone: then it fails with a *RollbackError that names them.
func (cn *conn) rollback() error {
	t := cn.tx
	if t == nil {
		return nil
	}
	cn.tx = nil
	if len(t.sent) == 0 {
		return nil
	}
	return &RollbackError{Applied: t.sent, Discarded: len(t.queue)}
}

// beginStatement runs BEGIN or START TRANSACTION. As in MySQL, it first commits an open
// transaction.
func (cn *conn) beginStatement(ctx context.Context) error {
	if err := cn.commit(); err != nil {
		return err
	}
	cn.tx = &transaction{ctx: context.WithoutCancel(ctx)}
	return nil
}

// implicitTx begins the transaction a write opens by itself when @@autocommit is 0 and none is open.
func (cn *conn) implicitTx(ctx context.Context) {
	if cn.tx == nil && !cn.autocommit() {
		cn.tx = &transaction{ctx: context.WithoutCancel(ctx)}
	}
}

// execWrite runs INSERT, UPDATE or DELETE from ExecContext and returns its RowsAffected: at once
// outside a transaction, queued inside one.
func (cn *conn) execWrite(ctx context.Context, ast sqlparser.Statement, args translate.Args) (int64, error) {
	cn.implicitTx(ctx)
	t := cn.tx
	if t == nil {
		w, err := cn.prepareWrite(ctx, ast, args)
		if err != nil {
			return 0, err
		}
		out, err := cn.send(ctx, w)
		if err != nil {
			return 0, err
		}
		return int64(out.affected()), nil
	}
	if err := t.writable(); err != nil {
		return 0, err
	}
	if _, ok := ast.(*sqlparser.Insert); !ok {
		// UPDATE and DELETE find their records: a read of the table they change.
		if err := cn.flushBefore(ctx, ast); err != nil {
			return 0, err
		}
	}
	w, err := cn.prepareWrite(ctx, ast, args)
	if err != nil {
		return 0, err
	}
	if w.size() > 0 {
		t.queue = append(t.queue, w)
	}
	return int64(w.size()), nil
}

// writeNow runs a write whose records must be returned at once (QueryContext). Inside a
// transaction the queue goes first, so that the order of writes is kept. check, when set, sees the
// prepared write before anything is sent: its error refuses the statement with nothing written.
func (cn *conn) writeNow(ctx context.Context, ast sqlparser.Statement, args translate.Args, check func(*pendingWrite) error) (writeOutcome, error) {
	cn.implicitTx(ctx)
	t := cn.tx
	if t != nil {
		if err := t.writable(); err != nil {
			return writeOutcome{}, err
		}
		if err := cn.flushAll(ctx); err != nil {
			return writeOutcome{}, err
		}
	}
	w, err := cn.prepareWrite(ctx, ast, args)
	if err != nil {
		return writeOutcome{}, err
	}
	if check != nil {
		if err := check(w); err != nil {
			return writeOutcome{}, err
		}
	}
	out, err := cn.send(ctx, w)
	if t != nil {
		st := TxStatement{SQL: w.sql, State: "applied", Written: outcomeIDs(out)}
		if err != nil {
			st = statementOutcome(w, err)
			t.broken = err
		}
		if st.State != "not applied" {
			t.sent = append(t.sent, st)
		}
	}
	return out, err
}

// writable refuses writes in a read-only transaction and after a failed send.
func (t *transaction) writable() error {
	if t.readOnly {
		return fmt.Errorf("airsql: this transaction is read-only (sql.TxOptions{ReadOnly: true}): it runs no INSERT, UPDATE or DELETE")
	}
	if t.broken != nil {
		return fmt.Errorf("airsql: an earlier send of this transaction's writes failed: ROLLBACK it (writes already applied stay applied): %w", t.broken)
	}
	return nil
}

// flushBefore sends the queued writes when the statement reads a table that one of them changes;
// a statement whose tables cannot be told apart from its text flushes whenever a write is queued.
func (cn *conn) flushBefore(ctx context.Context, ast sqlparser.Statement) error {
	t := cn.tx
	if t == nil || len(t.queue) == 0 {
		return nil
	}
	tables := tablesRead(ast)
	for _, w := range t.queue {
		for _, name := range tables {
			if strings.EqualFold(name, w.table.Name) || strings.EqualFold(name, w.table.ID) {
				return cn.flushAll(ctx)
			}
		}
	}
	return nil
}

// flushAll sends the whole queue of the open transaction now.
func (cn *conn) flushAll(ctx context.Context) error {
	t := cn.tx
	if t == nil || len(t.queue) == 0 {
		return nil
	}
	if err := cn.sendQueue(ctx, t); err != nil {
		t.broken = err
		return fmt.Errorf("airsql: sending this transaction's queued writes before the statement that needs them: %w", err)
	}
	return nil
}

// tablesRead lists the tables a statement names (FROM, JOIN, subqueries, UPDATE and DELETE
// targets), except information_schema's, which hold no records.
func tablesRead(ast sqlparser.Statement) []string {
	var names []string
	_ = sqlparser.Walk(func(node sqlparser.SQLNode) (bool, error) {
		if tn, ok := node.(sqlparser.TableName); ok && !tn.IsEmpty() &&
			!strings.EqualFold(tn.Qualifier.String(), "information_schema") {
			names = append(names, tn.Name.String())
		}
		return true, nil
	}, ast)
	return names
}

// sendQueue sends the queued writes in order, consecutive INSERTs into one table (and upserts
// with the same key fields and distinct keys) as one batch. It empties the queue; a failure
// returns a *TxError naming the fate of every statement of the queue.
func (cn *conn) sendQueue(ctx context.Context, t *transaction) error {
	queue := t.queue
	t.queue = nil
	for start := 0; start < len(queue); {
		end := batchEnd(queue, start)
		w := mergeWrites(queue[start:end])
		out, err := cn.send(ctx, w)
		if err != nil {
			txe := &TxError{Err: err}
			txe.Statements = append(txe.Statements, t.sent...)
			failed := splitOutcome(queue[start:end], err)
			txe.Statements = append(txe.Statements, failed...)
			for _, st := range failed {
				if st.State != "not applied" {
					t.sent = append(t.sent, st)
				}
			}
			for _, q := range queue[end:] {
				txe.Statements = append(txe.Statements, TxStatement{SQL: q.sql, State: "not sent"})
			}
			return txe
		}
		ids := outcomeIDs(out)
		for _, q := range queue[start:end] {
			n := min(q.size(), len(ids))
			t.sent = append(t.sent, TxStatement{SQL: q.sql, State: "applied", Written: ids[:n:n]})
			ids = ids[n:]
		}
		start = end
	}
	return nil
}

// batchEnd is the end of the run of writes starting at start that can go out as one batch.
func batchEnd(queue []*pendingWrite, start int) int {
	first := queue[start]
	end := start + 1
	if first.op != "INSERT" && first.op != "UPSERT" {
		return end
	}
	keys := map[string]bool{}
	if first.op == "UPSERT" && !addUpsertKeys(keys, first) {
		return end
	}
	for ; end < len(queue); end++ {
		w := queue[end]
		if w.op != first.op || w.table.ID != first.table.ID {
			break
		}
		// Two upserts of one key in a batch would race each other in the service.
		if w.op == "UPSERT" && (strings.Join(w.keys, "\x00") != strings.Join(first.keys, "\x00") || !addUpsertKeys(keys, w)) {
			break
		}
	}
	return end
}

// addUpsertKeys adds the key values of w's rows to seen; false if one was there already.
func addUpsertKeys(seen map[string]bool, w *pendingWrite) bool {
	for _, row := range w.rows {
		vals := make([]any, len(w.keys))
		for i, k := range w.keys {
			vals[i] = row[k]
		}
		b, err := json.Marshal(vals)
		if err != nil || seen[string(b)] {
			return false
		}
		seen[string(b)] = true
	}
	return true
}

// mergeWrites joins a run of INSERTs (or upserts) into one write; a single write is itself.
func mergeWrites(run []*pendingWrite) *pendingWrite {
	if len(run) == 1 {
		return run[0]
	}
	m := *run[0]
	m.rows = nil
	for _, w := range run {
		m.rows = append(m.rows, w.rows...)
	}
	return &m
}

// outcomeIDs lists the ids of the records a send wrote, in input order.
func outcomeIDs(out writeOutcome) []string {
	if out.deleted != nil {
		return out.deleted
	}
	ids := make([]string, len(out.records))
	for i, r := range out.records {
		ids[i] = r.ID
	}
	return ids
}

// statementOutcome is the fate of one statement whose send failed.
func statementOutcome(w *pendingWrite, err error) TxStatement {
	return splitOutcome([]*pendingWrite{w}, err)[0]
}

// splitOutcome gives each statement of a batch that failed its own part of the failure: the ids
// of its records written, and its records or VALUES rows that may have been.
func splitOutcome(run []*pendingWrite, err error) []TxStatement {
	out := make([]TxStatement, len(run))
	for i, w := range run {
		out[i] = TxStatement{SQL: w.sql, State: "not applied"}
	}
	var we *WriteError
	if !errors.As(err, &we) {
		return out
	}
	owner := func(pos int) (int, int) { // statement, and row within it, of a batch position
		for i, w := range run {
			if pos < w.size() {
				return i, pos
			}
			pos -= w.size()
		}
		return -1, 0
	}
	for k, pos := range we.writtenRows {
		if i, _ := owner(pos); i >= 0 && k < len(we.Written) {
			out[i].Written = append(out[i].Written, we.Written[k])
		}
	}
	for _, pos := range we.UncertainRows {
		if i, row := owner(pos); i >= 0 {
			out[i].UncertainRows = append(out[i].UncertainRows, row)
		}
	}
	for _, id := range we.UncertainIDs { // UPDATE and DELETE are never merged
		out[0].UncertainIDs = append(out[0].UncertainIDs, id)
	}
	for i, w := range run {
		switch st := &out[i]; {
		case len(st.Written) == w.size():
			st.State = "applied"
		case len(st.Written) > 0:
			st.State = "partly applied"
		case len(st.UncertainRows)+len(st.UncertainIDs) > 0:
			st.State = "uncertain"
		}
	}
	return out
}
