package transport

import (
	"context"
	"errors"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/airsql/airsql/emulator"
	"github.com/airsql/airsql/internal/clock"
)

// TestNothingLeftRunning: breaking out of Iterate, timeouts and batches leave no goroutine behind.
func TestNothingLeftRunning(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	APILimitOff(t) // a fake clock that nobody advances: nothing may wait on it
	clk := clock.NewFake(time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC))
	s, err := emulator.New(emulator.WithFixture(emuFixture(300)), emulator.WithClock(clk), emulator.WithRate(0, 0))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	tbl, _ := NewTable(emulator.DefaultToken, emuBase, "My Tasks", WithEndpointURL(emulator.InProcessURL), WithHTTPClient(s.Client()),
		WithClock(clk), WithTimeout(time.Second, time.Hour))
	for _, err := range tbl.Iterate(bg, ListOptions{PageSize: 10}) {
		if err != nil {
			t.Fatal(err)
		}
		break
	}
	if n := len(s.Requests()); n != 1 {
		t.Errorf("%d requests after breaking on the first page, want 1", n)
	}
	if _, err := tbl.BatchCreate(bg, manyFields(45), WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(bg)
	cancel()
	if _, err := tbl.BatchDelete(ctx, []string{"rec00000000000001"}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled batch: got %v", err)
	}
}

// TestReadTimeoutOnEmulator: a response delayed past the read limit fails with ErrReadTimeout; the
// emulator and the client share a fake clock, so nothing sleeps.
func TestReadTimeoutOnEmulator(t *testing.T) {
	clk := clock.NewFake(time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC))
	s, err := emulator.New(emulator.WithFixture(emuFixture(3)), emulator.WithClock(clk), emulator.WithRate(0, 0))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	s.InjectFault(emulator.Fault{Method: "GET", Delay: time.Minute, Times: 1})
	tbl, _ := NewTable(emulator.DefaultToken, emuBase, "My Tasks", WithEndpointURL(emulator.InProcessURL), WithHTTPClient(s.Client()),
		WithClock(clk), WithTimeout(time.Second, 10*time.Second))
	done := make(chan error, 1)
	go func() { _, err := tbl.Get(bg, "rec00000000000001"); done <- err }()
	if err := clk.BlockUntil(bg, 2); err != nil { // the watchdog and the fault's delay
		t.Fatal(err)
	}
	clk.Advance(10 * time.Second)
	if err := <-done; !errors.Is(err, ErrReadTimeout) {
		t.Errorf("got %v, want ErrReadTimeout", err)
	}
}
