package transport

import (
	"container/heap"
	"context"
	"iter"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/airsql/airsql/formula"
)

// Partitioned scans.
//
// One cursor fetches one page per round trip: at 500 ms of latency that is 2 pages per second,
// 0.4 of what the base allows. When a listing is latency-bound — its first page took longer
// than the pacing interval, or the base's round trips are already known to be long (the schema
// request, an earlier listing) and it lists a whole table not known to be small — it is read as
// K disjoint partitions, each with its own cursor, all under the base's one pacer (a listing
// with a formula may select one record: split from its first request it would cost K requests,
// so its first page goes alone):
//
//	IF(<the listing's formula>, AND(OR(FIND('|'&RIGHT(RECORD_ID(),1)&'|','|<c>|<c>|…|'),
//	                                   FIND('|'&RIGHT(RECORD_ID(),2)&'|','|<cc>|<cc>|…|')),
//	                                NOT(OR(RECORD_ID()='<id of the first page>', …))))
//
// The record id's ending decides the partition: partitions 0..K-2 own disjoint sets of last
// characters, among those the service issues ids with ([A-Za-z0-9], reference §4.1), and of
// two-character endings whose last character no set owns whole (partitionSets: equal shares
// of the alphabet); the last partition owns every id whose ending is in none of them (both
// FINDs 0), whatever it is (the bars keep a short id, or one with a bar, from matching) — so the
// partitions' union is the table and they do not overlap, for ids of any shape. When the first
// page was read alone (the round trip was not known yet), its records, already yielded, are
// excluded by id, so no record comes twice and no partition reads what was read. The
// partitioned scan sends at most the requests of the unpartitioned one plus K (each
// partition's last page may be short). FIND is case-sensitive in the service (reference §5)
// and in the emulator; IF keeps the listing's own formula deciding by the truthiness
// filterByFormula uses. The partitions take the base's slots in turns, fewest pages first
// (turns.go), so that they end together rather than one reading its last pages alone.
//
// K is adaptive: one cursor per pacing interval the round trip lasts, plus two (so that the
// window stays busy when answers come later than the last round trip, as they do on a loaded
// machine, and while the partitions end; each costs about half a page, its last), at most
// maxPartitions; fewer when maxRecords leaves little to read. Without a sort the partitions'
// pages are yielded as they come; with a sort (IterateMerged) they are merged by the caller's
// order. Both stop at maxRecords. A listing with a view (whose order is the view's), a sort
// without a comparator, or a small maxRecords is not partitioned.

// maxPartitions bounds K: at 1 s of latency 5 cursors just keep up with the window; a few more
// keep it busy while the shorter partitions end; beyond that they only queue.
const maxPartitions = 8

// idAlphabet is the characters the service issues record ids with (reference §4.1).
const idAlphabet = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

// PartitionScans turns partitioned scans on or off for the whole process (on by default).
var PartitionScans = true

// iterate is Iterate: one cursor, or partitions when the listing turns out latency-bound.
func (c *core) iterate(ctx context.Context, base, table string, opts ListOptions) iter.Seq2[[]Record, error] {
	if !partitionable(opts, false) {
		return c.cached(ctx, base, table, opts, c.listPages(ctx, base, table, opts))
	}
	return c.cached(ctx, base, table, opts, c.partitioned(ctx, base, table, opts, nil))
}

// IterateMerged lists like Iterate, but may read a latency-bound sorted listing as partitions
// merged by cmp, which must order two records as the listing's Sort does (the caller knows the
// fields' types; transport does not). Records cmp calls equal may come in another order than one
// cursor would give them. Without a Sort it is Iterate, whatever cmp is: a merge by a comparator
// under which every record ties would drain one partition after another, one request per round
// trip (issue 23: 0.22 of the service's rate at 1 s of latency instead of 0.86).
func (t *Table) IterateMerged(ctx context.Context, opts ListOptions, cmp func(a, b *Record) int) iter.Seq2[[]Record, error] {
	if len(opts.Sort) == 0 || !partitionable(opts, cmp != nil) {
		return t.c.iterate(ctx, t.base, t.name, opts)
	}
	return t.c.cached(ctx, t.base, t.name, opts, t.c.partitioned(ctx, t.base, t.name, opts, cmp))
}

func pageSizeOf(opts ListOptions) int {
	if opts.PageSize > 0 {
		return opts.PageSize
	}
	return maxPageSize
}

func partitionable(opts ListOptions, canMerge bool) bool {
	if !PartitionScans || APILimit <= 0 || opts.View != "" || len(opts.Sort) > 0 && !canMerge {
		return false
	}
	return opts.MaxRecords == 0 || opts.MaxRecords > 2*pageSizeOf(opts)
}

// partitionCount is K for a round trip of rtt: 1 when one cursor keeps up with the pacing.
// Measured at 300 ms: with one spare cursor the scan's tail, as partitions ended, cost 5%.
func partitionCount(rtt time.Duration, remaining, pageSize int) int {
	spacing := spacingFor(APILimit)
	if spacing <= 0 || rtt <= spacing {
		return 1
	}
	k := int((rtt+spacing-1)/spacing) + 2
	if remaining > 0 {
		k = min(k, (remaining+pageSize-1)/pageSize)
	}
	return max(1, min(k, maxPartitions))
}

// partSet is what one partition owns: the ids whose last character is in last, and the ids
// whose last two characters are one of pairs (each pair ends in a character no set's last holds).
type partSet struct {
	last  string
	pairs []string
}

// partitionSets splits the ids into k disjoint sets by their endings. Set k-1 is the complement
// in the formulas, so its endings are never written.
//
// Ids as the service issues them end in any of the 62 characters of idAlphabet alike, so the
// sets are equal shares of the alphabet: the characters are dealt round robin (so that ids drawn
// from a part of the alphabet, only digits or only lower case, are still spread), as many as
// divide evenly by k; the remaining few are split further by the character before them, the 62
// two-character endings of each dealt round robin too. At K=5, 60 last characters and 124
// endings: the shares differ by one ending in 3,844 instead of one character in 62 (8%, which
// the largest partition read alone at the end of the scan).
//
// A sample of ids (the first page's) that is not spread like random ids — a fixture's sequential
// rec00000000000042 end in a digit only — balances the last characters on the sample instead:
// the least loaded set takes the next most frequent character; characters not in the sample
// are dealt round robin.
func partitionSets(k int, sample []string) []partSet {
	if looksRandom(sample) {
		return alphabetSets(k)
	}
	counts := map[byte]int{}
	for _, id := range sample {
		if id != "" {
			counts[id[len(id)-1]]++
		}
	}
	chars := []byte(idAlphabet)
	slices.SortStableFunc(chars, func(a, b byte) int { return counts[b] - counts[a] })
	sets := make([][]byte, k)
	load := make([]int, k)
	for i, ch := range chars {
		j := 0
		if counts[ch] > 0 {
			for m := range k { // the least loaded set takes the next most frequent character
				if load[m] < load[j] {
					j = m
				}
			}
		} else {
			j = i % k
		}
		sets[j] = append(sets[j], ch)
		load[j] += counts[ch]
	}
	out := make([]partSet, k)
	for i, s := range sets {
		slices.Sort(s)
		out[i].last = string(s)
	}
	return out
}

// alphabetSets is k equal shares of idAlphabet (see partitionSets).
func alphabetSets(k int) []partSet {
	n := len(idAlphabet)
	whole := n - n%k
	out := make([]partSet, k)
	lasts := make([][]byte, k)
	for i := range whole {
		lasts[i%k] = append(lasts[i%k], idAlphabet[i])
	}
	j := 0
	for _, last := range []byte(idAlphabet[whole:]) {
		for _, before := range []byte(idAlphabet) {
			out[j%k].pairs = append(out[j%k].pairs, string([]byte{before, last}))
			j++
		}
	}
	for i := range out {
		out[i].last = string(lasts[i])
	}
	return out
}

// looksRandom reports whether the sample's last characters could be those of random ids over
// idAlphabet: all in it, and a chi-squared statistic of their counts against equal shares no
// more than 4 standard deviations above its mean (61 degrees of freedom: 61 + 4·√122 ≈ 105).
// An empty sample (nothing read yet) is taken as the service's ids.
func looksRandom(sample []string) bool {
	if len(sample) == 0 {
		return true
	}
	counts := map[byte]int{}
	for _, id := range sample {
		if id == "" || !strings.ContainsRune(idAlphabet, rune(id[len(id)-1])) {
			return false
		}
		counts[id[len(id)-1]]++
	}
	e := float64(len(sample)) / float64(len(idAlphabet))
	chi := 0.0
	for i := range len(idAlphabet) {
		d := float64(counts[idAlphabet[i]]) - e
		chi += d * d / e
	}
	return chi <= 105
}

// partitionFormulas are the formulas of the partitions of a listing whose formula is base, one
// per set, excluding the ids seen (the first page's).
func partitionFormulas(base string, sets []partSet, seen []string) []string {
	// The last character (two characters) between bars, looked up in "|a|b|…|" ("|ab|cd|…|"): an
	// id ending in a bar, or too short (an empty id's last character is "", which FIND finds
	// anywhere), is found in no set, since every entry between bars has its full length and no
	// bar, and the bars of the list are that length apart.
	last1 := `'|'&RIGHT(RECORD_ID(),1)&'|'`
	last2 := `'|'&RIGHT(RECORD_ID(),2)&'|'`
	var otherLast strings.Builder
	var otherPairs []string
	for _, s := range sets[:len(sets)-1] {
		otherLast.WriteString(s.last)
		otherPairs = append(otherPairs, s.pairs...)
	}
	var exclude string
	if len(seen) > 0 {
		parts := make([]string, len(seen))
		for i, id := range seen {
			parts[i] = "RECORD_ID()=" + formula.Quote(id)
		}
		exclude = "NOT(OR(" + strings.Join(parts, ",") + "))"
	}
	out := make([]string, len(sets))
	for i, s := range sets {
		var part string
		if i < len(sets)-1 {
			part = "FIND(" + last1 + "," + formula.Quote(barred(s.last)) + ")"
			if len(s.pairs) > 0 {
				part = "OR(" + part + ",FIND(" + last2 + "," + formula.Quote(barredPairs(s.pairs)) + "))"
			}
		} else {
			part = "FIND(" + last1 + "," + formula.Quote(barred(otherLast.String())) + ")=0"
			if len(otherPairs) > 0 {
				part = "AND(" + part + ",FIND(" + last2 + "," + formula.Quote(barredPairs(otherPairs)) + ")=0)"
			}
		}
		if exclude != "" {
			part = "AND(" + part + "," + exclude + ")"
		}
		if strings.TrimSpace(base) != "" {
			part = "IF(" + base + "," + part + ")"
		}
		out[i] = part
	}
	return out
}

// barredPairs writes the endings between bars: ab, cd is "|ab|cd|".
func barredPairs(pairs []string) string {
	return "|" + strings.Join(pairs, "|") + "|"
}

// barred writes the characters of set between bars: "ab" is "|a|b|".
func barred(set string) string {
	var b strings.Builder
	b.WriteByte('|')
	for _, c := range set {
		b.WriteRune(c)
		b.WriteByte('|')
	}
	return b.String()
}

// recentRTT is the last round trip of a request to the base, over a new connection too: the far
// end's accept, which keeps such a round trip out of the window's measure of the path, does not
// change how many cursors keep the pace. (Counting only reused connections, a process's first
// listing, after a schema request that dialled, went unpartitioned: at 1 s of latency its first
// page was alone on the base for a round trip — issue 23, two processes at 0.88 of the rate.)
func (p *pacer) recentRTT() time.Duration {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.lastRTT
}

// partitioned reads the first page with one cursor; if the listing goes on and that page's
// round trip was longer than the pacing interval, the rest is read as partitions.
func (c *core) partitioned(ctx context.Context, base, table string, opts ListOptions, cmp func(a, b *Record) int) iter.Seq2[[]Record, error] {
	return func(yield func([]Record, error) bool) {
		// The base's round trips are already known to be long (the schema request, an earlier
		// listing) and the listing is a whole table not known to be small: partition from the
		// first request, on sets dealt evenly. A listing with a formula may select a few records
		// (a bind join's keys, WHERE Email = …): its first page goes alone, so that it costs one
		// request and not K.
		if k := partitionCount(c.pacerFor(base).recentRTT(), opts.MaxRecords, pageSizeOf(opts)); k >= 2 &&
			strings.TrimSpace(opts.Formula) == "" && !c.sizes.small(base, table, 2*pageSizeOf(opts)) {
			n, whole := 0, true
			c.readPartitions(ctx, base, table, opts, partitionFormulas(opts.Formula, partitionSets(k, nil), nil), opts.MaxRecords, cmp,
				func(recs []Record, err error) bool {
					n += len(recs)
					more := yield(recs, err)
					whole = whole && more && err == nil
					return more
				})
			if whole && ctx.Err() == nil {
				c.sizes.ended(base, table, opts, n)
			}
			return
		}
		next, stop := iter.Pull2(c.listPages(ctx, base, table, opts))
		defer stop()
		first, err, ok := next()
		if !ok {
			return
		}
		if !yield(first, err) || err != nil {
			return
		}
		if opts.MaxRecords > 0 && len(first) >= opts.MaxRecords {
			return
		}
		remaining := 0
		if opts.MaxRecords > 0 {
			remaining = opts.MaxRecords - len(first)
		}
		if len(first) < pageSizeOf(opts) && err == nil {
			c.sizes.ended(base, table, opts, len(first))
		}
		k := partitionCount(c.pacerFor(base).recentRTT(), remaining, pageSizeOf(opts))
		if k < 2 || len(first) < pageSizeOf(opts) || c.sizes.small(base, table, 2*pageSizeOf(opts)) {
			// (A table known to hold at most two pages has at most one more for any formula:
			// partitions would cost K requests for it.)
			// One cursor keeps up (or the listing ended with this page): go on with it.
			for {
				recs, err, ok := next()
				if !ok || !yield(recs, err) || err != nil {
					return
				}
			}
		}
		stop() // its next page is not fetched: the partitions read the rest
		seen := make([]string, len(first))
		sample := make([]string, len(first))
		for i, r := range first {
			seen[i], sample[i] = r.ID, r.ID
		}
		c.readPartitions(ctx, base, table, opts, partitionFormulas(opts.Formula, partitionSets(k, sample), seen), remaining, cmp, yield)
	}
}

// tableSizes remembers how many records whole-table listings (no formula, no maxRecords) held
// when read to their end, so that a table known to be small is not split into K partitions
// that each cost a request for a few records.
type tableSizes struct {
	mu sync.Mutex
	n  map[string]int // by base + "/" + table
}

func (ts *tableSizes) small(base, table string, limit int) bool {
	if ts == nil {
		return false
	}
	ts.mu.Lock()
	defer ts.mu.Unlock()
	n, ok := ts.n[base+"/"+table]
	return ok && n <= limit
}

// ended records the size of a whole-table listing read to its end.
func (ts *tableSizes) ended(base, table string, opts ListOptions, n int) {
	if ts == nil || strings.TrimSpace(opts.Formula) != "" || opts.MaxRecords > 0 {
		return
	}
	ts.mu.Lock()
	defer ts.mu.Unlock()
	if ts.n == nil {
		ts.n = map[string]int{}
	}
	ts.n[base+"/"+table] = n
}

// readPartitions reads a listing as the partitions of the formulas, up to remaining records (0:
// all), merged by cmp when it is not nil.
func (c *core) readPartitions(ctx context.Context, base, table string, opts ListOptions, formulas []string, remaining int, cmp func(a, b *Record) int, yield func([]Record, error) bool) {
	k := len(formulas)
	parts := make([]ListOptions, k)
	fields := opts.Fields
	if cmp != nil && fields != nil {
		// The merge compares the sort keys: the partitions must return them.
		fields = slices.Clone(fields)
		for _, s := range opts.Sort {
			if name, _ := sortField(s); !slices.Contains(fields, name) {
				fields = append(fields, name)
			}
		}
	}
	for i := range parts {
		parts[i] = opts
		parts[i].Formula = formulas[i]
		parts[i].MaxRecords = remaining
		parts[i].Fields = fields
	}
	if cmp == nil {
		c.readUnordered(ctx, base, table, parts, remaining, yield)
	} else {
		c.readMerged(ctx, base, table, parts, remaining, pageSizeOf(opts), cmp, yield)
	}
}

// partPage is one page of one partition.
type partPage struct {
	part int
	recs []Record
	err  error
	last bool // the partition has no more pages
}

// runPartitions starts one goroutine per partition; each sends its pages on its own channel
// (buffered: one page ahead of the reader) and ends with ctx. Their requests take the base's
// slots in turns (turns.go). wait returns once all have ended.
func (c *core) runPartitions(ctx context.Context, base, table string, parts []ListOptions, out func(i int) chan partPage) (wait func()) {
	var wg sync.WaitGroup
	t := newTurns(c.clock, c.pacerFor(base), len(parts))
	if turnsStarted != nil {
		turnsStarted(t)
	}
	wg.Go(func() { t.run(ctx) })
	for i, o := range parts {
		ch := out(i)
		take := func(ctx context.Context) (uint64, error) { return t.take(ctx, i) }
		wg.Go(func() {
			send := func(p partPage) bool {
				select {
				case ch <- p:
					return true
				case <-ctx.Done():
					return false
				}
			}
			for recs, err := range c.listPagesTaking(ctx, base, table, o, take) {
				if !send(partPage{part: i, recs: recs, err: err}) || err != nil {
					return
				}
			}
			send(partPage{part: i, last: true})
		})
	}
	return func() {
		wg.Wait()
		t.release()
	}
}

// readUnordered yields the partitions' pages as they come, up to remaining records (0: all).
func (c *core) readUnordered(ctx context.Context, base, table string, parts []ListOptions, remaining int, yield func([]Record, error) bool) {
	ctx, cancel := context.WithCancel(ctx)
	pages := make(chan partPage, len(parts))
	wait := c.runPartitions(ctx, base, table, parts, func(int) chan partPage { return pages })
	defer func() { cancel(); wait() }()
	open := len(parts)
	for open > 0 {
		var p partPage
		select {
		case p = <-pages:
		case <-ctx.Done():
			yield(nil, ctx.Err())
			return
		}
		switch {
		case p.err != nil:
			yield(nil, p.err)
			return
		case p.last:
			open--
			continue
		}
		recs := p.recs
		if remaining > 0 {
			if len(recs) >= remaining {
				yield(recs[:remaining], nil)
				return
			}
			remaining -= len(recs)
		}
		if len(recs) > 0 && !yield(recs, nil) {
			return
		}
	}
}

// readMerged merges the partitions, each sorted by the listing's sort, into pages of pageSize in
// cmp's order, up to remaining records (0: all).
func (c *core) readMerged(ctx context.Context, base, table string, parts []ListOptions, remaining, pageSize int, cmp func(a, b *Record) int, yield func([]Record, error) bool) {
	ctx, cancel := context.WithCancel(ctx)
	chans := make([]chan partPage, len(parts))
	for i := range chans {
		chans[i] = make(chan partPage, 1)
	}
	wait := c.runPartitions(ctx, base, table, parts, func(i int) chan partPage { return chans[i] })
	defer func() { cancel(); wait() }()
	h := &mergeHeap{cmp: cmp, taken: make([]int, len(parts))}
	// fill gives partition i's next non-empty page to the heap; false with an error or at its end.
	fill := func(i int) (bool, error) {
		for {
			var p partPage
			select {
			case p = <-chans[i]:
			case <-ctx.Done():
				return false, ctx.Err()
			}
			if p.err != nil {
				return false, p.err
			}
			if p.last {
				return false, nil
			}
			if len(p.recs) > 0 {
				heap.Push(h, &mergeCursor{part: i, recs: p.recs})
				return true, nil
			}
		}
	}
	for i := range parts {
		if _, err := fill(i); err != nil {
			yield(nil, err)
			return
		}
	}
	out := make([]Record, 0, pageSize)
	emitted := 0
	for h.Len() > 0 {
		top := h.cursors[0]
		out = append(out, top.recs[top.pos])
		emitted++
		top.pos++
		h.taken[top.part]++
		if top.pos == len(top.recs) {
			heap.Pop(h)
			if _, err := fill(top.part); err != nil {
				yield(nil, err)
				return
			}
		} else {
			heap.Fix(h, 0)
		}
		if remaining > 0 && emitted == remaining {
			break
		}
		if len(out) == pageSize {
			if !yield(out, nil) {
				return
			}
			out = make([]Record, 0, pageSize)
		}
	}
	if len(out) > 0 {
		yield(out, nil)
	}
}

type mergeCursor struct {
	part int
	recs []Record
	pos  int
}

// mergeHeap orders the partitions by their next record; ties go to the partition that has given
// fewest records so far, then to the lower one. (Ties to the lower partition alone would drain
// the partitions one after another over a run of equal keys — ORDER BY a checkbox — each waiting
// on one request per round trip while the others, one page ahead, wait on the reader.)
type mergeHeap struct {
	cursors []*mergeCursor
	cmp     func(a, b *Record) int
	taken   []int // records given by each partition
}

func (h *mergeHeap) Len() int { return len(h.cursors) }
func (h *mergeHeap) Less(i, j int) bool {
	a, b := h.cursors[i], h.cursors[j]
	if c := h.cmp(&a.recs[a.pos], &b.recs[b.pos]); c != 0 {
		return c < 0
	}
	if h.taken[a.part] != h.taken[b.part] {
		return h.taken[a.part] < h.taken[b.part]
	}
	return a.part < b.part
}
func (h *mergeHeap) Swap(i, j int) { h.cursors[i], h.cursors[j] = h.cursors[j], h.cursors[i] }
func (h *mergeHeap) Push(x any)    { h.cursors = append(h.cursors, x.(*mergeCursor)) }
func (h *mergeHeap) Pop() any {
	x := h.cursors[len(h.cursors)-1]
	h.cursors = h.cursors[:len(h.cursors)-1]
	return x
}

// IterateCells lists like IterateMerged, each record's fields decoded straight into Record.Cells
// in the order of names (field names, or ids with ReturnFieldsByFieldID), with no map per record:
// for a reader that knows the fields it asked for (ListOptions.Fields) or the table's fields
// (Record.Cells says what Fields then holds). cmp, when not nil, compares records in that form.
// A name given twice is an error.
func (t *Table) IterateCells(ctx context.Context, opts ListOptions, names []string, cmp func(a, b *Record) int) iter.Seq2[[]Record, error] {
	layout, err := newCellLayout(names)
	if err != nil {
		return func(yield func([]Record, error) bool) { yield(nil, wrapOp("list records", t.base, t.name, err)) }
	}
	opts.layout = layout
	return t.IterateMerged(ctx, opts, cmp)
}
