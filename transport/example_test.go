package transport_test

import (
	"context"
	"errors"
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

// ExampleTable_BatchCreate writes records in chunks of 10; when one chunk fails, the records of
// the chunks written come back with a *transport.BatchError that says which they were.
func ExampleTable_BatchCreate() {
	fixture, err := emulator.ParseFixture([]byte(`{"bases": [{"id": "appEXAMPLE0000002", "name": "Example",
		"tables": [{"name": "Tasks", "fields": [{"name": "Name", "type": "singleLineText"}]}]}]}`))
	if err != nil {
		log.Fatal(err)
	}
	server, err := emulator.New(emulator.WithFixture(fixture))
	if err != nil {
		log.Fatal(err)
	}
	defer server.Close()
	tasks, err := transport.NewTable(emulator.DefaultToken, "appEXAMPLE0000002", "Tasks",
		transport.WithEndpointURL(emulator.InProcessURL), transport.WithHTTPClient(server.Client()))
	if err != nil {
		log.Fatal(err)
	}

	var rows []map[string]any
	for i := range 15 {
		rows = append(rows, map[string]any{"Name": fmt.Sprintf("task %d", i)})
	}
	rows[12] = map[string]any{"Nmae": "a typo"} // the second chunk will be refused
	written, err := tasks.BatchCreate(context.Background(), rows, transport.WriteOptions{})
	var batchErr *transport.BatchError
	var apiErr *transport.APIError
	if errors.As(err, &batchErr) && errors.As(err, &apiErr) {
		fmt.Println(len(written), "written; input indexes", batchErr.Written[0], "to", batchErr.Written[len(batchErr.Written)-1])
		fmt.Println(apiErr.StatusCode, apiErr.Type)
	}
	// Output:
	// 10 written; input indexes 0 to 9
	// 422 UNKNOWN_FIELD_NAME
}
