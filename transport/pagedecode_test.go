package transport

import (
	"encoding/json"
	"reflect"
	"testing"
)

var pageSeeds = []string{
	`{"records":[{"id":"rec1","createdTime":"2024-01-01T00:00:00.000Z","fields":{"Name":"a","N":1.5,"Done":true,"Tags":["x","y"],"Att":[{"id":"att1","size":3}],"Empty":[]}}],"offset":"itr1/rec1"}`,
	`{"records":[]}`,
	` { "records" : [ { "id" : "rec2" , "fields" : { } } ] } `,
	`{"records":[{"id":"rec3","createdTime":"2024-01-01T00:00:00Z","fields":{"Notes":"two\nlines \"quoted\" \\ \/ \t","N":-0.5e+3,"Z":0,"Nil":null,"F":false}}]}`,
	`{"records":[{"id":"rec4","fields":{"Name":"caf\u00e9"}}]}`,
	`{"records":[{"id":"rec5","fields":{"Name":"café ✓"}}]}`,
	`{"records":[{"id":"rec6","fields":null}]}`,
	`{"records":[{"id":"rec7","fields":{"a":1,"a":2}}],"records":[{"id":"rec8"}]}`,
	`{"records":[{"ID":"rec9"}]}`,
	`{"records":[{"id":"rec10","fields":{"N":1e999}}]}`,
	`{"records":[{"id":"rec11","fields":{"N":01}}]}`,
	`{"records":[{"id":"rec12","fields":{"N":1.}}]}`,
	`{"records":[{"id":"rec13","fields":{"s":"\x"}}]}`,
	`{"records":[{"id":"rec14","fields":{"N":1}}]} x`,
	`{"records":[{"id":"rec15","createdTime":"yesterday","fields":{}}]}`,
	`{"offset":"itr"}`,
	`{}`,
	`{"records":[{"id":"rec16","fields":{"s":"` + "\xff" + `"}}]}`,
}

// TestDecodeFast: the usual pages are decoded by the fast decoder, and to what encoding/json
// makes of them; what it gives up on is left to encoding/json.
func TestDecodeFast(t *testing.T) {
	for i, body := range pageSeeds {
		t.Run(body, func(t *testing.T) {
			var fast page
			took := fast.decodeFast([]byte(body))
			wantTaken := i < 4 || i == 5 // the usual forms; \u, null fields, a second "records" and errors are not
			if took != wantTaken {
				t.Fatalf("decodeFast took it: got %v, want %v", took, wantTaken)
			}
			checkSamePage(t, []byte(body))
		})
	}
}

// checkSamePage fails when the fast decoder takes a body encoding/json refuses or decodes to
// another page.
func checkSamePage(t *testing.T, body []byte) {
	t.Helper()
	var fast page
	if !fast.decodeFast(body) {
		return
	}
	var want page
	if err := json.Unmarshal(body, &want); err != nil {
		t.Fatalf("decodeFast took %q, which encoding/json refuses: %v", body, err)
	}
	if !reflect.DeepEqual(fast, want) {
		t.Fatalf("decoding %q: got %#v, want %#v", body, fast, want)
	}
}

func FuzzDecodePage(f *testing.F) {
	for _, s := range pageSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) { checkSamePage(t, body) })
}
