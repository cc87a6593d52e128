package oracle

import (
	"context"
	"database/sql"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Result is the answer of one query: its column labels and each row as canonical cells (see
// Canonical), or the error.
type Result struct {
	Labels []string
	Rows   [][]string
	Err    error
}

// Queryer is a *sql.DB, *sql.Conn or *sql.Tx.
type Queryer interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// Answer runs query on db and returns its rows in canonical form. Errors of the query are in
// Result.Err.
func Answer(ctx context.Context, db Queryer, query string, args ...any) *Result {
	rows, err := db.QueryContext(ctx, query, args...)
	if err != nil {
		return &Result{Err: err}
	}
	defer rows.Close()
	types, err := rows.ColumnTypes()
	if err != nil {
		return &Result{Err: err}
	}
	res := &Result{Rows: [][]string{}}
	for _, t := range types {
		res.Labels = append(res.Labels, t.Name())
	}
	vals := make([]any, len(types))
	ptrs := make([]any, len(types))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			return &Result{Err: err}
		}
		row := make([]string, len(vals))
		for i, v := range vals {
			row[i] = Canonical(v, types[i].DatabaseTypeName())
		}
		res.Rows = append(res.Rows, row)
	}
	if err := rows.Err(); err != nil {
		return &Result{Err: err}
	}
	return res
}

// Canonical writes a cell so that equal SQL values of the two sides read the same:
//
//   - NULL is NULL;
//   - numbers (and booleans, as 0 and 1) are n:…, integers below 2^53 in full, other numbers
//     (and larger integers) to 12 significant digits — MySQL prints a DOUBLE with up to 17, and a DECIMAL quotient with
//     div_precision_increment digits, where the driver has a float64: 12 digits is the documented
//     tolerance of the comparison;
//   - times are t:2006-01-02 15:04:05.000 in UTC (DATE at midnight);
//   - text (and JSON text) is s:… as it is.
//
// typeName is the column's DatabaseTypeName: MariaDB's text protocol returns numbers as text.
func Canonical(v any, typeName string) string {
	switch x := v.(type) {
	case nil:
		return "NULL"
	case bool:
		if x {
			return "n:1"
		}
		return "n:0"
	case int64:
		return "n:" + formatInt(x)
	case uint64:
		if x < 1<<53 {
			return "n:" + strconv.FormatUint(x, 10)
		}
		return "n:" + formatNumber(float64(x))
	case float64:
		return "n:" + formatNumber(x)
	case float32:
		return "n:" + formatNumber(float64(x))
	case time.Time:
		return "t:" + x.UTC().Format("2006-01-02 15:04:05.000")
	case []byte:
		return Canonical(string(x), typeName)
	case string:
		switch strings.ToUpper(typeName) {
		case "DECIMAL", "BIGINT", "INT", "MEDIUMINT", "SMALLINT", "TINYINT", "DOUBLE", "FLOAT",
			"UNSIGNED BIGINT", "UNSIGNED INT", "UNSIGNED TINYINT", "UNSIGNED SMALLINT", "UNSIGNED MEDIUMINT", "YEAR":
			if n, err := strconv.ParseInt(x, 10, 64); err == nil {
				return "n:" + formatInt(n)
			}
			if f, err := strconv.ParseFloat(x, 64); err == nil {
				return "n:" + formatNumber(f)
			}
		case "DATE", "DATETIME", "TIMESTAMP":
			for _, layout := range []string{"2006-01-02 15:04:05.999999999", time.DateOnly} {
				if t, err := time.Parse(layout, x); err == nil {
					return "t:" + t.Format("2006-01-02 15:04:05.000")
				}
			}
		}
		return "s:" + x
	}
	return fmt.Sprintf("?%T:%v", v, v)
}

// formatInt writes an integer in full when a float64 holds it exactly (|n| < 2^53), else as
// formatNumber does: beyond 2^53 an integer may come from a DOUBLE on one side (ROUND of a
// float64) and from its shortest decimal on the other.
func formatInt(n int64) string {
	if n > -1<<53 && n < 1<<53 {
		return strconv.FormatInt(n, 10)
	}
	return formatNumber(float64(n))
}

func formatNumber(f float64) string {
	if f == 0 {
		return "0"
	}
	if f == math.Trunc(f) && math.Abs(f) < 1<<53 {
		return strconv.FormatInt(int64(f), 10)
	}
	return strconv.FormatFloat(f, 'g', 12, 64)
}

// Diff compares got with want: the column labels (MySQL's: an alias as written, a column by its
// name, an expression by its text), then the rows, in order when ordered, else as multisets. It
// returns "" when they agree, else a short description of the first difference.
func Diff(want, got *Result, ordered bool) string {
	if (want.Err == nil) != (got.Err == nil) {
		if want.Err != nil {
			return fmt.Sprintf("want the error %v, got %d rows", want.Err, len(got.Rows))
		}
		return fmt.Sprintf("want %d rows, got the error %v", len(want.Rows), got.Err)
	}
	if want.Err != nil {
		return ""
	}
	if !slices.Equal(want.Labels, got.Labels) {
		return fmt.Sprintf("column labels %q, want %q", got.Labels, want.Labels)
	}
	w, g := joinRows(want.Rows), joinRows(got.Rows)
	if !ordered {
		slices.Sort(w)
		slices.Sort(g)
	}
	if slices.Equal(w, g) {
		return ""
	}
	if !ordered || len(w) != len(g) || !sameMultiset(w, g) {
		missing, extra := multisetDiff(w, g)
		return fmt.Sprintf("want %d rows, got %d; missing %d (first: %s), extra %d (first: %s)",
			len(w), len(g), len(missing), firstOf(missing), len(extra), firstOf(extra))
	}
	for i := range w {
		if w[i] != g[i] {
			return fmt.Sprintf("same rows in another order: row %d is %s, want %s", i+1, g[i], w[i])
		}
	}
	return ""
}

// SameRowsOtherOrder reports whether the two results hold the same rows in a different order.
func SameRowsOtherOrder(want, got *Result) bool {
	if want.Err != nil || got.Err != nil {
		return false
	}
	w, g := joinRows(want.Rows), joinRows(got.Rows)
	return !slices.Equal(w, g) && sameMultiset(w, g)
}

func joinRows(rows [][]string) []string {
	out := make([]string, len(rows))
	for i, r := range rows {
		out[i] = strings.Join(r, " | ")
	}
	return out
}

func sameMultiset(a, b []string) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}

func multisetDiff(want, got []string) (missing, extra []string) {
	count := map[string]int{}
	for _, r := range got {
		count[r]++
	}
	for _, r := range want {
		if count[r] > 0 {
			count[r]--
		} else {
			missing = append(missing, r)
		}
	}
	count = map[string]int{}
	for _, r := range want {
		count[r]++
	}
	for _, r := range got {
		if count[r] > 0 {
			count[r]--
		} else {
			extra = append(extra, r)
		}
	}
	return missing, extra
}

func firstOf(rows []string) string {
	if len(rows) == 0 {
		return "-"
	}
	return clip(strconv.Quote(rows[0]), 200)
}
