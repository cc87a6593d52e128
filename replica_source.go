package airsql

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/airsql/airsql/engine"
	"github.com/airsql/airsql/frontend"
	"github.com/airsql/airsql/replica"
	"github.com/airsql/airsql/translate"
)

// Replica mode (DSN key replica): every SELECT reads a local copy of its tables instead of
// listing them. The connector owns one replica.Base (one webhook) for its base; a table is
// copied on first use, and a read whose copy was last synced more than freshness ago polls the
// webhook's payloads first (one request when nothing changed; replica.SyncIfOlder), so that it
// sees every change the service acknowledged at least freshness before it began. With no read
// there is no poll. Statements are planned with translate.Args.LocalOnly: nothing is pushed into
// a request, and the engine checks the WHERE clause, sorts and limits on the copy's rows, as the
// differential tests check pushdown against (TestReplicaDifferential). Writes still go to the
// service; their answers then patch the copy (patchReplica), so a connection reads its own writes.

// replicaState is the connector's replica: opened on the first read.
type replicaState struct {
	c *Connector

	mu   sync.Mutex
	base *replica.Base
	// rows caches each table's rows as the engine reads them, for one generation of its copy.
	rows map[string]*replicaRows
	// syncErr is the error of the last sync (SHOW REPLICA STATUS), nil after a good one.
	syncErr error
	// pollTime is how long the last poll took; polling: one runs in the background (sync);
	// polls counts those, for close to wait for.
	pollTime time.Duration
	polling  bool
	polls    sync.WaitGroup
	// noticed: the notice that the replica polls was given.
	noticed bool
	// indexBuilds counts the join indexes built (replicaRows.index), for the tests that check
	// they are shared between statements and built anew for a new version.
	indexBuilds atomic.Int64
}

type replicaRows struct {
	table *replica.Table // the copy they were built from (a table copied anew is another)
	gen   uint64
	rows  []translate.Row
	// columns are the field names of the rows' cells (their Layout), "" for a deleted field's.
	columns []string
	// indexes are the joins' hash indexes of rows by column (engine.Indexer), built on first
	// use: they live and die with this generation of the rows, so none is ever stale.
	indexMu sync.Mutex
	indexes map[string]*engine.HashIndex
}

// open returns the replica of the connector's base, creating its webhook on first use.
func (r *replicaState) open(ctx context.Context) (*replica.Base, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.base != nil {
		return r.base, nil
	}
	opts := replica.Options{Clock: r.c.clock, FullCheck: max(r.c.cfg.ReplicaFullCheck, time.Nanosecond)} // 0: at every poll
	if r.c.cfg.Replica != replicaMemory {
		opts.Dir = filepath.Join(r.c.cfg.Replica, r.c.cfg.BaseID)
	}
	b, err := replica.OpenBase(ctx, r.c.base, opts)
	if err != nil {
		return nil, replicaOpenError(err)
	}
	r.base = b
	r.noticePolling(b)
	return b, nil
}

// noticePolling tells the user, once, that the replica polls because the service refused its
// webhook (when opened, or later: the token lost the scope). The caller holds r.mu.
func (r *replicaState) noticePolling(b *replica.Base) {
	why := b.Polling()
	if why == nil || r.noticed {
		return
	}
	r.noticed = true
	r.c.notice(fmt.Sprintf("airsql: replica of base %s: the service refused a webhook (%v); the replica polls instead: "+
		"each copied table's records changed since the last poll are listed (LAST_MODIFIED_TIME()), so a read sees other clients' changes to records "+
		"within freshness=%s, but records they delete and computed values (lookups, rollups, counts, formulas) within replicaFullCheck=%s; "+
		"give the token the webhook:manage scope (and creator access) for an exact change feed",
		r.c.cfg.BaseID, why, r.c.cfg.Freshness, r.c.cfg.ReplicaFullCheck))
}

// replicaOpenError says why the replica could not be opened (a refused webhook is not an error:
// the replica polls instead).
func replicaOpenError(err error) error {
	return fmt.Errorf("airsql: replica: %w", err)
}

// table returns the copy of a table, current within freshness: it syncs the base first when the
// last sync is older, and copies the table on first use.
func (r *replicaState) table(ctx context.Context, tableID string) (*replica.Table, error) {
	b, err := r.open(ctx)
	if err != nil {
		return nil, err
	}
	if err := r.sync(ctx, b); err != nil {
		return nil, err
	}
	t, err := b.Table(ctx, tableID)
	if err != nil {
		return nil, fmt.Errorf("airsql: replica: %w", err)
	}
	return t, nil
}

// sync brings the copies within freshness before a read: when the last sync began freshness
// ago or earlier, the read waits for a poll. When it is about to be (less than two polls' time
// left), a poll starts in the background and the read goes on with the copy as it is, so that
// steady reads seldom wait for the service. Only reads start polls: with none, nothing is sent.
func (r *replicaState) sync(ctx context.Context, b *replica.Base) error {
	fresh := r.c.cfg.Freshness
	age := r.c.clock.Now().Sub(b.Synced())
	r.mu.Lock()
	lead := min(fresh/2, 2*r.pollTime)
	start := !b.Synced().IsZero() && age < fresh && age >= fresh-lead && !r.polling && r.base != nil
	if start {
		r.polling = true
		r.polls.Add(1)
	}
	r.mu.Unlock()
	if start {
		go func() {
			defer r.polls.Done()
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			_ = r.syncNow(ctx, b, fresh-lead) // an error is kept for the next read and SHOW REPLICA STATUS
			r.mu.Lock()
			r.polling = false
			r.mu.Unlock()
		}()
		return nil
	}
	return r.syncNow(ctx, b, fresh)
}

// syncNow syncs unless the last sync began less than maxAge ago, and keeps its time and error.
func (r *replicaState) syncNow(ctx context.Context, b *replica.Base, maxAge time.Duration) error {
	started := r.c.clock.Now()
	err := b.SyncIfOlder(ctx, maxAge)
	took := r.c.clock.Now().Sub(started)
	r.mu.Lock()
	r.noticePolling(b)
	r.syncErr = err
	if b.Synced().Equal(started) || b.Synced().After(started) {
		r.pollTime = took // it polled (rather than found the copy fresh)
	}
	r.mu.Unlock()
	if err != nil && !errors.Is(err, replica.ErrTableDeleted) {
		return fmt.Errorf("airsql: replica: bring the copies up to date: %w", err)
	}
	return nil
}

// copyForReplica opens the replica and copies, side by side, every table a statement's
// operators scan that has no copy yet, before the first scan asks for one: a first read of
// three tables takes about the time of their pages, and a replica that cannot be made fails the
// statement itself.
func (c *Connector) copyForReplica(ctx context.Context, op engine.Operator) error {
	if c.replica == nil {
		return nil
	}
	var ids []string
	var walk func(n engine.Node)
	walk = func(n engine.Node) {
		if n.Plan != nil && !n.Plan.Table.Local {
			ids = append(ids, n.Plan.Table.ID)
		}
		for _, in := range n.Inputs {
			walk(in)
		}
	}
	walk(op.Explain())
	if len(ids) == 0 {
		return nil
	}
	b, err := c.replica.open(ctx) // its error is the statement's, not its first row's
	if err != nil {
		return err
	}
	var missing []string
	for _, id := range ids {
		if _, ok := b.Copied(id); !ok {
			missing = append(missing, id)
		}
	}
	if len(missing) == 0 {
		return nil
	}
	// The read that follows the copy syncs first when the last sync is older than freshness: with
	// half of it gone, the copy syncs alongside its listings instead of the read after them.
	if err := b.CopyTablesSyncing(ctx, missing, c.cfg.Freshness/2); err != nil {
		return fmt.Errorf("airsql: replica: %w", err)
	}
	return nil
}

// rowsOf returns the copy's records as engine rows, built once per generation of the copy.
func (r *replicaState) rowsOf(t *replica.Table) []translate.Row {
	return r.versionOf(t).rows
}

// versionOf returns the engine rows of the copy's current generation, built on first use.
func (r *replicaState) versionOf(t *replica.Table) *replicaRows {
	gen := t.Generation()
	r.mu.Lock()
	cached, ok := r.rows[t.ID()]
	r.mu.Unlock()
	if ok && cached.table == t && cached.gen == gen {
		return cached
	}
	// The rows read the copy's own cells by column, through one layout: no map and no copy of
	// the cells per record (the live heap a GC scans, and the time to make a new version after
	// a change, BenchmarkDashboardReplicaQueries).
	cells, columns, gen := t.CellRows()
	r.mu.Lock()
	defer r.mu.Unlock()
	if cached, ok := r.rows[t.ID()]; ok && cached.table == t && cached.gen == gen {
		return cached // made by another statement meanwhile
	}
	layout := translate.NewLayout(columns)
	rows := make([]translate.Row, len(cells))
	for i, c := range cells {
		rows[i] = translate.Row{ID: c.ID, CreatedTime: c.CreatedTime, Cells: c.Cells, Layout: layout}
	}
	if r.rows == nil {
		r.rows = map[string]*replicaRows{}
	}
	v := &replicaRows{table: t, gen: gen, rows: rows, columns: columns}
	r.rows[t.ID()] = v
	return v
}

// index returns the version's index on column, building it on first use. One build runs at a
// time per version: statements that need the same index wait for it rather than build their own.
// built counts the indexes built.
func (v *replicaRows) index(column string, build func([]translate.Row) (*engine.HashIndex, error), built *atomic.Int64) (*engine.HashIndex, error) {
	v.indexMu.Lock()
	defer v.indexMu.Unlock()
	if idx, ok := v.indexes[column]; ok {
		return idx, nil
	}
	idx, err := build(v.rows)
	if err != nil {
		return nil, err
	}
	if v.indexes == nil {
		v.indexes = map[string]*engine.HashIndex{}
	}
	v.indexes[column] = idx
	built.Add(1)
	return idx, nil
}

// close deletes the webhook of a replica kept in memory: nothing can resume from it. One kept
// in a directory keeps its webhook, which the next process resumes.
func (r *replicaState) close() {
	r.mu.Lock()
	b := r.base
	r.base = nil
	r.mu.Unlock()
	r.polls.Wait()
	if b == nil || r.c.cfg.Replica != replicaMemory {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_ = b.Close(ctx) // an undeleted webhook expires after 7 days unread
}

// replicaSource is the engine's Source in replica mode: a scan is the copy's rows, with no
// request (plans are LocalOnly: the engine filters, sorts and limits them).
type replicaSource struct{ r *replicaState }

func (s replicaSource) Scan(ctx context.Context, plan *translate.Plan) (engine.Pages, error) {
	t, err := s.r.table(ctx, plan.Table.ID)
	if err != nil {
		return nil, err
	}
	if plan.Request.Formula != "" || plan.Request.MaxRecords > 0 || plan.Split != nil || plan.Request.View != "" {
		// The copy cannot run a request: a plan that pushed one (and may trust it as exact)
		// would get every row. Statements are planned LocalOnly; one that was not is a bug.
		return nil, fmt.Errorf("airsql: replica: the scan of %s was planned as a request (formula %q), which the copy cannot run: please report this statement", plan.Table.Name, plan.Request.Formula)
	}
	version := s.r.versionOf(t)
	rows := version.rows
	if renamed := renamedSince(plan.Table, t.Fields()); len(renamed) > 0 {
		// The copy applied a field rename the statement's schema does not know yet: its rows are
		// handed over under the names the plan reads (by field id, never a NULL for a renamed
		// column), and the next statement plans with the schema fetched again.
		s.r.c.forgetSchema()
		rows = underPlanNames(version, renamed)
	}
	if plan.RecordIDs != nil { // not planned with LocalOnly; kept exact should a plan name ids
		byID := make(map[string]int, len(rows))
		for i := range rows {
			byID[rows[i].ID] = i
		}
		var picked []translate.Row
		for _, id := range plan.RecordIDs {
			if i, ok := byID[id]; ok {
				picked = append(picked, rows[i])
			}
		}
		rows = picked
	}
	return &rowPages{rows: rows}, nil
}

// Index implements engine.Indexer: a join reads the index of the rows a Scan of plan would hand
// over now (the copy's current generation, synced as a Scan syncs). ok is false when the scan
// would not hand over the generation's rows as they are (a field renamed since the statement was
// planned, or a plan that names records).
func (s replicaSource) Index(ctx context.Context, plan *translate.Plan, column string, build func([]translate.Row) (*engine.HashIndex, error)) (*engine.HashIndex, bool, error) {
	if plan.NoRows || plan.RecordIDs != nil || plan.Request.Formula != "" || plan.Request.MaxRecords > 0 || plan.Split != nil || plan.Request.View != "" {
		return nil, false, nil
	}
	t, err := s.r.table(ctx, plan.Table.ID)
	if err != nil {
		return nil, false, err
	}
	if len(renamedSince(plan.Table, t.Fields())) > 0 {
		return nil, false, nil
	}
	idx, err := s.r.versionOf(t).index(column, build, &s.r.indexBuilds)
	if err != nil {
		return nil, false, err
	}
	return idx, true, nil
}

// renamedSince maps the copy's name of each field the plan's table knows by another name to the
// plan's name (nil when the names agree, as they do but for a rename the schema has not seen).
func renamedSince(planned *translate.Table, copied []replica.Field) map[string]string {
	var renamed map[string]string
	for _, cf := range copied {
		for _, pf := range planned.Fields {
			if pf.ID == cf.ID && pf.Name != cf.Name {
				if renamed == nil {
					renamed = map[string]string{}
				}
				renamed[cf.Name] = pf.Name
			}
		}
	}
	return renamed
}

// underPlanNames is a version's rows with their renamed cells under the plan's names (a swap
// of two names included): the same cells, through a layout whose columns carry the plan's
// names; a column whose name the plan gives a renamed field is another field now, and is left
// out.
func underPlanNames(v *replicaRows, renamed map[string]string) []translate.Row {
	planNames := map[string]bool{}
	for _, planName := range renamed {
		planNames[planName] = true
	}
	columns := make([]string, len(v.columns))
	for c, name := range v.columns {
		switch planName, isRenamed := renamed[name]; {
		case isRenamed:
			columns[c] = planName
		case !planNames[name]:
			columns[c] = name
		}
	}
	layout := translate.NewLayout(columns)
	out := make([]translate.Row, len(v.rows))
	for i, r := range v.rows {
		r.Layout = layout
		out[i] = r
	}
	return out
}

// Requests implements engine.Sizer: reading a copy costs no request.
func (s replicaSource) Requests(*translate.Plan) (int, bool) { return 0, true }

// rowPages hands rows held in memory to the engine in pages of pageRows.
type rowPages struct {
	rows []translate.Row
}

const pageRows = 1000

func (p *rowPages) Next(context.Context) ([]translate.Row, error) {
	if len(p.rows) == 0 {
		return nil, io.EOF
	}
	n := min(pageRows, len(p.rows))
	page := p.rows[:n:n]
	p.rows = p.rows[n:]
	return page, nil
}

func (p *rowPages) Close() { p.rows = nil }

// HeldRows implements engine.HeldPages: the rows are a version of the copy, which never changes.
func (p *rowPages) HeldRows() {}

// source is the engine's way to the rows: the replica in replica mode, else the service.
func (c *Connector) source() engine.Source {
	if c.replica != nil {
		return replicaSource{r: c.replica}
	}
	return scanSource{c: c}
}

// replicaMark is where the copy of a table stands before a write is sent (ok false: no copy).
func (c *Connector) replicaMark(tableID string) (*replica.Table, replica.Mark, bool) {
	if c.replica == nil {
		return nil, replica.Mark{}, false
	}
	c.replica.mu.Lock()
	b := c.replica.base
	c.replica.mu.Unlock()
	if b == nil {
		return nil, replica.Mark{}, false
	}
	t, ok := b.Copied(tableID)
	if !ok {
		return nil, replica.Mark{}, false
	}
	return t, t.Mark(), true
}

// patchReplica puts a write's answer into the copy of its table, so that the next read on any
// connection sees it. When the copy moved since the write was sent, it cannot tell whether its
// answer is still the latest state: the next read syncs instead (the write is in the payloads).
func (c *Connector) patchReplica(t *replica.Table, m replica.Mark, out writeOutcome) {
	if t == nil {
		return
	}
	if err := t.Patch(m, out.records, out.deleted); err != nil {
		t.Base().Stale()
	}
}

// replicaStatusColumns are the columns of information_schema.REPLICA_STATUS (SHOW REPLICA STATUS).
var replicaStatusColumns = []translate.Field{
	{Name: "Table", Type: "singleLineText"},
	{Name: "Table_id", Type: "singleLineText"},
	{Name: "Mode", Type: "singleLineText"},
	{Name: "Records", Type: "number", Options: map[string]any{"precision": 0}},
	{Name: "Cursor", Type: "number", Options: map[string]any{"precision": 0}},
	{Name: "Last_transaction", Type: "number", Options: map[string]any{"precision": 0}},
	{Name: "Synced", Type: "dateTime", Options: map[string]any{"timeZone": "utc"}},
	{Name: "Lag_seconds", Type: "number", Options: map[string]any{"precision": 3}},
	{Name: "Copies", Type: "number", Options: map[string]any{"precision": 0}},
	{Name: "Payloads_applied", Type: "number", Options: map[string]any{"precision": 0}},
	{Name: "Last_error", Type: "multilineText"},
}

// addReplicaStatus adds information_schema.REPLICA_STATUS to a statement's catalog: one row per
// table copied (none without a replica), as SHOW REPLICA STATUS lists them. It sends no request.
func (c *Connector) addReplicaStatus(catalog *engine.Catalog) {
	var rows []translate.Row
	if b := c.replicaBase(); b != nil {
		synced := b.Synced()
		lastErr := c.replica.lastSyncError()
		mode := "webhook " + b.Webhook()
		if b.Polling() != nil {
			mode = "polling"
		}
		for _, t := range b.Tables() {
			st := t.Stats()
			cells := map[string]any{
				"Table": t.Name(), "Table_id": t.ID(), "Mode": mode,
				"Records": float64(t.Len()), "Cursor": float64(t.Cursor()), "Last_transaction": float64(st.LastTransaction),
				"Copies": float64(st.Copies), "Payloads_applied": float64(st.PayloadsApplied),
			}
			if !synced.IsZero() {
				cells["Synced"] = synced.UTC().Format(time.RFC3339Nano)
				cells["Lag_seconds"] = c.clock.Now().Sub(synced).Seconds()
			}
			switch {
			case lastErr != nil:
				cells["Last_error"] = lastErr.Error()
			case t.LastError() != nil:
				cells["Last_error"] = "copied again: " + t.LastError().Error()
			}
			rows = append(rows, translate.Row{ID: t.ID(), Fields: cells})
		}
	}
	catalog.AddLocal(translate.InformationSchema+"."+frontend.ReplicaStatusTable, replicaStatusColumns, rows)
}

// replicaBase is the replica's Base once opened, else nil.
func (c *Connector) replicaBase() *replica.Base {
	if c.replica == nil {
		return nil
	}
	c.replica.mu.Lock()
	defer c.replica.mu.Unlock()
	return c.replica.base
}

// lastSyncError is the error of the last sync, nil when it succeeded.
func (r *replicaState) lastSyncError() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.syncErr
}

// explainReplica says how a scan reads the replica: from the copy (how old it is, whether the
// read polls first), or by copying the table on first use.
func (cn *conn) explainReplica(add func(step, detail string), plan *translate.Plan) {
	c := cn.c
	add("table", cn.c.tableName(plan.Table))
	fresh := c.cfg.Freshness
	b := c.replicaBase()
	var t *replica.Table
	if b != nil {
		t, _ = b.Copied(plan.Table.ID)
	}
	if t == nil {
		add("replica", fmt.Sprintf("not copied yet: the first read copies the table (one full listing, %d records a request, paced), then reads it from the copy", c.cfg.PageSize))
		return
	}
	age := c.clock.Now().Sub(b.Synced()).Round(time.Millisecond)
	poll := "no request"
	if b.Synced().IsZero() || age >= fresh {
		poll = "one request first: the payloads since the last sync are polled (older than freshness)"
	}
	if b.Polling() != nil {
		if poll != "no request" {
			poll = "a poll first: the records changed since the last poll are listed (older than freshness)"
		}
		add("replica", fmt.Sprintf("read from the local copy (%d records, polling: the service refused the webhook), last synced %s ago, freshness %s: %s; "+
			"records other clients delete and computed values are brought up to date every replicaFullCheck (%s)",
			t.Len(), age, fresh, poll, c.cfg.ReplicaFullCheck))
	} else {
		add("replica", fmt.Sprintf("read from the local copy (%d records, webhook cursor %d), last synced %s ago, freshness %s: %s",
			t.Len(), t.Cursor(), age, fresh, poll))
	}
	if plan.Request.Fields != nil || !plan.Exact {
		add("local", "every record of the copy is checked with the WHERE clause; sort and LIMIT run locally")
	}
}
