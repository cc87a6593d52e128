package transport_test

import (
	"context"
	"fmt"
	"log"

	"github.com/airsql/airsql/emulator"
	"github.com/airsql/airsql/transport"
)

// ExampleBase_IterateWebhookPayloads follows a base's changes without a public URL: a webhook
// records each write as a payload, read in order from a cursor (here from the in-process
// emulator's demo base).
func ExampleBase_IterateWebhookPayloads() {
	server, err := emulator.New(emulator.WithDemo())
	if err != nil {
		log.Fatal(err)
	}
	defer server.Close()
	ctx := context.Background()
	base, err := transport.NewBase(emulator.DemoToken, emulator.DemoBaseID,
		transport.WithEndpointURL(emulator.InProcessURL), transport.WithHTTPClient(server.Client()))
	if err != nil {
		log.Fatal(err)
	}
	hook, err := base.CreateWebhook(ctx, transport.WebhookSpecification{Options: transport.WebhookOptions{
		Filters:  transport.WebhookFilters{DataTypes: []string{transport.WebhookTableData}},
		Includes: &transport.WebhookIncludes{PreviousCellValues: true},
	}}, "")
	if err != nil {
		log.Fatal(err)
	}
	people := base.Table("People")
	ann, err := people.Create(ctx, map[string]any{"Name": "Ann Example"}, transport.WriteOptions{ReturnFieldsByFieldID: true})
	if err != nil {
		log.Fatal(err)
	}
	if _, err := people.Update(ctx, ann.ID, map[string]any{"Name": "Ann Sample"}, transport.WriteOptions{}); err != nil {
		log.Fatal(err)
	}
	if _, err := people.Delete(ctx, ann.ID); err != nil {
		log.Fatal(err)
	}
	var nameField string
	for id, v := range ann.Fields {
		if v == "Ann Example" {
			nameField = id
		}
	}
	for p, err := range base.IterateWebhookPayloads(ctx, hook.ID, 1) {
		if err != nil {
			log.Fatal(err)
		}
		for _, tc := range p.ChangedTablesByID {
			for _, rec := range tc.CreatedRecordsByID {
				fmt.Printf("%d %s: created %v\n", p.Cursor, p.ActionMetadata.Source, rec.CellValuesByFieldID[nameField])
			}
			for _, ch := range tc.ChangedRecordsByID {
				fmt.Printf("%d %s: renamed %v to %v\n", p.Cursor, p.ActionMetadata.Source,
					ch.Previous.CellValuesByFieldID[nameField], ch.Current.CellValuesByFieldID[nameField])
			}
			if len(tc.DestroyedRecordIDs) > 0 {
				fmt.Printf("%d %s: deleted %d record\n", p.Cursor, p.ActionMetadata.Source, len(tc.DestroyedRecordIDs))
			}
		}
	}
	// Output:
	// 1 publicApi: created Ann Example
	// 2 publicApi: renamed Ann Example to Ann Sample
	// 3 publicApi: deleted 1 record
}
