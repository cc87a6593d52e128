package airsql

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"
)

// TestScannerHelpers writes attachments and collaborators with the helper types and reads them back.
func TestScannerHelpers(t *testing.T) {
	srv := newEmulator(t)
	db, _ := openDB(t, srv, "")
	_, err := db.Exec("INSERT INTO `Team Members` (`Full Name`, Photo, Account, Backups) VALUES (?, ?, ?, ?)", "Grace",
		Attachments{{URL: "https://example.com/grace.png", Filename: "grace.png"}},
		Collaborator{Email: "grace@example.com"},
		Collaborators{{Email: "ada@example.com"}, {Email: "alan@example.com"}})
	if err != nil {
		t.Fatal(err)
	}
	var photo Attachments
	var account Collaborator
	var backups Collaborators
	if err := db.QueryRow("SELECT Photo, Account, Backups FROM `Team Members` WHERE `Full Name` = 'Grace'").Scan(&photo, &account, &backups); err != nil {
		t.Fatal(err)
	}
	if len(photo) != 1 || photo[0].Filename != "grace.png" || !strings.HasPrefix(photo[0].ID, "att") || photo[0].URL == "" {
		t.Errorf("photo = %+v", photo)
	}
	if account.Email != "grace@example.com" || !strings.HasPrefix(account.ID, "usr") {
		t.Errorf("account = %+v", account)
	}
	if len(backups) != 2 || backups[0].Email != "ada@example.com" || backups[1].Email != "alan@example.com" {
		t.Errorf("backups = %+v", backups)
	}
	// Keeping an existing attachment by id, NULL scans as empty.
	if _, err := db.Exec("UPDATE `Team Members` SET Photo = ?, Account = NULL WHERE `Full Name` = 'Grace'", Attachments{{ID: photo[0].ID}}); err != nil {
		t.Fatal(err)
	}
	var again Attachments
	account = Collaborator{ID: "stale"}
	if err := db.QueryRow("SELECT Photo, Account FROM `Team Members` WHERE `Full Name` = 'Grace'").Scan(&again, &account); err != nil {
		t.Fatal(err)
	}
	if len(again) != 1 || again[0].ID != photo[0].ID || account != (Collaborator{}) {
		t.Errorf("after update: photo %+v, account %+v", again, account)
	}
}

func TestScanErrors(t *testing.T) {
	var l List
	if err := l.Scan(int64(3)); err == nil || !strings.Contains(err.Error(), "JSON text") {
		t.Errorf("scanning an int64 into List: %v", err)
	}
	if err := l.Scan("[1"); err == nil {
		t.Errorf("scanning bad JSON into List should fail")
	}
	l = List{"stale"}
	if err := l.Scan(nil); err != nil || l != nil {
		t.Errorf("scanning NULL: %v, %v", l, err)
	}
	if err := l.Scan([]byte(`["a","b"]`)); err != nil || !reflect.DeepEqual(l, List{"a", "b"}) {
		t.Errorf("scanning bytes: %v, %v", l, err)
	}
}

func TestBindArg(t *testing.T) {
	type myString string
	type myInts []int
	type tags []string
	day := time.Date(2024, 5, 6, 0, 0, 0, 0, time.UTC)
	str := "x"
	var nilPtr *string
	cases := []struct {
		in      any
		want    any
		wantErr string
	}{
		{nil, nil, ""},
		{"s", "s", ""},
		{[]byte("b"), "b", ""},
		{42, int64(42), ""},
		{int8(-1), int64(-1), ""},
		{uint32(7), int64(7), ""},
		{uint64(1 << 63), nil, "does not fit"},
		{float32(0.5), float64(0.5), ""},
		{true, true, ""},
		{day, day, ""},
		{[]string{"a"}, []string{"a"}, ""},
		{tags{"a", "b"}, []string{"a", "b"}, ""},
		{List{"a"}, []string{"a"}, ""},
		{json.RawMessage(`{"a":1}`), json.RawMessage(`{"a":1}`), ""},
		{json.RawMessage(`{`), nil, "not valid JSON"},
		{myString("m"), "m", ""},
		{&str, "x", ""},
		{nilPtr, nil, ""},
		{Collaborator{ID: "usr1", Email: "e"}, map[string]any{"id": "usr1"}, ""},
		{Attachments{{URL: "u"}, {ID: "att1"}}, []any{map[string]any{"url": "u"}, map[string]any{"id": "att1"}}, ""},
		{myInts{1}, nil, "cannot bind"},
		{struct{}{}, nil, "cannot bind"},
	}
	for _, tc := range cases {
		got, err := bindArg(tc.in)
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("bindArg(%#v) = %v, %v; want an error with %q", tc.in, got, err, tc.wantErr)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("bindArg(%#v) = %#v, %v; want %#v", tc.in, got, err, tc.want)
		}
	}
}

func TestLikeMatch(t *testing.T) {
	cases := []struct {
		pattern, s string
		want       bool
	}{
		{"team%", "Team Members", true},
		{"%members", "Team Members", true},
		{"t_sks", "Tasks", true},
		{"t_sks", "Taasks", false},
		{`50\%`, "50%", true},
		{`50\%`, "500", false},
		{`a\_b`, "a_b", true},
		{`a\_b`, "axb", false},
		{"", "", true},
		{"%", "", true},
		{"Ω%", "ωmega", false}, // only ASCII letters ignore case
	}
	for _, tc := range cases {
		if got := likeMatch(tc.pattern, tc.s); got != tc.want {
			t.Errorf("likeMatch(%q, %q) = %v, want %v", tc.pattern, tc.s, got, tc.want)
		}
	}
}
