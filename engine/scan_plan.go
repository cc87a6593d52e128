package engine

import (
	"fmt"

	"github.com/airsql/airsql/translate"
)

// BuildScan turns one table's request — the search of an UPDATE or DELETE (translate's
// UpdatePlan.Find, DeletePlan.Find) — into its operators: no request for NoRows; the request
// (GETs by id for RecordIDs, else one listing), with the plan's Keep on every record when the
// request selects a superset. The rows are the records (ID, CreatedTime, Fields).
func BuildScan(plan *translate.Plan, opts Options) (Operator, error) {
	if plan.SortLocally || plan.Limit >= 0 {
		// translate refuses ORDER BY and LIMIT in UPDATE and DELETE: a search has neither.
		return nil, fmt.Errorf("engine: the search of %s has an ORDER BY or LIMIT, which only a Query runs", plan.Table.Name)
	}
	if plan.NoRows {
		return &valuesOp{name: "no rows and no request"}, nil
	}
	if opts.env == nil {
		opts.env = translate.NewEnv()
	}
	return tableInput(plan, opts, &Budget{Limit: opts.MaxRows})
}
