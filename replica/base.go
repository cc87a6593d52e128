// Package replica keeps local copies of Airtable tables current with the base's webhook payloads.
//
// A Base follows one webhook for the whole base (the service allows ten per base) and holds a
// copy of each table asked for. A table is copied on first use with one listing; the webhook's
// cursor is read before the listing starts, so that every change the listing may or may not have
// seen is in a payload from that cursor on. Sync then reads the payloads once for every table and
// applies them in cursor order, each whole or not at all. Replaying a change the listing already
// held is harmless: a payload sets cells to the values they had after it, and the last payload to
// touch a cell sets its final value. What a payload cannot say exactly makes the table copy itself
// again instead of serving a wrong row: payloads lost to retention (a cursor gap), an error
// payload or an expired webhook (a new one is made; every table is copied again), a field whose
// type changed, a field deleted from a table with computed fields, a cell of a field or a change to
// a record the copy does not know.
//
//	b, err := replica.OpenBase(ctx, base, replica.Options{}) // creates the webhook
//	tasks, err := b.Table(ctx, "tblXXXXXXXXXXXXXX")           // copies the table on first use
//	err = b.Sync(ctx)                                          // one request when nothing changed
//	row, ok := tasks.Row("recXXXXXXXXXXXXXX")                  // cells by field id, REST values
//
// Cells are the values the records API returns (with returnFieldsByFieldId), converted from the
// webhook forms where they differ: a select's name, a link's record ids, a lookup's values.
package replica

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/airsql/airsql/internal/clock"
	"github.com/airsql/airsql/transport"
)

// Options configure a Base.
type Options struct {
	// Clock is what the copy reads time from, to tell when its webhook may have expired (default:
	// the wall clock). Give the client's clock in tests.
	Clock clock.Clock
	// Dir, when not "", keeps the copies in files in this directory (disk.go): OpenBase resumes
	// the webhook and the copies found there, and each Sync writes the tables it changed.
	Dir string
	// FullCheck is, when the copies poll (the service refused the webhook), how often a table's
	// ids are listed to find the records deleted (default DefaultFullCheck; see poll.go).
	FullCheck time.Duration
}

// hookLifetime is how long the service keeps a webhook alive after it was created, refreshed or
// its payloads were read; checkAfter is when Sync looks whether it is still alive.
const (
	hookLifetime = 7 * 24 * time.Hour
	checkAfter   = hookLifetime - time.Hour
)

// maxCopiesPerSync bounds how often one Sync copies tables again before it gives up.
const maxCopiesPerSync = 3

// Base follows a base's webhook and keeps copies of some of its tables. It is safe for concurrent
// use; Sync, Table's first copy and Close are serialized.
type Base struct {
	base  *transport.Base
	clock clock.Clock
	dir   string // Options.Dir

	syncMu sync.Mutex // one Sync or copy at a time (CopyTablesSyncing runs one of each under it)
	saveMu sync.Mutex // one saveTables at a time

	mu     sync.RWMutex // guards what follows
	hookID string
	// alive is when the webhook was last known alive (created, or its payloads read): past
	// checkAfter since then, Sync asks the service whether it still is.
	alive  time.Time
	tables map[string]*Table
	// pollReason is why the copies poll instead of following a webhook (the service's refusal
	// to create one), nil when they follow one; fullCheck, schema and schemaAt serve polls and copies.
	pollReason error
	fullCheck  time.Duration
	schema     *transport.BaseSchema
	schemaAt   time.Time
	// startCursor is a cursor of webhook startHook read before schema was: a copy may follow
	// the webhook from it with that schema (copyStart).
	startCursor int
	startHook   string
	// hookCreated is when this process created the webhook (zero: resumed from disk).
	hookCreated time.Time
	// synced is when the last successful Sync started: every change the service acknowledged
	// before it is in the copies.
	synced time.Time

	// drainEpoch counts the drains begun (Patch and endPatches).
	drainEpoch atomic.Uint64
}

// OpenBase creates the webhook the copies follow (records, fields and table metadata of the whole
// base). The token needs webhook:manage, data.records:read and schema.bases:read.
func OpenBase(ctx context.Context, base *transport.Base, opts Options) (*Base, error) {
	b := &Base{base: base, clock: opts.Clock, tables: map[string]*Table{}, dir: opts.Dir, fullCheck: opts.FullCheck}
	if b.clock == nil {
		b.clock = clock.Real
	}
	if b.fullCheck <= 0 {
		b.fullCheck = DefaultFullCheck
	}
	if b.dir != "" {
		resumed, err := b.load()
		if err != nil {
			return nil, err
		}
		if resumed {
			return b, nil // the next Sync polls from the copies' cursors
		}
	}
	if err := b.newHook(ctx); err != nil {
		if !WebhookRefused(err) {
			return nil, err
		}
		b.pollReason = err // the copies poll instead (poll.go)
		return b, b.saveBase()
	}
	return b, nil
}

// Open follows a base for one table: OpenBase, then Table.
func Open(ctx context.Context, base *transport.Base, tableID string, opts Options) (*Table, error) {
	b, err := OpenBase(ctx, base, opts)
	if err != nil {
		return nil, err
	}
	return b.Table(ctx, tableID)
}

// Table returns the copy of a table, copying it on first use.
func (b *Base) Table(ctx context.Context, tableID string) (*Table, error) {
	b.mu.RLock()
	t := b.tables[tableID]
	b.mu.RUnlock()
	if t != nil {
		return t, nil
	}
	b.syncMu.Lock()
	defer b.syncMu.Unlock()
	b.mu.RLock()
	t = b.tables[tableID]
	b.mu.RUnlock()
	if t != nil {
		return t, nil
	}
	t = &Table{b: b, tableID: tableID}
	err := b.copyTable(ctx, t)
	if errors.Is(err, errHookGone) { // expired while no copy read it
		err = b.renew(ctx, t)
	}
	if err != nil {
		return nil, err
	}
	b.mu.Lock()
	b.tables[tableID] = t
	b.mu.Unlock()
	if err := b.saveTables(); err != nil {
		return nil, err
	}
	return t, nil
}

func (b *Base) spec() transport.WebhookSpecification {
	return transport.WebhookSpecification{Options: transport.WebhookOptions{Filters: transport.WebhookFilters{
		DataTypes: []string{transport.WebhookTableData, transport.WebhookTableFields, transport.WebhookTableMetadata},
	}}}
}

// newHook creates the webhook the copies follow, deleting the one it replaces.
func (b *Base) newHook(ctx context.Context) error {
	hook, err := b.base.CreateWebhook(ctx, b.spec(), "")
	if err != nil {
		return fmt.Errorf("replica of base %s: create its webhook: %w", b.base.ID(), WebhookRequestError(err))
	}
	b.mu.Lock()
	old := b.hookID
	b.hookID, b.alive = hook.ID, b.clock.Now()
	b.hookCreated = b.alive
	b.mu.Unlock()
	if old != "" {
		_ = b.base.DeleteWebhook(ctx, old) // a dead hook; failing to delete it costs nothing but a slot
	}
	return b.saveBase()
}

// Close deletes the webhook (none when polling). The copies stay readable but are no longer kept
// current.
func (b *Base) Close(ctx context.Context) error {
	b.syncMu.Lock()
	defer b.syncMu.Unlock()
	if b.Polling() != nil {
		return nil // no webhook to delete
	}
	return b.base.DeleteWebhook(ctx, b.Webhook())
}

// Webhook is the id of the webhook the copies follow.
func (b *Base) Webhook() string {
	b.mu.RLock()
	defer b.mu.RUnlock()
	return b.hookID
}

// errHookGone says that the webhook expired, was disabled or deleted: changes since may be
// unrecorded, so a new webhook is made and every table copied again.
var errHookGone = errors.New("the webhook expired or was deleted")

// errNewHook says that the webhook ended (error payload).
var errNewHook = errors.New("the webhook ended with an error payload")

// errRecopy says that a payload cannot be applied exactly to one table: it is copied again.
type errRecopy struct{ why string }

func (e *errRecopy) Error() string { return "copy again: " + e.why }

// errTableDeleted says that a copied table was deleted from the base.
var errTableDeleted = errors.New("the table was deleted from the base")

// nextCursor reads the cursor the webhook's next payload will get.
func (b *Base) nextCursor(ctx context.Context) (int, error) {
	id := b.Webhook()
	hooks, err := b.base.Webhooks(ctx)
	if err != nil {
		return 0, WebhookRequestError(err)
	}
	for _, h := range hooks {
		if h.ID == id {
			if !h.IsHookEnabled {
				return 0, errHookGone
			}
			return h.CursorForNextPayload, nil
		}
	}
	return 0, errHookGone
}

// Sync applies to every copy the payloads the webhook holds past it. A payload a copy cannot
// apply exactly, or a hole in the payloads, makes it copy the table again (after an error payload
// or an expired webhook, with a new webhook), then go on. When nothing changed it sends one request.
// A table deleted from the base is dropped, and Sync says so.
func (b *Base) Sync(ctx context.Context) error {
	b.syncMu.Lock()
	defer b.syncMu.Unlock()
	return b.syncLocked(ctx)
}

// CopyTablesSyncing is CopyTables, and when the base already holds copies whose last Sync began
// syncOlder ago or earlier, a Sync of those copies side by side with the listings (following a
// webhook; a polling base syncs as before, after). A read after a copy syncs first when the last
// Sync is older than its freshness: a copy of a few seconds, begun with half the freshness gone,
// would end in a poll, one more round trip alone on the base before the statement's first row
// (issue 25: the dashboard's third query, 0.35 s of a 42 s first run). The Sync's requests share
// the base's pacing with the listings'. Its failure is not the copy's: the read's own sync tries
// again and reports it.
func (b *Base) CopyTablesSyncing(ctx context.Context, ids []string, syncOlder time.Duration) error {
	b.syncMu.Lock()
	defer b.syncMu.Unlock()
	b.mu.RLock()
	synced, held := b.synced, len(b.tables) > 0
	b.mu.RUnlock()
	if !held || b.Polling() != nil || !synced.IsZero() && b.clock.Now().Sub(synced) < syncOlder {
		_, err := b.copyNewLocked(ctx, ids)
		return err
	}
	hook := b.Webhook()
	synced2 := make(chan struct{})
	go func() {
		defer close(synced2)
		_ = b.syncLocked(ctx) // the copies it syncs are not those copyNewLocked makes
	}()
	copied, err := b.copyNewLocked(ctx, ids)
	<-synced2
	if err == nil && len(copied) > 0 && b.Webhook() != hook {
		// The Sync made a new webhook (the old one ended): the new copies follow the old one's
		// cursors, which mean nothing to the new one.
		if err = b.copyTables(ctx, copied); err == nil {
			err = b.saveTables()
		}
	}
	return err
}

// SyncIfOlder syncs unless the last successful Sync started less than maxAge ago: a read that
// may be that stale sends no request.
func (b *Base) SyncIfOlder(ctx context.Context, maxAge time.Duration) error {
	b.syncMu.Lock()
	defer b.syncMu.Unlock()
	b.mu.RLock()
	synced := b.synced
	b.mu.RUnlock()
	if !synced.IsZero() && b.clock.Now().Sub(synced) < maxAge {
		return nil
	}
	return b.syncLocked(ctx)
}

// Synced is when the last successful Sync started, or the listings of the first copies (zero
// before either): the copies hold every change the service acknowledged before then.
func (b *Base) Synced() time.Time {
	b.mu.RLock()
	defer b.mu.RUnlock()
	return b.synced
}

func (b *Base) syncLocked(ctx context.Context) error {
	started := b.clock.Now()
	var err error
	if b.Polling() != nil {
		err = b.pollAll(ctx)
	} else if err = b.syncAll(ctx); RefusedWebhookRequest(err) {
		// The webhook's payloads are refused now (the token lost webhook:manage): poll from
		// the last sync, which the copies hold every change from before.
		if err = b.fallBack(err); err == nil {
			err = b.pollAll(ctx)
		}
	}
	if err == nil || errors.Is(err, errTableDeleted) {
		if serr := b.saveTables(); serr != nil {
			return serr
		}
		b.mu.Lock()
		b.synced = started
		b.mu.Unlock()
	}
	return err
}

func (b *Base) syncAll(ctx context.Context) error {
	var deleted []string
	for attempt := 0; ; attempt++ {
		recopy, gone, err := b.drain(ctx)
		deleted = append(deleted, gone...)
		var gap *transport.WebhookCursorGapError
		switch {
		case err == nil && len(recopy) == 0:
			if len(deleted) > 0 {
				return fmt.Errorf("replica of base %s: tables %v: %w", b.base.ID(), deleted, errTableDeleted)
			}
			return nil
		case attempt >= maxCopiesPerSync:
			return fmt.Errorf("replica of base %s: still inconsistent after copying %d times: %v", b.base.ID(), attempt, firstErr(err, recopy))
		case errors.Is(err, errNewHook), errors.Is(err, errHookGone), errors.Is(err, transport.ErrNotFound):
			if err := b.renew(ctx, nil); err != nil {
				return err
			}
			continue
		case errors.As(err, &gap):
			recopy = b.tableList()
		case err != nil:
			return fmt.Errorf("replica of base %s: %w", b.base.ID(), err)
		}
		for _, t := range recopy {
			err := b.copyTable(ctx, t)
			if errors.Is(err, errHookGone) { // expired meanwhile
				err = b.renew(ctx, nil)
			}
			if err != nil {
				return err
			}
		}
	}
}

// renew makes a new webhook and copies every table again, and also when not nil: cursors of the
// old webhook mean nothing to the new one.
func (b *Base) renew(ctx context.Context, also *Table) error {
	if err := b.newHook(ctx); err != nil {
		return err
	}
	tables := b.tableList()
	if also != nil {
		tables = append(tables, also)
	}
	for _, t := range tables {
		if err := b.copyTable(ctx, t); err != nil {
			return err
		}
	}
	return nil
}

func firstErr(err error, recopy []*Table) any {
	if err != nil {
		return err
	}
	return recopy[0].lastRecopy
}

func (b *Base) tableList() []*Table {
	b.mu.RLock()
	defer b.mu.RUnlock()
	out := make([]*Table, 0, len(b.tables))
	for _, t := range b.tables {
		out = append(out, t)
	}
	slices.SortFunc(out, func(x, y *Table) int {
		switch {
		case x.tableID < y.tableID:
			return -1
		case x.tableID > y.tableID:
			return 1
		}
		return 0
	})
	return out
}

// drain reads the payloads from the oldest cursor of the copies until the webhook has no more,
// and gives each copy those past its own cursor. It returns the copies to copy again and the
// tables found deleted (dropped).
func (b *Base) drain(ctx context.Context) (recopy []*Table, deleted []string, err error) {
	tables := b.tableList()
	if len(tables) == 0 {
		return nil, nil, nil
	}
	from := tables[0].Cursor()
	for _, t := range tables[1:] {
		from = min(from, t.Cursor())
	}
	b.mu.RLock()
	hookID, alive := b.hookID, b.alive
	b.mu.RUnlock()
	started := b.clock.Now()
	if started.Sub(alive) >= checkAfter {
		// Unread for almost a week: the webhook may have expired, and an expired webhook records
		// nothing. Reading its payloads below keeps it alive only if it still is.
		if _, err := b.nextCursor(ctx); err != nil {
			return nil, nil, err
		}
	}
	epoch := b.drainEpoch.Add(1)
	skip := map[*Table]bool{}
	for p, err := range b.base.IterateWebhookPayloads(ctx, hookID, from) {
		if err != nil {
			return recopy, deleted, WebhookRequestError(err)
		}
		if p.Error {
			return nil, deleted, errNewHook
		}
		for _, t := range tables {
			if skip[t] {
				continue
			}
			err := t.apply(p)
			var rc *errRecopy
			switch {
			case err == nil:
			case errors.As(err, &rc):
				skip[t] = true
				recopy = append(recopy, t)
			case errors.Is(err, errTableDeleted):
				skip[t] = true
				b.drop(t)
				deleted = append(deleted, t.tableID)
			default:
				return recopy, deleted, err
			}
		}
	}
	b.mu.Lock()
	b.alive = started // reading the payloads extended its life
	b.mu.Unlock()
	for _, t := range tables {
		t.endPatches(epoch)
		if !skip[t] {
			t.endReplay()
		}
	}
	return recopy, deleted, nil
}
