package main

import (
	"strings"
	"testing"
	"time"
)

func sampleResult() *result {
	return &result{
		columns: []string{"Name", "Priority", "Due", "Tags"},
		types:   []string{"TEXT", "INT64", "DATE", "JSON"},
		rows: [][]any{
			{"Write spec", int64(3), time.Date(2024, 1, 2, 0, 0, 0, 0, time.UTC), []byte(`["a","b"]`)},
			{"Ship\nit", nil, nil, nil},
		},
	}
}

func TestPrinters(t *testing.T) {
	tests := []struct {
		format, want string
	}{
		{"table", "" +
			"Name       | Priority | Due        | Tags\n" +
			"-----------+----------+------------+----------\n" +
			"Write spec |        3 | 2024-01-02 | [\"a\",\"b\"]\n" +
			"Ship\\nit   |     NULL | NULL       | NULL\n" +
			"(2 rows)\n"},
		{"csv", "" +
			"Name,Priority,Due,Tags\n" +
			"Write spec,3,2024-01-02,\"[\"\"a\"\",\"\"b\"\"]\"\n" +
			"\"Ship\nit\",,,\n"},
		{"json", "" +
			"[\n" +
			"  {\"Name\": \"Write spec\", \"Priority\": 3, \"Due\": \"2024-01-02\", \"Tags\": [\"a\",\"b\"]},\n" +
			"  {\"Name\": \"Ship\\nit\", \"Priority\": null, \"Due\": null, \"Tags\": null}\n" +
			"]\n"},
	}
	for _, tt := range tests {
		t.Run(tt.format, func(t *testing.T) {
			p, err := printerFor(tt.format)
			if err != nil {
				t.Fatal(err)
			}
			var b strings.Builder
			if err := p(&b, sampleResult()); err != nil {
				t.Fatal(err)
			}
			if b.String() != tt.want {
				t.Errorf("got\n%s\nwant\n%s", b.String(), tt.want)
			}
		})
	}
}

func TestPrintEmptyResults(t *testing.T) {
	r := &result{columns: []string{"a"}}
	for format, want := range map[string]string{
		"table": "a\n-\n(0 rows)\n",
		"csv":   "a\n",
		"json":  "[]\n",
	} {
		p, _ := printerFor(format)
		var b strings.Builder
		if err := p(&b, r); err != nil {
			t.Fatal(err)
		}
		if b.String() != want {
			t.Errorf("%s: got %q, want %q", format, b.String(), want)
		}
	}
}

func TestUnknownFormat(t *testing.T) {
	_, err := printerFor("xml")
	if err == nil || !strings.Contains(err.Error(), "table, csv or json") {
		t.Fatalf("err = %v", err)
	}
}
