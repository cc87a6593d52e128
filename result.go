package airsql

import "database/sql/driver"

// result is the outcome of an INSERT, UPDATE or DELETE.
type result struct{ affected int64 }

// result implements driver.Result.
var _ driver.Result = result{}

// LastInsertId is 0, as MySQL answers for a table without an AUTO_INCREMENT column: Airtable's
// record ids are strings, which it cannot carry. It never fails, so that a write that succeeded is
// not reported as failed (GORM calls it after every Create without RETURNING, and an application
// that retried would create the records twice). Run the INSERT with QueryContext to get the
// created rows, id included.
func (r result) LastInsertId() (int64, error) { return 0, nil }

// RowsAffected is the number of records created, updated or deleted.
func (r result) RowsAffected() (int64, error) { return r.affected, nil }
