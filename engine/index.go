package engine

import (
	"context"

	"github.com/airsql/airsql/sqlvalue"
	"github.com/airsql/airsql/translate"
)

// Indexer is a Source that holds its tables' rows in memory in versions that never change once
// made (the replica: each change to a copy makes a new version). A join step that would build a
// hash table of such a table's rows asks for the version's index on its key instead: the index
// is built once per version and column, by the engine (BuildHashIndex, so that its keys are the
// join's), and shared by every statement that reads that version, however many run at once. The
// plan holds no index: it belongs to the source's version.
type Indexer interface {
	// Index returns the index named column (translate.JoinKey.InnerColumn) of the version of
	// plan's table that a scan of plan would read now, calling build with that version's rows
	// the first time; ok is false when the source cannot index this scan (the statement then
	// builds its own hash table from the scan).
	Index(ctx context.Context, plan *translate.Plan, column string, build func(rows []translate.Row) (*HashIndex, error)) (idx *HashIndex, ok bool, err error)
}

// HashIndex is one version of a table's rows by the values of one key, encoded with
// sqlvalue.AppendKey as a join's hash table is (NULL and an empty link are in no entry). It is
// never changed once built: statements read it side by side.
type HashIndex struct {
	byKey map[string][]*translate.Row
	rows  int // the rows of the version, indexed or not (what a hash table would hold)
}

// BuildHashIndex indexes rows by key's inner values. The entries point into rows, which the
// caller must keep unchanged for as long as the index is used.
func BuildHashIndex(rows []translate.Row, key translate.JoinKey) (*HashIndex, error) {
	idx := &HashIndex{byKey: make(map[string][]*translate.Row, len(rows)), rows: len(rows)}
	var buf []byte
	for i := range rows {
		r := &rows[i]
		vals, err := key.InnerValues(r)
		if err != nil {
			return nil, err
		}
		for _, v := range vals {
			buf = sqlvalue.AppendKey(buf[:0], v)
			idx.byKey[string(buf)] = append(idx.byKey[string(buf)], r)
		}
	}
	return idx, nil
}

// Rows is how many rows the indexed version holds.
func (x *HashIndex) Rows() int { return x.rows }
