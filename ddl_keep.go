package airsql

import (
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/airsql/airsql/frontend"
	"github.com/airsql/airsql/translate"
)

// checkKeep runs the MODIFY clauses of an ALTER TABLE: the metadata API cannot change a field,
// so each must describe the field as it already is (frontend.DDL.Keep), and then it changes
// nothing. Anything else is refused with what would have changed.
func checkKeep(t *translate.Table, keep []frontend.FieldDef) error {
	for _, k := range keep {
		if k.Type == "" { // id or createdTime, which every table has
			continue
		}
		i := slices.IndexFunc(t.Fields, func(f translate.Field) bool { return strings.EqualFold(f.Name, k.Name) })
		if i < 0 {
			return fmt.Errorf("airsql: ALTER TABLE %q MODIFY: the table has no column %q (add it with ADD COLUMN)", t.Name, k.Name)
		}
		have := t.Fields[i]
		if what := fieldChange(have, k); what != "" {
			return &UnsupportedError{Construct: "ALTER TABLE … MODIFY that changes a field",
				Hint: fmt.Sprintf("column %q would change %s; the Airtable API cannot change a field's type safely: change it in Airtable itself", have.Name, what)}
		}
	}
	return nil
}

// fieldChange says what making the field want out of have would change, or "" when nothing
// Airtable keeps would: the type, a number's precision, a select's choices. A description is
// not compared: it is a comment, not part of the data.
func fieldChange(have translate.Field, want frontend.FieldDef) string {
	if have.Type != want.Type {
		return fmt.Sprintf("from %s to %s", have.Type, want.Type)
	}
	switch want.Type {
	case "number":
		if p, w := optionNumber(have.Options["precision"]), optionNumber(want.Options["precision"]); p != w {
			return fmt.Sprintf("its precision from %v to %v decimals", p, w)
		}
	case "singleSelect", "multipleSelects":
		if h, w := choiceNames(have.Options), choiceNames(want.Options); !reflect.DeepEqual(h, w) {
			return fmt.Sprintf("its choices from %q to %q", h, w)
		}
	}
	return ""
}

func optionNumber(v any) float64 {
	switch n := v.(type) {
	case int:
		return float64(n)
	case float64:
		return n
	}
	return 0
}

// choiceNames lists a select's choice names, sorted: their order is not data.
func choiceNames(opts map[string]any) []string {
	var names []string
	list, _ := opts["choices"].([]any)
	for _, c := range list {
		if m, ok := c.(map[string]any); ok {
			if n, ok := m["name"].(string); ok {
				names = append(names, n)
			}
		}
	}
	slices.Sort(names)
	return names
}
