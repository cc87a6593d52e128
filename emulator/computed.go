package emulator

import (
	"fmt"
	"math"
	"regexp"
	"strings"
	"time"
)

// emulatorUser is the collaborator shown in createdBy and lastModifiedBy fields.
var emulatorUser = map[string]any{"id": "usrEMULATOR000001", "email": "emulator@airsql.invalid", "name": "Emulator"}

// maxComputeDepth stops computed fields that refer to each other in a cycle.
const maxComputeDepth = 16

var errorCell = map[string]any{"error": "#ERROR!"}
var nanCell = map[string]any{"specialValue": "NaN"}

// cellValue is the value of fl in r as the API returns it (cellFormat=json); nil when empty.
// Computed fields are computed here, from the current data. The caller holds s.mu.
func (s *Server) cellValue(t *table, r *record, fl *field, depth int) any {
	if !fl.computed() {
		return r.cells[fl.ID]
	}
	if depth > maxComputeDepth {
		return errorCell
	}
	switch fl.Type {
	case "autoNumber":
		return float64(r.autoNumber)
	case "createdTime":
		return formatComputedTime(fl, r.created)
	case "lastModifiedTime":
		// Watching some fields, it is the last change of one of them (blank before any); else the
		// record's last change.
		if watched, _ := fl.Options["referencedFieldIds"].([]any); len(watched) > 0 {
			rv := recordView{s: s, t: t, r: r}
			var latest time.Time
			for _, id := range watched {
				sid, _ := id.(string)
				if wf := t.fieldByID[sid]; wf != nil {
					if ft := rv.FieldModifiedTime(toFormulaField(wf)); ft.After(latest) {
						latest = ft
					}
				}
			}
			if latest.IsZero() {
				return nil
			}
			return formatComputedTime(fl, latest)
		}
		return formatComputedTime(fl, r.modified)
	case "createdBy":
		return emulatorUser
	case "lastModifiedBy":
		if !r.byAPI {
			return nil
		}
		return emulatorUser
	case "button":
		label := optString(fl.Options, "label")
		if label == "" {
			label = fl.Name
		}
		var url any
		if u := optString(fl.Options, "url"); u != "" {
			url = u
		}
		return map[string]any{"label": label, "url": url}
	case "count":
		lf := t.fieldByID[optString(fl.Options, "recordLinkFieldId")]
		if lf == nil {
			return errorCell
		}
		ids, _ := r.cells[lf.ID].([]any)
		return float64(len(ids))
	case "multipleLookupValues":
		vals, ok := s.lookupValues(t, r, fl, depth)
		if !ok {
			return errorCell
		}
		if len(vals) == 0 {
			return nil
		}
		return vals
	case "rollup":
		vals, ok := s.lookupValues(t, r, fl, depth)
		if !ok {
			return errorCell
		}
		return fl.rollup.apply(vals)
	case "formula":
		prog, err := s.formulas.compile(t, optString(fl.Options, "formula"))
		if err != nil {
			return errorCell
		}
		return prog.eval(recordView{s: s, t: t, r: r, depth: depth + 1})
	}
	return nil // externalSyncSource, aiText: nothing to compute in an emulator
}

func formatComputedTime(fl *field, t time.Time) any {
	if res, ok := fl.Options["result"].(map[string]any); ok && res["type"] == "date" {
		return t.Format("2006-01-02")
	}
	return t.Format(timeFormat)
}

// lookupPath is what a lookup, rollup (or count) fl of t reads: its link field, the linked table
// and the field read there; ok is false when one of them no longer exists.
func lookupPath(t *table, fl *field) (link *field, linked *table, target *field, ok bool) {
	link = t.fieldByID[optString(fl.Options, "recordLinkFieldId")]
	if link == nil {
		return nil, nil, nil, false
	}
	linked = t.base.tableByID[link.linkedTableID()]
	if linked == nil {
		return nil, nil, nil, false
	}
	target = linked.fieldByID[optString(fl.Options, "fieldIdInLinkedTable")]
	return link, linked, target, target != nil
}

// lookupValues is the flat array of the looked-up field's values over the linked records.
func (s *Server) lookupValues(t *table, r *record, fl *field, depth int) ([]any, bool) {
	lf, lt, target, ok := lookupPath(t, fl)
	if !ok {
		return nil, false
	}
	ids, _ := r.cells[lf.ID].([]any)
	var out []any
	for _, id := range ids {
		sid, _ := id.(string)
		lr := lt.recByID[sid]
		if lr == nil {
			continue
		}
		v := s.cellValue(lt, lr, target, depth+1)
		if list, ok := v.([]any); ok {
			out = append(out, list...)
		} else if !isEmptyCell(v) {
			out = append(out, v)
		}
	}
	return out, true
}

// rollupFunc is a rollup field's aggregation, "FUNC(values)" or "ARRAYJOIN(values, sep)".
type rollupFunc struct {
	name string
	sep  string
}

var rollupRe = regexp.MustCompile(`^\s*([A-Za-z]+)\s*\(\s*values\s*(?:,\s*(?:"((?:[^"\\]|\\.)*)"|'((?:[^'\\]|\\.)*)')\s*)?\)\s*$`)

var rollupNames = map[string]bool{"SUM": true, "AVERAGE": true, "MIN": true, "MAX": true, "COUNT": true,
	"COUNTA": true, "COUNTALL": true, "ARRAYJOIN": true, "ARRAYUNIQUE": true, "ARRAYCOMPACT": true,
	"CONCATENATE": true, "AND": true, "OR": true, "XOR": true}

func parseRollup(src string) (rollupFunc, error) {
	m := rollupRe.FindStringSubmatch(src)
	if m == nil {
		return rollupFunc{}, fmt.Errorf("rollup formula %q is not FUNC(values) or ARRAYJOIN(values, \"sep\")", src)
	}
	name := strings.ToUpper(m[1])
	if !rollupNames[name] {
		return rollupFunc{}, fmt.Errorf("rollup function %s is not supported (supported: SUM, AVERAGE, MIN, MAX, COUNT, COUNTA, COUNTALL, ARRAYJOIN, ARRAYUNIQUE, ARRAYCOMPACT, CONCATENATE, AND, OR, XOR)", name)
	}
	sep := ", "
	if m[2] != "" || m[3] != "" {
		sep = m[2] + m[3]
	}
	return rollupFunc{name: name, sep: sep}, nil
}

// apply computes the rollup over the linked records' values.
func (rf rollupFunc) apply(vals []any) any {
	switch rf.name {
	case "SUM", "AVERAGE", "MIN", "MAX", "COUNT":
		return rf.numeric(numbersOf(vals))
	case "COUNTA":
		n := 0
		for _, v := range vals {
			if !isEmptyCell(v) {
				n++
			}
		}
		return float64(n)
	case "COUNTALL":
		return float64(len(vals))
	case "ARRAYJOIN", "CONCATENATE":
		sep := rf.sep
		if rf.name == "CONCATENATE" {
			sep = ""
		}
		parts := make([]string, 0, len(vals))
		for _, v := range vals {
			parts = append(parts, stringify(v))
		}
		if s := strings.Join(parts, sep); s != "" {
			return s
		}
		return nil
	case "ARRAYUNIQUE", "ARRAYCOMPACT":
		return rf.array(vals)
	case "AND", "OR", "XOR":
		return rf.logical(vals)
	}
	return errorCell
}

// numbersOf is the values that are numbers.
func numbersOf(vals []any) []float64 {
	var out []float64
	for _, v := range vals {
		if n, ok := v.(float64); ok {
			out = append(out, n)
		}
	}
	return out
}

// numeric computes SUM, AVERAGE (NaN over no number), MIN and MAX (0 over none) or COUNT.
func (rf rollupFunc) numeric(ns []float64) any {
	switch rf.name {
	case "SUM":
		sum := 0.0
		for _, n := range ns {
			sum += n
		}
		return sum
	case "AVERAGE":
		if len(ns) == 0 {
			return nanCell
		}
		sum := 0.0
		for _, n := range ns {
			sum += n
		}
		return sum / float64(len(ns))
	case "MIN", "MAX":
		if len(ns) == 0 {
			return 0.0
		}
		best := ns[0]
		for _, n := range ns[1:] {
			if rf.name == "MIN" {
				best = math.Min(best, n)
			} else {
				best = math.Max(best, n)
			}
		}
		return best
	}
	return float64(len(ns)) // COUNT
}

// array computes ARRAYCOMPACT (blanks dropped, false kept) or ARRAYUNIQUE (repeats dropped too).
func (rf rollupFunc) array(vals []any) any {
	var out []any
	seen := map[string]bool{}
	for _, v := range vals {
		if isEmptyCell(v) && v != false {
			continue
		}
		k := fmt.Sprintf("%T:%v", v, v)
		if rf.name == "ARRAYUNIQUE" && seen[k] {
			continue
		}
		seen[k] = true
		out = append(out, v)
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// logical computes AND, OR or XOR of the values' truth; false is an empty cell.
func (rf rollupFunc) logical(vals []any) any {
	trues := 0
	for _, v := range vals {
		if truthy(v) {
			trues++
		}
	}
	var res bool
	switch rf.name {
	case "AND":
		res = len(vals) > 0 && trues == len(vals)
	case "OR":
		res = trues > 0
	default:
		res = trues%2 == 1
	}
	if res {
		return true
	}
	return nil
}

func truthy(v any) bool {
	switch x := v.(type) {
	case nil:
		return false
	case bool:
		return x
	case float64:
		return x != 0 && !math.IsNaN(x)
	case string:
		return x != ""
	case []any:
		return len(x) > 0
	}
	return true
}

// recordFields is the record's "fields" object: every non-empty field (computed ones included),
// narrowed to only when it is non-nil, keyed by id when byID.
func (s *Server) recordFields(t *table, r *record, only []*field, byID bool) map[string]any {
	out := map[string]any{}
	list := t.fields
	if only != nil {
		list = only
	}
	for _, fl := range list {
		v := s.cellValue(t, r, fl, 0)
		if isEmptyCell(v) {
			continue
		}
		if byID {
			out[fl.ID] = v
		} else {
			out[fl.Name] = v
		}
	}
	return out
}
