package main

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// result is one statement's output, fully read, ready to print.
type result struct {
	columns []string
	types   []string // database type names as the driver reports them ("DATE", "JSON", ...)
	rows    [][]any
}

// printer writes results in one output format.
type printer func(w io.Writer, r *result) error

func printerFor(format string) (printer, error) {
	switch format {
	case "table":
		return printTable, nil
	case "csv":
		return printCSV, nil
	case "json":
		return printJSON, nil
	}
	return nil, fmt.Errorf("unknown output format %q: use table, csv or json", format)
}

// text renders one value for the table and CSV formats. NULL is kept apart from the empty
// string so that a reader can tell them apart in the table format.
func text(v any, dbType string) (s string, isNull bool) {
	switch v := v.(type) {
	case nil:
		return "", true
	case []byte:
		return string(v), false
	case string:
		return v, false
	case time.Time:
		if dbType == "DATE" {
			return v.Format(time.DateOnly), false
		}
		return v.Format(time.RFC3339Nano), false
	case float64:
		return strconv.FormatFloat(v, 'f', -1, 64), false
	case float32:
		return strconv.FormatFloat(float64(v), 'f', -1, 32), false
	}
	return fmt.Sprint(v), false
}

// controlEscaper writes control characters escaped, so that a table row stays on one line.
var controlEscaper = strings.NewReplacer("\n", `\n`, "\r", `\r`, "\t", `\t`)

func printTable(w io.Writer, r *result) error {
	cells := make([][]string, len(r.rows))
	widths := make([]int, len(r.columns))
	rightAlign := make([]bool, len(r.columns))
	for i, c := range r.columns {
		widths[i] = utf8.RuneCountInString(c)
		switch typeAt(r.types, i) {
		case "INT64", "FLOAT64":
			rightAlign[i] = true
		}
	}
	for ri, row := range r.rows {
		cells[ri] = make([]string, len(row))
		for ci, v := range row {
			s, isNull := text(v, typeAt(r.types, ci))
			if isNull {
				s = "NULL"
			}
			s = controlEscaper.Replace(s)
			cells[ri][ci] = s
			if n := utf8.RuneCountInString(s); n > widths[ci] {
				widths[ci] = n
			}
		}
	}
	var b strings.Builder
	writeRow := func(vals []string, header bool) {
		for i, s := range vals {
			if i > 0 {
				b.WriteString(" | ")
			}
			pad := strings.Repeat(" ", widths[i]-utf8.RuneCountInString(s))
			if rightAlign[i] && !header {
				b.WriteString(pad + s)
			} else if i == len(vals)-1 {
				b.WriteString(s) // no trailing blanks at the end of a line
			} else {
				b.WriteString(s + pad)
			}
		}
		b.WriteByte('\n')
	}
	writeRow(r.columns, true)
	for i, wd := range widths {
		if i > 0 {
			b.WriteString("-+-")
		}
		b.WriteString(strings.Repeat("-", wd))
	}
	b.WriteByte('\n')
	for _, row := range cells {
		writeRow(row, false)
	}
	if len(r.rows) == 1 {
		b.WriteString("(1 row)\n")
	} else {
		fmt.Fprintf(&b, "(%d rows)\n", len(r.rows))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func printCSV(w io.Writer, r *result) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(r.columns); err != nil {
		return err
	}
	rec := make([]string, len(r.columns))
	for _, row := range r.rows {
		for i, v := range row {
			rec[i], _ = text(v, typeAt(r.types, i)) // NULL is an empty field in CSV
		}
		if err := cw.Write(rec); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// printJSON writes an array of objects whose keys keep the column order.
func printJSON(w io.Writer, r *result) error {
	keys := make([][]byte, len(r.columns))
	for i, c := range r.columns {
		keys[i], _ = json.Marshal(c)
	}
	var b strings.Builder
	b.WriteString("[")
	for ri, row := range r.rows {
		if ri > 0 {
			b.WriteString(",")
		}
		b.WriteString("\n  {")
		for ci, v := range row {
			if ci > 0 {
				b.WriteString(", ")
			}
			b.Write(keys[ci])
			b.WriteString(": ")
			val, err := jsonValue(v, typeAt(r.types, ci))
			if err != nil {
				return fmt.Errorf("column %s: %w", r.columns[ci], err)
			}
			b.Write(val)
		}
		b.WriteString("}")
	}
	if len(r.rows) > 0 {
		b.WriteString("\n")
	}
	b.WriteString("]\n")
	_, err := io.WriteString(w, b.String())
	return err
}

func jsonValue(v any, dbType string) ([]byte, error) {
	switch v := v.(type) {
	case []byte:
		if dbType == "JSON" && json.Valid(v) {
			return v, nil // arrays and objects stay structured
		}
		return json.Marshal(string(v))
	case string:
		if dbType == "JSON" && json.Valid([]byte(v)) {
			return []byte(v), nil
		}
	case time.Time:
		s, _ := text(v, dbType)
		return json.Marshal(s)
	}
	return json.Marshal(v)
}

func typeAt(types []string, i int) string {
	if i < len(types) {
		return types[i]
	}
	return ""
}
