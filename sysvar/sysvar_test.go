package sysvar

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// TestVersionID: the number version comments compare with is ServerVersion's.
func TestVersionID(t *testing.T) {
	var major, minor, patch int
	if _, err := fmt.Sscanf(ServerVersion, "%d.%d.%d", &major, &minor, &patch); err != nil {
		t.Fatalf("ServerVersion %q: %v", ServerVersion, err)
	}
	if got, want := VersionID, major*10000+minor*100+patch; got != want {
		t.Errorf("VersionID = %d, want %d (from %s)", got, want, ServerVersion)
	}
}

// TestLookup: names in any case and other names find the variable under its own name; SET's
// checks normalise or refuse with what the variable takes.
func TestLookup(t *testing.T) {
	for _, c := range []struct {
		name, key string
		set       any
		want      any    // the normalised value
		err       string // part of the refusal; "" when accepted
	}{
		{"AUTOCOMMIT", "autocommit", "on", int64(1), ""},
		{"tx_isolation", "transaction_isolation", "read committed", "READ-COMMITTED", ""},
		{"sql_mode", "sql_mode", "traditional,strict_trans_tables", "STRICT_TRANS_TABLES,STRICT_ALL_TABLES,NO_ZERO_IN_DATE,NO_ZERO_DATE,ERROR_FOR_DIVISION_BY_ZERO,NO_ENGINE_SUBSTITUTION", ""},
		{"sql_mode", "sql_mode", "ANSI_QUOTES", nil, "ANSI_QUOTES is not supported"},
		{"time_zone", "time_zone", "+01:00", nil, "only UTC"},
		{"character_set_client", "character_set_client", "latin1", nil, "UTF-8"},
		{"wait_timeout", "wait_timeout", int64(-1), nil, "non-negative"},
	} {
		t.Run(c.name+"="+fmt.Sprint(c.set), func(t *testing.T) {
			key, v, ok := Lookup(c.name)
			if !ok || key != c.key {
				t.Fatalf("Lookup(%q) = %q, %v, want %q", c.name, key, ok, c.key)
			}
			got, err := v.Check(c.set)
			switch {
			case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
				t.Errorf("Check(%v): got %v, %v, want an error with %q", c.set, got, err, c.err)
			case c.err == "" && (err != nil || got != c.want):
				t.Errorf("Check(%v): got %v, %v, want %v", c.set, got, err, c.want)
			}
		})
	}
	if _, v, _ := Lookup("version"); !v.ReadOnly() || v.Default() != ServerVersion {
		t.Errorf("version: read-only %v, default %v, want read-only %s", v.ReadOnly(), v.Default(), ServerVersion)
	}
	if _, _, ok := Lookup("no_such_variable"); ok {
		t.Error("Lookup(no_such_variable) found a variable")
	}
	names := Names()
	if !slices.IsSorted(names) || !slices.Contains(names, "tx_isolation") || !slices.Contains(names, "version") {
		t.Errorf("Names() = %v: want sorted, with aliases", names)
	}
}
