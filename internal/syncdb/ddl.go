package syncdb

import (
	"context"
	"database/sql"
	"errors"
	"strings"
)

// The schema steps of the sync: every CREATE, ALTER, RENAME and DROP goes through here.
//
// In SQLite and PostgreSQL DDL is transactional: a step is part of the payload's (or the copy's)
// transaction, and a crash undoes it with the rest. MySQL and MariaDB commit the open transaction
// before a DDL statement and the statement itself at once, so there:
//
//   - a payload applies every table's schema steps first and its rows and cursors after them
//     (apply), so that what the DDL commits early is schema only;
//   - after each step a new transaction begins on the same connection, and the payload's row in
//     _airsql_sync_steps counts the step (the payload's webhook and cursor, the steps done) in it: the next
//     step's implicit commit commits the count, and the rows and cursors that follow the last
//     step still commit together with its count (go's sql.Tx does not know of the implicit
//     commit, and would otherwise run them one autocommit at a time);
//   - a run killed anywhere in between replays the payload from the cursor it stored: the steps
//     the count names it skips; the one after them, which may have committed without its count,
//     it skips (and counts) when information_schema shows it done, and then looks at the next one
//     so; the rest it runs. So it repeats nothing and reaches the state an uninterrupted run
//     reaches, also when a later step reuses a name an earlier one freed (two fields swapping
//     names): no step but the last one that ran is judged by what information_schema shows;
//   - a copy needs no count of its own: what makes a table copied (a payload it cannot take, a
//     cursor gap, a new webhook, a table not copied yet) is decided again by the next run from
//     what committed, since the copy moves the table's cursor only when it commits; a copy's
//     CREATE TABLE replaces what a stopped copy left under that name.

// stepsTable counts the schema steps of the payload being applied, where DDL commits.
const stepsTable = "_airsql_sync_steps"

// stepCount is where the schema steps of a payload are. A payload is its webhook and its cursor:
// a new webhook's cursors start again from 1.
type stepCount struct {
	base, webhook string
	cursor        int
	done          int // the steps known done: their count committed
	next          int // the index of the next step
}

// beginSteps starts counting the schema steps of the payload of webhook and cursor (where DDL
// commits; elsewhere it does nothing), from what a run stopped inside them counted.
func (t *Target) beginSteps(ctx context.Context, tx execer, base, webhook string, cursor int) error {
	if !t.d.ddlCommits {
		return nil
	}
	c := &stepCount{base: base, webhook: webhook, cursor: cursor}
	var storedHook string
	var stored, done int
	err := tx.QueryRowContext(ctx, `SELECT "webhook_id", "cursor", "steps" FROM `+stepsTable+` WHERE "base" = `+t.d.placeholder(1), base).Scan(&storedHook, &stored, &done)
	switch {
	case err == nil && storedHook == webhook && stored == cursor:
		c.done = done
	case err != nil && !errors.Is(err, sql.ErrNoRows):
		return err
	}
	t.steps = c
	return nil
}

// endSteps stops counting.
func (t *Target) endSteps() { t.steps = nil }

// step runs a schema step of a payload (isDone says whether the target holds its result); see
// the top of the file.
func (t *Target) step(ctx context.Context, tx execer, isDone func() (bool, error), query string) error {
	c := t.steps
	if c == nil {
		return t.ddl(ctx, tx, query)
	}
	i := c.next
	c.next++
	if i < c.done {
		return nil
	}
	if i == c.done {
		done, err := isDone()
		if err != nil {
			return err
		}
		if done { // counted, so that a replay does not look again: a later step may undo the sign
			c.done++
			return t.countSteps(ctx, tx, i+1)
		}
	}
	if err := t.ddl(ctx, tx, query); err != nil {
		return err
	}
	return t.countSteps(ctx, tx, i+1)
}

// countSteps records that the first n schema steps of the payload are done (in the transaction:
// the next step's implicit commit, or the payload's, commits it).
func (t *Target) countSteps(ctx context.Context, tx execer, n int) error {
	p := t.d.placeholder
	return t.exec(ctx, tx, `INSERT INTO `+stepsTable+` ("base", "webhook_id", "cursor", "steps") VALUES (`+p(1)+", "+p(2)+", "+p(3)+", "+p(4)+")"+
		t.d.upsert([]string{`"base"`}, []string{`"webhook_id"`, `"cursor"`, `"steps"`}), t.steps.base, t.steps.webhook, t.steps.cursor, n)
}

// afterDDL, when set (by the kill -9 tests only), is told each DDL statement once it ran.
var afterDDL func(query string)

// ddl runs a DDL statement, then, where it committed the caller's transaction, begins the next
// one on the transaction's connection.
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

// has says whether the target has a table (column "") or a column of it.
func (t *Target) has(ctx context.Context, tx execer, table, column string) (bool, error) {
	// BINARY: MySQL's information_schema compares names without case, and a step that renames
	// "note" to "Note" must see which of the two is there.
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

// renamed says whether a rename of a column of table (of a table: table "") is done: from is gone
// and to is there.
func (t *Target) renamed(ctx context.Context, tx execer, table, from, to string) (bool, error) {
	there := func(name string) (bool, error) {
		if table == "" {
			return t.has(ctx, tx, name, "")
		}
		return t.has(ctx, tx, table, name)
	}
	fromThere, err := there(from)
	if err != nil || fromThere {
		return false, err
	}
	return there(to)
}

// addColumn adds a column.
func (t *Target) addColumn(ctx context.Context, tx execer, table, column, colType string) error {
	return t.step(ctx, tx, func() (bool, error) { return t.has(ctx, tx, table, column) },
		"ALTER TABLE "+quote(table)+" ADD COLUMN "+quote(column)+" "+colType)
}

// dropColumn drops a column.
func (t *Target) dropColumn(ctx context.Context, tx execer, table, column string) error {
	return t.step(ctx, tx, func() (bool, error) { there, err := t.has(ctx, tx, table, column); return !there, err },
		"ALTER TABLE "+quote(table)+" DROP COLUMN "+quote(column))
}

// renameColumn renames a column.
func (t *Target) renameColumn(ctx context.Context, tx execer, table, from, to string) error {
	return t.step(ctx, tx, func() (bool, error) { return t.renamed(ctx, tx, table, from, to) },
		"ALTER TABLE "+quote(table)+" RENAME COLUMN "+quote(from)+" TO "+quote(to))
}

// renameTable renames a table.
func (t *Target) renameTable(ctx context.Context, tx execer, from, to string) error {
	return t.step(ctx, tx, func() (bool, error) { return t.renamed(ctx, tx, "", from, to) },
		"ALTER TABLE "+quote(from)+" RENAME TO "+quote(to))
}

// dropTableIfExists drops a table.
func (t *Target) dropTableIfExists(ctx context.Context, tx execer, name string) error {
	return t.step(ctx, tx, func() (bool, error) { there, err := t.has(ctx, tx, name, ""); return !there, err },
		"DROP TABLE IF EXISTS "+quote(name))
}

// createTableOf creates a table of columns (each "name type", or a constraint). In a copy
// (fresh), where DDL commits, it first drops what a stopped copy left under that name.
func (t *Target) createTableOf(ctx context.Context, tx execer, name string, fresh bool, columns ...string) error {
	if fresh && t.d.ddlCommits {
		if err := t.dropTableIfExists(ctx, tx, name); err != nil {
			return err
		}
	}
	return t.step(ctx, tx, func() (bool, error) { return t.has(ctx, tx, name, "") },
		"CREATE TABLE "+quote(name)+" ("+strings.Join(columns, ", ")+")"+t.d.tableOptions)
}
