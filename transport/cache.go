package transport

import (
	"container/list"
	"context"
	"iter"
	"strconv"
	"strings"
	"sync"
	"time"
)

// The result cache (WithResultCache): a dashboard that runs the same queries every few seconds
// sends the same list requests. With the cache, a listing identical to one read to its end less
// than the TTL ago (same base, table as named, and every option) is answered from memory, page by
// page as it came. Every write this client sends to a table (create, update, upsert, delete,
// whatever its outcome) drops that table's entries, and a listing that was being read while a
// write to its table went out is not stored. Writes by other clients, and a write naming the
// table by id while reads named it by name (or the reverse), are not seen: the TTL bounds how
// stale an answer can be. Memory is bounded: entries are counted by an estimate of their size,
// a listing larger than the whole limit is not stored, and the least recently used entries are
// dropped to make room — never an error.

// DefaultResultCacheBytes is the size limit WithResultCache uses when given 0.
const DefaultResultCacheBytes = 64 << 20

// WithResultCache answers identical listings read within ttl from memory (see the package's
// result cache notes), keeping at most maxBytes (estimated; 0: DefaultResultCacheBytes). ttl 0
// turns it off.
func WithResultCache(ttl time.Duration, maxBytes int64) Option {
	return func(s *settings) { s.cacheTTL, s.cacheBytes = ttl, maxBytes }
}

// resultCache is one client's cache; nil when off.
type resultCache struct {
	ttl      time.Duration
	maxBytes int64

	mu      sync.Mutex
	bytes   int64
	lru     *list.List               // of *cacheEntry, most recently used first
	entries map[string]*list.Element // by key
	gens    map[string]uint64        // by base+table: bumped by every write
	hits    map[string]uint64        // by key, for Cached
}

type cacheEntry struct {
	key, table string
	pages      [][]Record
	layout     *cellLayout // the pages' form (nil: maps); a listing in another form is answered in its own
	records    int
	size       int64
	stored     time.Time
}

func newResultCache(ttl time.Duration, maxBytes int64) *resultCache {
	if ttl <= 0 {
		return nil
	}
	if maxBytes <= 0 {
		maxBytes = DefaultResultCacheBytes
	}
	return &resultCache{ttl: ttl, maxBytes: maxBytes, lru: list.New(), entries: map[string]*list.Element{}, gens: map[string]uint64{}, hits: map[string]uint64{}}
}

func tableKey(base, table string) string { return base + "\x00" + table }

func cacheKey(base, table string, opts ListOptions) string {
	return tableKey(base, table) + "\x00" + opts.listQuery() + "\x00" + strconv.Itoa(opts.PageSize)
}

// lookup returns the pages of a live entry, and their form.
func (c *resultCache) lookup(key string, now time.Time) ([][]Record, *cellLayout, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	el := c.entries[key]
	if el == nil {
		return nil, nil, false
	}
	e := el.Value.(*cacheEntry)
	if now.Sub(e.stored) >= c.ttl || now.Before(e.stored) {
		c.removeLocked(el)
		return nil, nil, false
	}
	c.lru.MoveToFront(el)
	c.hits[key]++
	return e.pages, e.layout, true
}

func (c *resultCache) gen(tk string) uint64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.gens[tk]
}

// store keeps a listing read to its end, unless a write to its table went out since gen.
func (c *resultCache) store(key, tk string, gen uint64, pages [][]Record, layout *cellLayout, size int64, now time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.gens[tk] != gen || size > c.maxBytes {
		return
	}
	if el := c.entries[key]; el != nil {
		c.removeLocked(el)
	}
	for c.bytes+size > c.maxBytes && c.lru.Len() > 0 {
		c.removeLocked(c.lru.Back())
	}
	records := 0
	for _, p := range pages {
		records += len(p)
	}
	e := &cacheEntry{key: key, table: tk, pages: pages, layout: layout, records: records, size: size, stored: now}
	c.entries[key] = c.lru.PushFront(e)
	c.bytes += size
}

func (c *resultCache) removeLocked(el *list.Element) {
	e := c.lru.Remove(el).(*cacheEntry)
	delete(c.entries, e.key)
	delete(c.hits, e.key)
	c.bytes -= e.size
}

// invalidate drops a table's entries; listings of it in progress will not be stored.
func (c *resultCache) invalidate(base, table string) {
	tk := tableKey(base, table)
	c.mu.Lock()
	defer c.mu.Unlock()
	c.gens[tk]++
	for el := c.lru.Front(); el != nil; {
		next := el.Next()
		if el.Value.(*cacheEntry).table == tk {
			c.removeLocked(el)
		}
		el = next
	}
}

// recordSize estimates the memory a record holds.
func recordSize(r *Record) int64 {
	n := int64(120 + len(r.ID))
	for _, v := range r.Cells {
		n += valueSize(v)
	}
	for k, v := range r.Fields {
		n += int64(32+len(k)) + valueSize(v)
	}
	return n
}

func valueSize(v any) int64 {
	switch v := v.(type) {
	case string:
		return 16 + int64(len(v))
	case []any:
		n := int64(24)
		for _, x := range v {
			n += valueSize(x)
		}
		return n
	case map[string]any:
		n := int64(48)
		for k, x := range v {
			n += int64(16+len(k)) + valueSize(x)
		}
		return n
	default:
		return 16
	}
}

// cacheHitKey carries a callback told of each page answered from the cache.
type cacheHitKey struct{}

// WithCacheHits returns a context whose listings call hit with the records of each page the
// result cache answers (a progress display counts them).
func WithCacheHits(ctx context.Context, hit func(records int)) context.Context {
	return context.WithValue(ctx, cacheHitKey{}, hit)
}

// cached wraps a listing: answered from the cache when it holds it, else read and stored once
// read to its end.
func (c *core) cached(ctx context.Context, base, table string, opts ListOptions, read iter.Seq2[[]Record, error]) iter.Seq2[[]Record, error] {
	rc := c.cache
	if rc == nil || opts.validate() != nil {
		return read
	}
	key := cacheKey(base, table, opts)
	tk := tableKey(base, table)
	return func(yield func([]Record, error) bool) {
		if pages, layout, ok := rc.lookup(key, c.clock.Now()); ok {
			hit, _ := ctx.Value(cacheHitKey{}).(func(int))
			for _, p := range pages {
				if hit != nil {
					hit(len(p))
				}
				if !yield(relaid(p, layout, opts.layout), nil) {
					return
				}
			}
			return
		}
		gen := rc.gen(tk)
		var pages [][]Record
		var size int64
		keep := true
		for recs, err := range read {
			if err != nil {
				yield(nil, err)
				return
			}
			if keep {
				for i := range recs {
					size += recordSize(&recs[i])
				}
				if size > rc.maxBytes {
					keep, pages = false, nil
				} else {
					pages = append(pages, append([]Record(nil), recs...))
				}
			}
			if !yield(recs, nil) {
				return // not read to its end: not stored
			}
		}
		if keep {
			rc.store(key, tk, gen, pages, opts.layout, size, c.clock.Now())
		}
	}
}

// CachedListing tells whether the result cache holds the listing: its records, its age, and
// how many times it was answered from memory. ok is false without a cache or entry.
func (t *Table) CachedListing(opts ListOptions) (records int, age time.Duration, hits uint64, ok bool) {
	rc := t.c.cache
	if rc == nil {
		return 0, 0, 0, false
	}
	key := cacheKey(t.base, t.name, opts)
	rc.mu.Lock()
	defer rc.mu.Unlock()
	el := rc.entries[key]
	if el == nil {
		return 0, 0, 0, false
	}
	e := el.Value.(*cacheEntry)
	age = t.c.clock.Now().Sub(e.stored)
	if age >= rc.ttl {
		return 0, 0, 0, false
	}
	return e.records, age, rc.hits[key], true
}

// ResultCacheTTL is the client's result cache TTL; 0 when it has none.
func (t *Table) ResultCacheTTL() time.Duration {
	if t.c.cache == nil {
		return 0
	}
	return t.c.cache.ttl
}

// isWrite tells a call that may change records (not a listing sent as POST).
func (cl *call) isWrite() bool {
	return cl.method != "GET" && !strings.HasSuffix(cl.path, "/listRecords")
}
