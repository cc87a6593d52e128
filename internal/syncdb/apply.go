package syncdb

import (
	"context"
	"database/sql"
	"errors"
	"maps"
	"slices"

	"github.com/airsql/airsql/replica"
	"github.com/airsql/airsql/transport"
)

// drain reads the payloads from the oldest cursor of the copies until the webhook has no more
// and applies each in one transaction. It returns the tables to copy again (a payload they cannot
// take exactly) and the tables created in the base that the copy follows.
func (s *Syncer) drain(ctx context.Context) (recopy, created []string, err error) {
	if len(s.tables) == 0 {
		return nil, nil, nil
	}
	from := -1
	for _, ts := range s.tables {
		if from < 0 || ts.Cursor < from {
			from = ts.Cursor
		}
	}
	started := s.clock.Now()
	skip := map[string]bool{}
	for p, err := range s.base.IterateWebhookPayloads(ctx, s.hookID, from) {
		if err != nil {
			return recopy, created, replica.WebhookRequestError(err)
		}
		if p.Error {
			return nil, nil, replica.ErrWebhookEnded
		}
		again, err := s.apply(ctx, p, skip)
		if err != nil {
			return recopy, created, err
		}
		recopy = append(recopy, again...)
		if len(s.opts.Tables) == 0 {
			for _, id := range slices.Sorted(maps.Keys(p.CreatedTablesByID)) {
				if s.tables[id] == nil && !slices.Contains(created, id) {
					created = append(created, id)
				}
			}
		}
	}
	s.checked = started // reading the payloads extended the webhook's life
	return recopy, created, nil
}

// apply applies one payload to every table in one transaction (where DDL commits, its schema
// steps before it: see ddl.go), and returns the tables it cannot
// be applied to exactly (marked in skip: later payloads skip them until they are copied again).
func (s *Syncer) apply(ctx context.Context, p transport.WebhookPayload, skip map[string]bool) (recopy []string, err error) {
	ids := slices.Sorted(maps.Keys(s.tables))
	// A created field's options (a number's precision, a date's time zone) are not in the
	// payload: they come from the schema, read before the transaction.
	var schema *transport.BaseSchema
	for _, id := range ids {
		if tc, ok := p.ChangedTablesByID[id]; ok && len(tc.CreatedFieldsByID) > 0 && p.Cursor >= s.tables[id].Cursor && !skip[id] {
			if schema, err = s.base.Schema(ctx); err != nil {
				return nil, err
			}
			break
		}
	}
	staged := map[string]*tableState{}
	var deleted []string
	tx, err := s.target.db.BeginTx(ctx, nil)
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			_ = tx.Rollback()
		}
	}()
	// The schema steps of every table first, then the rows and cursors: where DDL commits
	// (ddl.go), what commits early is schema only, and a replay finds each step done.
	if err := s.target.beginSteps(ctx, tx, s.base.ID(), s.hookID, p.Cursor); err != nil {
		return nil, err
	}
	defer s.target.endSteps()
	changes := map[string]*replica.Change{}
	for _, id := range ids {
		ts := s.tables[id]
		if skip[id] {
			continue
		}
		ch, err := replica.PlanChange(replica.CopyState{TableID: id, Name: ts.Name, Fields: ts.replicaFields(), Order: ts.Order,
			Cursor: ts.Cursor, Replay: ts.Replay, HasRecord: func(rec string) (bool, error) { return s.target.hasRow(ctx, tx, ts, rec) }}, p)
		switch {
		case err == nil && ch == nil:
			continue
		case errors.Is(err, replica.ErrTableDeleted):
			s.log("table %s was deleted from the base: dropped", ts.Name)
			// Its bookkeeping goes with the rows: a replay must find the table's steps where
			// they were (ddl.go).
			if err := s.target.dropTableSQL(ctx, tx, ts); err != nil {
				return nil, err
			}
			deleted = append(deleted, id)
			continue
		case replica.IsRecopy(err):
			s.log("table %s: %v", ts.Name, err)
			skip[id] = true
			recopy = append(recopy, id)
			continue
		case err != nil:
			return nil, err
		}
		nt, err := s.applySchema(ctx, tx, ts, ch, schema)
		if err != nil {
			return nil, err
		}
		staged[id], changes[id] = nt, ch
	}
	s.target.endSteps()
	for _, id := range deleted {
		if err := s.target.forgetTable(ctx, tx, s.base.ID(), id); err != nil {
			return nil, err
		}
	}
	applied := false
	for _, id := range slices.Sorted(maps.Keys(staged)) {
		if err := s.applyRows(ctx, tx, staged[id], changes[id]); err != nil {
			return nil, err
		}
		if err := s.target.writeMeta(ctx, tx, s.base.ID(), staged[id], staged[id].fieldsChanged); err != nil {
			return nil, err
		}
		applied = applied || changes[id].Touched
	}
	if err := tx.Commit(); err != nil {
		return nil, err
	}
	for id, nt := range staged {
		s.tables[id] = nt
	}
	for _, id := range deleted {
		delete(s.tables, id)
	}
	if applied {
		s.stats.PayloadsApplied++
	}
	s.stats.Transaction = p.BaseTransactionNumber
	if s.opts.Applied != nil {
		s.opts.Applied(p.Cursor)
	}
	return recopy, nil
}

// replicaFields are the fields as replica sees them.
func (ts *tableState) replicaFields() map[string]replica.Field {
	out := make(map[string]replica.Field, len(ts.Fields))
	for id, f := range ts.Fields {
		out[id] = f.Field
	}
	return out
}

// applySchema applies the schema steps of one table's change inside the payload's transaction
// and returns the table as it then is, its rows still to write (the Syncer keeps it once the
// transaction commits).
func (s *Syncer) applySchema(ctx context.Context, tx *sql.Tx, old *tableState, ch *replica.Change, schema *transport.BaseSchema) (*tableState, error) {
	ts := old.clone()
	ts.Cursor, ts.Transaction = ch.Cursor+1, ch.Transaction
	ts.fieldsChanged = false
	if !ch.Touched {
		return ts, nil
	}
	renamed, err := s.renameTable(ctx, tx, ts, ch)
	if err != nil {
		return nil, err
	}
	fieldsChanged, err := s.applyFields(ctx, tx, ts, ch, schema)
	if err != nil {
		return nil, err
	}
	if fieldsChanged {
		ts.Order = slices.DeleteFunc(ts.Order, func(id string) bool { _, ok := ts.Fields[id]; return !ok })
		if err := ts.reshape(); err != nil {
			return nil, err
		}
	}
	ts.fieldsChanged = renamed || fieldsChanged
	return ts, nil
}

// renameTable gives the SQL table (and its junction tables) the name a change gave the table;
// it reports whether the name changed.
func (s *Syncer) renameTable(ctx context.Context, tx *sql.Tx, ts *tableState, ch *replica.Change) (bool, error) {
	if ch.Name == ts.Name {
		return false, nil
	}
	ts.Name = ch.Name
	name := s.target.d.uniqueName(ch.Name, ts.ID, s.tableNames(ts.ID))
	if name == ts.SQLName {
		return true, nil
	}
	if err := s.target.renameTable(ctx, tx, ts.SQLName, name); err != nil {
		return false, err
	}
	ts.SQLName = name
	for _, id := range ts.Order { // in order: a payload's schema steps are counted (ddl.go)
		if isLink(ts.Fields[id]) {
			if err := s.renameJunction(ctx, tx, ts, id); err != nil {
				return false, err
			}
		}
	}
	return true, nil
}

// applyFields drops, renames and adds the columns (and junction tables) of the fields a change
// deleted, renamed and created; it reports whether any changed.
func (s *Syncer) applyFields(ctx context.Context, tx *sql.Tx, ts *tableState, ch *replica.Change, schema *transport.BaseSchema) (bool, error) {
	d, t := s.target.d, s.target
	schemaChanged := false
	for _, id := range ch.DestroyedFields {
		f, known := ts.Fields[id]
		if !known {
			continue
		}
		if err := t.dropColumn(ctx, tx, ts.SQLName, f.SQLName); err != nil {
			return false, err
		}
		if isLink(f) {
			if err := t.dropTableIfExists(ctx, tx, f.Junction); err != nil {
				return false, err
			}
		}
		delete(ts.Fields, id)
		schemaChanged = true
	}
	for _, id := range ch.RenamedFields {
		f := ts.Fields[id]
		f.Name = ch.Fields[id].Name
		name := d.uniqueName(f.Name, id, ts.columnNames(id))
		if name != f.SQLName {
			if err := t.renameColumn(ctx, tx, ts.SQLName, f.SQLName, name); err != nil {
				return false, err
			}
			f.SQLName = name
		}
		ts.Fields[id] = f
		if isLink(f) {
			if err := s.renameJunction(ctx, tx, ts, id); err != nil {
				return false, err
			}
		}
		schemaChanged = true
	}
	for _, id := range ch.CreatedFields {
		f := fieldState{Field: ch.Fields[id], Options: fieldOptions(schema, ts.ID, id)}
		f.SQLName = d.uniqueName(f.Name, id, ts.columnNames(id))
		ts.Fields[id] = f
		ts.Order = append(ts.Order, id)
		if err := ts.reshape(); err != nil {
			return false, err
		}
		if err := t.addColumn(ctx, tx, ts.SQLName, f.SQLName, d.columnType(ts.shape.dbType(id))); err != nil {
			return false, err
		}
		if isLink(f) {
			f.Junction = d.junctionName(ts.SQLName, f.SQLName)
			ts.Fields[id] = f
			if err := t.createJunction(ctx, tx, f.Junction, false); err != nil {
				return false, err
			}
		}
		schemaChanged = true
	}
	return schemaChanged, nil
}

// applyRows writes the records a change created, changed and deleted.
func (s *Syncer) applyRows(ctx context.Context, tx *sql.Tx, ts *tableState, ch *replica.Change) error {
	t := s.target
	for _, id := range slices.Sorted(maps.Keys(ch.Created)) {
		rec := ch.Created[id]
		if err := t.upsertRow(ctx, tx, ts, id, rec.CreatedTime, rec.Cells); err != nil {
			return err
		}
	}
	for _, id := range slices.Sorted(maps.Keys(ch.Changed)) {
		if err := t.updateCells(ctx, tx, ts, id, ch.Changed[id]); err != nil {
			return err
		}
	}
	for _, id := range ch.Destroyed {
		if err := t.deleteRow(ctx, tx, ts, id); err != nil {
			return err
		}
	}
	return nil
}

// renameJunction gives a link field's junction table the name its table and field now have.
func (s *Syncer) renameJunction(ctx context.Context, tx *sql.Tx, ts *tableState, fieldID string) error {
	f := ts.Fields[fieldID]
	name := s.target.d.junctionName(ts.SQLName, f.SQLName)
	if name == f.Junction {
		return nil
	}
	if err := s.target.renameTable(ctx, tx, f.Junction, name); err != nil {
		return err
	}
	f.Junction = name
	ts.Fields[fieldID] = f
	return nil
}

// fieldOptions are a field's options in a schema (nil when the schema does not have it: it was
// deleted since, and a later payload says so).
func fieldOptions(schema *transport.BaseSchema, tableID, fieldID string) map[string]any {
	if schema == nil {
		return nil
	}
	for _, t := range schema.Tables {
		if t.ID == tableID {
			for _, f := range t.Fields {
				if f.ID == fieldID {
					return f.Options
				}
			}
		}
	}
	return nil
}
