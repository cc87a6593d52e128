package airsql

import (
	"context"
	"database/sql/driver"
	"errors"
	"io"
	"reflect"
	"strings"

	"github.com/airsql/airsql/translate"
	"github.com/airsql/airsql/transport"
)

// recordSource fetches a plan's records on a goroutine of its own, one page ahead of the reader:
// the channel is unbuffered, so while the reader works through page n the goroutine is already
// fetching page n+1, and it fetches no further until page n+1 is taken. close cancels what is in
// flight and returns only once the goroutine has ended.
type recordSource struct {
	pages  chan sourcePage
	cancel context.CancelFunc
	done   chan struct{}
	ended  bool // the goroutine sent its last page (or an error)
	// stopped is the context's error when the listing ended because its context was cancelled
	// (written before pages is closed): a cancelled listing must end in an error, never look
	// complete to a reader that finds the channel closed.
	stopped error
}

type sourcePage struct {
	records []transport.Record
	layout  *translate.Layout // the records' Cells, when they have them (transport's IterateCells)
	err     error
}

// startGets fetches records by id, one GET each. An id the service does not know is no row.
func startGets(ctx context.Context, table *transport.Table, ids []string) *recordSource {
	return startSource(ctx, func(ctx context.Context, send func(sourcePage) bool) {
		for _, id := range ids {
			rec, err := table.Get(ctx, id)
			if err != nil && isRecordNotFound(err) {
				continue
			}
			var p sourcePage
			if err != nil {
				p.err = err
			} else {
				p.records = []transport.Record{*rec}
			}
			if !send(p) || err != nil {
				return
			}
		}
	})
}

// isRecordNotFound tells an unknown record id from other failures. With personal access tokens
// the service answers an unknown record with 403 INVALID_PERMISSIONS_OR_MODEL_NOT_FOUND; the table
// itself is known to exist (it is in the schema), so that answer means the record is missing.
func isRecordNotFound(err error) bool {
	return errors.Is(err, transport.ErrNotFound) || errors.Is(err, transport.ErrModelNotFound) ||
		errors.Is(err, transport.ErrPermissionsOrNotFound)
}

func startSource(ctx context.Context, run func(ctx context.Context, send func(sourcePage) bool)) *recordSource {
	ctx, cancel := context.WithCancel(ctx)
	s := &recordSource{pages: make(chan sourcePage), cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(s.done)
		run(ctx, func(p sourcePage) bool {
			select {
			case s.pages <- p:
				return true
			case <-ctx.Done():
				return false
			}
		})
		s.stopped = ctx.Err()
		close(s.pages)
	}()
	return s
}

// next returns the next page; io.EOF after the last.
func (s *recordSource) next(ctx context.Context) (sourcePage, error) {
	if s.ended {
		return sourcePage{}, io.EOF
	}
	select {
	case p, ok := <-s.pages:
		if !ok {
			s.ended = true
			if s.stopped != nil {
				return sourcePage{}, s.stopped
			}
			return sourcePage{}, io.EOF
		}
		if p.err != nil {
			s.ended = true
			return sourcePage{}, p.err
		}
		return p, nil
	case <-ctx.Done():
		return sourcePage{}, ctx.Err()
	}
}

// rowOf is a record as the engine reads it: its cells by layout when it has them (the fields
// the layout lacks, if the service returned any, stay in Fields, which Row reads them from).
func rowOf(r *transport.Record, layout *translate.Layout) translate.Row {
	if r.Cells == nil {
		layout = nil
	}
	return translate.Row{ID: r.ID, CreatedTime: r.CreatedTime, Fields: r.Fields, Cells: r.Cells, Layout: layout}
}

func (s *recordSource) close() {
	s.cancel()
	<-s.done
}

// listOptions is the list request of a plan, as sent.
func listOptions(plan *translate.Plan, pageSize int) transport.ListOptions {
	opts := transport.ListOptions{
		View:       plan.Request.View,
		Formula:    plan.Request.Formula,
		Fields:     plan.Request.Fields,
		MaxRecords: plan.Request.MaxRecords,
		PageSize:   pageSize,
	}
	if opts.MaxRecords > 0 && opts.MaxRecords < opts.PageSize {
		opts.PageSize = opts.MaxRecords // one page, no larger than needed
	}
	for _, s := range plan.Request.Sort {
		if s.Desc {
			opts.Sort = append(opts.Sort, "-"+s.Field)
		} else {
			opts.Sort = append(opts.Sort, ascendingSortKey(plan.Table, s.Field))
		}
	}
	return opts
}

// ascendingSortKey names a field for an ascending sort. transport reads a leading "-" as
// descending, so a field whose name starts with "-" is named by its id (the service takes either).
func ascendingSortKey(t *translate.Table, name string) string {
	if !strings.HasPrefix(name, "-") {
		return name
	}
	for _, f := range t.Fields {
		if f.Name == name && f.ID != "" {
			return f.ID
		}
	}
	return name
}

// resultColumns gives a driver.Rows its column names and the column type interfaces.
type resultColumns []translate.Column

func (c resultColumns) Columns() []string {
	names := make([]string, len(c))
	for i, col := range c {
		names[i] = col.Name
	}
	return names
}

func (c resultColumns) ColumnTypeScanType(i int) reflect.Type        { return c[i].ScanType }
func (c resultColumns) ColumnTypeDatabaseTypeName(i int) string      { return c[i].DatabaseType }
func (c resultColumns) ColumnTypeNullable(i int) (nullable, ok bool) { return c[i].Nullable, true }

// staticRows holds a result computed in full before it is returned: SHOW, DESCRIBE, and the
// records written by INSERT, UPDATE or DELETE run with QueryContext.
type staticRows struct {
	resultColumns
	values [][]driver.Value
	pos    int
}

var (
	_ driver.Rows                           = (*staticRows)(nil)
	_ driver.RowsColumnTypeScanType         = (*staticRows)(nil)
	_ driver.RowsColumnTypeDatabaseTypeName = (*staticRows)(nil)
	_ driver.RowsColumnTypeNullable         = (*staticRows)(nil)
)

func (r *staticRows) Close() error { r.pos = len(r.values); return nil }
func (r *staticRows) Next(dest []driver.Value) error {
	if r.pos >= len(r.values) {
		return io.EOF
	}
	copy(dest, r.values[r.pos])
	r.pos++
	return nil
}
