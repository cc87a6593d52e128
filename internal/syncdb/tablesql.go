package syncdb

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"strings"
	"time"
)

// The SQL of one table: its creation, its rows, its junction tables and its bookkeeping, all run
// inside the caller's transaction.

// execer is a transaction (or, in tests, a database).
type execer interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

func (t *Target) exec(ctx context.Context, tx execer, query string, args ...any) error {
	if _, err := tx.ExecContext(ctx, query, args...); err != nil {
		return fmt.Errorf("%s: %w", firstLine(query), err)
	}
	return nil
}

func firstLine(q string) string {
	if i := strings.IndexByte(q, '\n'); i >= 0 {
		q = q[:i]
	}
	if len(q) > 120 {
		q = q[:120] + "…"
	}
	return q
}

func isLink(f fieldState) bool { return f.Type == "multipleRecordLinks" }

// createTable creates a table and its junction tables, for a copy.
func (t *Target) createTable(ctx context.Context, tx execer, ts *tableState) error {
	cols := []string{`"id" ` + t.d.keyType + ` PRIMARY KEY`, quote("createdTime") + " " + t.d.columnType("DATETIME")}
	for _, id := range ts.Order {
		f := ts.Fields[id]
		cols = append(cols, quote(f.SQLName)+" "+t.d.columnType(ts.shape.dbType(id)))
	}
	if err := t.createTableOf(ctx, tx, ts.SQLName, true, cols...); err != nil {
		return err
	}
	for _, id := range ts.Order {
		if f := ts.Fields[id]; isLink(f) {
			if err := t.createJunction(ctx, tx, f.Junction, true); err != nil {
				return err
			}
		}
	}
	return nil
}

// createJunction creates a junction table (fresh: for a copy; otherwise for a field a payload
// created).
func (t *Target) createJunction(ctx context.Context, tx execer, name string, fresh bool) error {
	return t.createTableOf(ctx, tx, name, fresh, `"record_id" `+t.d.keyType+` NOT NULL`, `"linked_id" `+t.d.keyType+` NOT NULL`,
		`"position" INTEGER NOT NULL`, `PRIMARY KEY ("record_id", "position")`)
}

// dropTable drops a table, its junction tables and its bookkeeping.
func (t *Target) dropTable(ctx context.Context, tx execer, base string, ts *tableState) error {
	if err := t.dropTableSQL(ctx, tx, ts); err != nil {
		return err
	}
	return t.forgetTable(ctx, tx, base, ts.ID)
}

// dropTableSQL drops a table and its junction tables (in the fields' order: a payload's schema
// steps are counted, and a replay must meet them in the same order).
func (t *Target) dropTableSQL(ctx context.Context, tx execer, ts *tableState) error {
	if err := t.dropTableIfExists(ctx, tx, ts.SQLName); err != nil {
		return err
	}
	for _, id := range ts.Order {
		if f := ts.Fields[id]; isLink(f) {
			if err := t.dropTableIfExists(ctx, tx, f.Junction); err != nil {
				return err
			}
		}
	}
	return nil
}

// forgetTable deletes a table's bookkeeping.
func (t *Target) forgetTable(ctx context.Context, tx execer, base, tableID string) error {
	for _, meta := range []string{syncTable, fieldsTable} {
		if err := t.exec(ctx, tx, `DELETE FROM `+meta+` WHERE "base" = `+t.d.placeholder(1)+` AND "table_id" = `+t.d.placeholder(2), base, tableID); err != nil {
			return err
		}
	}
	return nil
}

// upsertRow writes a whole record (a record created, or listed): every column.
func (t *Target) upsertRow(ctx context.Context, tx execer, ts *tableState, id string, created time.Time, cells map[string]any) error {
	vals, err := ts.shape.values(id, created, cells, true)
	if err != nil {
		return err
	}
	cols := []string{`"id"`, quote("createdTime")}
	args := []any{id, t.d.bind("DATETIME", created)}
	for _, fid := range ts.Order {
		f := ts.Fields[fid]
		cols = append(cols, quote(f.SQLName))
		args = append(args, t.d.bind(ts.shape.dbType(fid), vals[fid]))
	}
	ph := make([]string, len(args))
	for i := range args {
		ph[i] = t.d.placeholder(i + 1)
	}
	q := "INSERT INTO " + quote(ts.SQLName) + " (" + strings.Join(cols, ", ") + ") VALUES (" + strings.Join(ph, ", ") +
		")" + t.d.upsert(cols[:1], cols[1:])
	if err := t.exec(ctx, tx, q, args...); err != nil {
		return err
	}
	for _, fid := range ts.Order {
		if f := ts.Fields[fid]; isLink(f) {
			if err := t.writeLinks(ctx, tx, f.Junction, id, cells[fid]); err != nil {
				return err
			}
		}
	}
	return nil
}

// updateCells writes the cells a payload changed.
func (t *Target) updateCells(ctx context.Context, tx execer, ts *tableState, id string, cells map[string]any) error {
	vals, err := ts.shape.values(id, time.Time{}, cells, false)
	if err != nil {
		return err
	}
	var set []string
	var args []any
	for _, fid := range ts.Order {
		v, changed := vals[fid]
		if !changed {
			continue
		}
		args = append(args, t.d.bind(ts.shape.dbType(fid), v))
		set = append(set, quote(ts.Fields[fid].SQLName)+" = "+t.d.placeholder(len(args)))
	}
	if len(set) > 0 {
		args = append(args, id)
		if err := t.exec(ctx, tx, "UPDATE "+quote(ts.SQLName)+" SET "+strings.Join(set, ", ")+` WHERE "id" = `+t.d.placeholder(len(args)), args...); err != nil {
			return err
		}
	}
	for fid, v := range cells {
		if f, ok := ts.Fields[fid]; ok && isLink(f) {
			if err := t.writeLinks(ctx, tx, f.Junction, id, v); err != nil {
				return err
			}
		}
	}
	return nil
}

// writeLinks replaces a record's rows in a junction table with the ids of a link cell.
func (t *Target) writeLinks(ctx context.Context, tx execer, junction, id string, cell any) error {
	if err := t.exec(ctx, tx, "DELETE FROM "+quote(junction)+` WHERE "record_id" = `+t.d.placeholder(1), id); err != nil {
		return err
	}
	list, _ := cell.([]any)
	for pos, l := range list {
		linked, ok := l.(string)
		if !ok {
			continue
		}
		if err := t.exec(ctx, tx, "INSERT INTO "+quote(junction)+` ("record_id", "linked_id", "position") VALUES (`+
			t.d.placeholder(1)+", "+t.d.placeholder(2)+", "+t.d.placeholder(3)+")", id, linked, pos); err != nil {
			return err
		}
	}
	return nil
}

// deleteRow deletes a record and its links.
func (t *Target) deleteRow(ctx context.Context, tx execer, ts *tableState, id string) error {
	if err := t.exec(ctx, tx, "DELETE FROM "+quote(ts.SQLName)+` WHERE "id" = `+t.d.placeholder(1), id); err != nil {
		return err
	}
	for _, f := range ts.Fields {
		if isLink(f) {
			if err := t.exec(ctx, tx, "DELETE FROM "+quote(f.Junction)+` WHERE "record_id" = `+t.d.placeholder(1), id); err != nil {
				return err
			}
		}
	}
	return nil
}

// hasRow says whether the table holds a record.
func (t *Target) hasRow(ctx context.Context, tx execer, ts *tableState, id string) (bool, error) {
	var one int
	err := tx.QueryRowContext(ctx, "SELECT 1 FROM "+quote(ts.SQLName)+` WHERE "id" = `+t.d.placeholder(1), id).Scan(&one)
	if err == sql.ErrNoRows {
		return false, nil
	}
	return err == nil, err
}

// writeMeta writes a table's bookkeeping: its fields and its place in the payloads.
func (t *Target) writeMeta(ctx context.Context, tx execer, base string, ts *tableState, fields bool) error {
	p := t.d.placeholder
	now := time.Now().UTC().Format(time.RFC3339Nano)
	if err := t.exec(ctx, tx, `INSERT INTO `+syncTable+` ("base", "table_id", "table_name", "sql_name", "webhook_id", "cursor", "replay", "transaction_number", "updated_at")
		VALUES (`+p(1)+", "+p(2)+", "+p(3)+", "+p(4)+", "+p(5)+", "+p(6)+", "+p(7)+", "+p(8)+", "+p(9)+")"+
		t.d.upsert([]string{`"base"`, `"table_id"`}, []string{`"table_name"`, `"sql_name"`, `"webhook_id"`, `"cursor"`, `"replay"`, `"transaction_number"`, `"updated_at"`}),
		base, ts.ID, ts.Name, ts.SQLName, ts.Webhook, ts.Cursor, ts.Replay, ts.Transaction, now); err != nil {
		return err
	}
	if !fields {
		return nil
	}
	if err := t.exec(ctx, tx, `DELETE FROM `+fieldsTable+` WHERE "base" = `+p(1)+` AND "table_id" = `+p(2), base, ts.ID); err != nil {
		return err
	}
	for pos, id := range ts.Order {
		f := ts.Fields[id]
		opts, err := json.Marshal(f.Options)
		if err != nil {
			return err
		}
		if err := t.exec(ctx, tx, `INSERT INTO `+fieldsTable+` ("base", "table_id", "field_id", "position", "name", "type", "options", "sql_name", "junction")
			VALUES (`+p(1)+", "+p(2)+", "+p(3)+", "+p(4)+", "+p(5)+", "+p(6)+", "+p(7)+", "+p(8)+", "+p(9)+")",
			base, ts.ID, id, pos, f.Name, f.Type, string(opts), f.SQLName, f.Junction); err != nil {
			return err
		}
	}
	return nil
}
