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
