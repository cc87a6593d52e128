package emulator

import (
	"fmt"
	"net/url"
	"sync"
	"testing"
)

// TestConcurrentReadsAndWrites runs lists, gets and writes at once; with -race it checks that
// all shared state is guarded.
func TestConcurrentReadsAndWrites(t *testing.T) {
	s, _ := newTestServer(t, WithDemo())
	b := "/v0/" + DemoBaseID
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for g := range 4 {
		wg.Add(2)
		go func() {
			defer wg.Done()
			for i := range 10 {
				r, err := tryDo(s, DemoToken, "POST", b+"/Tasks", map[string]any{"typecast": true, "fields": map[string]any{
					"Name": fmt.Sprintf("g%d-%d", g, i), "Project": []any{demoRecordID(demoProjectsTable, i)}, "Tags": []any{fmt.Sprintf("new%d", i%3)}}})
				if err != nil || r.status != 200 {
					errs <- fmt.Errorf("create: %v %s", err, r.raw)
					return
				}
				id := r.body["id"].(string)
				if r, err := tryDo(s, DemoToken, "DELETE", b+"/Tasks/"+id, nil); err != nil || r.status != 200 {
					errs <- fmt.Errorf("delete: %v %s", err, r.raw)
					return
				}
			}
		}()
		go func() {
			defer wg.Done()
			for range 5 {
				p := b + "/Projects?pageSize=5&view=Active%20projects&filterByFormula=" + url.QueryEscape("{Task Count} > 0")
				r, err := tryDo(s, DemoToken, "GET", p, nil)
				if err != nil || r.status != 200 {
					errs <- fmt.Errorf("list: %v %s", err, r.raw)
					return
				}
				if off, _ := r.body["offset"].(string); off != "" {
					if r, err := tryDo(s, DemoToken, "GET", p+"&offset="+url.QueryEscape(off), nil); err != nil || r.status != 200 {
						errs <- fmt.Errorf("next page: %v %s", err, r.raw)
						return
					}
				}
				if r, err := tryDo(s, DemoToken, "GET", "/v0/meta/bases/"+DemoBaseID+"/tables", nil); err != nil || r.status != 200 {
					errs <- fmt.Errorf("schema: %v %s", err, r.raw)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	r := do(t, s, DemoToken, "GET", b+"/Tasks?pageSize=1&filterByFormula="+url.QueryEscape("FIND('g', {Name}) = 1"), nil)
	if n := len(records(t, r)); n != 0 {
		t.Fatalf("%d created tasks left after their deletes", n)
	}
}
