package airsql

import (
	"context"
	"iter"

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
	// A sorted listing that turns out latency-bound is read as partitions merged in the plan's
	// order (pushed sorts are number and date keys, which the service orders as SQL does).
	cmp := func(a, b *transport.Record) int {
		return plan.Compare(translate.Row{ID: a.ID, CreatedTime: a.CreatedTime, Fields: a.Fields},
			translate.Row{ID: b.ID, CreatedTime: b.CreatedTime, Fields: b.Fields})
	}
	list := func(ctx context.Context, opts transport.ListOptions) iter.Seq2[[]transport.Record, error] {
		return table.IterateMerged(ctx, opts, cmp)
	}
	if plan.Split == nil {
		return startSource(ctx, func(ctx context.Context, send func(sourcePage) bool) {
			for records, err := range list(ctx, main) {
				if !send(sourcePage{records: records, err: err}) || err != nil {
					return
				}
			}
		})
	}
	blanks := listOptions(&translate.Plan{Table: plan.Table, Request: plan.Split.Blanks}, pageSize)
	first, second := main, blanks
	if plan.Split.BlanksFirst {
		first, second = blanks, main
	}
	return startSource(ctx, func(ctx context.Context, send func(sourcePage) bool) {
		got := 0
		for records, err := range list(ctx, first) {
			if !send(sourcePage{records: records, err: err}) || err != nil {
				return
			}
			got += len(records)
		}
		if plan.Limit >= 0 {
			if got >= plan.Limit {
				return
			}
			second.MaxRecords = plan.Limit - got
			second.PageSize = min(pageSize, second.MaxRecords)
		}
		for records, err := range list(ctx, second) {
			if !send(sourcePage{records: records, err: err}) || err != nil {
				return
			}
		}
	})
}
