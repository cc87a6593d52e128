package engine

import (
	"fmt"

	"github.com/airsql/airsql/translate"
)

// Sizer is what a Source may know of a request's cost, from the table sizes learnt by earlier
// whole-table scans or COUNT(*). A bind join and an IN subquery's pushed values use it to choose
// between pushing keys and scanning (bindCost).
type Sizer interface {
	// Requests is the list requests plan takes at most (0: its rows are held already).
	Requests(plan *translate.Plan) (int, bool)
	// Records is how many records plan's table holds, and how many one list request returns.
	Records(plan *translate.Plan) (records, pageSize int, ok bool)
}

// bindCost is what pushing keys into a table's request is expected to cost, against the scan it
// replaces, in list requests. The bound requests return the records that match the keys: each
// batch (one formula) costs the pages of its keys' matches, at least one. What a key matches:
//
//   - a record id ("id" mode): at most one record;
//   - a field or a link ("field", "link"): the table's records shared among the key's domain,
//     the distinct values of the table the keys come from. That domain is estimated from the keys
//     and the share of the source table they were read from — keys × (source's records ÷ source
//     rows read) — which needs the source table's size; a join key is taken to be a foreign key
//     into it (every record of the table matches one value of the domain).
//
// With the table's size unknown, or the matches per key unknown, only one batch is pushed (it
// costs at most one request more than the scan, however many records it matches); several are
// pushed only when the estimate is below the scan. So what the connector has learnt (a COUNT(*)
// of the table) never makes a statement's plan worse: the pushed requests are the pages of the
// records they return, not the number of formulas.
type bindCost struct {
	keys, batches int
	into, from    string

	scan      int  // requests of the scan of the table the keys narrow
	scanKnown bool // its size is known
	perKey    float64
	perKeyOK  bool // the matches per key are estimated
	bound     int  // requests of the bound listings, estimated (perKeyOK and scanKnown)
}

// estimateBind estimates the cost of pushing keys (distinct values, read from rowsFrom rows of
// fromPlan's table; fromPlan nil: rows of several tables, or unknown) into intoPlan's request in
// batches.
func estimateBind(sizer Sizer, mode string, keys, batches int, intoPlan, fromPlan *translate.Plan, rowsFrom int, into, from string) bindCost {
	c := bindCost{keys: keys, batches: batches, into: into, from: from}
	if sizer == nil {
		return c
	}
	c.scan, c.scanKnown = sizer.Requests(intoPlan)
	records, pageSize, ok := sizer.Records(intoPlan)
	if !ok || !c.scanKnown {
		return c
	}
	if pageSize <= 0 {
		pageSize = 100
	}
	switch {
	case mode == "id":
		c.perKey, c.perKeyOK = min(1, float64(records)/float64(max(1, keys))), true
	case fromPlan != nil && rowsFrom > 0:
		if source, _, ok := sizer.Records(fromPlan); ok && source > 0 {
			domain := float64(keys) * max(1, float64(source)/float64(rowsFrom))
			c.perKey, c.perKeyOK = float64(records)/domain, true
		}
	}
	if !c.perKeyOK {
		return c
	}
	perBatch := c.perKey * float64(keys) / float64(max(1, batches))
	perBatch = min(perBatch, float64(records)) // a batch matches no more than the table
	pages := max(1, int((perBatch+float64(pageSize)-1)/float64(pageSize)))
	c.bound = batches * pages
	return c
}

// push reports whether the keys are pushed: one batch always (at most one request more than the
// scan), several when their estimated requests are fewer than the scan's.
func (c bindCost) push() bool {
	return c.batches <= 1 || c.scanKnown && c.perKeyOK && c.bound < c.scan
}

// String says what was decided and the two estimates (EXPLAIN and tests read it).
func (c bindCost) String() string {
	est := ""
	switch {
	case c.scanKnown && c.perKeyOK:
		est = fmt.Sprintf(": about %d request(s) (%.3g record(s) per key) against %d for a scan of %s", c.bound, c.perKey, c.scan, c.into)
	case c.scanKnown:
		est = fmt.Sprintf(": how many records each key matches is not known (the size of %s is not), against %d request(s) for a scan of %s", c.from, c.scan, c.into)
	default:
		est = fmt.Sprintf(": the size of %s is not known", c.into)
	}
	if c.push() {
		return fmt.Sprintf("%d distinct keys of %s pushed into %s's formula in %d batch(es)%s", c.keys, c.from, c.into, c.batches, est)
	}
	return fmt.Sprintf("not pushed: %d keys take %d batch(es)%s", c.keys, c.batches, est)
}
