package airsql

import (
	"fmt"
	"reflect"
	"slices"

	"github.com/airsql/airsql/frontend"
	"github.com/airsql/airsql/translate"
)

// checkKeep checks the definition a MODIFY or CHANGE writes for a field the table has: the
// metadata API can change a field's name and description only, so the definition must make the
// field as it already is; otherwise it is refused with what would have changed.
func checkKeep(have translate.Field, want frontend.FieldDef) error {
	what := fieldChange(have, want)
	switch {
	case what == "":
		return nil
	case have.Type != want.Type:
		return &UnsupportedError{Construct: "ALTER TABLE … MODIFY that changes a field's type",
			Hint: fmt.Sprintf("column %q would change %s; the Airtable API cannot change a field's type: change it in Airtable itself, or add a new column", have.Name, what)}
	}
	return &UnsupportedError{Construct: "ALTER TABLE … MODIFY that changes a field's options",
		Hint: fmt.Sprintf("column %q would change %s; the Airtable API's update field changes only a field's name and description: change it in Airtable itself", have.Name, what)}
}

// fieldChange says what making the field want out of have would change, or "" when nothing
// Airtable keeps would: the type, a number's precision, a select's choices. A description is
// not compared: it is a comment, not part of the data.
func fieldChange(have translate.Field, want frontend.FieldDef) string {
	if sameValues(have, want) {
		return ""
	}
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

// sameValues tells whether want only spells in SQL the type of values have already stores, as
// information_schema's COLUMN_TYPE or a schema tool's model spells it: any text type for a text
// field (GORM's longtext for a single line text, varchar(n) for a long text or an email), any
// integer type for a number or currency without decimals (COLUMN_TYPE bigint), FLOAT/DOUBLE for
// one with decimals or a percent (COLUMN_TYPE double). The field's values read and write the
// same either way, so such a MODIFY keeps the field as it is.
func sameValues(have translate.Field, want frontend.FieldDef) bool {
	switch want.SQLType {
	case "char", "varchar", "tinytext", "text", "mediumtext", "longtext":
		switch have.Type {
		case "singleLineText", "multilineText", "email", "url", "phoneNumber", "richText":
			return want.Type == "singleLineText" || want.Type == "multilineText" // not a link
		}
	case "tinyint", "smallint", "mediumint", "int", "integer", "bigint":
		return want.Type == "number" && (have.Type == "number" || have.Type == "currency") &&
			optionNumber(have.Options["precision"]) == 0
	case "float", "double", "real":
		switch have.Type {
		case "number", "currency":
			return optionNumber(have.Options["precision"]) > 0
		case "percent":
			return true
		}
	}
	return false
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
