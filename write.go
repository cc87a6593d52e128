package airsql

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/xwb1989/sqlparser"

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

// insertRecords runs INSERT (BatchCreate) or INSERT … ON DUPLICATE KEY UPDATE (BatchUpsert on the
// key columns translate chose). transport sends chunks of 10, pipelined.
func (cn *conn) insertRecords(ctx context.Context, ast *sqlparser.Insert, args translate.Args) (writeOutcome, error) {
	plan, schema, err := planned(ctx, cn, []string{ast.Table.Name.String()}, func(s translate.Schema) (*translate.InsertPlan, error) {
		return translate.Insert(ast, s, args)
	})
	if err != nil {
		return writeOutcome{}, err
	}
	out := writeOutcome{table: plan.Table, schema: schema}
	if len(plan.Rows) == 0 {
		return out, nil
	}
	table := cn.c.base.Table(plan.Table.ID)
	if plan.Upsert != nil {
		recs := make([]transport.Record, len(plan.Rows))
		for i, fields := range plan.Rows {
			recs[i].Fields = fields
		}
		out.records, err = table.BatchUpsert(ctx, recs, plan.Upsert, cn.writeOptions())
		return out, writeError("UPSERT", plan.Table.Name, out.records, nil, err)
	}
	out.records, err = table.BatchCreate(ctx, plan.Rows, cn.writeOptions())
	return out, writeError("INSERT", plan.Table.Name, out.records, nil, err)
}

// updateRecords finds the records to update with the pushed-down WHERE, computes each one's SET
// from its current values, and writes them in batches of 10.
func (cn *conn) updateRecords(ctx context.Context, ast *sqlparser.Update, args translate.Args) (writeOutcome, error) {
	plan, schema, err := planned(ctx, cn, tableOf(ast.TableExprs), func(s translate.Schema) (*translate.UpdatePlan, error) {
		return translate.Update(ast, s, args)
	})
	if err != nil {
		return writeOutcome{}, err
	}
	out := writeOutcome{table: plan.Table, schema: schema}
	var updates []transport.Record
	err = cn.eachFound(ctx, plan.Find, func(row translate.Row) error {
		fields, err := plan.Fields(row)
		if err != nil {
			return err
		}
		updates = append(updates, transport.Record{ID: row.ID, Fields: fields})
		return nil
	})
	if err != nil {
		return out, fmt.Errorf("airsql: UPDATE %q: finding the records and computing their new values (none was written): %w", plan.Table.Name, err)
	}
	out.records = []transport.Record{}
	if len(updates) == 0 {
		return out, nil
	}
	out.records, err = cn.c.base.Table(plan.Table.ID).BatchUpdate(ctx, updates, cn.writeOptions())
	return out, writeError("UPDATE", plan.Table.Name, out.records, updates, err)
}

// deleteRecords finds the records with the pushed-down WHERE (ids only) and deletes them in
// batches of 10.
func (cn *conn) deleteRecords(ctx context.Context, ast *sqlparser.Delete, args translate.Args) (writeOutcome, error) {
	plan, schema, err := planned(ctx, cn, tableOf(ast.TableExprs), func(s translate.Schema) (*translate.DeletePlan, error) {
		return translate.Delete(ast, s, args)
	})
	if err != nil {
		return writeOutcome{}, err
	}
	out := writeOutcome{table: plan.Table, schema: schema, deleted: []string{}}
	var ids []string
	err = cn.eachFound(ctx, plan.Find, func(row translate.Row) error {
		ids = append(ids, row.ID)
		return nil
	})
	if err != nil {
		return out, fmt.Errorf("airsql: DELETE FROM %q: finding the records to delete (none was deleted): %w", plan.Table.Name, err)
	}
	if len(ids) == 0 {
		return out, nil
	}
	results, err := cn.c.base.Table(plan.Table.ID).BatchDelete(ctx, ids)
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
		return out, fmt.Errorf("airsql: DELETE %q (nothing was deleted): %w", plan.Table.Name, err)
	}
	we := &WriteError{Op: "DELETE", Table: plan.Table.Name, Written: out.deleted, Err: be.Err}
	for _, i := range be.Uncertain {
		we.UncertainIDs = append(we.UncertainIDs, ids[i])
	}
	return out, we
}

// eachFound runs a find plan to the end and calls f for every row it keeps.
func (cn *conn) eachFound(ctx context.Context, plan *translate.Plan, f func(translate.Row) error) error {
	cur := newCursor(ctx, cn.c.base, plan, cn.c.cfg.PageSize)
	defer cur.close()
	for {
		row, err := cur.next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		if err := f(row); err != nil {
			return err
		}
	}
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
	we := &WriteError{Op: op, Table: table, Err: be.Err}
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

// insert, update and delete run with QueryContext return the records written: INSERT and UPDATE
// the records as the service returned them, with the columns of SELECT * (id, every field in
// schema order, createdTime), DELETE one column, id.
func (cn *conn) insert(ctx context.Context, ast *sqlparser.Insert, args translate.Args) (driver.Rows, error) {
	w, err := cn.insertRecords(ctx, ast, args)
	if err != nil {
		return nil, err
	}
	return cn.recordRows(w)
}

func (cn *conn) update(ctx context.Context, ast *sqlparser.Update, args translate.Args) (driver.Rows, error) {
	w, err := cn.updateRecords(ctx, ast, args)
	if err != nil {
		return nil, err
	}
	return cn.recordRows(w)
}

func (cn *conn) delete(ctx context.Context, ast *sqlparser.Delete, args translate.Args) (driver.Rows, error) {
	w, err := cn.deleteRecords(ctx, ast, args)
	if err != nil {
		return nil, err
	}
	rows := &staticRows{resultColumns: []translate.Column{idColumn()}}
	for _, id := range w.deleted {
		rows.values = append(rows.values, []driver.Value{id})
	}
	return rows, nil
}

// recordRows shows written records with the columns and values of SELECT * on their table, so
// that they read exactly as a later SELECT would read them.
func (cn *conn) recordRows(w writeOutcome) (driver.Rows, error) {
	if w.table == nil {
		return &staticRows{resultColumns: []translate.Column{idColumn()}}, nil
	}
	plan, err := allColumnsPlan(w.schema, w.table)
	if err != nil {
		return nil, err
	}
	rows := &staticRows{resultColumns: plan.Columns}
	for _, rec := range w.records {
		vals := make([]any, len(plan.Columns))
		if err := plan.Values(translate.Row{ID: rec.ID, CreatedTime: rec.CreatedTime, Fields: rec.Fields}, vals); err != nil {
			return nil, err
		}
		dest := make([]driver.Value, len(vals))
		for i, v := range vals {
			dest[i] = v
		}
		rows.values = append(rows.values, dest)
	}
	return rows, nil
}

// allColumnsPlan plans SELECT * on a table (id, the fields in schema order, createdTime), for
// its columns and value model.
func allColumnsPlan(schema *baseSchema, t *translate.Table) (*translate.Plan, error) {
	query := "SELECT * FROM " + quoteName(t.ID)
	ast, err := translate.Parse(query)
	if err != nil {
		return nil, fmt.Errorf("airsql: internal query %q: %w", query, err)
	}
	sel, ok := ast.(*sqlparser.Select)
	if !ok {
		return nil, fmt.Errorf("airsql: internal query %q is not a SELECT", query)
	}
	return translate.Select(sel, schema, translate.Args{})
}

// quoteName writes a name as a backquoted identifier.
func quoteName(name string) string {
	return "`" + strings.ReplaceAll(name, "`", "``") + "`"
}
