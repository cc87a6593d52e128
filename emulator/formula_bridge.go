package emulator

import (
	"sync"
	"time"

	"github.com/airsql/airsql/formula"
)

// program is a compiled formula: filterByFormula, a view's filter or a formula field.
type program interface {
	match(rv recordView) bool
	eval(rv recordView) any
}

// recordView is one record as a formula reads it.
type recordView struct {
	s     *Server
	t     *table
	r     *record
	depth int
}

// compileFormula compiles src against t's fields (see formulaSchema for how names resolve).
func compileFormula(src string, t *table) (program, error) {
	p, err := formula.Compile(src, formulaSchema{t})
	if err != nil {
		return nil, err
	}
	return compiled{p}, nil
}

type compiled struct{ p *formula.Program }

// Formulas read the environment only (formula.Env is never written), so every evaluation shares
// the server's: a filter over 100,000 records allocates no environment per record.
func (c compiled) match(rv recordView) bool { return c.p.Match(rv, rv.s.formulaEnv) }

func (c compiled) eval(rv recordView) any { return c.p.Eval(rv, rv.s.formulaEnv).Cell() }

// formulaSchema resolves the names in a formula: a field id, then the exact name, then a name
// equal to it ignoring case when only one field has it ([UNCONFIRMED], see README).
type formulaSchema struct{ t *table }

func (fs formulaSchema) LookupField(nameOrID string) (formula.FieldInfo, bool) {
	fl := fs.t.fieldFold(nameOrID)
	if fl == nil {
		return formula.FieldInfo{}, false
	}
	return toFormulaField(fl), true
}

func toFormulaField(fl *field) formula.FieldInfo {
	return formula.FieldInfo{ID: fl.ID, Name: fl.Name, Type: fl.Type, Options: fl.Options}
}

// recordView implements formula.Record.
var (
	_ formula.Record             = recordView{}
	_ formula.FieldModifiedTimer = recordView{}
)

func (rv recordView) RecordID() string            { return rv.r.id }
func (rv recordView) CreatedTime() time.Time      { return rv.r.created }
func (rv recordView) LastModifiedTime() time.Time { return rv.r.modified }

// FieldModifiedTime implements formula.FieldModifiedTimer for LAST_MODIFIED_TIME({Field}): when a
// request last changed the field's value; for a field no request changed, the record's creation when
// it has a value (it has had it since) and never when it is empty. A computed field changes with
// the record, so it reads the record's last modification.
func (rv recordView) FieldModifiedTime(f formula.FieldInfo) time.Time {
	if t, ok := rv.r.fieldModified[f.ID]; ok {
		return t
	}
	fl := rv.t.fieldByID[f.ID]
	switch {
	case fl == nil:
		return time.Time{}
	case fl.computed():
		return rv.r.modified
	case isEmptyCell(rv.r.cells[fl.ID]):
		return time.Time{}
	}
	return rv.r.created
}

// Cell is the field's value as a formula operand: a link reads as its records' primary values.
func (rv recordView) Cell(f formula.FieldInfo) formula.Value {
	fl := rv.t.fieldByID[f.ID]
	if fl == nil {
		return formula.Blank()
	}
	v := rv.s.cellValue(rv.t, rv.r, fl, rv.depth)
	if fl.Type == "multipleRecordLinks" && v != nil {
		lt := rv.t.base.tableByID[fl.linkedTableID()]
		ids, _ := v.([]any)
		prim := make([]any, 0, len(ids))
		for _, id := range ids {
			sid, _ := id.(string)
			if lr := lt.recByID[sid]; lr != nil {
				if pv := rv.s.cellValue(lt, lr, lt.primary, rv.depth+1); pv != nil {
					prim = append(prim, pv)
				}
			}
		}
		v = prim
	}
	return formula.FromCell(f, v)
}

const maxCachedFormulas = 4096

// formulaCache keeps compiled formulas (formula fields, view filters, filterByFormula), keyed by
// table and source text.
type formulaCache struct {
	mu    sync.Mutex
	progs map[string]program
}

func (c *formulaCache) init() { c.progs = map[string]program{} }

// reset forgets every compiled formula (after tables were rebuilt).
func (c *formulaCache) reset() {
	c.mu.Lock()
	c.progs = map[string]program{}
	c.mu.Unlock()
}

// compile compiles src against t once; later calls with the same table and text reuse it.
func (c *formulaCache) compile(t *table, src string) (program, error) {
	key := t.base.id + "/" + t.id + "\x00" + src
	c.mu.Lock()
	p, ok := c.progs[key]
	c.mu.Unlock()
	if ok {
		return p, nil
	}
	p, err := compileFormula(src, t)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	if len(c.progs) >= maxCachedFormulas { // many distinct filterByFormula: start over
		c.progs = map[string]program{}
	}
	c.progs[key] = p
	c.mu.Unlock()
	return p, nil
}

// inferResult guesses a formula field's options.result when a fixture gives none, from the kind
// of value the formula yields on a record whose fields are all blank: clients (and the SQL driver)
// type the column from it. It returns nil when the kind says nothing (blank, array, error).
func inferResult(p *formula.Program) map[string]any {
	switch p.Eval(nil, nil).Kind() {
	case formula.KindNumber:
		return map[string]any{"type": "number"}
	case formula.KindText:
		return map[string]any{"type": "singleLineText"}
	case formula.KindBool:
		return map[string]any{"type": "checkbox"}
	case formula.KindDate:
		return map[string]any{"type": "date"}
	case formula.KindDateTime:
		return map[string]any{"type": "dateTime"}
	}
	return nil
}
