package main

import (
	"strings"
	"testing"
	"time"

	"github.com/airsql/airsql/frontend"
)

// TestWriteRunNotice: ten one-row INSERTs in a row, each slow enough to be a request of its own,
// make the shell say once what a transaction would change, with the time they took; queued
// writes (a transaction), other statements and multi-row INSERTs break the run.
func TestWriteRunNotice(t *testing.T) {
	type stmt struct {
		text string
		rows int64
		took time.Duration
	}
	insert := stmt{"INSERT INTO Tasks (Name) VALUES ('x')", 1, 307 * time.Millisecond}
	queued := stmt{"INSERT INTO Tasks (Name) VALUES ('x')", 1, time.Millisecond}
	many := stmt{"INSERT INTO Tasks (Name) VALUES ('x'), ('y')", 2, 400 * time.Millisecond}
	update := stmt{"UPDATE Tasks SET Name = 'y' WHERE id = 'rec1'", 1, 600 * time.Millisecond}
	repeat := func(s stmt, n int) []stmt {
		out := make([]stmt, n)
		for i := range out {
			out[i] = s
		}
		return out
	}
	for _, tc := range []struct {
		name     string
		stmts    []stmt
		noticeAt int // 1-based statement after which the notice is printed; 0: never
	}{
		{"ten autocommit INSERTs", repeat(insert, 12), 10},
		{"nine", repeat(insert, 9), 0},
		{"queued in a transaction", repeat(queued, 20), 0},
		{"broken by an UPDATE", append(append(repeat(insert, 9), update), repeat(insert, 9)...), 0},
		{"broken by a multi-row INSERT", append(append(repeat(insert, 5), many), repeat(insert, 10)...), 16},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var w writeRun
			got := 0
			for i, s := range tc.stmts {
				st, err := frontend.Read(s.text)
				if err != nil {
					t.Fatal(err)
				}
				if msg := w.add(st, s.rows, s.took); msg != "" {
					if got != 0 {
						t.Fatalf("a second notice after statement %d: %q", i+1, msg)
					}
					got = i + 1
					for _, want := range []string{"took 307ms each", "own request", "1,000 of them: about 5m7s", "BEGIN and COMMIT", "about 21s"} {
						if !strings.Contains(msg, want) {
							t.Errorf("notice %q lacks %q", msg, want)
						}
					}
				}
			}
			if got != tc.noticeAt {
				t.Errorf("notice after statement %d, want %d", got, tc.noticeAt)
			}
		})
	}
}
