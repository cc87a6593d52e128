package emulator

import "testing"

func TestCRUDRoundTrip(t *testing.T) {
	s, _ := newTestServer(t, WithFixture(smallFixture(t)))
	tok := DefaultToken

	r := do(t, s, tok, "GET", testBase+"/Tasks", nil)
	mustStatus(t, r, 200)
	if got := len(records(t, r)); got != 3 {
		t.Fatalf("got %d records, want 3", got)
	}
	first := records(t, r)[0]
	if first["id"] != "recTASK0000000001" || fieldsOf(first)["Score"] != 6.0 || fieldsOf(first)["Num"] != 1.0 {
		t.Fatalf("first record %v", first)
	}

	r = do(t, s, tok, "POST", testBase+"/Tasks/", map[string]any{"records": []any{map[string]any{"fields": map[string]any{"Name": "New", "Priority": 2}}}})
	mustStatus(t, r, 200)
	id := records(t, r)[0]["id"].(string)

	r = do(t, s, tok, "PATCH", testBase+"/Tasks/"+id, map[string]any{"fields": map[string]any{"Status": "Done"}})
	mustStatus(t, r, 200)
	if fieldsOf(r.body)["Status"] != "Done" || fieldsOf(r.body)["Name"] != "New" {
		t.Fatalf("after PATCH %v", r.body)
	}
	r = do(t, s, tok, "PUT", testBase+"/Tasks/"+id, map[string]any{"fields": map[string]any{"Name": "Only"}})
	mustStatus(t, r, 200)
	if _, has := fieldsOf(r.body)["Status"]; has {
		t.Fatalf("PUT kept Status: %v", r.body)
	}
	r = do(t, s, tok, "DELETE", testBase+"/Tasks/"+id, nil)
	mustStatus(t, r, 200)
	r = do(t, s, tok, "GET", testBase+"/Tasks/"+id, nil)
	mustStatus(t, r, 403)

	r = do(t, s, tok, "GET", testBase+"/Tasks?filterByFormula=%7BPriority%7D%3E2&sort%5B0%5D%5Bfield%5D=Priority&sort%5B0%5D%5Bdirection%5D=desc", nil)
	mustStatus(t, r, 200)
	recs := records(t, r)
	if len(recs) != 2 || fieldsOf(recs[0])["Name"] != "Ship" {
		t.Fatalf("filtered: %s", r.raw)
	}
}

func TestDemoLoads(t *testing.T) {
	s, _ := newTestServer(t, WithDemo())
	r := do(t, s, DemoToken, "GET", "/v0/"+DemoBaseID+"/Tasks?view=Open&maxRecords=3", nil)
	mustStatus(t, r, 200)
	if len(records(t, r)) != 3 {
		t.Fatalf("%s", r.raw)
	}
	t.Logf("%s", r.raw[:min(len(r.raw), 1500)])
}
