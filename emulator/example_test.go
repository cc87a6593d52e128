package emulator_test

import (
	"fmt"
	"io"
	"net/http"
	"net/url"

	"github.com/airsql/airsql/emulator"
)

// A list request against the demo base, served in-process.
func Example() {
	srv, err := emulator.New(emulator.WithDemo())
	if err != nil {
		panic(err)
	}
	defer srv.Close()
	q := url.Values{"fields[]": {"Name"}, "maxRecords": {"1"}, "view": {"Active people"}}
	req, _ := http.NewRequest("GET", emulator.InProcessURL+"/v0/"+emulator.DemoBaseID+"/People?"+q.Encode(), nil)
	req.Header.Set("Authorization", "Bearer "+emulator.DemoToken)
	res, err := srv.Client().Do(req)
	if err != nil {
		panic(err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	fmt.Println(res.StatusCode, string(body))
	// Output: 200 {"records":[{"id":"recJvwz032qkJi1NF","createdTime":"2024-01-01T20:00:00.000Z","fields":{"Name":"Ada Hopper 2"}}]}
}

// Loading a fixture and injecting a fault for the client under test.
func ExampleServer_InjectFault() {
	f, err := emulator.ParseFixture([]byte(`{"bases":[{"id":"appEXAMPLE0000001","name":"Example","tables":[
		{"name":"Tasks","fields":[{"name":"Name","type":"singleLineText"}],"records":[{"fields":{"Name":"one"}}]}]}]}`))
	if err != nil {
		panic(err)
	}
	srv, err := emulator.New(emulator.WithFixture(f))
	if err != nil {
		panic(err)
	}
	defer srv.Close()
	srv.InjectFault(emulator.Fault{Method: "GET", Status: 503, Body: `{"error":{"type":"RETRIABLE_ERROR"}}`, Times: 1})
	for range 2 {
		req, _ := http.NewRequest("GET", emulator.InProcessURL+"/v0/appEXAMPLE0000001/Tasks", nil)
		req.Header.Set("Authorization", "Bearer "+emulator.DefaultToken)
		res, err := srv.Client().Do(req)
		if err != nil {
			panic(err)
		}
		res.Body.Close()
		fmt.Println(res.StatusCode)
	}
	fmt.Println(len(srv.Requests()), "requests recorded")
	// Output:
	// 503
	// 200
	// 2 requests recorded
}
