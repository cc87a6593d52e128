package airsql

import "database/sql/driver"

// result is the outcome of an INSERT, UPDATE or DELETE.
type result struct{ affected int64 }

// result implements driver.Result.
var _ driver.Result = result{}

// LastInsertId fails with ErrNoLastInsertID: Airtable's record ids are strings. Run the INSERT
// with QueryContext to get the created rows, id included.
func (r result) LastInsertId() (int64, error) { return 0, ErrNoLastInsertID }

// RowsAffected is the number of records created, updated or deleted.
func (r result) RowsAffected() (int64, error) { return r.affected, nil }
