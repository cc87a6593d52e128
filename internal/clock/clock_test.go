package clock

import (
	"context"
	"testing"
	"time"
)

func TestFakeFiresInOrderOnlyWhenDue(t *testing.T) {
	t0 := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	f := NewFake(t0)
	late := f.After(2 * time.Second)
	early := f.After(time.Second)

	f.Advance(999 * time.Millisecond)
	select {
	case <-early:
		t.Fatal("fired before its time")
	default:
	}
	f.Advance(time.Millisecond)
	if got := <-early; !got.Equal(t0.Add(time.Second)) {
		t.Fatalf("early fired at %v", got)
	}
	select {
	case <-late:
		t.Fatal("late fired early")
	default:
	}
	if n := f.Waiters(); n != 1 {
		t.Fatalf("waiters = %d, want 1", n)
	}
	f.Advance(time.Second)
	<-late
	if !f.Now().Equal(t0.Add(2 * time.Second)) {
		t.Fatalf("now = %v", f.Now())
	}
}

func TestSleepEndsOnAdvanceOrCancel(t *testing.T) {
	f := NewFake(time.Unix(0, 0))
	done := make(chan error, 1)
	go func() { done <- Sleep(context.Background(), f, time.Minute) }()
	if err := f.BlockUntil(context.Background(), 1); err != nil {
		t.Fatal(err)
	}
	f.Advance(time.Minute)
	if err := <-done; err != nil {
		t.Fatalf("Sleep = %v", err)
	}

	ctx, cancel := context.WithCancel(context.Background())
	go func() { done <- Sleep(ctx, f, time.Minute) }()
	if err := f.BlockUntil(context.Background(), 1); err != nil {
		t.Fatal(err)
	}
	cancel()
	if err := <-done; err != context.Canceled {
		t.Fatalf("Sleep after cancel = %v", err)
	}
}

func TestAfterNonPositiveFiresAtOnce(t *testing.T) {
	f := NewFake(time.Unix(5, 0))
	if got := <-f.After(0); !got.Equal(time.Unix(5, 0)) {
		t.Fatalf("got %v", got)
	}
}
