package airsql

import (
	"context"
	"sync/atomic"
	"time"

	"github.com/airsql/airsql/transport"
)

// Progress describes a scan under way: what has been received so far.
type Progress struct {
	Table   string        // the table being read (its name)
	Pages   int           // pages received: one per list request, or one per record fetched by id
	Records int           // records received, before the local re-check of the WHERE clause
	Cached  int           // of Pages, those answered from the connector's result cache (DSN key cache)
	Elapsed time.Duration // since the statement started reading
	Done    bool          // the scan ended (all read, LIMIT reached, or the rows closed)
}

type progressKey struct{}

// WithProgress returns a context that makes the statements run with it report their scans to
// report: after each page received and once when the scan ends. report runs on the goroutine
// reading the rows (inside Rows.Next or Rows.Close), so it must be quick; a shell uses it to draw
// a progress line on a terminal.
func WithProgress(ctx context.Context, report func(Progress)) context.Context {
	return context.WithValue(ctx, progressKey{}, report)
}

// progressTracker counts one scan's pages and records for a WithProgress callback.
type progressTracker struct {
	report  func(Progress)
	state   Progress
	started time.Time
	ended   bool
	cached  atomic.Int64 // pages the result cache answered, counted on the fetching goroutine
}

// cacheContext makes the scan's listings count their result-cache hits into the tracker.
func (p *progressTracker) cacheContext(ctx context.Context) context.Context {
	if p == nil {
		return ctx
	}
	return transport.WithCacheHits(ctx, func(int) { p.cached.Add(1) })
}

// newProgressTracker returns nil when the context asks for no progress.
func newProgressTracker(ctx context.Context, table string) *progressTracker {
	report, _ := ctx.Value(progressKey{}).(func(Progress))
	if report == nil {
		return nil
	}
	return &progressTracker{report: report, state: Progress{Table: table}, started: time.Now()}
}

func (p *progressTracker) page(records int) {
	if p == nil || p.ended {
		return
	}
	p.state.Pages++
	p.state.Records += records
	p.state.Cached = int(p.cached.Load())
	p.state.Elapsed = time.Since(p.started)
	p.report(p.state)
}

func (p *progressTracker) end() {
	if p == nil || p.ended {
		return
	}
	p.ended = true
	p.state.Done = true
	p.state.Elapsed = time.Since(p.started)
	p.report(p.state)
}
