package main

import (
	"os"
	"strings"
	"testing"
)

// TestREADMESchemaAndCommentExamples runs the SQL blocks of the README's sections on DDL and on
// record comments in the shell on the demo base, as written: its token holds the scopes they need.
func TestREADMESchemaAndCommentExamples(t *testing.T) {
	doc, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, section := range []string{"### Schema through DDL", "### Record comments"} {
		t.Run(section, func(t *testing.T) {
			text := string(doc)
			i := strings.Index(text, section)
			if i < 0 {
				t.Fatalf("README.md has no section %q", section)
			}
			text = text[i+len(section):]
			if end := strings.Index(text, "\n### "); end >= 0 {
				text = text[:end]
			}
			var blocks []string
			for {
				start := strings.Index(text, "```sql\n")
				if start < 0 {
					break
				}
				text = text[start+len("```sql\n"):]
				end := strings.Index(text, "```")
				blocks = append(blocks, text[:end])
				text = text[end+3:]
			}
			if len(blocks) == 0 {
				t.Fatalf("section %q has no sql block", section)
			}
			for _, b := range blocks {
				code, out, errOut := runShell(t, b, nil)
				if code != 0 || strings.Count(errOut, "\n") != 1 {
					t.Errorf("the README's example\n%s\nexit %d, stderr %q, output:\n%s", b, code, errOut, out)
				}
			}
		})
	}
}
