package main

import (
	"context"
	"strings"
	"testing"
)

// runShell runs the command with no environment and returns its exit code and outputs.
func runShell(t *testing.T, stdin string, env map[string]string, args ...string) (int, string, string) {
	t.Helper()
	var out, errOut strings.Builder
	t.Setenv("AIRSQL_HISTORY", t.TempDir()+"/history")
	code := run(context.Background(), args, strings.NewReader(stdin), &out, &errOut, func(k string) string { return env[k] })
	return code, out.String(), errOut.String()
}

func TestOneStatementOnTheDemoBase(t *testing.T) {
	code, out, errOut := runShell(t, "", nil, "SELECT Name, Email FROM People ORDER BY Name LIMIT 2")
	if code != 0 {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	if len(lines) != 5 || !strings.HasPrefix(lines[0], "Name") || lines[4] != "(2 rows)" {
		t.Errorf("unexpected table:\n%s", out)
	}
	if got := strings.Count(errOut, "\n"); got != 1 || !strings.Contains(errOut, "demo base") {
		t.Errorf("stderr should say in one line that the demo base is used, got %q", errOut)
	}
}

func TestFormats(t *testing.T) {
	for _, tt := range []struct{ format, prefix string }{
		{"csv", "Name,Priority\n"},
		{"json", "[\n  {\"Name\": "},
		{"table", "Name "},
	} {
		code, out, errOut := runShell(t, "", nil, "-format", tt.format, "SELECT Name, Priority FROM Tasks WHERE Priority IS NOT NULL LIMIT 3")
		if code != 0 || !strings.HasPrefix(out, tt.prefix) {
			t.Errorf("%s: exit %d, out %q, err %q", tt.format, code, out, errOut)
		}
	}
}

func TestScriptFromStdin(t *testing.T) {
	script := "SELECT COUNT(*)\n  FROM Projects;\n.format csv\nSELECT Name FROM People\nWHERE Name = 'Ada Lovelace';\n.quit\nSELECT 1;\n"
	code, out, errOut := runShell(t, script, nil)
	if code != 0 {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	if !strings.Contains(out, "COUNT(*)") || !strings.HasSuffix(out, "Name\nAda Lovelace\n") {
		t.Errorf("unexpected output:\n%s", out)
	}
}

func TestDotCommands(t *testing.T) {
	code, out, errOut := runShell(t, ".tables\n.schema Tasks\n.help\n", nil)
	if code != 0 {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	for _, want := range []string{"People", "Projects", "Tasks", "Priority", "singleSelect", ".quit"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

func TestErrorsExitNonZeroWithOneLine(t *testing.T) {
	tests := []struct {
		name  string
		stdin string
		env   map[string]string
		args  []string
		want  string
	}{
		{"unknown column", "", nil, []string{"SELECT Nope FROM Tasks"}, "Nope"},
		{"unsupported construct", "", nil, []string{"SELECT Name FROM Tasks WHERE Priority & 1"}, "the operator &"},
		{"script stops at first error", "SELECT Nope FROM Tasks;\nSELECT 1 FROM Tasks;\n", nil, nil, "Nope"},
		{"unfinished statement", "SELECT Name FROM Tasks", nil, nil, "missing ';'"},
		{"unknown command", ".frobnicate\n", nil, nil, ".help"},
		{"bad format", "", nil, []string{"-format", "xml", "SELECT 1"}, "table, csv or json"},
		{"token without base", "", map[string]string{"AIRTABLE_TOKEN": "patSECRET.value"}, []string{"SELECT 1"}, "-base"},
		{"unreachable host", "", nil, []string{"-dsn", "airtable://patSECRET.value@127.0.0.1:1/appAAAAAAAAAAAAAA?tls=false&retries=0", "SELECT Name FROM Tasks"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, errOut := runShell(t, tt.stdin, tt.env, tt.args...)
			if code == 0 {
				t.Fatalf("exit 0, stderr %q", errOut)
			}
			if !strings.Contains(errOut, tt.want) {
				t.Errorf("stderr %q does not mention %q", errOut, tt.want)
			}
			if strings.Contains(errOut, "SECRET") {
				t.Errorf("the token leaked into stderr: %q", errOut)
			}
			lines := strings.Split(strings.TrimRight(errOut, "\n"), "\n")
			if n := len(lines); n > 2 || (n == 2 && !strings.Contains(lines[0], "demo base")) {
				t.Errorf("want one error line, got %q", errOut)
			}
		})
	}
}

func TestWritesReportRowsAffected(t *testing.T) {
	script := "INSERT INTO People (Name) VALUES ('New One'), ('New Two');\nDELETE FROM People WHERE Name LIKE 'New %';\n"
	code, out, errOut := runShell(t, script, nil)
	if code != 0 {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	if out != "2 rows affected\n2 rows affected\n" {
		t.Errorf("output %q", out)
	}
}

func TestExplainFlagPrintsTheRequest(t *testing.T) {
	code, out, errOut := runShell(t, "", nil, "-explain", "SELECT Name FROM Tasks WHERE Priority >= 4 ORDER BY Priority DESC LIMIT 3")
	if code != 0 {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	for _, want := range []string{"filterByFormula | {Priority}>=4", "sort            | Priority desc", "maxRecords      | 3", "fields[]        | Name"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	// EXPLAIN typed as a statement does the same, and -explain does not wrap it twice.
	code, out2, _ := runShell(t, "", nil, "-explain", "EXPLAIN SELECT Name FROM Tasks WHERE Priority >= 4 ORDER BY Priority DESC LIMIT 3")
	if code != 0 || out2 != out {
		t.Errorf("EXPLAIN statement: exit %d, output\n%s", code, out2)
	}
}
