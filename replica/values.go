package replica

import (
	"fmt"
	"maps"
)

// computedType are the field types whose values the service computes.
var computedType = map[string]bool{
	"formula": true, "rollup": true, "count": true, "multipleLookupValues": true, "autoNumber": true,
	"createdTime": true, "lastModifiedTime": true, "createdBy": true, "lastModifiedBy": true,
	"button": true, "externalSyncSource": true, "aiText": true,
}

// restCells converts a payload's cells (webhook forms) to the records API's. A cell of a field
// the copy does not know makes the table copy again, unless replaying (the field was deleted since).
func restCells(fields map[string]Field, in map[string]any, replaying bool) (map[string]any, error) {
	out := make(map[string]any, len(in))
	for id, v := range in {
		f, known := fields[id]
		if !known && replaying {
			continue
		}
		if !known {
			return nil, &errRecopy{fmt.Sprintf("a payload holds field %s, which the copy does not know", id)}
		}
		if v == nil {
			continue
		}
		out[id] = restValue(f.Type, v)
	}
	return out, nil
}

// restValue is a webhook (V2) value in the form the records API gives.
func restValue(typ string, v any) any {
	switch typ {
	case "singleSelect", "externalSyncSource":
		if m, ok := v.(map[string]any); ok {
			return m["name"]
		}
	case "multipleSelects":
		if list, ok := v.([]any); ok {
			out := make([]any, len(list))
			for i, c := range list {
				if m, ok := c.(map[string]any); ok {
					out[i] = m["name"]
				} else {
					out[i] = c
				}
			}
			return out
		}
	case "multipleRecordLinks":
		if list, ok := v.([]any); ok {
			out := make([]any, len(list))
			for i, c := range list {
				if m, ok := c.(map[string]any); ok {
					out[i] = m["id"]
				} else {
					out[i] = c
				}
			}
			return out
		}
	case "multipleLookupValues":
		if m, ok := v.(map[string]any); ok {
			byRecord, _ := m["valuesByLinkedRecordId"].(map[string]any)
			ids, _ := m["linkedRecordIds"].([]any)
			out := []any{}
			for _, id := range ids {
				s, _ := id.(string)
				vals, _ := byRecord[s].([]any)
				out = append(out, vals...)
			}
			if len(out) == 0 {
				return nil
			}
			return out
		}
	case "singleCollaborator":
		return restCollaborator(v)
	case "multipleCollaborators":
		if list, ok := v.([]any); ok {
			out := make([]any, len(list))
			for i, c := range list {
				out[i] = restCollaborator(c)
			}
			return out
		}
	}
	return v
}

func restCollaborator(v any) any {
	m, ok := v.(map[string]any)
	if !ok {
		return v
	}
	out := maps.Clone(m)
	delete(out, "permissionLevel")
	delete(out, "profilePicUrl")
	return out
}
