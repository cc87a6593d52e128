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
// 0.4 of what the base allows. When a listing is latency-bound — its first page took longer than
// the pacing interval — the rest of it is read as K disjoint partitions, each with its own cursor,
// all under the base's one pacer:
//
//	IF(<the listing's formula>, AND(FIND('|'&RIGHT(RECORD_ID(),1)&'|','|<c>|<c>|…|'),
//	                                NOT(OR(RECORD_ID()='<id of the first page>', …))))
//
// The record id's last character decides the partition: partitions 0..K-2 own disjoint sets of
// the characters the service issues ids with ([A-Za-z0-9], reference §4.1), and the last one
// owns every id whose last character is in none of them (FIND(…)=0), whatever it is (the bars
// keep an empty or a bar character from matching) — so the
// partitions' union is the table and they do not overlap, for ids of any shape. The sets are
// balanced on the ids of the first page (sequential ids of a fixture, random ids of the service).
// The records of the first page, already yielded, are excluded by id, so no record comes twice
// and no partition reads what was read: the partitioned scan sends at most the requests of the
// unpartitioned one plus K (each partition's last page may be short). FIND is case-sensitive in
// the service (reference §5) and in the emulator; IF keeps the listing's own formula deciding by
// the truthiness filterByFormula uses.
//
// K is adaptive: one cursor per pacing interval the round trip lasts, plus two (so that the
// window stays busy while the first partitions to end leave fewer cursors), at most
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
// cursor would give them. Without a Sort it is Iterate.
func (t *Table) IterateMerged(ctx context.Context, opts ListOptions, cmp func(a, b *Record) int) iter.Seq2[[]Record, error] {
	if !partitionable(opts, cmp != nil) {
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

// partitionSets splits idAlphabet into k disjoint sets balanced on the last characters of the
// sample ids (characters not in the sample are dealt round-robin). Set k-1 is the complement in
// the formulas, so its characters are never written.
func partitionSets(k int, sample []string) []string {
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
	out := make([]string, k)
	for i, s := range sets {
		slices.Sort(s)
		out[i] = string(s)
	}
	return out
}

// partitionFormulas are the formulas of the k partitions of a listing whose formula is base and
// whose first page held the ids seen.
func partitionFormulas(base string, sets []string, seen []string) []string {
	// The last character between bars, looked up in "|a|b|…|": an id ending in a bar, or an empty
	// id (whose last character is "", which FIND finds anywhere), is found in no set.
	last := `'|'&RIGHT(RECORD_ID(),1)&'|'`
	var others strings.Builder
	for _, s := range sets[:len(sets)-1] {
		others.WriteString(s)
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
			part = "FIND(" + last + "," + formula.Quote(barred(s)) + ")"
		} else {
			part = "FIND(" + last + "," + formula.Quote(barred(others.String())) + ")=0"
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

// recentRTT is the last round trip of a request to the base.
func (p *pacer) recentRTT() time.Duration {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.rttCount == 0 {
		return 0
	}
	return p.rtts[(p.rttCount-1)%rttSamples]
}

// partitioned reads the first page with one cursor; if the listing goes on and that page's
// round trip was longer than the pacing interval, the rest is read as partitions.
func (c *core) partitioned(ctx context.Context, base, table string, opts ListOptions, cmp func(a, b *Record) int) iter.Seq2[[]Record, error] {
	return func(yield func([]Record, error) bool) {
		// The base's round trips are already known to be long (the schema request, an earlier
		// listing): partition from the first request, on sets dealt evenly.
		if k := partitionCount(c.pacerFor(base).recentRTT(), opts.MaxRecords, pageSizeOf(opts)); k >= 2 {
			c.readPartitions(ctx, base, table, opts, partitionFormulas(opts.Formula, partitionSets(k, nil), nil), opts.MaxRecords, cmp, yield)
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
		k := partitionCount(c.pacerFor(base).recentRTT(), remaining, pageSizeOf(opts))
		if k < 2 || len(first) < pageSizeOf(opts) {
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
// (buffered: one page ahead of the reader) and ends with ctx. wait returns once all have ended.
func (c *core) runPartitions(ctx context.Context, base, table string, parts []ListOptions, out func(i int) chan partPage) (wait func()) {
	var wg sync.WaitGroup
	for i, o := range parts {
		ch := out(i)
		wg.Go(func() {
			send := func(p partPage) bool {
				select {
				case ch <- p:
					return true
				case <-ctx.Done():
					return false
				}
			}
			for recs, err := range c.listPages(ctx, base, table, o) {
				if !send(partPage{part: i, recs: recs, err: err}) || err != nil {
					return
				}
			}
			send(partPage{part: i, last: true})
		})
	}
	return wg.Wait
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
	h := &mergeHeap{cmp: cmp}
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

// mergeHeap orders the partitions by their next record; ties go to the lower partition.
type mergeHeap struct {
	cursors []*mergeCursor
	cmp     func(a, b *Record) int
}

func (h *mergeHeap) Len() int { return len(h.cursors) }
func (h *mergeHeap) Less(i, j int) bool {
	a, b := h.cursors[i], h.cursors[j]
	if c := h.cmp(&a.recs[a.pos], &b.recs[b.pos]); c != 0 {
		return c < 0
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
