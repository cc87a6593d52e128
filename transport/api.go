package transport

import (
	"context"
	"iter"
)

// The operations of Table, Base and API are the same code: Base adds the table name first, API
// the base id and table name. The seed's rule 1 (§1): same ids and arguments, same result.

// Get returns one record.
func (t *Table) Get(ctx context.Context, recordID string, opts ...GetOption) (*Record, error) {
	return t.c.get(ctx, t.base, t.name, recordID, opts)
}

// Iterate yields the records one page at a time, fetching the next page only when the loop asks
// for it; breaking out of the loop stops fetching. An error ends the sequence.
func (t *Table) Iterate(ctx context.Context, opts ListOptions) iter.Seq2[[]Record, error] {
	return t.c.iterate(ctx, t.base, t.name, opts)
}

// All returns every record the options select, through Iterate. On an error it returns the
// records of the pages read so far with the error.
func (t *Table) All(ctx context.Context, opts ListOptions) ([]Record, error) {
	return t.c.all(ctx, t.base, t.name, opts)
}

// First returns the first record the options select, asking for one record only; nil, nil when
// there is none. MaxRecords and PageSize are ignored.
func (t *Table) First(ctx context.Context, opts ListOptions) (*Record, error) {
	return t.c.first(ctx, t.base, t.name, opts)
}

// Create creates one record. A create is never repeated after a failure that may have reached the
// service, whatever the retry strategy, so it cannot be written twice.
func (t *Table) Create(ctx context.Context, fields map[string]any, opts WriteOptions) (*Record, error) {
	return t.c.create(ctx, t.base, t.name, fields, opts)
}

// BatchCreate creates the records in chunks of 10, several chunks in flight, and returns them in
// input order. If a chunk fails, it returns the records created so far with a *BatchError.
func (t *Table) BatchCreate(ctx context.Context, records []map[string]any, opts WriteOptions) ([]Record, error) {
	return t.c.batchCreate(ctx, t.base, t.name, records, opts)
}

// Update changes the given fields of one record (PATCH), or replaces all of them with
// opts.Replace (PUT: fields left out are cleared).
func (t *Table) Update(ctx context.Context, recordID string, fields map[string]any, opts WriteOptions) (*Record, error) {
	return t.c.update(ctx, t.base, t.name, recordID, fields, opts)
}

// BatchUpdate updates records (each with its ID) in chunks of 10; see BatchCreate for failures.
func (t *Table) BatchUpdate(ctx context.Context, records []Record, opts WriteOptions) ([]Record, error) {
	return t.c.batchUpdate(ctx, t.base, t.name, records, opts)
}

// BatchUpsert updates the records matched by ID or, without ID, by the values of keyFields (1 to
// 3 fields), and creates the unmatched ones. A record without ID must carry every key field; this
// is checked before anything is sent.
func (t *Table) BatchUpsert(ctx context.Context, records []Record, keyFields []string, opts WriteOptions) ([]Record, error) {
	return t.c.batchUpsert(ctx, t.base, t.name, records, keyFields, opts)
}

// Delete deletes one record.
func (t *Table) Delete(ctx context.Context, recordID string) (*DeleteResult, error) {
	return t.c.delete(ctx, t.base, t.name, recordID)
}

// BatchDelete deletes records in chunks of 10; on a failure it returns the deletions done with a
// *BatchError.
func (t *Table) BatchDelete(ctx context.Context, recordIDs []string) ([]DeleteResult, error) {
	return t.c.batchDelete(ctx, t.base, t.name, recordIDs)
}

// Get returns one record of table.
func (b *Base) Get(ctx context.Context, table, recordID string, opts ...GetOption) (*Record, error) {
	return b.c.get(ctx, b.id, table, recordID, opts)
}

// Iterate is Table.Iterate on table.
func (b *Base) Iterate(ctx context.Context, table string, opts ListOptions) iter.Seq2[[]Record, error] {
	return b.c.iterate(ctx, b.id, table, opts)
}

// All is Table.All on table.
func (b *Base) All(ctx context.Context, table string, opts ListOptions) ([]Record, error) {
	return b.c.all(ctx, b.id, table, opts)
}

// First is Table.First on table.
func (b *Base) First(ctx context.Context, table string, opts ListOptions) (*Record, error) {
	return b.c.first(ctx, b.id, table, opts)
}

// Create is Table.Create on table.
func (b *Base) Create(ctx context.Context, table string, fields map[string]any, opts WriteOptions) (*Record, error) {
	return b.c.create(ctx, b.id, table, fields, opts)
}

// BatchCreate is Table.BatchCreate on table.
func (b *Base) BatchCreate(ctx context.Context, table string, records []map[string]any, opts WriteOptions) ([]Record, error) {
	return b.c.batchCreate(ctx, b.id, table, records, opts)
}

// Update is Table.Update on table.
func (b *Base) Update(ctx context.Context, table, recordID string, fields map[string]any, opts WriteOptions) (*Record, error) {
	return b.c.update(ctx, b.id, table, recordID, fields, opts)
}

// BatchUpdate is Table.BatchUpdate on table.
func (b *Base) BatchUpdate(ctx context.Context, table string, records []Record, opts WriteOptions) ([]Record, error) {
	return b.c.batchUpdate(ctx, b.id, table, records, opts)
}

// BatchUpsert is Table.BatchUpsert on table.
func (b *Base) BatchUpsert(ctx context.Context, table string, records []Record, keyFields []string, opts WriteOptions) ([]Record, error) {
	return b.c.batchUpsert(ctx, b.id, table, records, keyFields, opts)
}

// Delete is Table.Delete on table.
func (b *Base) Delete(ctx context.Context, table, recordID string) (*DeleteResult, error) {
	return b.c.delete(ctx, b.id, table, recordID)
}

// BatchDelete is Table.BatchDelete on table.
func (b *Base) BatchDelete(ctx context.Context, table string, recordIDs []string) ([]DeleteResult, error) {
	return b.c.batchDelete(ctx, b.id, table, recordIDs)
}

// RecordURL returns the URL of a record of table.
func (b *Base) RecordURL(table, recordID string) string { return b.Table(table).RecordURL(recordID) }

// Get returns one record of table in base.
func (a *API) Get(ctx context.Context, base, table, recordID string, opts ...GetOption) (*Record, error) {
	return a.c.get(ctx, base, table, recordID, opts)
}

// Iterate is Table.Iterate on table of base.
func (a *API) Iterate(ctx context.Context, base, table string, opts ListOptions) iter.Seq2[[]Record, error] {
	return a.c.iterate(ctx, base, table, opts)
}

// All is Table.All on table of base.
func (a *API) All(ctx context.Context, base, table string, opts ListOptions) ([]Record, error) {
	return a.c.all(ctx, base, table, opts)
}

// First is Table.First on table of base.
func (a *API) First(ctx context.Context, base, table string, opts ListOptions) (*Record, error) {
	return a.c.first(ctx, base, table, opts)
}

// Create is Table.Create on table of base.
func (a *API) Create(ctx context.Context, base, table string, fields map[string]any, opts WriteOptions) (*Record, error) {
	return a.c.create(ctx, base, table, fields, opts)
}

// BatchCreate is Table.BatchCreate on table of base.
func (a *API) BatchCreate(ctx context.Context, base, table string, records []map[string]any, opts WriteOptions) ([]Record, error) {
	return a.c.batchCreate(ctx, base, table, records, opts)
}

// Update is Table.Update on table of base.
func (a *API) Update(ctx context.Context, base, table, recordID string, fields map[string]any, opts WriteOptions) (*Record, error) {
	return a.c.update(ctx, base, table, recordID, fields, opts)
}

// BatchUpdate is Table.BatchUpdate on table of base.
func (a *API) BatchUpdate(ctx context.Context, base, table string, records []Record, opts WriteOptions) ([]Record, error) {
	return a.c.batchUpdate(ctx, base, table, records, opts)
}

// BatchUpsert is Table.BatchUpsert on table of base.
func (a *API) BatchUpsert(ctx context.Context, base, table string, records []Record, keyFields []string, opts WriteOptions) ([]Record, error) {
	return a.c.batchUpsert(ctx, base, table, records, keyFields, opts)
}

// Delete is Table.Delete on table of base.
func (a *API) Delete(ctx context.Context, base, table, recordID string) (*DeleteResult, error) {
	return a.c.delete(ctx, base, table, recordID)
}

// BatchDelete is Table.BatchDelete on table of base.
func (a *API) BatchDelete(ctx context.Context, base, table string, recordIDs []string) ([]DeleteResult, error) {
	return a.c.batchDelete(ctx, base, table, recordIDs)
}

// RecordURL returns the URL of a record of table in base.
func (a *API) RecordURL(base, table, recordID string) string {
	return a.Table(base, table).RecordURL(recordID)
}
