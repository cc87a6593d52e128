package transport_test

import (
	"context"
	"fmt"
	"log"

	"github.com/airsql/airsql/emulator"
	"github.com/airsql/airsql/transport"
)

// ExampleTable_All lists the open tasks of a base, highest priority first, from the in-process
// emulator (against Airtable, leave out WithEndpointURL and WithHTTPClient).
func ExampleTable_All() {
	fixture, err := emulator.ParseFixture([]byte(`{"bases": [{
		"id": "appEXAMPLE0000001", "name": "Example",
		"tables": [{"name": "Tasks",
			"fields": [{"name": "Name", "type": "singleLineText"}, {"name": "Priority", "type": "number", "options": {"precision": 0}},
			           {"name": "Done", "type": "checkbox"}],
			"records": [{"fields": {"Name": "Write spec", "Priority": 3}},
			            {"fields": {"Name": "Ship", "Priority": 5}},
			            {"fields": {"Name": "Plan", "Priority": 1, "Done": true}}]}]}]}`))
	if err != nil {
		log.Fatal(err)
	}
	server, err := emulator.New(emulator.WithFixture(fixture))
	if err != nil {
		log.Fatal(err)
	}
	defer server.Close()

	tasks, err := transport.NewTable(emulator.DefaultToken, "appEXAMPLE0000001", "Tasks",
		transport.WithEndpointURL(emulator.InProcessURL), transport.WithHTTPClient(server.Client()))
	if err != nil {
		log.Fatal(err)
	}
	records, err := tasks.All(context.Background(), transport.ListOptions{
		Formula: "NOT({Done})",
		Sort:    []string{"-Priority"},
		Fields:  []string{"Name", "Priority"},
	})
	if err != nil {
		log.Fatal(err)
	}
	for _, r := range records {
		fmt.Println(r.Fields["Name"], r.Fields["Priority"])
	}
	// Output:
	// Ship 5
	// Write spec 3
}
