package replica

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/airsql/airsql/transport"
)

// Row is one record of a copy.
type Row struct {
	ID          string
	CreatedTime time.Time
	Cells       map[string]any // by field id; empty cells are absent, as in the records API
}

// Field is one field of a copy's table.
type Field struct {
	ID, Name, Type string
}

// Stats counts what a copy did.
type Stats struct {
	Copies          int   // full listings, the first included
	PayloadsApplied int   // payloads that changed the table
	LastTransaction int64 // baseTransactionNumber of the last payload read
}

// row is a record as a copy holds it.
type row struct {
	id      string
	created time.Time
	vals    []any // by column; nil: empty. Shorter than the columns when fields were added since.
}

func (r *row) set(col int, v any) {
	for len(r.vals) <= col {
		r.vals = append(r.vals, nil)
	}
	r.vals[col] = v
}

// export is the row with its cells by field id.
func (t *Table) export(r *row) Row {
	cells := make(map[string]any, len(r.vals))
	for c, v := range r.vals {
		if v != nil && t.colIDs[c] != "" {
			cells[t.colIDs[c]] = v
		}
	}
	return Row{ID: r.id, CreatedTime: r.created, Cells: cells}
}

// Table is the copy of one table. Its reads are safe for concurrent use with Sync.
type Table struct {
	b       *Base
	tableID string

	mu     sync.RWMutex // guards what follows
	name   string
	fields map[string]Field
	order  []string // field ids in schema order
	// A record's cells are a slice by column, not a map by field id: 40% less memory
	// (BenchmarkCopyMemory: 582 → 342 heap bytes per record of 207 JSON bytes).
	cols       map[string]int // field id -> its column in row.vals
	colIDs     []string       // column -> field id; "" for the column of a deleted field
	rows       map[string]*row
	cursor     int // the next payload to apply
	replay     int // payloads below this cursor may predate the listing (see apply)
	stats      Stats
	lastRecopy error // why it was last copied again

	// gen counts the changes to the copy's rows or schema (copies, payloads that changed it,
	// patches).
	gen uint64
	// patched: a write's answer was patched in since the last drain began; until one that began
	// after it ends, a payload naming a record or field the copy lacks is the write's own past
	// (see Patch), as payloads below replay are the listing's.
	patched      bool
	patchedEpoch uint64
	// savedGen and savedCursor are what the file on disk holds (savedAny: one was written).
	savedGen    uint64
	savedCursor int
	savedPolled time.Time
	savedAny    bool

	// When polling (poll.go): polledAt is when the last poll began (or the listing), checkedAt
	// when the last id listing did; computedSig sums up the computed fields' definitions; written
	// holds the records this client wrote since the running poll began (nil: none running).
	polledAt, checkedAt time.Time
	computedSig         string
	written             map[string]bool
}

// copyTable lists t afresh. The cursor is read before the listing, so payloads from it on cover
// every change the listing may have missed; the next drain applies them.
func (b *Base) copyTable(ctx context.Context, t *Table) error {
	return b.copyTables(ctx, []*Table{t})
}

// copyTables lists tables afresh, all at once, the listings side by side under the base's
// pacing, so that copying several tables costs their pages and little more.
//
// The copies follow the webhook from a cursor read before the listings start, with the schema
// read after that cursor (a change between them is in a payload): the schema is read alongside
// the listings, not before them, and a cursor and schema read for a copy within SchemaTTL are
// reused (copying tables one statement after another costs their pages only). No cursor is read
// after the listings: the first drain applies every payload from the cursor on leniently, as
// possibly older than the listing (pendingReplay). When polling there is no cursor: the next
// poll's window starts before the listings did.
func (b *Base) copyTables(ctx context.Context, ts []*Table) error {
	started := b.clock.Now()
	polling := b.Polling() != nil
	from, schema := 0, (*transport.BaseSchema)(nil)
	hook := b.Webhook() // the one from is a cursor of (a Sync alongside may make a new one)
	if !polling {
		var err error
		if from, schema, err = b.copyStart(ctx, ts); err != nil {
			return fmt.Errorf("replica of %s: read the webhook's cursor: %w", ts[0].tableID, err)
		}
	}
	recs := make([][]transport.Record, len(ts))
	errs := make([]error, len(ts))
	var schemaErr error
	var wg sync.WaitGroup
	if schema == nil {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if schema, schemaErr = b.readSchema(ctx); schemaErr == nil && !polling {
				b.keepStart(from, hook)
			}
		}()
	}
	for i, t := range ts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			recs[i], errs[i] = b.base.All(ctx, t.tableID, transport.ListOptions{ReturnFieldsByFieldID: true})
		}()
	}
	wg.Wait()
	if schemaErr != nil {
		return fmt.Errorf("replica of %s: read the schema: %w", ts[0].tableID, schemaErr)
	}
	tschemas := make([]*transport.TableSchema, len(ts))
	for i, t := range ts {
		if tschemas[i] = TableSchemaOf(schema, t.tableID); tschemas[i] == nil {
			return fmt.Errorf("replica of %s: the base has no such table (give its tbl… id)", t.tableID)
		}
	}
	for i, err := range errs {
		if err != nil {
			return fmt.Errorf("replica of %s: list its records: %w", ts[i].tableID, err)
		}
	}
	for i, t := range ts {
		t.install(tschemas[i], recs[i], from, started)
	}
	b.mu.Lock()
	if b.synced.IsZero() && len(b.tables) == 0 {
		b.synced = started // the first copies hold every change from before their listings began
	}
	b.mu.Unlock()
	return nil
}

// pendingReplay is the replay cursor of a copy whose first drain has not ended: every payload
// from its cursor on may predate its listing.
const pendingReplay = math.MaxInt

// copyStart returns the cursor copies of ts follow the webhook from, and the schema to install
// when one read after that cursor is at hand (else nil: read it). It reads no cursor when one is
// known: a cursor and schema read for a copy within SchemaTTL, or a webhook created within
// SchemaTTL, whose payloads start at firstCursor. A known cursor serves first copies only, and
// while no copy has read a payload past it: a base that changed since, or a table copied again
// (a payload it could not apply may lie past that cursor), reads the cursor anew.
func (b *Base) copyStart(ctx context.Context, ts []*Table) (int, *transport.BaseSchema, error) {
	b.mu.RLock()
	from, schema, at, hook, created := b.startCursor, b.schema, b.schemaAt, b.startHook, b.hookCreated
	b.mu.RUnlock()
	unmoved := func(cursor int) bool {
		for _, t := range ts {
			if t.Stats().Copies > 0 {
				return false
			}
		}
		for _, t := range b.tableList() {
			if t.Cursor() > cursor {
				return false
			}
		}
		return true
	}
	now := b.clock.Now()
	switch {
	case schema != nil && hook == b.Webhook() && now.Sub(at) < SchemaTTL && unmoved(from):
		return from, schema, nil
	case now.Sub(created) < SchemaTTL && unmoved(firstCursor):
		return firstCursor, nil, nil
	}
	from, err := b.nextCursor(ctx)
	return from, nil, err
}

// firstCursor is the cursor of a webhook's first payload.
const firstCursor = 1

// keepStart records that the schema just read was read after cursor from of webhook hook.
func (b *Base) keepStart(from int, hook string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.startCursor, b.startHook = from, hook
}

// install makes a listing the copy's content, with payloads from cursor from on still to apply
// (those the first drain reads may predate the listing); started is when the listing began.
func (t *Table) install(ts *transport.TableSchema, recs []transport.Record, from int, started time.Time) {
	fields := map[string]Field{}
	order := make([]string, 0, len(ts.Fields))
	for _, f := range ts.Fields {
		fields[f.ID] = Field{ID: f.ID, Name: f.Name, Type: f.Type}
		order = append(order, f.ID)
	}
	cols := make(map[string]int, len(order))
	colIDs := slices.Clone(order)
	for c, id := range order {
		cols[id] = c
	}
	rows := make(map[string]*row, len(recs))
	in := interner{}
	for _, r := range recs {
		rw := &row{id: r.ID, created: r.CreatedTime, vals: make([]any, len(colIDs))}
		for id, v := range r.Fields {
			c, known := cols[id]
			if !known { // a field created since the schema was read: its creation is in a payload
				c = len(colIDs)
				cols[id] = c
				colIDs = append(colIDs, id)
			}
			rw.set(c, in.value(fields[id].Type, v))
		}
		rows[r.ID] = rw
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.name, t.fields, t.order, t.rows, t.cols, t.colIDs = ts.Name, fields, order, rows, cols, colIDs
	t.cursor, t.replay = from, pendingReplay
	t.polledAt, t.checkedAt, t.computedSig, t.written = started, started, ComputedSignature(ts), nil
	t.stats.Copies++
	t.patched = false
	t.gen++
}

// interner shares the values that repeat from record to record (each decoded record has its own
// copy): select names and dates, and whole lists of linked record ids (orders linked to one
// customer hold equal lists). Fewer objects make a copy smaller and every GC of the process
// shorter (BenchmarkDashboardReplicaQueries). A value handed out is shared: nothing changes one.
type interner struct {
	texts map[string]string
	links map[string]any // a list of ids by the ids joined with commas
}

func (in *interner) of(s string) string {
	if c, ok := in.texts[s]; ok {
		return c
	}
	if in.texts == nil {
		in.texts = map[string]string{}
	}
	in.texts[s] = s
	return s
}

func (in *interner) value(typ string, v any) any {
	switch typ {
	case "singleSelect", "date":
		if s, ok := v.(string); ok {
			return in.of(s)
		}
	case "multipleSelects":
		if list, ok := v.([]any); ok {
			for i, c := range list {
				if s, ok := c.(string); ok {
					list[i] = in.of(s)
				}
			}
		}
	case "multipleRecordLinks":
		return in.linkList(v)
	}
	return v
}

// linkList is v, a list of record ids, or an equal list handed out before.
func (in *interner) linkList(v any) any {
	list, ok := v.([]any)
	if !ok || len(list) == 0 {
		return v
	}
	var key strings.Builder
	for i, c := range list {
		id, ok := c.(string)
		if !ok || strings.Contains(id, ",") {
			return v
		}
		if i > 0 {
			key.WriteByte(',')
		}
		key.WriteString(id)
	}
	if shared, ok := in.links[key.String()]; ok {
		return shared
	}
	for i, c := range list {
		list[i] = in.of(c.(string))
	}
	if in.links == nil {
		in.links = map[string]any{}
	}
	in.links[key.String()] = v
	return v
}

// Sync is the Sync of the table's Base: every copy of the base is brought up to date.
func (t *Table) Sync(ctx context.Context) error { return t.b.Sync(ctx) }

// Base is the Base the copy belongs to.
func (t *Table) Base() *Base { return t.b }

// Webhook is the id of the webhook the copy follows.
func (t *Table) Webhook() string { return t.b.Webhook() }

// apply applies one payload whole, or returns why it cannot without changing anything.
func (t *Table) apply(p transport.WebhookPayload) (err error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	ch, err := PlanChange(CopyState{TableID: t.tableID, Name: t.name, Fields: t.fields, Order: t.order,
		Cursor: t.cursor, Replay: t.replayUpTo(), HasRecord: func(id string) (bool, error) { return t.rows[id] != nil, nil }}, p)
	if _, ok := err.(*errRecopy); ok {
		t.lastRecopy = err
	}
	if err != nil || ch == nil {
		return err
	}
	if ch.Touched {
		t.commit(ch)
	}
	t.cursor, t.stats.LastTransaction = ch.Cursor+1, ch.Transaction
	return nil
}

// commit applies a change to the copy's rows and schema.
func (t *Table) commit(ch *Change) {
	for _, id := range ch.Order { // a column for each field created
		if _, has := t.cols[id]; !has {
			t.cols[id] = len(t.colIDs)
			t.colIDs = append(t.colIDs, id)
		}
	}
	var cleared []int // columns of the fields deleted
	for _, id := range ch.DestroyedFields {
		if c, has := t.cols[id]; has {
			cleared = append(cleared, c)
			t.colIDs[c] = ""
			delete(t.cols, id)
		}
	}
	if len(cleared) > 0 {
		// A row's cells are never changed in place (CellRows shares them with readers of the
		// generation before): a row holding a deleted field's cell is replaced by a copy without.
		for id, r := range t.rows {
			rw := r
			for _, c := range cleared {
				if c < len(rw.vals) && rw.vals[c] != nil {
					if rw == r {
						rw = &row{id: r.id, created: r.created, vals: slices.Clone(r.vals)}
					}
					rw.vals[c] = nil
				}
			}
			t.rows[id] = rw
		}
	}
	for id, rec := range ch.Created {
		rw := &row{id: id, created: rec.CreatedTime, vals: make([]any, len(t.colIDs))}
		for fid, v := range rec.Cells {
			rw.set(t.cols[fid], v)
		}
		t.rows[id] = rw
	}
	for id, cells := range ch.Changed {
		old := t.rows[id]
		rw := &row{id: old.id, created: old.created, vals: slices.Clone(old.vals)}
		for fid, v := range cells {
			rw.set(t.cols[fid], v)
		}
		t.rows[id] = rw
	}
	for _, id := range ch.Destroyed {
		delete(t.rows, id)
	}
	t.fields, t.order, t.name = ch.Fields, ch.Order, ch.Name
	t.stats.PayloadsApplied++
	t.gen++
}

// replayUpTo is the cursor below which a payload naming a record or field the copy lacks is
// skipped: the listing's window, or every payload while a patch is pending (see Patch).
func (t *Table) replayUpTo() int {
	if t.patched {
		return math.MaxInt
	}
	return t.replay
}

// Row returns a copy of one record.
func (t *Table) Row(id string) (Row, bool) {
	t.mu.RLock()
	defer t.mu.RUnlock()
	r := t.rows[id]
	if r == nil {
		return Row{}, false
	}
	return t.export(r), true
}

// Rows returns a copy of every record, by record id.
func (t *Table) Rows() map[string]Row {
	t.mu.RLock()
	defer t.mu.RUnlock()
	out := make(map[string]Row, len(t.rows))
	for id, r := range t.rows {
		out[id] = t.export(r)
	}
	return out
}

// Fields returns the table's fields in schema order.
func (t *Table) Fields() []Field {
	t.mu.RLock()
	defer t.mu.RUnlock()
	out := make([]Field, len(t.order))
	for i, id := range t.order {
		out[i] = t.fields[id]
	}
	return out
}

// ID is the table's id.
func (t *Table) ID() string { return t.tableID }

// Name is the table's name.
func (t *Table) Name() string {
	t.mu.RLock()
	defer t.mu.RUnlock()
	return t.name
}

// Cursor is the cursor of the next payload the copy will apply.
func (t *Table) Cursor() int {
	t.mu.RLock()
	defer t.mu.RUnlock()
	return t.cursor
}

// Stats tells how often the table was copied and how many payloads changed it.
func (t *Table) Stats() Stats {
	t.mu.RLock()
	defer t.mu.RUnlock()
	return t.stats
}
