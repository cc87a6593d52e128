package syncdb

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/airsql/airsql/internal/clock"
	"github.com/airsql/airsql/replica"
	"github.com/airsql/airsql/transport"
)

// Options configure a Syncer.
type Options struct {
	// Tables are the tables to copy, by name or tbl… id; none: every table, and the tables created
	// in the base later.
	Tables []string
	// Progress, when set, is told how each table's listing goes (after every page, then Done).
	Progress func(Progress)
	// Log, when set, is told what happens besides copies: a table copied again and why, a table
	// deleted, a new webhook.
	Log func(msg string)
	// Applied, when set, is told the cursor of each payload once its transaction committed.
	Applied func(cursor int)
	// Polled, when set, is told the start of each poll once its transaction committed (when the
	// copy polls: the service refused the webhook).
	Polled func(started time.Time)
	// Clock is what the webhook's age is read from (default: the wall clock).
	Clock clock.Clock
	// FullCheck is, when the copy polls, how often each table's ids are listed to find the
	// records deleted and refresh computed values (default replica.DefaultFullCheck).
	FullCheck time.Duration
}

// Progress is how a table's listing goes.
type Progress struct {
	Table          string
	Records, Pages int
	Elapsed        time.Duration
	Done           bool
}

// Stats count what a Syncer did.
type Stats struct {
	Copies          int   // tables listed (first copies and copies again)
	RecordsCopied   int   // records those listings wrote
	Pages           int   // pages those listings read
	PayloadsApplied int   // payloads applied (each one transaction)
	Transaction     int64 // baseTransactionNumber of the last payload applied
	Polls           int   // polls applied, when the copy polls (each one transaction)
	RecordsPolled   int   // records those polls listed as changed (and wrote)
}

// hookLifetime is how long the service keeps an unread webhook; checkAfter is when the Syncer asks
// whether its webhook is still alive (an expired webhook records nothing, and says nothing).
const (
	hookLifetime = 7 * 24 * time.Hour
	checkAfter   = hookLifetime - time.Hour
)

// maxCopiesPerCatchUp bounds how often one CatchUp copies tables again before it gives up.
const maxCopiesPerCatchUp = 3

// errHookGone says that the webhook expired, was disabled or deleted.
var errHookGone = errors.New("the webhook expired or was deleted")

// Syncer copies a base into a target and applies the base's webhook payloads to it.
type Syncer struct {
	base   *transport.Base
	target *Target
	opts   Options
	clock  clock.Clock

	hookID string
	tables map[string]*tableState // by table id: what the target holds (committed)
	// checked is when the webhook was last known alive; zero: not yet in this process.
	checked time.Time
	// started says that this process made sure every table asked for is copied (once).
	started bool
	// stale are the tables copied from another webhook than hookID (a run stopped while it
	// copied them again): start copies them again.
	stale map[string]bool
	stats Stats

	// polling is why the copy polls instead of following a webhook (poll.go), nil when it
	// follows one; pollSaid that the log said so. schema and schemaAt are the schema polls read
	// last and when.
	polling  error
	pollSaid bool
	schema   *transport.BaseSchema
	schemaAt time.Time
	// synced is when the last successful CatchUp began: the target holds every change the
	// service acknowledged before it.
	synced time.Time
}

// New prepares a Syncer: it creates the bookkeeping tables when absent and reads them. It sends
// no request.
func New(ctx context.Context, base *transport.Base, target *Target, opts Options) (*Syncer, error) {
	s := &Syncer{base: base, target: target, opts: opts, clock: opts.Clock}
	if s.clock == nil {
		s.clock = clock.Real
	}
	if err := target.ensureMeta(ctx); err != nil {
		return nil, err
	}
	hook, tables, err := target.loadState(ctx, base.ID())
	if err != nil {
		return nil, err
	}
	s.tables, s.hookID, s.stale = tables, hook, map[string]bool{}
	if hook == pollingHook {
		s.polling = errResumedPolling
	}
	for id, ts := range tables {
		if ts.Webhook != hook { // copied from an older webhook, whose cursors mean nothing now
			s.stale[id] = true
		}
	}
	return s, nil
}

// Stats tells what the Syncer did so far.
func (s *Syncer) Stats() Stats { return s.stats }

// Webhook is the id of the webhook the copy follows ("" before the first copy).
func (s *Syncer) Webhook() string { return s.hookID }

func (s *Syncer) log(format string, args ...any) {
	if s.opts.Log != nil {
		s.opts.Log(fmt.Sprintf(format, args...))
	}
}

// CatchUp brings the target up to date: the first time (or when the webhook is gone) it copies
// every table; then it applies every payload the webhook holds past the target's cursors, each in
// one transaction. A table a payload cannot be applied to exactly, or every table after lost
// payloads, is copied again. Caught up, it sends one request (the payload read).
//
// Where the service refuses the webhook, it polls instead (poll.go), and keeps polling: one
// listing per table, the ids every FullCheck, the schema at most once per replica.SchemaTTL.
func (s *Syncer) CatchUp(ctx context.Context) error {
	started := s.clock.Now()
	var err error
	if s.polling != nil {
		err = s.catchUpPolled(ctx)
	} else if err = s.catchUpHook(ctx); replica.RefusedWebhookRequest(err) {
		if err = s.fallBack(ctx, err); err == nil {
			err = s.catchUpPolled(ctx)
		}
	}
	if err == nil {
		s.synced = started
	}
	return err
}

// catchUpHook is CatchUp following the webhook.
func (s *Syncer) catchUpHook(ctx context.Context) error {
	if err := s.start(ctx); err != nil {
		return err
	}
	for attempt := 0; ; attempt++ {
		recopy, created, err := s.drain(ctx)
		var gap *transport.WebhookCursorGapError
		switch {
		case err == nil && len(recopy) == 0 && len(created) == 0:
			return nil
		case attempt >= maxCopiesPerCatchUp:
			return fmt.Errorf("sync of base %s: still inconsistent after copying %d times: %v", s.base.ID(), attempt, err)
		case errors.Is(err, replica.ErrWebhookEnded), errors.Is(err, errHookGone), errors.Is(err, transport.ErrNotFound):
			s.log("the webhook ended (%v): a new one, and every table copied again", err)
			if err := s.renew(ctx); err != nil {
				return err
			}
			continue
		case errors.As(err, &gap):
			s.log("%v: every table copied again", err)
			recopy = slices.Sorted(maps.Keys(s.tables))
		case err != nil:
			return fmt.Errorf("sync of base %s: %w", s.base.ID(), err)
		}
		if err := s.copyTables(ctx, append(recopy, created...), -1); errors.Is(err, errHookGone) {
			if err := s.renew(ctx); err != nil {
				return err
			}
		} else if err != nil {
			return err
		}
	}
}

// Follow catches up, then again every interval until ctx ends (which is not an error).
func (s *Syncer) Follow(ctx context.Context, every time.Duration) error {
	for {
		if err := s.CatchUp(ctx); err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return err
		}
		select {
		case <-ctx.Done():
			return nil
		case <-s.clock.After(every):
		}
	}
}

// start makes sure, on the first CatchUp, that there is a live webhook and a copy of every table
// asked for; later, that the webhook did not expire unseen.
func (s *Syncer) start(ctx context.Context) error {
	if s.hookID == "" {
		return s.renew(ctx)
	}
	if s.started && !s.checked.IsZero() && s.clock.Now().Sub(s.checked) < checkAfter {
		return nil // (not started: a first copy failed, and the tables it lacks are copied below)
	}
	from, err := s.nextCursor(ctx)
	if errors.Is(err, errHookGone) {
		s.log("webhook %s expired or was deleted: a new one, and every table copied again", s.hookID)
		return s.renew(ctx)
	}
	if err != nil {
		return err
	}
	if s.started {
		return nil
	}
	want, schema, err := s.wanted(ctx)
	if err != nil {
		return err
	}
	var missing []string
	for _, id := range want {
		if s.tables[id] == nil {
			missing = append(missing, id)
		}
	}
	for _, id := range slices.Sorted(maps.Keys(s.stale)) {
		if !slices.Contains(missing, id) {
			missing = append(missing, id)
		}
	}
	if err := s.copyTablesOf(ctx, missing, from, schema); err != nil {
		return err
	}
	s.started = true
	return nil
}

// wanted lists the ids of the tables asked for, in the base's order, and the schema it read.
func (s *Syncer) wanted(ctx context.Context) ([]string, *transport.BaseSchema, error) {
	schema, err := s.base.Schema(ctx)
	if err != nil {
		return nil, nil, fmt.Errorf("read the schema of base %s: %w", s.base.ID(), err)
	}
	if len(s.opts.Tables) == 0 {
		ids := make([]string, len(schema.Tables))
		for i, t := range schema.Tables {
			ids[i] = t.ID
		}
		return ids, schema, nil
	}
	var ids []string
	for _, name := range s.opts.Tables {
		found := ""
		for _, t := range schema.Tables {
			if t.ID == name || strings.EqualFold(t.Name, name) {
				found = t.ID
			}
		}
		if found == "" {
			names := make([]string, len(schema.Tables))
			for i, t := range schema.Tables {
				names[i] = t.Name
			}
			return nil, nil, fmt.Errorf("base %s has no table %q (it has %s)", s.base.ID(), name, strings.Join(names, ", "))
		}
		ids = append(ids, found)
	}
	return ids, schema, nil
}

func (s *Syncer) spec() transport.WebhookSpecification {
	return transport.WebhookSpecification{Options: transport.WebhookOptions{Filters: transport.WebhookFilters{
		DataTypes: []string{transport.WebhookTableData, transport.WebhookTableFields, transport.WebhookTableMetadata},
	}}}
}

// renew creates a webhook (deleting the one it replaces) and copies every table again: the old
// webhook's cursors mean nothing to the new one.
func (s *Syncer) renew(ctx context.Context) error {
	hook, err := s.base.CreateWebhook(ctx, s.spec(), "")
	if err != nil {
		return fmt.Errorf("sync of base %s: create its webhook: %w", s.base.ID(), replica.WebhookRequestError(err))
	}
	// The schema is read after the webhook exists: every change it may not show is in a payload.
	want, schema, err := s.wanted(ctx)
	if err != nil {
		_ = s.base.DeleteWebhook(ctx, hook.ID) // the base has ten webhooks at most: leave none behind
		return err
	}
	if err := s.target.writeMeta(ctx, s.target.db, s.base.ID(), &tableState{ID: hookRow, Webhook: hook.ID}, false); err != nil {
		_ = s.base.DeleteWebhook(ctx, hook.ID)
		return err
	}
	old := s.hookID
	s.hookID, s.checked = hook.ID, s.clock.Now()
	if old != "" {
		_ = s.base.DeleteWebhook(ctx, old) // a dead hook; failing to delete it costs a slot, no more
	}
	ids := slices.Clone(want)
	for id := range s.tables {
		if !slices.Contains(ids, id) {
			ids = append(ids, id)
		}
	}
	if err := s.copyTablesOf(ctx, ids, firstCursor, schema); err != nil {
		return err
	}
	s.started = true
	return nil
}

// firstCursor is the cursor of a new webhook's first payload.
const firstCursor = 1

// nextCursor reads the cursor the webhook's next payload will get.
func (s *Syncer) nextCursor(ctx context.Context) (int, error) {
	hooks, err := s.base.Webhooks(ctx)
	if err != nil {
		return 0, replica.WebhookRequestError(err)
	}
	for _, h := range hooks {
		if h.ID == s.hookID {
			if !h.IsHookEnabled {
				return 0, errHookGone
			}
			s.checked = s.clock.Now()
			return h.CursorForNextPayload, nil
		}
	}
	return 0, errHookGone
}

// copyTables copies tables afresh; from is the webhook's cursor read before (-1: read it now).
func (s *Syncer) copyTables(ctx context.Context, ids []string, from int) error {
	if len(ids) == 0 {
		return nil
	}
	if from < 0 {
		var err error
		if from, err = s.nextCursor(ctx); err != nil {
			return err
		}
	}
	schema, err := s.base.Schema(ctx)
	if err != nil {
		return fmt.Errorf("read the schema of base %s: %w", s.base.ID(), err)
	}
	return s.copyTablesOf(ctx, ids, from, schema)
}

// copyTablesOf lists tables afresh and replaces their copies, all in one transaction into which
// the records go as their pages come. from is the webhook's cursor read before the schema:
// payloads from it on cover every change the schema and the listings may have missed, and
// replaying one they saw is harmless. The cursor read after the listings bounds that replay. A
// table no longer in the base is dropped. When the copy polls, from is the time the schema was
// read (Unix milliseconds): the first poll lists the changes from then on.
func (s *Syncer) copyTablesOf(ctx context.Context, ids []string, from int, schema *transport.BaseSchema) error {
	var copied []*tableState
	var dropped []string
	records, pages := 0, 0
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		for _, id := range ids {
			var src *transport.TableSchema
			for i := range schema.Tables {
				if schema.Tables[i].ID == id {
					src = &schema.Tables[i]
				}
			}
			old := s.tables[id]
			if old != nil {
				if err := s.target.dropTable(ctx, tx, s.base.ID(), old); err != nil {
					return err
				}
			}
			if src == nil {
				if old != nil {
					s.log("table %s was deleted from the base: dropped", old.Name)
					dropped = append(dropped, id)
				}
				continue
			}
			ts, err := s.newTableState(src)
			if err != nil {
				return err
			}
			if err := s.target.createTable(ctx, tx, ts); err != nil {
				return err
			}
			started := s.clock.Now()
			n, p := 0, 0
			for page, err := range s.base.Iterate(ctx, id, transport.ListOptions{ReturnFieldsByFieldID: true}) {
				if err != nil {
					return fmt.Errorf("copy %s: list its records: %w", src.Name, err)
				}
				for _, r := range page {
					if err := s.target.upsertRow(ctx, tx, ts, r.ID, r.CreatedTime, knownCells(ts, r.Fields)); err != nil {
						return fmt.Errorf("copy %s: %w", ts.Name, err)
					}
				}
				n, p = n+len(page), p+1
				if s.opts.Progress != nil {
					s.opts.Progress(Progress{Table: src.Name, Records: n, Pages: p, Elapsed: s.clock.Now().Sub(started)})
				}
			}
			if s.opts.Progress != nil {
				s.opts.Progress(Progress{Table: src.Name, Records: n, Pages: p, Elapsed: s.clock.Now().Sub(started), Done: true})
			}
			records, pages = records+n, pages+p
			copied = append(copied, ts)
		}
		if len(copied) == 0 {
			return nil
		}
		upTo := from // polling: the listings were a full check, as of from
		if s.polling == nil {
			var err error
			if upTo, err = s.nextCursor(ctx); err != nil {
				return err
			}
		}
		for _, ts := range copied {
			ts.Webhook, ts.Cursor, ts.Replay, ts.Transaction = s.hookID, from, upTo, 0
			if err := s.target.writeMeta(ctx, tx, s.base.ID(), ts, true); err != nil {
				return err
			}
		}
		return nil
	}, func() {
		for _, id := range dropped {
			delete(s.tables, id)
		}
		for _, ts := range copied {
			s.tables[ts.ID] = ts
			delete(s.stale, ts.ID)
		}
	})
	if err != nil {
		return err
	}
	s.stats.Copies += len(copied)
	s.stats.RecordsCopied += records
	s.stats.Pages += pages
	return nil
}

// knownCells drops the cells of fields created after the schema was read (a payload creates their
// columns).
func knownCells(ts *tableState, cells map[string]any) map[string]any {
	for fid := range cells {
		if _, ok := ts.Fields[fid]; !ok {
			delete(cells, fid)
		}
	}
	return cells
}

// newTableState names the SQL table and columns of a table of the schema.
func (s *Syncer) newTableState(src *transport.TableSchema) (*tableState, error) {
	d := s.target.d
	ts := &tableState{ID: src.ID, Name: src.Name, Fields: map[string]fieldState{}}
	taken := s.tableNames(src.ID)
	ts.SQLName = d.uniqueName(src.Name, src.ID, taken)
	for _, f := range src.Fields {
		fs := fieldState{Field: replica.Field{ID: f.ID, Name: f.Name, Type: f.Type}, Options: f.Options}
		fs.SQLName = d.uniqueName(f.Name, f.ID, ts.columnNames(""))
		if isLink(fs) {
			fs.Junction = d.junctionName(ts.SQLName, fs.SQLName)
		}
		ts.Fields[f.ID] = fs
		ts.Order = append(ts.Order, f.ID)
	}
	return ts, ts.reshape()
}

// tableNames are the SQL names of the tables copied, but skip's, and their junction tables.
func (s *Syncer) tableNames(skip string) map[string]bool {
	taken := map[string]bool{syncTable: true, fieldsTable: true}
	for id, ts := range s.tables {
		if id == skip {
			continue
		}
		taken[strings.ToLower(ts.SQLName)] = true
		for _, f := range ts.Fields {
			if f.Junction != "" {
				taken[strings.ToLower(f.Junction)] = true
			}
		}
	}
	return taken
}

// inTx runs do in a transaction and, once it committed, then (which updates what the Syncer
// believes the target holds).
func (s *Syncer) inTx(ctx context.Context, do func(tx *sql.Tx) error, then func()) error {
	tx, err := s.target.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	if err := do(tx); err != nil {
		_ = tx.Rollback()
		return err
	}
	if err := tx.Commit(); err != nil {
		return err
	}
	then()
	return nil
}
