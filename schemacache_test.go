package airsql

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/airsql/airsql/emulator"
	"github.com/airsql/airsql/transport"
)

// useSchemaCacheDir points the persistent schema cache at a directory of the test's.
func useSchemaCacheDir(t *testing.T) string {
	dir := t.TempDir()
	old := schemaCacheDir
	schemaCacheDir = func() string { return dir }
	t.Cleanup(func() { schemaCacheDir = old })
	return dir
}

func metaRequests(srv *emulator.Server) int {
	n := 0
	for _, r := range srv.Requests() {
		if strings.HasPrefix(r.Path, "/v0/meta/") {
			n++
		}
	}
	return n
}

// TestSchemaCacheSurvivesTheConnector: a second connector (a new process) with schemaCache reads
// the schema from the file and sends only the list request; the file holds no token.
func TestSchemaCacheSurvivesTheConnector(t *testing.T) {
	dir := useSchemaCacheDir(t)
	srv := newEmulator(t)
	first, _ := openDB(t, srv, "schemaCache=1h")
	queryColumn(t, first, "SELECT Name FROM Tasks LIMIT 1")
	if n := metaRequests(srv); n != 1 {
		t.Fatalf("first connector: %d schema requests, want 1", n)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	if len(files) != 1 {
		t.Fatalf("cache files %v, want one", files)
	}
	data, _ := os.ReadFile(files[0])
	if strings.Contains(string(data), emulator.DefaultToken) || strings.Contains(files[0], emulator.DefaultToken) {
		t.Fatal("the schema cache file holds the token")
	}
	srv.ResetRequests()
	second, _ := openDB(t, srv, "schemaCache=1h")
	queryColumn(t, second, "SELECT Name FROM Tasks LIMIT 1")
	if n, all := metaRequests(srv), len(srv.Requests()); n != 0 || all != 1 {
		t.Errorf("second connector: %d schema requests of %d, want only the list request", n, all)
	}
	// Without the key, nothing is read from the file.
	srv.ResetRequests()
	third, _ := openDB(t, srv, "")
	queryColumn(t, third, "SELECT Name FROM Tasks LIMIT 1")
	if n := metaRequests(srv); n != 1 {
		t.Errorf("without schemaCache: %d schema requests, want 1", n)
	}
}

// TestSchemaCacheInvalidatedByUnknownField: a cached schema naming a field the base no longer has
// makes the service refuse the request; the next statement fetches the schema again.
func TestSchemaCacheInvalidatedByUnknownField(t *testing.T) {
	useSchemaCacheDir(t)
	srv := newEmulator(t)
	db, c := openDB(t, srv, "schemaCache=1h")
	// A schema of the past: Notes was called Remarks.
	real, err := c.base.Schema(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	stale := *real
	stale.Tables = append([]transport.TableSchema(nil), real.Tables...)
	for i, tb := range stale.Tables {
		if tb.Name == "Tasks" {
			tb.Fields = append([]transport.FieldSchema(nil), tb.Fields...)
			for j := range tb.Fields {
				if tb.Fields[j].Name == "Notes" {
					tb.Fields[j].Name = "Remarks"
				}
			}
			stale.Tables[i] = tb
		}
	}
	writeSchemaFile(c.schemaFile, &stale, c.clock.Now())
	other, _ := openDB(t, srv, "schemaCache=1h")
	srv.ResetRequests()
	rows, err := other.Query("SELECT Remarks FROM Tasks")
	if err == nil {
		for rows.Next() {
		}
		err = rows.Err()
		rows.Close()
	}
	if err == nil {
		t.Fatal("a field the base does not have was read without error")
	}
	if n := metaRequests(srv); n != 0 {
		t.Fatalf("the stale schema was not used from the file (%d schema requests)", n)
	}
	srv.ResetRequests()
	got := queryColumn(t, other, "SELECT Notes FROM Tasks WHERE Notes IS NOT NULL LIMIT 1")
	if n := metaRequests(srv); n != 1 || len(got) != 1 {
		t.Errorf("after the refusal: %d schema requests and %d rows, want 1 and 1", n, len(got))
	}
	// The file was rewritten with the fresh schema.
	data, _ := os.ReadFile(c.schemaFile)
	var f schemaFile
	if json.Unmarshal(data, &f) != nil || strings.Contains(string(data), "Remarks") {
		t.Error("the stale schema is still in the file")
	}
	_ = db
}

// TestSchemaCacheNewColumn: a column added after the schema was cached (in the file) is found:
// a statement the cached schema cannot plan is planned again against a fresh one.
func TestSchemaCacheNewColumn(t *testing.T) {
	useSchemaCacheDir(t)
	srv := newEmulator(t)
	_, c := openDB(t, srv, "schemaCache=1h")
	real, err := c.base.Schema(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	// A schema of the past, an hour old by now, before Notes existed.
	old := *real
	old.Tables = append([]transport.TableSchema(nil), real.Tables...)
	for i, tb := range old.Tables {
		if tb.Name == "Tasks" {
			tb.Fields = slices.DeleteFunc(slices.Clone(tb.Fields), func(f transport.FieldSchema) bool { return f.Name == "Notes" })
			old.Tables[i] = tb
		}
	}
	writeSchemaFile(c.schemaFile, &old, c.clock.Now().Add(-59*time.Minute))
	db, _ := openDB(t, srv, "schemaCache=1h")
	srv.ResetRequests()
	got := queryColumn(t, db, "SELECT Notes FROM Tasks WHERE Notes IS NOT NULL LIMIT 1")
	if n := metaRequests(srv); n != 1 || len(got) != 1 {
		t.Errorf("%d schema requests and %d rows, want 1 and 1", n, len(got))
	}
}
