package emulator

import "testing"

// TestDateFieldInAZoneKeepsTheDay: a date written to a date field with a time zone is that day,
// whichever side of UTC the zone is on; a date-time with an offset is the day in the field's zone.
func TestDateFieldInAZoneKeepsTheDay(t *testing.T) {
	tests := []struct{ zone, in, want string }{
		{"Europe/Berlin", "2024-01-02", "2024-01-02"},
		{"America/Chicago", "2024-01-02", "2024-01-02"},
		{"Asia/Tokyo", "2024-01-02T23:30:00", "2024-01-02"},
		{"Asia/Tokyo", "2024-01-02T20:00:00Z", "2024-01-03"},
		{"America/Chicago", "2024-01-02T03:00:00Z", "2024-01-01"},
		{"", "2024-01-02T23:30:00Z", "2024-01-02"},
	}
	for _, tt := range tests {
		fl := &field{Name: "Day", Type: "date", Options: map[string]any{}}
		if tt.zone != "" {
			fl.Options["timeZone"] = tt.zone
		}
		got, err := normalizeCell(nil, fl, tt.in, writeMode{})
		if err != nil {
			t.Fatalf("%s %s: %v", tt.zone, tt.in, err)
		}
		if got != tt.want {
			t.Errorf("%s: %s stored as %v, want %s", tt.zone, tt.in, got, tt.want)
		}
	}
}
