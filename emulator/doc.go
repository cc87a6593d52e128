// Package emulator is a local, in-memory Airtable Web API v0: records (list, get, create, update,
// replace, upsert, delete), record comments, attachment upload, the metadata API (bases, base
// info with collaborators, base schema, create and update of tables and fields, whoami), tokens with scopes, the
// service's limits and error bodies, formula evaluation (package formula) for filterByFormula,
// views and formula fields, and computed fields (lookup, rollup, count, autoNumber, times).
//
// A Server is an http.Handler; Transport and Client serve it in-process, with no port, at
// InProcessURL. Tests control it: a fake clock (WithClock) drives every delay and expiry, faults
// can be injected per route (InjectFault), and every request is recorded (Requests). With
// WithDataFile every acknowledged write is on disk before it is answered.
//
// The command cmd/airtable-emulator serves it on a port. README.md documents the flags, the
// fixture format, the demo base (WithDemo) and each choice made where the real service's
// behaviour is not documented.
package emulator
