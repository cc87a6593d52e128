package formula

import (
	"testing"
	"time"
)

// TestFormatTokens pins every moment.js token DATETIME_FORMAT knows, on three instants: an
// afternoon, a midnight hour (h is 12, k is 24) and a day whose locale week-year differs from its
// ISO week-year.
func TestFormatTokens(t *testing.T) {
	afternoon := time.Date(2024, 3, 15, 13, 45, 30, 123456789, time.UTC) // a Friday
	midnight := time.Date(2024, 1, 1, 0, 5, 9, 0, time.UTC)              // a Monday
	yearEnd := time.Date(2024, 12, 29, 8, 0, 0, 0, time.UTC)             // a Sunday
	paris, err := time.LoadLocation("Europe/Paris")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		at     time.Time
		format string
		want   string
	}{
		{afternoon, "YYYYYY YYYY YY Y", "+002024 2024 24 2024"},
		{afternoon, "Q Qo", "1 1st"},
		{afternoon, "MMMM MMM MM Mo M", "March Mar 03 3rd 3"},
		{afternoon, "DDDD DDDo DDD", "075 75th 75"},
		{afternoon, "DD Do D", "15 15th 15"},
		{afternoon, "dddd ddd dd do d e E", "Friday Fri Fr 5th 5 5 5"},
		{afternoon, "w ww wo W WW Wo", "11 11 11th 11 11 11th"},
		{afternoon, "gggg gg GGGG GG", "2024 24 2024 24"},
		{afternoon, "HH H hh h kk k", "13 13 01 1 13 13"},
		{afternoon, "mm m ss s", "45 45 30 30"},
		{afternoon, "S SS SSS SSSS SSSSSS SSSSSSSSS", "1 12 123 1234 123456 123456789"},
		{afternoon, "A a", "PM pm"},
		{afternoon, "Z ZZ z", "+00:00 +0000 UTC"},
		{afternoon.In(paris), "Z ZZ zz HH", "+01:00 +0100 CET 14"},
		{afternoon, "X x", "1710510330 1710510330123"},
		{afternoon, "[YYYY is] YYYY [", "YYYY is 2024 ["},
		{afternoon, "LT|LTS|L|LL|LLL|LLLL", "1:45 PM|1:45:30 PM|03/15/2024|March 15, 2024|March 15, 2024 1:45 PM|Friday, March 15, 2024 1:45 PM"},
		{afternoon, "l|ll|lll|llll", "3/15/2024|Mar 15, 2024|Mar 15, 2024 1:45 PM|Fri, Mar 15, 2024 1:45 PM"},
		{midnight, "HH hh h kk k A a", "00 12 12 24 24 AM am"},
		{midnight, "d do E w wo DDDD DDDo", "1 1st 1 1 1st 001 1st"},
		{yearEnd, "gggg w GGGG W", "2025 1 2024 52"},
		{time.Date(2024, 3, 2, 0, 0, 0, 0, time.UTC), "Do", "2nd"},
		{time.Date(2024, 3, 11, 0, 0, 0, 0, time.UTC), "Do", "11th"},
		{time.Date(2024, 3, 23, 0, 0, 0, 0, time.UTC), "Do", "23rd"},
		{time.Date(-44, 3, 15, 0, 0, 0, 0, time.UTC), "YYYYYY", "-000044"},
	}
	for _, tt := range tests {
		if got := formatTime(tt.at, tt.format, locales["en"]); got != tt.want {
			t.Errorf("format %v with %q = %q, want %q", tt.at, tt.format, got, tt.want)
		}
	}
}

// TestDateUnits pins every unit name DATEADD, DATETIME_DIFF and IS_SAME accept.
func TestDateUnits(t *testing.T) {
	runEvalCases(t, baseRecord, testEnv(), []evalCase{
		// {At} is 2024-03-15T13:45:30.000Z.
		{"DATEADD({At}, 1500, 'ms')", "2024-03-15T13:45:31.500Z"},
		{"DATEADD({At}, 1, 'milliseconds')", "2024-03-15T13:45:30.001Z"},
		{"DATEADD({At}, 30, 's')", "2024-03-15T13:46:00.000Z"},
		{"DATEADD({At}, 15, 'm')", "2024-03-15T14:00:30.000Z"},
		{"DATEADD({At}, 2, 'h')", "2024-03-15T15:45:30.000Z"},
		{"DATEADD({At}, 1, 'd')", "2024-03-16T13:45:30.000Z"},
		{"DATEADD({At}, 1, 'w')", "2024-03-22T13:45:30.000Z"},
		{"DATEADD({At}, 1, 'Q')", "2024-06-15T13:45:30.000Z"},
		{"DATEADD({At}, 1, 'y')", "2025-03-15T13:45:30.000Z"},
		{"DATEADD({At}, 1, 'Hours')", "2024-03-15T14:45:30.000Z"},
		{"DATEADD({At}, 1.6, 'days')", "2024-03-17T13:45:30.000Z"}, // days round, as moment's add
		{"DATEADD({Due}, 1, 'hour')", "2024-03-15T01:00:00.000Z"},  // a date plus hours is a date-time
		{"DATETIME_DIFF({At}, '2024-03-15T13:00:00Z', 'minutes')", 45.0},
		{"DATETIME_DIFF({At}, '2024-03-15T13:45:29.250Z', 'ms')", 750.0},
		{"DATETIME_DIFF('2024-12-31', '2024-01-01', 'quarters')", 3.0},
		{"DATETIME_DIFF('2024-03-15', '2024-03-01', 'isoWeeks')", 2.0},
		{"IS_SAME({At}, '2024-01-01', 'year')", true},
		{"IS_SAME({At}, '2024-04-01', 'quarter')", nil},
		{"IS_SAME({At}, '2024-02-20', 'Q')", true},
		{"IS_SAME({At}, '2024-03-15T13:59:59Z', 'hour')", true},
		{"IS_SAME({At}, '2024-03-15T13:46:00Z', 'minute')", nil},
		{"IS_SAME({At}, '2024-03-15T13:45:30.900Z', 'second')", true},
		{"IS_SAME({At}, '2024-03-15T13:45:30.000Z', 'millisecond')", true},
		{"IS_SAME({At}, {At}, 'eon')", errCell},
	})
}
