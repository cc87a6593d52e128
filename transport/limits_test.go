package transport

import (
	"errors"
	"strings"
	"testing"
)

// Requests the service would refuse with 413 are refused before sending, naming the limit.
func TestRequestsOverTheBodyLimitAreNotSent(t *testing.T) {
	s, tbl, _ := newEmu(t, 3)
	big := strings.Repeat("x", MaxRequestBodyBytes)
	_, err := tbl.BatchCreate(bg, []map[string]any{{"Name": "a"}, {"Name": big}}, WriteOptions{})
	if !errors.Is(err, ErrInvalidOption) || !strings.Contains(err.Error(), "5 MiB") {
		t.Errorf("BatchCreate: %v", err)
	}
	_, err = tbl.Update(bg, "rec00000000000001", map[string]any{"Name": big}, WriteOptions{})
	if !errors.Is(err, ErrInvalidOption) || !strings.Contains(err.Error(), "5 MiB") {
		t.Errorf("Update: %v", err)
	}
	_, err = tbl.All(bg, ListOptions{Formula: "{Name} = '" + big + "'"})
	if !errors.Is(err, ErrInvalidOption) || !strings.Contains(err.Error(), "5 MiB") {
		t.Errorf("All (formula over the limit): %v", err)
	}
	// Under the limit as text, over it once escaped as JSON.
	quotes := strings.Repeat(`"`, MaxRequestBodyBytes/2+10)
	_, err = tbl.All(bg, ListOptions{Formula: "{Name} = '" + quotes + "'"})
	if !errors.Is(err, ErrInvalidOption) || !strings.Contains(err.Error(), "5 MiB") {
		t.Errorf("All (body over the limit): %v", err)
	}
	if n := len(s.Requests()); n != 0 {
		t.Errorf("%d requests sent", n)
	}
}
