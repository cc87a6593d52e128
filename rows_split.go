package airsql

import (
	"context"

	"github.com/airsql/airsql/translate"
	"github.com/airsql/airsql/transport"
)

// startPlanList runs a plan's list request(s) (translate's Plan contract): one listing, or for a
// plan split on a nullable ORDER BY key (plan.Split) two — the blank rows' listing before the
// main one when ascending (MySQL puts NULLs first), after it when descending — the second only
// while the first has given fewer than Limit records, with maxRecords lowered to what is left.
// Split plans are exact, so records counted here are rows.
func startPlanList(ctx context.Context, table *transport.Table, plan *translate.Plan, pageSize int) *recordSource {
	main := listOptions(plan, pageSize)
	// Each listing's records are decoded into cells, in the order of the fields it returns (the
	// schema's when it asks for all), with no map per record.
	type listing struct {
		opts   transport.ListOptions
		names  []string
		layout *translate.Layout
	}
	listingOf := func(opts transport.ListOptions, req translate.Request) listing {
		names := plan.Table.ReturnedFields(req)
		return listing{opts: opts, names: names, layout: translate.NewLayout(names)}
	}
	list := func(ctx context.Context, l listing, send func(sourcePage) bool) (records int, ok bool) {
		// A sorted listing that turns out latency-bound is read as partitions merged in the plan's
		// order (pushed sorts are number and date keys, which the service orders as SQL does).
		cmp := func(a, b *transport.Record) int {
			return plan.Compare(rowOf(a, l.layout), rowOf(b, l.layout))
		}
		for recs, err := range table.IterateCells(ctx, l.opts, l.names, cmp) {
			if !send(sourcePage{records: recs, layout: l.layout, err: err}) || err != nil {
				return records, false
			}
			records += len(recs)
		}
		return records, true
	}
	if plan.Split == nil {
		only := listingOf(main, plan.Request)
		return startSource(ctx, func(ctx context.Context, send func(sourcePage) bool) {
			list(ctx, only, send)
		})
	}
	blanks := listingOf(listOptions(&translate.Plan{Table: plan.Table, Request: plan.Split.Blanks}, pageSize), plan.Split.Blanks)
	first, second := listingOf(main, plan.Request), blanks
	if plan.Split.BlanksFirst {
		first, second = blanks, first
	}
	return startSource(ctx, func(ctx context.Context, send func(sourcePage) bool) {
		got, ok := list(ctx, first, send)
		if !ok {
			return
		}
		if plan.Limit >= 0 {
			if got >= plan.Limit {
				return
			}
			second.opts.MaxRecords = plan.Limit - got
			second.opts.PageSize = min(pageSize, second.opts.MaxRecords)
		}
		list(ctx, second, send)
	})
}
