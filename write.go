package airsql

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"

	"github.com/xwb1989/sqlparser"

	"github.com/airsql/airsql/engine"
	"github.com/airsql/airsql/translate"
	"github.com/airsql/airsql/transport"
)

// writeOutcome is what a write did: the records it created or updated (as the service returned
// them, every non-empty field included), or the ids it deleted.
type writeOutcome struct {
	table   *translate.Table
	schema  *baseSchema
	records []transport.Record
	deleted []string
}

// affected is RowsAffected: one per record created, updated (matched and written, whether or
// not a value changed) or deleted. An upsert counts one per record, created or updated.
func (w writeOutcome) affected() int {
	if w.deleted != nil {
		return len(w.deleted)
	}
	return len(w.records)
}

func (cn *conn) writeOptions() transport.WriteOptions {
	return transport.WriteOptions{Typecast: cn.c.cfg.Typecast}
}

// pendingWrite is a write statement checked and ready to send: its table, and the records or
// ids it writes. UPDATE and DELETE have already found their records (a read) and computed the new
// values. Outside a transaction it is sent at once; inside one it waits in the queue until COMMIT
// or until a read needs it (see tx.go).
type pendingWrite struct {
	op      string // "INSERT", "UPSERT", "UPDATE" or "DELETE"
	sql     string // the statement as written, for messages
	table   *translate.Table
	schema  *baseSchema
	rows    []map[string]any   // INSERT, UPSERT: one map of fields per VALUES row
	keys    []string           // UPSERT: the fields that identify a record
	updates []transport.Record // UPDATE: id and new fields of each record found
	ids     []string           // DELETE: the records found
}

// size is the number of records the write touches: its RowsAffected once sent in full.
func (w *pendingWrite) size() int {
	return len(w.rows) + len(w.updates) + len(w.ids)
}

// prepareWrite checks a write statement against the schema and, for UPDATE and DELETE, finds
// the records it touches, without writing anything.
func (cn *conn) prepareWrite(ctx context.Context, ast sqlparser.Statement, args translate.Args) (*pendingWrite, error) {
	written := ast
	if ins, ok := ast.(*sqlparser.Insert); ok {
		if sel, ok := ins.Rows.(sqlparser.SelectStatement); ok {
			// The SELECT's rows are read where the statement was written (its bare names are the
			// default database's), then written as VALUES rows.
			var err error
			if ast, args, err = cn.insertSelect(ctx, ins, sel, args); err != nil {
				return nil, err
			}
		}
	}
	there, ast, err := cn.inTargetDatabase(ast)
	if err != nil {
		return nil, err
	}
	var w *pendingWrite
	switch ast := ast.(type) {
	case *sqlparser.Insert:
		w, err = there.prepareInsert(ctx, ast, args)
	case *sqlparser.Update:
		w, err = there.prepareUpdate(ctx, ast, args)
	case *sqlparser.Delete:
		w, err = there.prepareDelete(ctx, ast, args)
	default:
		return nil, unsupportedStatement(ast)
	}
	if w != nil {
		w.sql = sqlparser.String(written)
	}
	return w, err
}

// prepareInsert plans INSERT (BatchCreate) or INSERT … ON DUPLICATE KEY UPDATE (BatchUpsert on
// the key columns translate chose); an INSERT … SELECT has had its rows read (prepareWrite).
func (cn *conn) prepareInsert(ctx context.Context, ast *sqlparser.Insert, args translate.Args) (*pendingWrite, error) {
	plan, schema, err := planned(ctx, cn, []string{ast.Table.Name.String()}, func(s translate.Schema) (*translate.InsertPlan, error) {
		return translate.Insert(ast, s, args)
	})
	if err != nil {
		return nil, err
	}
	w := &pendingWrite{op: "INSERT", table: plan.Table, schema: schema, rows: plan.Rows}
	if plan.Upsert != nil {
		w.op, w.keys = "UPSERT", plan.Upsert
	}
	return w, nil
}

// prepareUpdate finds the records to update with the UPDATE's search (a SELECT of id and the SET
// values, write_search.go) and computes each one's new fields from its row.
func (cn *conn) prepareUpdate(ctx context.Context, ast *sqlparser.Update, args translate.Args) (*pendingWrite, error) {
	plan, schema, catalog, err := planWrite(ctx, cn, ast, args, translate.Update)
	if err != nil {
		return nil, err
	}
	w := &pendingWrite{op: "UPDATE", table: plan.Table, schema: schema}
	err = cn.eachSearched(ctx, plan.Search, catalog, func(id string, row []any) error {
		fields, err := plan.Fields(row)
		if err != nil {
			return err
		}
		w.updates = append(w.updates, transport.Record{ID: id, Fields: fields})
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("airsql: UPDATE %q: finding the records and computing their new values (none was written): %w", plan.Table.Name, err)
	}
	return w, nil
}

// prepareDelete finds the records to delete with the DELETE's search (a SELECT of id).
func (cn *conn) prepareDelete(ctx context.Context, ast *sqlparser.Delete, args translate.Args) (*pendingWrite, error) {
	plan, schema, catalog, err := planWrite(ctx, cn, ast, args, translate.Delete)
	if err != nil {
		return nil, err
	}
	w := &pendingWrite{op: "DELETE", table: plan.Table, schema: schema}
	err = cn.eachSearched(ctx, plan.Search, catalog, func(id string, _ []any) error {
		w.ids = append(w.ids, id)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("airsql: DELETE FROM %q: finding the records to delete (none was deleted): %w", plan.Table.Name, err)
	}
	return w, nil
}

// send writes a prepared write: chunks of 10, pipelined by transport. A batch that fails
// part-way returns a *WriteError naming what was written and what may have been.
func (cn *conn) send(ctx context.Context, w *pendingWrite) (writeOutcome, error) {
	out := writeOutcome{table: w.table, schema: w.schema}
	table := cn.c.connectorOf(w.table).base.Table(w.table.ID)
	if copied, mark, ok := cn.c.replicaMark(w.table.ID); ok {
		defer func() { cn.c.patchReplica(copied, mark, out) }()
	}
	var err error
	switch w.op {
	case "INSERT":
		if len(w.rows) == 0 {
			return out, nil
		}
		out.records, err = table.BatchCreate(ctx, w.rows, cn.writeOptions())
		return out, writeError(w.op, w.table.Name, out.records, nil, err)
	case "UPSERT":
		if len(w.rows) == 0 {
			return out, nil
		}
		recs := make([]transport.Record, len(w.rows))
		for i, fields := range w.rows {
			recs[i].Fields = fields
		}
		out.records, err = table.BatchUpsert(ctx, recs, w.keys, cn.writeOptions())
		return out, writeError(w.op, w.table.Name, out.records, nil, err)
	case "UPDATE":
		out.records = []transport.Record{}
		if len(w.updates) == 0 {
			return out, nil
		}
		out.records, err = table.BatchUpdate(ctx, w.updates, cn.writeOptions())
		return out, writeError(w.op, w.table.Name, out.records, w.updates, err)
	}
	out.deleted = []string{}
	if len(w.ids) == 0 {
		return out, nil
	}
	results, err := table.BatchDelete(ctx, w.ids)
	for _, r := range results {
		if r.Deleted {
			out.deleted = append(out.deleted, r.ID)
		}
	}
	var be *transport.BatchError
	switch {
	case err == nil:
		return out, nil
	case !errors.As(err, &be):
		return out, fmt.Errorf("airsql: DELETE %q (nothing was deleted): %w", w.table.Name, err)
	}
	we := &WriteError{Op: "DELETE", Table: w.table.Name, Written: out.deleted, Err: be.Err, writtenRows: be.Written}
	for _, i := range be.Uncertain {
		we.UncertainIDs = append(we.UncertainIDs, w.ids[i])
	}
	return out, we
}

// writeError turns a batch that failed part-way into a *WriteError listing the ids written; sent
// holds the records sent (UPDATE), to name the ones that may or may not have been written. A
// failure before anything was sent (an argument transport refused) is only wrapped.
func writeError(op, table string, written, sent []transport.Record, err error) error {
	if err == nil {
		return nil
	}
	var be *transport.BatchError
	if !errors.As(err, &be) {
		return fmt.Errorf("airsql: %s %q (nothing was written): %w", op, table, err)
	}
	we := &WriteError{Op: op, Table: table, Err: be.Err, writtenRows: be.Written}
	for _, r := range written {
		we.Written = append(we.Written, r.ID)
	}
	for _, i := range be.Uncertain {
		if sent != nil && i < len(sent) {
			we.UncertainIDs = append(we.UncertainIDs, sent[i].ID)
		} else {
			we.UncertainRows = append(we.UncertainRows, i)
		}
	}
	return we
}

// A write run with QueryContext returns the records written: INSERT and UPDATE the records as
// the service returned them, with the columns of SELECT * (id, every field in schema order,
// createdTime), or of the RETURNING list when the statement has one; DELETE one column, id.
func (cn *conn) writeRows(ctx context.Context, ast sqlparser.Statement, args translate.Args, returning sqlparser.SelectExprs) (driver.Rows, error) {
	if _, isDelete := ast.(*sqlparser.Delete); isDelete && returning != nil && !onlyIDs(returning) {
		return nil, &UnsupportedError{Construct: "DELETE … RETURNING of columns other than id",
			Hint: "a DELETE keeps only the ids of the records it deleted: SELECT the values first, or write RETURNING id"}
	}
	// The rows' query is planned before the write is sent: a list it refuses writes nothing.
	var q *translate.Query
	w, err := cn.writeNow(ctx, ast, args, func(pw *pendingWrite) (err error) {
		if pw.table != nil && (pw.op != "DELETE" || returning != nil) {
			q, err = recordsQuery(pw.schema, pw.table, returning, args.Labels)
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	if w.deleted == nil {
		return cn.recordRows(ctx, w, q)
	}
	if returning != nil { // only ids: the deleted records read as records with no fields
		for _, id := range w.deleted {
			w.records = append(w.records, transport.Record{ID: id})
		}
		return cn.recordRows(ctx, w, q)
	}
	rows := &staticRows{resultColumns: []translate.Column{idColumn()}}
	for _, id := range w.deleted {
		rows.values = append(rows.values, []driver.Value{id})
	}
	return rows, nil
}

// recordRows shows written records with the columns and values of SELECT * on their table (or of
// the RETURNING list), so that they read exactly as a later SELECT would read them: q, the
// recordsQuery of the list planned by the one planner, computed by the engine over the records.
func (cn *conn) recordRows(ctx context.Context, w writeOutcome, q *translate.Query) (driver.Rows, error) {
	if w.table == nil || q == nil {
		return &staticRows{resultColumns: []translate.Column{idColumn()}}, nil
	}
	records := make(writtenRecords, len(w.records))
	for i, rec := range w.records {
		records[i] = translate.Row{ID: rec.ID, CreatedTime: rec.CreatedTime, Fields: rec.Fields}
	}
	op, err := engine.Build(q, engine.Options{Source: records, MaxRows: cn.c.cfg.MaxRows})
	if err != nil {
		return nil, err
	}
	out, err := engine.Drain(ctx, op)
	if err != nil {
		return nil, err
	}
	rows := &staticRows{resultColumns: q.Columns}
	for _, r := range out {
		dest := make([]driver.Value, len(r.Values))
		for i, v := range r.Values {
			dest[i] = v
		}
		rows.values = append(rows.values, dest)
	}
	return rows, nil
}
