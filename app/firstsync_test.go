package app

import (
	"context"
	"errors"
	"testing"
	"time"
)

// TestUntilDone: a first sync that fails is run again until it succeeds,
// the pauses between attempts growing up to their bound; a context that
// ends stops the retries. Before, a failed first sync was logged and the
// watcher started anyway, leaving the changes made while no server ran
// out of the index until the next restart.
func TestUntilDone(t *testing.T) {
	calls := 0
	var pauses []time.Duration
	ok := untilDone(context.Background(), func(context.Context) error {
		calls++
		if calls < 4 {
			return errors.New("the index is busy")
		}
		return nil
	}, time.Millisecond, 3*time.Millisecond, func(_ error, pause time.Duration) { pauses = append(pauses, pause) })
	if !ok || calls != 4 {
		t.Fatalf("untilDone = %v after %d calls, want true after 4", ok, calls)
	}
	if want := []time.Duration{time.Millisecond, 2 * time.Millisecond, 3 * time.Millisecond}; len(pauses) != len(want) || pauses[0] != want[0] || pauses[1] != want[1] || pauses[2] != want[2] {
		t.Errorf("pauses = %v, want %v", pauses, want)
	}

	ctx, cancel := context.WithCancel(context.Background())
	calls = 0
	ok = untilDone(ctx, func(context.Context) error {
		calls++
		if calls == 2 {
			cancel()
		}
		return errors.New("fails")
	}, time.Millisecond, time.Millisecond, func(error, time.Duration) {})
	if ok || calls != 2 {
		t.Errorf("untilDone with its context ended = %v after %d calls, want false after 2", ok, calls)
	}
}
