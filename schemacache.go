package airsql

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"time"

	"github.com/airsql/airsql/transport"
)

// The persistent schema cache (DSN key schemaCache): the base schema in a file under the user's
// cache directory, so that a new process plans its first statement without the schema request
// (which, with the list request after it, doubled the time to the first row). The file's name is
// a hash of the endpoint, the base and the token — a token that cannot read the schema must not
// read it from the cache — and the file holds the schema and when it was fetched, never the
// token. It is written to a temporary file and renamed, so a reader sees a whole file or none.

// schemaFile is the content of a cache file.
type schemaFile struct {
	FetchedAt time.Time             `json:"fetchedAt"`
	Schema    *transport.BaseSchema `json:"schema"`
}

// schemaCacheDir is where the files go; tests replace it.
var schemaCacheDir = func() string {
	d, err := os.UserCacheDir()
	if err != nil || d == "" {
		return ""
	}
	return filepath.Join(d, "airsql", "schema")
}

// schemaCachePath names the file of an endpoint, base and token ("" when there is no cache
// directory).
func schemaCachePath(endpoint, base, token string) string {
	dir := schemaCacheDir()
	if dir == "" {
		return ""
	}
	sum := sha256.Sum256([]byte("airsql schema\x00" + endpoint + "\x00" + base + "\x00" + token))
	return filepath.Join(dir, hex.EncodeToString(sum[:16])+".json")
}

// readSchemaFile returns the cached schema when the file exists, reads as one, and was
// fetched less than ttl before now.
func readSchemaFile(path string, now time.Time, ttl time.Duration) (*transport.BaseSchema, time.Time, bool) {
	if path == "" {
		return nil, time.Time{}, false
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, time.Time{}, false
	}
	var f schemaFile
	if json.Unmarshal(data, &f) != nil || f.Schema == nil {
		return nil, time.Time{}, false
	}
	if age := now.Sub(f.FetchedAt); age < 0 || age >= ttl {
		return nil, time.Time{}, false
	}
	return f.Schema, f.FetchedAt, true
}

// writeSchemaFile stores the schema; a failure only means the next process fetches it again.
func writeSchemaFile(path string, s *transport.BaseSchema, fetchedAt time.Time) {
	if path == "" {
		return
	}
	data, err := json.Marshal(schemaFile{FetchedAt: fetchedAt, Schema: s})
	if err != nil {
		return
	}
	if os.MkdirAll(filepath.Dir(path), 0o700) != nil {
		return
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".schema-*")
	if err != nil {
		return
	}
	_, werr := tmp.Write(data)
	cerr := tmp.Close()
	if werr != nil || cerr != nil || os.Rename(tmp.Name(), path) != nil {
		os.Remove(tmp.Name())
	}
}

// removeSchemaFile forgets a stale schema.
func removeSchemaFile(path string) {
	if path != "" {
		os.Remove(path)
	}
}
