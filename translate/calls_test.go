package translate

import (
	"testing"
	"time"
)

// TestLibraryCallFollowsArguments: a call keeps what the library knew of its arguments when it was
// compiled, and an expression whose arguments were replaced afterwards (a copy reading other
// values) is evaluated with its own arguments' descriptions, never a stale one: a DATETIME(3)
// argument is written with three fraction digits, an untyped one with its own.
func TestLibraryCallFollowsArguments(t *testing.T) {
	at := time.Date(2024, 1, 5, 10, 11, 12, 500_000_000, time.UTC)
	s := newScope(nil, "", Args{Now: testNow})
	slot := &expr{kind: exSlot, slot: 0, typ: typeDateTime, nullable: true, sql: "x"}
	call, err := s.callRegistered(libraryFunc("CONCAT"), "CONCAT", "CONCAT", []*expr{slot}, "CONCAT(x)", nil)
	if err != nil {
		t.Fatal(err)
	}
	if call.call == nil {
		t.Fatal("callRegistered gave a call without its compiled library call")
	}
	moved := *call
	moved.args = []*expr{{kind: exCreatedTime, typ: typeDateTime, sql: "createdTime"}}
	tests := []struct {
		name string
		e    *expr
		row  *Row
		want string
	}{
		{"as compiled", call, &Row{Values: []any{at}}, "2024-01-05 10:11:12.5"},
		{"arguments replaced", &moved, &Row{CreatedTime: at}, "2024-01-05 10:11:12.500"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.e.eval(tt.row)
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("got %#v, want %q", got, tt.want)
			}
		})
	}
}
