package transport

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
)

// maxChunksInFlight is how many chunks of a batch write may wait for their answers at once.
// Starts stay one per APILimit, so this only has to cover the latency: with 200 ms between starts,
// 6 in flight keep the pace up to 1.2 s of latency.
const maxChunksInFlight = 6

// writeBody is the JSON of every write request; zero options are left out.
type writeBody struct {
	Fields                *map[string]any `json:"fields,omitempty"`
	Records               []writeRecord   `json:"records,omitempty"`
	PerformUpsert         *performUpsert  `json:"performUpsert,omitempty"`
	Typecast              bool            `json:"typecast,omitempty"`
	ReturnFieldsByFieldID bool            `json:"returnFieldsByFieldId,omitempty"`
}

type writeRecord struct {
	ID     string         `json:"id,omitempty"`
	Fields map[string]any `json:"fields"`
}

type performUpsert struct {
	FieldsToMergeOn []string `json:"fieldsToMergeOn"`
}

func nonNil(m map[string]any) map[string]any {
	if m == nil {
		return map[string]any{}
	}
	return m
}

func encodeBody(b writeBody) ([]byte, error) {
	data, err := json.Marshal(b)
	if err != nil {
		return nil, invalidf("the fields cannot be sent as JSON: %v", err)
	}
	if len(data) > MaxRequestBodyBytes {
		return nil, invalidf("the request would be %d bytes: the service accepts at most %d (5 MiB; it answers 413 beyond), so nothing is sent; write shorter values", len(data), MaxRequestBodyBytes)
	}
	return data, nil
}

func (c *core) create(ctx context.Context, base, table string, fields map[string]any, opts WriteOptions) (*Record, error) {
	const op = "create record"
	if err := c.checkTarget(base, table); err != nil {
		return nil, wrapOp(op, base, table, err)
	}
	f := nonNil(fields)
	body, err := encodeBody(writeBody{Fields: &f, Typecast: opts.Typecast, ReturnFieldsByFieldID: opts.ReturnFieldsByFieldID})
	if err != nil {
		return nil, wrapOp(op, base, table, err)
	}
	cl := &call{op: op, base: base, table: table, method: "POST", path: tablePath(base, table), body: body}
	return c.doRecord(ctx, cl)
}

func updateMethod(replace bool) string {
	if replace {
		return "PUT"
	}
	return "PATCH"
}

func (c *core) update(ctx context.Context, base, table, recordID string, fields map[string]any, opts WriteOptions) (*Record, error) {
	const op = "update record"
	if err := c.checkTarget(base, table); err != nil {
		return nil, wrapOp(op, base, table, err)
	}
	if err := checkRecordID(recordID); err != nil {
		return nil, wrapOp(op, base, table, err)
	}
	f := nonNil(fields)
	body, err := encodeBody(writeBody{Fields: &f, Typecast: opts.Typecast, ReturnFieldsByFieldID: opts.ReturnFieldsByFieldID})
	if err != nil {
		return nil, wrapOp(op, base, table, err)
	}
	cl := &call{op: op, base: base, table: table, method: updateMethod(opts.Replace),
		path: tablePath(base, table) + "/" + escapeSegment(recordID), body: body, safe: true}
	return c.doRecord(ctx, cl)
}

func (c *core) delete(ctx context.Context, base, table, recordID string) (*DeleteResult, error) {
	const op = "delete record"
	if err := c.checkTarget(base, table); err != nil {
		return nil, wrapOp(op, base, table, err)
	}
	if err := checkRecordID(recordID); err != nil {
		return nil, wrapOp(op, base, table, err)
	}
	cl := &call{op: op, base: base, table: table, method: "DELETE",
		path: tablePath(base, table) + "/" + escapeSegment(recordID), safe: true}
	var res DeleteResult
	if err := c.do(ctx, cl, &res); err != nil {
		if goneAfterEarlierTry(err) {
			return &DeleteResult{ID: recordID, Deleted: true}, nil
		}
		return nil, err
	}
	return &res, nil
}

func (c *core) batchCreate(ctx context.Context, base, table string, records []map[string]any, opts WriteOptions) ([]Record, error) {
	const op = "batch create"
	if err := c.checkTarget(base, table); err != nil {
		return nil, wrapOp(op, base, table, err)
	}
	recs := make([]Record, len(records))
	for i, f := range records {
		recs[i].Fields = f
	}
	bodies, err := chunkBodies(recs, opts, nil)
	if err != nil {
		return nil, wrapOp(op, base, table, err)
	}
	return c.runRecordChunks(ctx, op, base, table, "POST", bodies, len(records), func(int) bool { return false })
}

func (c *core) batchUpdate(ctx context.Context, base, table string, records []Record, opts WriteOptions) ([]Record, error) {
	const op = "batch update"
	if err := c.checkTarget(base, table); err != nil {
		return nil, wrapOp(op, base, table, err)
	}
	for i, r := range records {
		if r.ID == "" {
			return nil, wrapOp(op, base, table, invalidf("records[%d] has no ID: every record to update needs its rec… id (use BatchUpsert to match on fields)", i))
		}
	}
	bodies, err := chunkBodies(records, opts, nil)
	if err != nil {
		return nil, wrapOp(op, base, table, err)
	}
	return c.runRecordChunks(ctx, op, base, table, updateMethod(opts.Replace), bodies, len(records), func(int) bool { return true })
}

// maxMergeFields is the service's limit on fieldsToMergeOn.
const maxMergeFields = 3

func (c *core) batchUpsert(ctx context.Context, base, table string, records []Record, keyFields []string, opts WriteOptions) ([]Record, error) {
	const op = "batch upsert"
	if err := c.checkTarget(base, table); err != nil {
		return nil, wrapOp(op, base, table, err)
	}
	if len(keyFields) == 0 || len(keyFields) > maxMergeFields {
		return nil, wrapOp(op, base, table, invalidf("%d key fields: the service merges on 1 to %d fields", len(keyFields), maxMergeFields))
	}
	for i, k := range keyFields {
		if k == "" {
			return nil, wrapOp(op, base, table, invalidf("keyFields[%d] is empty", i))
		}
	}
	for i, r := range records {
		if r.ID != "" {
			continue
		}
		for _, k := range keyFields {
			if _, ok := r.Fields[k]; !ok {
				return nil, wrapOp(op, base, table, invalidf("records[%d] has no ID and lacks key field %q: a record without an id must carry every key field (the service would refuse the whole chunk)", i, k))
			}
		}
	}
	bodies, err := chunkBodies(records, opts, &performUpsert{FieldsToMergeOn: append([]string(nil), keyFields...)})
	if err != nil {
		return nil, wrapOp(op, base, table, err)
	}
	// A chunk whose records all carry ids only updates; one without ids may create, so it is
	// never repeated after a failure that may have reached the service.
	safe := func(chunk int) bool {
		lo, hi := chunkRange(chunk, len(records))
		for _, r := range records[lo:hi] {
			if r.ID == "" {
				return false
			}
		}
		return true
	}
	return c.runRecordChunks(ctx, op, base, table, updateMethod(opts.Replace), bodies, len(records), safe)
}

// chunkBodies is the request body of each chunk of records (a record without an ID is created,
// or with upsert merged on its key fields).
func chunkBodies(records []Record, opts WriteOptions, upsert *performUpsert) ([][]byte, error) {
	n := chunkCount(len(records))
	bodies := make([][]byte, 0, n)
	for i := range n {
		lo, hi := chunkRange(i, len(records))
		b := writeBody{Typecast: opts.Typecast, ReturnFieldsByFieldID: opts.ReturnFieldsByFieldID, PerformUpsert: upsert}
		for _, r := range records[lo:hi] {
			b.Records = append(b.Records, writeRecord{ID: r.ID, Fields: nonNil(r.Fields)})
		}
		data, err := encodeBody(b)
		if err != nil {
			return nil, fmt.Errorf("records %d-%d: %w", lo, hi-1, err)
		}
		bodies = append(bodies, data)
	}
	return bodies, nil
}

func (c *core) batchDelete(ctx context.Context, base, table string, recordIDs []string) ([]DeleteResult, error) {
	const op = "batch delete"
	if err := c.checkTarget(base, table); err != nil {
		return nil, wrapOp(op, base, table, err)
	}
	for i, id := range recordIDs {
		if id == "" {
			return nil, wrapOp(op, base, table, invalidf("recordIDs[%d] is empty", i))
		}
	}
	n := chunkCount(len(recordIDs))
	results := make([][]DeleteResult, n)
	path := tablePath(base, table)
	outcome := c.runChunks(ctx, base, n, func(ctx context.Context, i int, start uint64) error {
		lo, hi := chunkRange(i, len(recordIDs))
		var q queryBuilder
		for _, id := range recordIDs[lo:hi] {
			q.add("records[]", id)
		}
		cl := &call{op: op, base: base, table: table, method: "DELETE", path: path, query: q.String(), safe: true, prepaced: start}
		var resp struct {
			Records []DeleteResult `json:"records"`
		}
		if err := c.do(ctx, cl, &resp); err != nil {
			if !goneAfterEarlierTry(err) {
				return err
			}
			// The records were there when the caller chose them; an earlier try deleted them.
			resp.Records = resp.Records[:0]
			for _, id := range recordIDs[lo:hi] {
				resp.Records = append(resp.Records, DeleteResult{ID: id, Deleted: true})
			}
		}
		if want := hi - lo; len(resp.Records) != want {
			return wrapOp(op, base, table, fmt.Errorf("the service answered %d deletions for %d ids", len(resp.Records), want))
		}
		results[i] = resp.Records
		return nil
	})
	out := gatherDone(outcome, results)
	if outcome.err == nil {
		return out, nil
	}
	be := outcome.batchError(op, table, len(recordIDs))
	be.Deleted = out
	return out, be
}

// runRecordChunks sends one prepared body per chunk of records and gathers the records answered.
func (c *core) runRecordChunks(ctx context.Context, op, base, table, method string, bodies [][]byte, total int, safe func(chunk int) bool) ([]Record, error) {
	results := make([][]Record, len(bodies))
	path := tablePath(base, table)
	outcome := c.runChunks(ctx, base, len(bodies), func(ctx context.Context, i int, start uint64) error {
		cl := &call{op: op, base: base, table: table, method: method, path: path, body: bodies[i], safe: safe(i), prepaced: start}
		var resp struct {
			Records []wireRecord `json:"records"`
		}
		if err := c.do(ctx, cl, &resp); err != nil {
			return err
		}
		lo, hi := chunkRange(i, total)
		if want := hi - lo; len(resp.Records) != want {
			return wrapOp(op, base, table, fmt.Errorf("the service answered %d records for %d sent", len(resp.Records), want))
		}
		recs, err := toRecords(resp.Records)
		if err != nil {
			return wrapOp(op, base, table, c.scrub(err))
		}
		results[i] = recs
		return nil
	})
	out := gatherDone(outcome, results)
	if outcome.err == nil {
		return out, nil
	}
	be := outcome.batchError(op, table, total)
	be.Records = out
	return out, be
}

func chunkCount(n int) int { return (n + MaxRecordsPerRequest - 1) / MaxRecordsPerRequest }

// chunkRange is the items [lo, hi) of chunk i of n items.
func chunkRange(i, n int) (lo, hi int) {
	lo = i * MaxRecordsPerRequest
	return lo, min(lo+MaxRecordsPerRequest, n)
}

// chunkOutcome is what happened to the chunks of one batch.
type chunkOutcome struct {
	done   []int         // chunks that succeeded, ascending
	failed []int         // chunks whose request failed, ascending
	errs   map[int]error // why each failed chunk failed
	err    error         // the error of the first failed chunk, or of the wait that stopped the batch
}

// runChunks sends chunks 0..n-1 pipelined: each start waits its turn at the base's pacer (one
// start per APILimit), up to maxChunksInFlight wait for their answers. After a failure no further
// chunk is started; the ones already sent finish. It returns once every started chunk has ended.
func (c *core) runChunks(ctx context.Context, base string, n int, send func(ctx context.Context, i int, start uint64) error) chunkOutcome {
	p := c.pacerFor(base)
	errs := make([]error, n) // each written by its own chunk's goroutine, read after wg.Wait
	started := make([]bool, n)
	var (
		wg        sync.WaitGroup
		anyFailed atomic.Bool
		waitErr   error
	)
	slots := make(chan struct{}, maxChunksInFlight)
	for i := range n {
		slots <- struct{}{}
		if anyFailed.Load() {
			<-slots
			break
		}
		start, err := p.wait(ctx, c.clock)
		if err != nil {
			<-slots
			waitErr = fmt.Errorf("waiting for a turn to send records %d and after: %w", i*MaxRecordsPerRequest, err)
			break
		}
		// Checked again: a chunk may have failed while this one waited for its turn.
		if anyFailed.Load() {
			p.finish(start, 0, false) // not sent
			<-slots
			break
		}
		started[i] = true
		wg.Go(func() {
			defer func() { <-slots }()
			if err := send(ctx, i, start); err != nil {
				errs[i] = err
				anyFailed.Store(true)
			}
		})
	}
	wg.Wait()
	out := chunkOutcome{errs: map[int]error{}}
	for i := range n {
		switch {
		case !started[i]:
		case errs[i] == nil:
			out.done = append(out.done, i)
		default:
			out.failed = append(out.failed, i)
			out.errs[i] = errs[i]
			if out.err == nil {
				out.err = errs[i]
			}
		}
	}
	if out.err == nil && waitErr != nil {
		out.err = waitErr
	}
	return out
}

// gatherDone joins the results of the chunks that succeeded, in chunk order (never nil).
func gatherDone[T any](o chunkOutcome, results [][]T) []T {
	out := []T{}
	for _, i := range o.done {
		out = append(out, results[i]...)
	}
	return out
}

// batchError describes a batch that stopped part-way.
func (o chunkOutcome) batchError(op, table string, total int) *BatchError {
	be := &BatchError{Op: op, Table: table, Err: o.err}
	for _, i := range o.done {
		lo, hi := chunkRange(i, total)
		for j := lo; j < hi; j++ {
			be.Written = append(be.Written, j)
		}
	}
	for _, i := range o.failed {
		if !mayHaveWritten(o.errs[i]) {
			continue
		}
		lo, hi := chunkRange(i, total)
		for j := lo; j < hi; j++ {
			be.Uncertain = append(be.Uncertain, j)
		}
	}
	return be
}

// goneAfterEarlierTry tells whether a DELETE failed only because an earlier try of it was carried
// out: a retry answered "not found" (404, or the 403 the service gives personal access tokens for
// anything it cannot find) after a try that may have reached the service. A batch DELETE is
// applied whole or not at all, so the earlier try deleted every record of the request.
func goneAfterEarlierTry(err error) bool {
	var earlier *EarlierTryError
	var apiErr *APIError
	if !errors.As(err, &earlier) || !errors.As(earlier.Err, &apiErr) {
		return false
	}
	return apiErr.StatusCode == 404 || apiErr.StatusCode == 403 && apiErr.Type == ErrPermissionsOrNotFound.Type
}

// mayHaveWritten tells whether a failed write request may still have been carried out: anything
// but an answer of the service refusing it (4xx) to every try that reached it. A try whose answer
// was lost or was a 5xx makes the request uncertain whatever later tries answered.
func mayHaveWritten(err error) bool {
	var earlier *EarlierTryError
	if errors.As(err, &earlier) {
		return true
	}
	var apiErr *APIError
	if errors.As(err, &apiErr) {
		return apiErr.StatusCode >= 500
	}
	return true
}
