package syncdb

import (
	"fmt"
	"strings"
	"time"

	"github.com/airsql/airsql/translate"
	"github.com/xwb1989/sqlparser"
)

// shape types a table's cells as the driver does: it is the query SELECT * FROM the table, whose
// columns are what the driver announces and whose outputs convert a record's API values to them.
type shape struct {
	plan    *translate.Query
	byField map[string]int // field id -> the plan's output column
	names   map[string]string
}

// oneTable is a translate.Schema of one table.
type oneTable struct{ t *translate.Table }

func (s oneTable) Table(nameOrID string) (*translate.Table, bool) {
	if nameOrID == s.t.ID || strings.EqualFold(nameOrID, s.t.Name) {
		return s.t, true
	}
	return nil, false
}

// shapeOf plans SELECT * over a table's fields.
func shapeOf(t *translate.Table) (*shape, error) {
	ast, err := translate.Parse("SELECT * FROM `" + strings.ReplaceAll(t.ID, "`", "``") + "`")
	if err != nil {
		return nil, err
	}
	sel, ok := ast.(*sqlparser.Select)
	if !ok {
		return nil, fmt.Errorf("syncdb: internal: SELECT * is not a SELECT")
	}
	plan, err := translate.NewQuery(sel, oneTable{t}, translate.Args{})
	if err != nil {
		return nil, fmt.Errorf("type the columns of %s: %w", t.Name, err)
	}
	sh := &shape{plan: plan, byField: map[string]int{}, names: map[string]string{}}
	for i, c := range plan.Columns {
		if c.Field != nil {
			sh.byField[c.Field.ID] = i
		}
	}
	for _, f := range t.Fields {
		sh.names[f.ID] = f.Name
	}
	return sh, nil
}

// dbType is the DatabaseType of a field's column ("TEXT" for a field the plan does not show).
func (sh *shape) dbType(fieldID string) string {
	if i, ok := sh.byField[fieldID]; ok {
		return sh.plan.Columns[i].DatabaseType
	}
	return "TEXT"
}

// values converts cells (by field id, API forms) to driver values by field id. Only the fields
// given are in the result (a cell absent from cells is typed as an empty cell would be when
// all is set).
func (sh *shape) values(id string, created time.Time, cells map[string]any, all bool) (map[string]any, error) {
	byName := make(map[string]any, len(cells))
	for fid, v := range cells {
		if v != nil {
			byName[sh.names[fid]] = v
		}
	}
	row := translate.Row{ID: id, CreatedTime: created, Fields: byName}
	out := make(map[string]any, len(sh.byField))
	for fid, i := range sh.byField {
		if _, given := cells[fid]; given || all {
			v, err := sh.plan.Outputs[i].Value(&row)
			if err != nil {
				return nil, fmt.Errorf("record %s: %w", id, err)
			}
			out[fid] = v
		}
	}
	return out, nil
}
