package transport

import (
	"time"
)

// Record is one record of a table (seed §2).
type Record struct {
	ID          string         `json:"id,omitempty"`
	CreatedTime time.Time      `json:"createdTime,omitzero"`
	Fields      map[string]any `json:"fields"` // keyed by field name, or by id with ReturnFieldsByFieldID; never nil once decoded
}

// DeleteResult is the answer to a deletion.
type DeleteResult struct {
	ID      string `json:"id"`
	Deleted bool   `json:"deleted"`
}

// ListOptions are the fetching options of Iterate, All and First (seed §4.3). Zero values are
// left out of the request, so the service's defaults apply.
type ListOptions struct {
	View, Formula                    string   // view name or id; filterByFormula
	Fields, Sort                     []string // Sort: "-Name" is descending
	MaxRecords, PageSize             int      // 0: the service's default (all records; 100 per page)
	CellFormat, TimeZone, UserLocale string   // CellFormat "string" needs TimeZone and UserLocale
	ReturnFieldsByFieldID            bool
}

// WriteOptions are the options of the write operations (seed §4.2). Replace makes Update and
// BatchUpdate/BatchUpsert send PUT (fields left out are cleared) instead of PATCH.
type WriteOptions struct{ Typecast, Replace, ReturnFieldsByFieldID bool }

// GetOption are the options of Get. Several are merged: set fields of later ones win.
type GetOption struct {
	ReturnFieldsByFieldID            bool
	CellFormat, TimeZone, UserLocale string
}

// page is one response of a list request.
type page struct {
	Records []Record `json:"records"`
	Offset  string   `json:"offset"`
}

// fillFields gives records without fields an empty map, as the service leaves "fields" out of
// records whose cells are all empty in some answers.
func fillFields(recs []Record) {
	for i := range recs {
		if recs[i].Fields == nil {
			recs[i].Fields = map[string]any{}
		}
	}
}
