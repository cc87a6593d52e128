// Package translate turns parsed SQL (github.com/xwb1989/sqlparser) into plans the Airtable service
// can answer, plus what must be checked locally. It knows SQL and the formula language, not HTTP: the
// root package runs the plans.
//
// The full description (supported SQL, view syntax, type mapping, pushdown rules) is in README.md.
package translate
