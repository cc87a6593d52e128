// Package ormtest runs the documented forms of GORM, goqu, squirrel and sqlx against the driver
// and the in-process emulator, asserting the rows and the requests sent.
//
// It is a module of its own so that the query builders it tests (goqu, squirrel) stay out of
// the driver's go.mod: users of github.com/airsql/airsql do not inherit them. It replaces the
// driver with the working tree (../..), so it always tests the code beside it; .ci/run runs it.
package ormtest
