package formula

import (
	"encoding/json"
	"math"
	"testing"
	"time"
)

// TestFromCellEveryFieldType converts one cell of each field type of reference §4.4 (values from
// its recorded examples) and checks kind and text.
func TestFromCellEveryFieldType(t *testing.T) {
	tests := []struct {
		typ     string
		options map[string]any
		cell    any
		kind    Kind
		text    string
	}{
		{"singleLineText", nil, "hello", KindText, "hello"},
		{"multilineText", nil, "here is a \nnew line", KindText, "here is a \nnew line"},
		{"email", nil, "a@b.c", KindText, "a@b.c"},
		{"url", nil, "https://x", KindText, "https://x"},
		{"phoneNumber", nil, "(555) 0100", KindText, "(555) 0100"},
		{"richText", nil, "# header\nparagraph\n", KindText, "# header\nparagraph\n"},
		{"number", nil, 42.1, KindNumber, "42.1"},
		{"number", nil, json.Number("0.5"), KindNumber, "0.5"},
		{"currency", nil, 6.5, KindNumber, "6.5"},
		{"percent", nil, 0.123, KindNumber, "0.123"},
		{"checkbox", nil, true, KindBool, "1"},
		{"checkbox", nil, nil, KindBool, "0"},
		{"date", nil, "2022-09-05", KindDate, "2022-09-05"},
		{"dateTime", nil, "2022-09-05T07:00:00.000Z", KindDateTime, "2022-09-05T07:00:00.000Z"},
		{"duration", nil, 4980.0, KindNumber, "4980"},
		{"rating", nil, 4.0, KindNumber, "4"},
		{"singleSelect", nil, "Todo", KindText, "Todo"},
		{"multipleSelects", nil, []any{"Red", "Green"}, KindArray, "Red, Green"},
		{"singleCollaborator", nil, map[string]any{"id": "usrPnLezZNh82BzJC", "email": "e@x", "name": "Brian Leonard"}, KindText, "Brian Leonard"},
		{"multipleCollaborators", nil, []any{map[string]any{"id": "usr1", "email": "e@x"}}, KindArray, "e@x"},
		{"createdBy", nil, map[string]any{"id": "usr1", "name": "Ann"}, KindText, "Ann"},
		{"lastModifiedBy", nil, map[string]any{"id": "usr1"}, KindText, "usr1"},
		{"multipleRecordLinks", nil, []any{"Primary A", 2.0}, KindArray, "Primary A, 2"},
		{"multipleLookupValues", nil, []any{497699.0}, KindArray, "497699"},
		{"multipleLookupValues", nil, []any{2083333.0, 4285248.0}, KindArray, "2083333, 4285248"},
		{"multipleLookupValues", map[string]any{"result": map[string]any{"type": "date"}}, []any{"2024-01-02"}, KindArray, "2024-01-02"},
		{"rollup", nil, 540.8333333333334, KindNumber, "540.8333333333334"},
		{"rollup", nil, map[string]any{"specialValue": "NaN"}, KindNumber, "NaN"},
		{"rollup", nil, true, KindBool, "1"},
		{"formula", nil, "Brian1", KindText, "Brian1"},
		{"formula", nil, map[string]any{"error": "#ERROR!"}, KindError, "#ERROR!"},
		{"formula", nil, []any{"a", 1.0}, KindArray, "a, 1"},
		{"formula", map[string]any{"result": map[string]any{"type": "dateTime"}}, "2024-01-02T03:04:05.000Z", KindDateTime, "2024-01-02T03:04:05.000Z"},
		{"count", nil, 0.0, KindNumber, "0"},
		{"autoNumber", nil, 12.0, KindNumber, "12"},
		{"createdTime", nil, "2021-12-28T19:00:56.000Z", KindDateTime, "2021-12-28T19:00:56.000Z"},
		{"lastModifiedTime", nil, "2022-08-29", KindDate, "2022-08-29"},
		{"multipleAttachments", nil, []any{map[string]any{"id": "att1", "url": "https://dl/x.pdf", "filename": "x.pdf", "size": 10.0}}, KindArray, "x.pdf (https://dl/x.pdf)"},
		{"barcode", nil, map[string]any{"text": "A234567"}, KindText, "A234567"},
		{"button", nil, map[string]any{"label": "Open URL", "url": "https://x"}, KindText, "Open URL"},
		{"externalSyncSource", nil, "Sync A", KindText, "Sync A"},
		{"aiText", nil, map[string]any{"state": "generated", "isStale": false, "value": "Summary"}, KindText, "Summary"},
		{"manualSort", nil, "", KindText, ""},
		{"someFutureType", nil, map[string]any{"unknown": 1.0}, KindError, "#ERROR!"},
		{"singleLineText", nil, nil, KindBlank, ""},
		{"multipleLookupValues", nil, nil, KindBlank, ""},
	}
	for _, tt := range tests {
		v := FromCell(FieldInfo{Name: "F", Type: tt.typ, Options: tt.options}, tt.cell)
		if v.Kind() != tt.kind || TextOf(v) != tt.text {
			t.Errorf("FromCell(%s, %#v) = %v %q, want %v %q", tt.typ, tt.cell, v.Kind(), TextOf(v), tt.kind, tt.text)
		}
	}
}

func TestParseISO(t *testing.T) {
	paris, err := time.LoadLocation("Europe/Paris")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		in   string
		want time.Time
		ok   bool
	}{
		{"2024-03-15", time.Date(2024, 3, 15, 0, 0, 0, 0, paris), true},
		{"2024-03-15T13:45", time.Date(2024, 3, 15, 13, 45, 0, 0, paris), true},
		{"2024-03-15 13:45:30", time.Date(2024, 3, 15, 13, 45, 30, 0, paris), true},
		{"2024-03-15T13:45:30.5Z", time.Date(2024, 3, 15, 13, 45, 30, 5e8, time.UTC), true},
		{"2024-03-15T13:45:30.123456789+02:00", time.Date(2024, 3, 15, 11, 45, 30, 123456789, time.UTC), true},
		{"2024-03-15T13:45:30-0530", time.Date(2024, 3, 15, 19, 15, 30, 0, time.UTC), true},
		{"2024-03-15T13:45:30+02", time.Date(2024, 3, 15, 11, 45, 30, 0, time.UTC), true},
		{"  2024-03-15  ", time.Date(2024, 3, 15, 0, 0, 0, 0, paris), true},
		{"2024-02-30", time.Time{}, false},
		{"2024-13-01", time.Time{}, false},
		{"2024-03-15T25:00", time.Time{}, false},
		{"2024-03-15T13:45:30.Z", time.Time{}, false},
		{"2024-03-15T13:45Zx", time.Time{}, false},
		{"24-03-15", time.Time{}, false},
		{"", time.Time{}, false},
	}
	for _, tt := range tests {
		got, ok := parseISO(tt.in, paris)
		if ok != tt.ok || ok && !got.Equal(tt.want) {
			t.Errorf("parseISO(%q) = %v %v, want %v %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

func TestJSNumber(t *testing.T) {
	tests := []struct {
		f    float64
		want string
	}{
		{0, "0"}, {math.Copysign(0, -1), "0"}, {1, "1"}, {-1.5, "-1.5"}, {1e21, "1e+21"}, {1.5e-7, "1.5e-7"},
		{123456789012345680000, "123456789012345680000"}, {0.000001, "0.000001"}, {math.Inf(-1), "-Infinity"},
	}
	for _, tt := range tests {
		if got := jsNumber(tt.f); got != tt.want {
			t.Errorf("jsNumber(%v) = %s, want %s", tt.f, got, tt.want)
		}
	}
}
