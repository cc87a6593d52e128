package translate

import (
	"strings"
	"testing"
)

func TestParseRecoversParserPanics(t *testing.T) {
	for _, sql := range []string{"/*!*/", "SELECT 1 /*!*/"} {
		_, err := Parse(sql)
		if err == nil || !strings.Contains(err.Error(), "cannot parse") {
			t.Errorf("Parse(%q) error %v, want a parse error", sql, err)
		}
	}
	if _, err := Parse("SELECT Name FROM Tasks"); err != nil {
		t.Fatal(err)
	}
}

func TestArgumentBinding(t *testing.T) {
	schema := loadSchema(t)
	tests := []struct {
		sql     string
		args    Args
		formula string
		err     string
	}{
		{"SELECT Name FROM Tasks WHERE Name = ? AND Status = ?", Args{Positional: []any{"a", "Todo"}}, "AND({Name}='a', {Status}='Todo')", ""},
		{"SELECT Name FROM Tasks WHERE Name = :who", Args{Named: map[string]any{"who": "b"}}, "{Name}='b'", ""},
		{"SELECT Name FROM Tasks WHERE Name = :who", Args{Named: map[string]any{":who": "c"}}, "{Name}='c'", ""},
		{"SELECT Name FROM Tasks WHERE Name = :v1", Args{Named: map[string]any{"v1": "d"}}, "{Name}='d'", ""},
		{"SELECT Name FROM Tasks WHERE Name = ? AND Status = :s", Args{Positional: []any{"e"}, Named: map[string]any{"s": "Done"}}, "AND({Name}='e', {Status}='Done')", ""},
		{"SELECT Name FROM Tasks WHERE Name = ? AND Status = ?", Args{Positional: []any{"a"}}, "", "placeholder 2 has no argument"},
		{"SELECT Name FROM Tasks WHERE Name = :who", Args{}, "", `no argument named "who"`},
		{"SELECT Name FROM Tasks WHERE Name = ?", Args{Positional: []any{make(chan int)}}, "", "unsupported Go type"},
	}
	for _, tt := range tests {
		t.Run(tt.sql, func(t *testing.T) {
			plan, err := Select(parseSelect(t, tt.sql), schema, tt.args)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("error %v, want one containing %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if plan.Request.Formula != tt.formula {
				t.Errorf("formula %q, want %q", plan.Request.Formula, tt.formula)
			}
		})
	}
}
