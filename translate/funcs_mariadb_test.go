package translate

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestDatesAgainstMariaDB replays answers recorded from MariaDB (whose week, format and interval code
// is MySQL's) for hundreds of dates and datetimes across leap years and year ends: WEEK in every mode,
// YEARWEEK, DATE_FORMAT with every specifier, TIMESTAMPDIFF, DATE_ADD/DATE_SUB, STR_TO_DATE, ….
// The files' first lines say how they were made; the live differential harness is internal/oracle's.
func TestDatesAgainstMariaDB(t *testing.T) {
	for _, file := range []string{"testdata/mariadb/dates.tsv", "testdata/mariadb/datetimes.tsv"} {
		f, err := os.Open(file)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(f)
		var exprs []string
		rows := 0
		for sc.Scan() {
			line := sc.Text()
			if strings.HasPrefix(line, "#") {
				continue
			}
			cols := strings.Split(line, "\t")
			if exprs == nil {
				exprs = cols[1:]
				continue
			}
			rows++
			for i, e := range exprs {
				sql := strings.ReplaceAll(e, "@", "'"+cols[0]+"'")
				got, _, err := evalExpr(t, sql, Args{})
				if err != nil {
					t.Fatalf("%s: %v", sql, err)
				}
				if want := strings.TrimSuffix(cols[i+1], ".0"); !sameAsText(got, want) {
					t.Errorf("%s = %v, MariaDB %s", sql, got, want)
				}
			}
		}
		f.Close()
		if rows < 100 {
			t.Errorf("%s: %d rows", file, rows)
		}
	}
}

// sameAsText compares a value with MariaDB's text of it.
func sameAsText(v any, want string) bool {
	switch v := v.(type) {
	case time.Time:
		if v.Hour() == 0 && v.Minute() == 0 && v.Second() == 0 && v.Nanosecond() == 0 && len(want) == len("2006-01-02") {
			return v.Format(time.DateOnly) == want
		}
		return v.Format("2006-01-02 15:04:05.9") == want
	case float64:
		w, err := strconv.ParseFloat(want, 64)
		return err == nil && w-v < 1e-6 && v-w < 1e-6
	}
	return fmt.Sprint(v) == want
}

// TestStringsAndNumbersAgainstMariaDB replays MariaDB's answers to a thousand string and numeric
// calls: every function with negative, zero, fractional and NULL lengths and positions, empty and
// non-ASCII text, and the roundings of ROUND, TRUNCATE and CAST.
func TestStringsAndNumbersAgainstMariaDB(t *testing.T) {
	f, err := os.Open("testdata/mariadb/strnum.tsv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	rows := 0
	for sc.Scan() {
		if strings.HasPrefix(sc.Text(), "#") {
			continue
		}
		e, want, _ := strings.Cut(sc.Text(), "\t")
		rows++
		got, _, err := evalExpr(t, e, Args{})
		if err != nil {
			t.Errorf("%s: %v", e, err)
			continue
		}
		want = strings.ReplaceAll(want, `\t`, "\t")
		if got == nil {
			if want != "NULL" {
				t.Errorf("%s = NULL, MariaDB %q", e, want)
			}
			continue
		}
		if !sameAsText(got, want) {
			t.Errorf("%s = %#v, MariaDB %q", e, got, want)
		}
	}
	if rows < 900 {
		t.Errorf("%d rows", rows)
	}
}
