// Package transport is a client of the Airtable Web API (v0): the seed's API, Base and Table
// (one implementation behind all three), paced, retried and chunked so that it stays within the
// service's limits and never writes a record twice.
//
// # Objects
//
//	api, err := transport.NewAPI(token)                          // every operation takes base id and table name first
//	base, err := transport.NewBase(token, "appXXXXXXXXXXXXXX")   // takes the table name first
//	tasks, err := transport.NewTable(token, "appXXXXXXXXXXXXXX", "Tasks")
//	tasks = api.Table("appXXXXXXXXXXXXXX", "Tasks")              // same token and settings
//	tasks = base.Table("Tasks"); base = tasks.Base(); base = api.Base("appXXXXXXXXXXXXXX")
//
// Options: WithTimeout(connect, read), WithRetryStrategy(RetryStrategy()), WithEndpointURL (a
// proxy or the emulator), WithHTTPClient, WithClock (tests). Table names are given as a person
// reads them (or as tbl… ids); they are percent-encoded as one path segment.
//
// # One example per operation (seed §4.2)
//
//	rec, err := tasks.Get(ctx, "recXXXXXXXXXXXXXX")                          // GET …/Tasks/rec…
//	rec, err = tasks.Get(ctx, "rec…", transport.GetOption{ReturnFieldsByFieldID: true})
//	for page, err := range tasks.Iterate(ctx, transport.ListOptions{PageSize: 50}) { … } // one slice per page
//	recs, err := tasks.All(ctx, transport.ListOptions{View: "Open", Sort: []string{"-Priority", "Name"}})
//	recs, err = tasks.All(ctx, transport.ListOptions{Formula: formula.Match(map[string]any{"Status": "Todo"})})
//	rec, err = tasks.First(ctx, transport.ListOptions{Formula: "{Done}"})   // maxRecords=1&pageSize=1; nil, nil if none
//	rec, err = tasks.Create(ctx, map[string]any{"Name": "Write spec"}, transport.WriteOptions{Typecast: true})
//	recs, err = tasks.BatchCreate(ctx, []map[string]any{{"Name": "a"}, {"Name": "b"}}, transport.WriteOptions{})
//	rec, err = tasks.Update(ctx, "rec…", map[string]any{"Done": true}, transport.WriteOptions{})       // PATCH
//	rec, err = tasks.Update(ctx, "rec…", map[string]any{"Name": "x"}, transport.WriteOptions{Replace: true}) // PUT
//	recs, err = tasks.BatchUpdate(ctx, []transport.Record{{ID: "rec…", Fields: map[string]any{"Done": true}}}, transport.WriteOptions{})
//	recs, err = tasks.BatchUpsert(ctx, []transport.Record{{Fields: map[string]any{"Name": "a", "Priority": 2}}}, []string{"Name"}, transport.WriteOptions{})
//	res, err := tasks.Delete(ctx, "rec…")                                    // {ID, Deleted}
//	results, err := tasks.BatchDelete(ctx, []string{"rec1…", "rec2…"})      // DELETE ?records[]=…
//	u := tasks.RecordURL("rec…"); u = tasks.URL()
//	bases, err := api.Bases(ctx); schema, err := base.Schema(ctx)          // metadata
//
// The same operations exist on Base (table name first) and API (base id and table name first).
//
// # Comments, uploads, who am I, schema changes
//
//	for page, err := range tasks.Comments(ctx, "rec…", transport.CommentOptions{}) { … } // GET …/rec…/comments, newest first
//	cm, err := tasks.CreateComment(ctx, "rec…", transport.CommentSpec{Text: "hi @[usr…]"}) // never retried once sent
//	cm, err = tasks.UpdateComment(ctx, "rec…", cm.ID, "hello"); _, err = tasks.DeleteComment(ctx, "rec…", cm.ID)
//	up, err := transport.UploadFile("a.pdf", "")                             // at most MaxUploadBytes (5 MB)
//	rec, err = tasks.UploadAttachment(ctx, "rec…", "Files", up)              // POST content.airtable.com/v0/app…/rec…/Files/uploadAttachment
//	me, err := api.WhoAmI(ctx)                                               // GET /v0/meta/whoami
//	t, err := base.UpdateTable(ctx, "Tasks", transport.TableUpdate{Name: &newName})
//	f, err := base.UpdateField(ctx, "tbl…", "fld…", transport.FieldUpdate{Description: &text})
//	f, err = base.CreateField(ctx, "tbl…", transport.FieldSpec{Name: "Due", Type: "date", Options: …})
//	who, err := base.Collaborators(ctx)                                      // GET /v0/meta/bases/app…?include=collaborators
//
// Comments and uploads exist on all three objects; schema changes on Base. An upload goes to
// content.airtable.com when requests go to the service, and to the endpoint given with
// WithEndpointURL otherwise.
//
// # Requests
//
// Fetching options go on the wire as the service documents them: fields[]=…,
// sort[0][field]=…&sort[0][direction]=asc|desc (a leading "-" in ListOptions.Sort means desc),
// filterByFormula, maxRecords, pageSize, view, cellFormat, timeZone, userLocale,
// returnFieldsByFieldId=true, in that order. Invalid options are refused before any request, with
// an error wrapping ErrInvalidOption that names the option. When the URL of a listing would reach
// 16,000 characters (with room kept for the offset), the listing goes as POST …/listRecords with
// the options in a JSON body, except timeZone and userLocale, which stay on the query string (the
// service reads them only there); later pages send the offset in the body.
//
// Write bodies carry typecast and returnFieldsByFieldId only when true. Batch operations send
// chunks of 10 records (batch deletes as records[]=… on the query string).
//
// # Pacing
//
// The service admits 5 requests per base in any second. The pacer is a sliding window of the
// same shape: any 5 requests may start at once, and a 6th starts once the start 5 before it is
// one second and a margin old: 2.5% (1.025 s) while that start is still on its way, and once it
// is answered the spread measured at the bottom of the recent round trips (how much faster than
// the fastest seen a request may travel), at least 0.5% (1.005 s). A short burst — the schema and
// the first page, or the first pages of a partitioned scan — goes out at once; a long stream
// averages one start per 201–205 ms. One window per base is shared by every
// API, Base and Table of the process that reaches that base through the same endpoint and HTTP
// transport. The windows of a server are forgotten once no client of it is left (garbage
// collected) and they are idle, so short-lived servers, such as one emulator per test, are not
// kept alive by them. Each start is counted from when its request was written to its connection
// (with an *http.Transport; else from when it was allowed): a new connection's dial, or a process
// starting up on a loaded machine, can send it tens of milliseconds later. Arrivals wander from
// the sends with network and scheduling delays too, so a request answered later than the fastest
// recent round trip (this process's, or any recorded in the shared window) may have arrived that much late,
// closer to the 5th request after it: that one is held back by as much (and waits for the answer
// while it is overdue, at most one window more). Only a delay that happened costs time, once.
//
// Across processes (WithSharedPacing; on by default for the real service): the window lives in a
// small file per endpoint and base under the user's cache directory, read and written under an
// exclusive file lock for each start, so a cron job and a dashboard on one machine share one
// budget. No daemon; a process that dies loses its lock with it, and its unanswered starts cost
// the others at most one window. Across machines, nothing can be shared: a 429 halves the
// starts allowed per window and keeps them there for 2 minutes (the clients that collided all
// halved theirs, so together they now fit instead of colliding after every 30 s penalty); then
// the budget grows back by one start per 10 s without a 429, and halves again if a probe
// collides.
//
// # Partitioned scans and the result cache
//
// A listing that is latency-bound (one cursor cannot keep up with the base's budget: the base's
// last round trip, or else the listing's first page, took longer than the pacing interval) is
// read as K disjoint partitions on the ending of RECORD_ID(), equal shares of the alphabet the
// service issues ids with, each with its own cursor under the base's one pacer; Iterate decides,
// so callers change nothing. Only a whole table not known to be small is split from its first
// request: a listing with a formula (it may select one record), or of a table a complete listing
// showed to hold at most two pages, reads its first page alone, so that it costs one request and
// not K. The partitions take the window's slots in turns, fewest pages first, so that they end
// together. Pages come as the partitions answer (the order of an unsorted listing is not
// promised); IterateMerged merges a sorted listing by the caller's order. See partition.go for
// the formulas and why they are exact. PartitionScans turns it off.
//
// WithResultCache answers a listing identical to one read within its TTL from memory; this
// client's writes to a table drop its entries; memory is bounded (LRU). See cache.go.
//
// Batch writes are pipelined: up to 6 chunks wait for their answers at once while starts stay
// one per interval, so latency does not slow them down (pyairtable 1.5 slept 200 ms after each
// answer, which gives 20 records/s at 300 ms of latency instead of 50). After a 429 the service
// refuses the base for 30 s, so every request to that base is held until then (or for
// Retry-After when the service sends it), instead of drawing more 429s.
//
// # Retries
//
// Without WithRetryStrategy nothing is retried (seed §7). With it, a request is repeated only
// when that cannot duplicate data; see Retry. Backoff is BackoffFactor·2^(n−1) with jitter,
// never shorter than Retry-After, and every wait ends with the context; a wait that would
// outlast the context's deadline (a 429 penalty, a long Retry-After) fails at once.
//
// # Errors
//
// A refusal of the service is an *APIError with the status, type and message as sent (the error
// may come as an object or a legacy string, without a message, or as a non-JSON body); errors.Is
// compares by Type (ErrNotFound, ErrRateLimited, …). Every error names the operation and the
// table; timeouts wrap ErrConnectTimeout or ErrReadTimeout. The access token never appears in
// an error or in the String or %v/%#v form of any value, nor does it in an answer body quoted in
// one (a proxy echoing the request): bodies are redacted before they are cut to an excerpt. A
// batch that fails part-way returns the records written so far together with a *BatchError
// listing their input positions and those that may or may not have been written: a request is
// uncertain once any of its tries may have reached the service (a lost answer, a 5xx), whatever
// later tries answer (the last error is then an *EarlierTryError); a DELETE retried after such a
// try and answered "not found" was carried out by it and counts as deleted. A request body over
// MaxRequestBodyBytes (5 MiB, where the service answers 413) is refused before it is sent.
//
// # Choices where the reference is unconfirmed
//
//   - No Retry-After on a 429: the documented 30 s penalty is assumed (RateLimitPenalty).
//   - returnFieldsByFieldId is sent as "true" (airtable.js) rather than pyairtable's "1".
//   - A listing that returns the same offset twice is stopped with an error rather than looped.
//   - The offset of an expired iterator (LIST_RECORDS_ITERATOR_NOT_AVAILABLE) is not restarted
//     silently, since a restart would yield records twice; the error is returned (ErrIteratorExpired).
package transport
