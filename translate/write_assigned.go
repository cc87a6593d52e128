package translate

import (
	"fmt"
	"strings"
)

// An INSERT may name the columns Airtable assigns — id and createdTime — with NULL as the value,
// as MySQL lets an INSERT give NULL for an AUTO_INCREMENT key or a TIMESTAMP with a default: the
// record gets the value Airtable assigns. Query builders and ORMs that list every column of a
// model write such INSERTs. Any other value is refused: Airtable cannot be told an id.

// assignedColumn tells whether name is id or createdTime, and returns its name if so. In an upsert
// (ON DUPLICATE KEY UPDATE) these columns would be merge keys, which Airtable cannot use: the
// usual refusal of writableColumn stands.
func (s *scope) assignedColumn(name string, upsert bool) (string, error) {
	e, err := s.lookupColumn(name)
	if err != nil {
		return "", err
	}
	if upsert || (e.kind != exRecordID && e.kind != exCreatedTime) {
		return "", nil
	}
	if e.kind == exRecordID {
		return "id", nil
	}
	return "createdTime", nil
}

// assignedValue checks the value of an assigned column in VALUES row n: only NULL.
func assignedValue(column string, n int, v any) error {
	if v == nil {
		return nil
	}
	what := "the record id"
	if !strings.EqualFold(column, "id") {
		what = "the record's creation time"
	}
	hint := "write NULL or leave the column out, and Airtable assigns it"
	if s, ok := v.(string); ok && s == "" && strings.EqualFold(column, "id") {
		// GORM sends id = '' for a string primary key it does not know the database assigns;
		// it would then keep '' as the model's id.
		hint += " (in GORM, declare the field ID string `gorm:\"primaryKey;default:(-)\"`: GORM then leaves id out and reads the new id back)"
	}
	return fmt.Errorf("translate: VALUES row %d: column %s is %s, which Airtable assigns; it cannot be given %s: %s",
		n, column, what, describeValue(v), hint)
}

func describeValue(v any) string {
	if s, ok := v.(string); ok {
		return fmt.Sprintf("%q", s)
	}
	return fmt.Sprintf("%v", v)
}
