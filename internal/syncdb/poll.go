package syncdb

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/airsql/airsql/replica"
	"github.com/airsql/airsql/transport"
)

// Polling: airsql sync without a webhook.
//
// Where the service refuses the webhook (a token without webhook:manage, a base at its limit of
// ten webhooks), the target is kept current the way the replica's copies are (replica/poll.go,
// whose Poller sends the requests): each CatchUp lists, per table, the records whose
// LAST_MODIFIED_TIME() is after the previous poll began (less a minute's margin) and every
// FullCheck its ids with its computed cells, to find the records deleted and bring computed
// values up to date; the schema is read at most once per replica.SchemaTTL, and what changed in
// it becomes the payload the webhook would have sent, so that replica.PlanChange decides, as for
// payloads, what applies and what makes a table copy again. Each poll is applied in one
// transaction of the target, with each table's place in _airsql_sync: a restart, or a run
// killed with SIGKILL, polls again from the start of the last poll committed, and listing a
// record twice writes the same row twice.
//
// In _airsql_sync a polled copy has webhook_id pollingHook, on the base's row and on each
// table's; its "cursor" is the time the last poll applied began and its "replay" the time the last
// id listing began (Unix milliseconds): there is no webhook cursor to keep.

// pollingHook is the webhook_id of a copy kept current by polling.
const pollingHook = "polling"

// errResumedPolling is why a copy polls when a restart finds it polling: the service refused the
// webhook to the run that began it, and a copy that polls keeps polling.
var errResumedPolling = errors.New("the service refused the webhook to an earlier run, and a copy that polls keeps polling")

// Polling returns why the copy polls instead of following a webhook, nil when it follows one.
func (s *Syncer) Polling() error { return s.polling }

// FullCheck is how often, while the copy polls, a table's ids are listed to find deletions.
func (s *Syncer) FullCheck() time.Duration {
	if s.opts.FullCheck > 0 {
		return s.opts.FullCheck
	}
	return replica.DefaultFullCheck
}

// startPolling makes the Syncer poll from now on, and says so once.
func (s *Syncer) startPolling(why error) {
	s.polling = why
	if !s.pollSaid {
		s.pollSaid = true
		check := "every " + s.FullCheck().String()
		if s.FullCheck() <= time.Nanosecond {
			check = "at every poll"
		}
		s.log("polling for changes instead of following a webhook (%v): each poll lists the records changed since the last one (LAST_MODIFIED_TIME()); records deleted in the base and computed values (lookups, rollups, counts, formulas) follow within the full check, %s", why, check)
	}
}

// unixMilli and fromUnixMilli store a time in a cursor column.
func unixMilli(t time.Time) int { return int(t.UnixMilli()) }

func fromUnixMilli(ms int) time.Time {
	if ms <= 0 {
		return time.Time{}
	}
	return time.UnixMilli(int64(ms))
}

// window is where a polled table is in polling.
func (ts *tableState) window() replica.PollWindow {
	return replica.PollWindow{TableID: ts.ID, PolledAt: fromUnixMilli(ts.Cursor), CheckedAt: fromUnixMilli(ts.Replay)}
}

// computedSignature is replica.ComputedSignature of the fields the target holds.
func (ts *tableState) computedSignature() string {
	src := transport.TableSchema{ID: ts.ID}
	for _, id := range ts.Order {
		f := ts.Fields[id]
		src.Fields = append(src.Fields, transport.FieldSchema{ID: f.ID, Name: f.Name, Type: f.Type, Options: f.Options})
	}
	return replica.ComputedSignature(&src)
}

// fallBack switches a Syncer that followed a webhook to polling, because the service refuses the
// webhook (why). When this process caught up since it started, every change from before that
// CatchUp began is in the target: the first poll lists from then, and the ids at once (the
// deletions since); else every table is copied again. The old webhook is deleted if the service
// lets it.
func (s *Syncer) fallBack(ctx context.Context, why error) error {
	s.startPolling(why)
	old := s.hookID
	staged := map[string]*tableState{}
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		if err := s.target.writeMeta(ctx, tx, s.base.ID(), &tableState{ID: hookRow, Webhook: pollingHook}, false); err != nil {
			return err
		}
		if s.synced.IsZero() {
			return nil // the tables are stale: start copies them
		}
		for id, ts := range s.tables {
			nt := ts.clone()
			nt.Webhook, nt.Cursor, nt.Replay, nt.Transaction = pollingHook, unixMilli(s.synced), 0, 0
			if err := s.target.writeMeta(ctx, tx, s.base.ID(), nt, false); err != nil {
				return err
			}
			staged[id] = nt
		}
		return nil
	}, func() {
		s.hookID, s.started = pollingHook, false
		for id := range s.tables {
			if nt := staged[id]; nt != nil {
				s.tables[id] = nt
			} else {
				s.stale[id] = true
			}
		}
	})
	if err != nil {
		return err
	}
	if old != "" && old != pollingHook {
		_ = s.base.DeleteWebhook(ctx, old) // refused too, most likely: it expires unread
	}
	return nil
}

// pollSchema is the schema read last if younger than replica.SchemaTTL, else a new read, and when
// it was read.
func (s *Syncer) pollSchema(ctx context.Context) (*transport.BaseSchema, time.Time, error) {
	if s.schema != nil && s.clock.Now().Sub(s.schemaAt) < replica.SchemaTTL {
		return s.schema, s.schemaAt, nil
	}
	at := s.clock.Now()
	schema, err := s.readSchema(ctx)
	return schema, at, err
}

// readSchema reads the schema and keeps it for the next polls.
func (s *Syncer) readSchema(ctx context.Context) (*transport.BaseSchema, error) {
	at := s.clock.Now()
	schema, err := s.base.Schema(ctx)
	if err != nil {
		return nil, fmt.Errorf("read the schema of base %s: %w", s.base.ID(), err)
	}
	s.schema, s.schemaAt = schema, at
	return schema, nil
}

// startPolled makes sure, on the first CatchUp of a polling copy, that every table asked for is
// copied (and every table copied while it followed a webhook copied again).
func (s *Syncer) startPolled(ctx context.Context) error {
	if s.started {
		return nil
	}
	if !s.pollSaid {
		s.startPolling(s.polling)
	}
	at := s.clock.Now()
	want, schema, err := s.wanted(ctx)
	if err != nil {
		return err
	}
	s.schema, s.schemaAt = schema, at
	var missing []string
	for _, id := range want {
		if s.tables[id] == nil || s.stale[id] {
			missing = append(missing, id)
		}
	}
	for _, id := range slices.Sorted(maps.Keys(s.stale)) {
		if !slices.Contains(missing, id) {
			missing = append(missing, id)
		}
	}
	if err := s.copyTablesOf(ctx, missing, unixMilli(at), schema); err != nil {
		return err
	}
	s.started = true
	return nil
}

// catchUpPolled applies one poll of every table in one transaction, then copies the tables it
// cannot be applied to exactly and the tables created in the base that the copy follows.
func (s *Syncer) catchUpPolled(ctx context.Context) error {
	if err := s.startPolled(ctx); err != nil {
		return err
	}
	started := s.clock.Now()
	schema, schemaAt, err := s.pollSchema(ctx)
	if err != nil {
		return err
	}
	ids := slices.Sorted(maps.Keys(s.tables))
	windows := make([]replica.PollWindow, len(ids))
	for i, id := range ids {
		windows[i] = s.tables[id].window()
	}
	poller := replica.Poller{Base: s.base, Clock: s.clock, FullCheck: s.FullCheck(), ReadSchema: s.readSchema}
	schema, polls, err := poller.Poll(ctx, schema, schemaAt, windows)
	if err != nil {
		return fmt.Errorf("sync of base %s: %w", s.base.ID(), err)
	}
	staged := map[string]*tableState{}
	var deleted, recopy []string
	err = s.inTx(ctx, func(tx *sql.Tx) error {
		for i, id := range ids {
			ts := s.tables[id]
			src := replica.TableSchemaOf(schema, id)
			if src == nil {
				s.log("table %s was deleted from the base: dropped", ts.Name)
				if err := s.target.dropTable(ctx, tx, s.base.ID(), ts); err != nil {
					return err
				}
				deleted = append(deleted, id)
				continue
			}
			nt, err := s.applyPoll(ctx, tx, ts, src, schema, polls[i])
			if replica.IsRecopy(err) || errors.Is(err, errPolledSchemaCopies) {
				s.log("table %s: %v", ts.Name, err)
				recopy = append(recopy, id)
				continue
			}
			if err != nil {
				return fmt.Errorf("sync of %s: %w", ts.Name, err)
			}
			staged[id] = nt
		}
		return nil
	}, func() {
		maps.Copy(s.tables, staged)
		for _, id := range deleted {
			delete(s.tables, id)
		}
	})
	if err != nil {
		return err
	}
	s.stats.Polls++
	if s.opts.Polled != nil {
		s.opts.Polled(started)
	}
	if len(s.opts.Tables) == 0 {
		for _, t := range schema.Tables {
			if s.tables[t.ID] == nil && !slices.Contains(recopy, t.ID) && !slices.Contains(deleted, t.ID) {
				recopy = append(recopy, t.ID) // created in the base since the last poll
			}
		}
	}
	// The tables are listed after the schema was read: from its time on, the polls' windows hold
	// what the listings may have missed (a field created since, and its cells).
	return s.copyTablesOf(ctx, recopy, unixMilli(s.schemaAt), schema)
}

// errPolledSchemaCopies says that a polled schema change is applied by copying the table again
// (in a target whose DDL commits).
var errPolledSchemaCopies = errors.New("its schema changed, and in a target whose DDL commits a polled schema change copies the table again")

// applyPoll applies one poll of a table inside the poll's transaction and returns the table as
// it then is: the schema's change (as PlanChange decides it), then the id listing's deletions
// and computed cells, then the records changed (whole rows: they were listed after the ids).
func (s *Syncer) applyPoll(ctx context.Context, tx *sql.Tx, ts *tableState, src *transport.TableSchema, schema *transport.BaseSchema, r replica.Poll) (*tableState, error) {
	st := replica.CopyState{TableID: ts.ID, Name: ts.Name, Fields: ts.replicaFields(), Order: ts.Order, Cursor: ts.Cursor,
		HasRecord: func(rec string) (bool, error) { return s.target.hasRow(ctx, tx, ts, rec) }}
	ch, err := replica.PlanPollSchema(st, ts.computedSignature(), src)
	if err != nil {
		return nil, err
	}
	nt := ts.clone()
	fieldsChanged := false
	if ch.Touched {
		if s.target.d.ddlCommits {
			// A poll has no fixed payload to count its schema steps by (ddl.go): a replay
			// computes the difference again from the schema it then reads. Where DDL commits,
			// the table is copied again instead, which a stopped run decides again from what
			// committed.
			return nil, errPolledSchemaCopies
		}
		if nt, err = s.applySchema(ctx, tx, ts, ch, schema); err != nil {
			return nil, err
		}
		if err := s.applyRows(ctx, tx, nt, ch); err != nil {
			return nil, err
		}
		fieldsChanged = true
	}
	if r.Checked {
		if err := s.applyCheck(ctx, tx, nt, src, r); err != nil {
			return nil, err
		}
	}
	for _, rec := range r.Changed {
		if err := s.target.upsertRow(ctx, tx, nt, rec.ID, rec.CreatedTime, knownCells(nt, rec.Fields)); err != nil {
			return nil, err
		}
	}
	s.stats.RecordsPolled += len(r.Changed)
	nt.Cursor, nt.Transaction = unixMilli(r.Started), 0
	if r.Checked {
		nt.Replay = unixMilli(r.Started)
	}
	return nt, s.target.writeMeta(ctx, tx, s.base.ID(), nt, fieldsChanged)
}

// applyCheck applies an id listing: the rows it and the changes listed after it lack were
// deleted in the base; the computed cells of the others are set to the listing's.
func (s *Syncer) applyCheck(ctx context.Context, tx *sql.Tx, ts *tableState, src *transport.TableSchema, r replica.Poll) error {
	held, err := s.target.rowIDs(ctx, tx, ts)
	if err != nil {
		return err
	}
	present := r.Present()
	for _, id := range held {
		if !present[id] {
			if err := s.target.deleteRow(ctx, tx, ts, id); err != nil {
				return err
			}
		}
	}
	isHeld := make(map[string]bool, len(held))
	for _, id := range held {
		isHeld[id] = true
	}
	for _, rec := range r.IDs {
		if cells := replica.ComputedCells(src, rec); len(cells) > 0 && isHeld[rec.ID] {
			if err := s.target.updateCells(ctx, tx, ts, rec.ID, knownCells(ts, cells)); err != nil {
				return err
			}
		}
	}
	return nil
}

// rowIDs are the ids of the rows of a table.
func (t *Target) rowIDs(ctx context.Context, tx *sql.Tx, ts *tableState) ([]string, error) {
	rows, err := tx.QueryContext(ctx, `SELECT "id" FROM `+quote(ts.SQLName))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var ids []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		ids = append(ids, id)
	}
	return ids, rows.Err()
}
