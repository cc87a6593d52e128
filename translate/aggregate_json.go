package translate

import (
	"fmt"

	"github.com/airsql/airsql/sqlvalue"
)

// jsonAggregates are the JSON aggregates, which the grammar's list of aggregates lacks.
var jsonAggregates = map[string]bool{"json_arrayagg": true, "json_objectagg": true}

// jsonArrayAcc is JSON_ARRAYAGG(x): the rows' values as a JSON array in the order the rows come,
// a NULL as null (MySQL keeps them); NULL for no rows.
type jsonArrayAcc struct {
	a     *Aggregate
	items []any
}

func (j *jsonArrayAcc) Add(r *Row) (int, error) {
	v, err := j.a.args[0].eval(r)
	if err != nil {
		return 0, err
	}
	item, err := sqlvalue.JSONOfValue(argOf(j.a.args[0]), v)
	if err != nil {
		return 0, err
	}
	j.items = append(j.items, item)
	return 1, nil
}

func (j *jsonArrayAcc) Result() any {
	if j.items == nil {
		return nil
	}
	return sqlvalue.JSONFormat(j.items)
}

// jsonObjectAcc is JSON_OBJECTAGG(key, value): an object of the rows' pairs, the last value of a
// repeated key winning; a NULL key is MySQL's error 3158; NULL for no rows.
type jsonObjectAcc struct {
	a   *Aggregate
	obj map[string]any
}

func (j *jsonObjectAcc) Add(r *Row) (int, error) {
	k, err := j.a.args[0].eval(r)
	if err != nil {
		return 0, err
	}
	if k == nil {
		return 0, &JSONError{Code: 3158, Msg: fmt.Sprintf("JSON documents may not contain NULL member names (%s)", j.a.SQL)}
	}
	v, err := j.a.args[1].eval(r)
	if err != nil {
		return 0, err
	}
	val, err := sqlvalue.JSONOfValue(argOf(j.a.args[1]), v)
	if err != nil {
		return 0, err
	}
	if j.obj == nil {
		j.obj = map[string]any{}
	}
	key := valueText(j.a.args[0], k)
	_, had := j.obj[key]
	j.obj[key] = val
	if had {
		return 0, nil
	}
	return 1, nil
}

func (j *jsonObjectAcc) Result() any {
	if j.obj == nil {
		return nil
	}
	return sqlvalue.JSONFormat(j.obj)
}
