package syncdb

import (
	"context"
	"database/sql"
)

// The schema steps of the sync: every CREATE, ALTER, RENAME and DROP goes through here.
//
// In SQLite and PostgreSQL DDL is transactional: a step is part of the payload's (or the copy's)
// transaction, and a crash undoes it with the rest. MySQL and MariaDB commit the open transaction
// before a DDL statement and the statement itself at once, so there:
//
//   - a payload applies every table's schema steps first and its rows and cursors after them
//     (apply), so that what the DDL commits early is schema only;
//   - each step of a payload is skipped when information_schema shows it done: a run killed after
//     some steps replays the payload from the cursor it stored, repeats nothing and reaches the
//     state an uninterrupted run reaches;
//   - after a step a new transaction begins on the same connection, so that the rows and the
//     cursor that follow still commit together (go's sql.Tx does not know of the implicit commit,
//     and would otherwise run them one autocommit at a time);
//   - a copy needs no mark of its own: what makes a table copied (a payload it cannot take, a
//     cursor gap, a new webhook, a table not copied yet) is decided again by the next run from
//     what committed, since the copy moves the table's cursor only when it commits; a copy's
//     CREATE TABLE replaces what a stopped copy left under that name.

// afterDDL, when set (by the kill -9 tests only), is told each DDL statement once it ran.
var afterDDL func(query string)

// ddl runs a schema step, then, where the step committed the caller's transaction, begins the
// next one on the transaction's connection.
func (t *Target) ddl(ctx context.Context, tx execer, query string) error {
	if err := t.exec(ctx, tx, query); err != nil {
		return err
	}
	if afterDDL != nil {
		afterDDL(query)
	}
	if _, inTx := tx.(*sql.Tx); inTx && t.d.ddlCommits {
		return t.exec(ctx, tx, "START TRANSACTION")
	}
	return nil
}

// done says whether the target has a table (column "") or a column, to tell whether a step of a
// replayed payload is done already; where DDL is transactional no step outlives its transaction,
// and it answers false without a query.
func (t *Target) done(ctx context.Context, tx execer, table, column string) (bool, error) {
	if !t.d.ddlCommits {
		return false, nil
	}
	// BINARY: information_schema compares names without case (and MariaDB without accents), and a
	// step that renames "note" to "Note" must see which of the two is there.
	q, args := `SELECT COUNT(*) FROM information_schema.tables WHERE table_schema = DATABASE() AND BINARY table_name = ?`, []any{table}
	if column != "" {
		q, args = `SELECT COUNT(*) FROM information_schema.columns WHERE table_schema = DATABASE() AND BINARY table_name = ? AND BINARY column_name = ?`, []any{table, column}
	}
	var n int
	if err := tx.QueryRowContext(ctx, q, args...).Scan(&n); err != nil {
		return false, err
	}
	return n > 0, nil
}

// addColumn adds a column (done: the column is there).
func (t *Target) addColumn(ctx context.Context, tx execer, table, column, colType string) error {
	if there, err := t.done(ctx, tx, table, column); err != nil || there {
		return err
	}
	return t.ddl(ctx, tx, "ALTER TABLE "+quote(table)+" ADD COLUMN "+quote(column)+" "+colType)
}

// dropColumn drops a column (done: the table is there without it).
func (t *Target) dropColumn(ctx context.Context, tx execer, table, column string) error {
	if t.d.ddlCommits {
		there, err := t.done(ctx, tx, table, column)
		if err != nil || !there {
			return err
		}
	}
	return t.ddl(ctx, tx, "ALTER TABLE "+quote(table)+" DROP COLUMN "+quote(column))
}

// renameColumn renames a column (done: from is gone and to is there).
func (t *Target) renameColumn(ctx context.Context, tx execer, table, from, to string) error {
	if t.d.ddlCommits {
		fromThere, err := t.done(ctx, tx, table, from)
		if err != nil {
			return err
		}
		toThere, err := t.done(ctx, tx, table, to)
		if err != nil || (!fromThere && toThere) {
			return err
		}
	}
	return t.ddl(ctx, tx, "ALTER TABLE "+quote(table)+" RENAME COLUMN "+quote(from)+" TO "+quote(to))
}

// renameTable renames a table (done: from is gone and to is there).
func (t *Target) renameTable(ctx context.Context, tx execer, from, to string) error {
	if t.d.ddlCommits {
		fromThere, err := t.done(ctx, tx, from, "")
		if err != nil {
			return err
		}
		toThere, err := t.done(ctx, tx, to, "")
		if err != nil || (!fromThere && toThere) {
			return err
		}
	}
	return t.ddl(ctx, tx, "ALTER TABLE "+quote(from)+" RENAME TO "+quote(to))
}

// dropTableIfExists drops a table (done: it is not there).
func (t *Target) dropTableIfExists(ctx context.Context, tx execer, name string) error {
	return t.ddl(ctx, tx, "DROP TABLE IF EXISTS "+quote(name))
}

// createTableOf creates a table of columns (each "name type"; the first is the key): in a payload,
// done when it is there; in a copy (fresh), where DDL commits, it first drops what a stopped copy
// left of it.
func (t *Target) createTableOf(ctx context.Context, tx execer, name string, fresh bool, columns ...string) error {
	if t.d.ddlCommits {
		if fresh {
			if err := t.dropTableIfExists(ctx, tx, name); err != nil {
				return err
			}
		} else if there, err := t.done(ctx, tx, name, ""); err != nil || there {
			return err
		}
	}
	q := "CREATE TABLE " + quote(name) + " ("
	for i, c := range columns {
		if i > 0 {
			q += ", "
		}
		q += c
	}
	return t.ddl(ctx, tx, q+")"+t.d.tableOptions)
}
