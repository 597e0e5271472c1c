package noema_test

import (
	"errors"
	"testing"
	"time"

	"github.com/noema-mem/noema"
)

func TestParseSince(t *testing.T) {
	now := time.Date(2026, 5, 10, 12, 0, 0, 0, time.UTC)
	for in, want := range map[string]time.Time{
		"2026-05-01":           time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC),
		"2026-05-01T10:00:00Z": time.Date(2026, 5, 1, 10, 0, 0, 0, time.UTC),
		"24h":                  now.Add(-24 * time.Hour),
		" 7d ":                 now.Add(-7 * 24 * time.Hour),
		"1.5d":                 now.Add(-36 * time.Hour),
	} {
		if got, err := noema.ParseSince(in, now); err != nil || !got.Equal(want) {
			t.Errorf("ParseSince(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, bad := range []string{"yesterday", "-3d", "", "-1h", "infd"} {
		_, err := noema.ParseSince(bad, now)
		var e *noema.Error
		if noema.ErrorCode(err) != noema.EINVALID || !errors.As(err, &e) || e.Param != "since" {
			t.Errorf("ParseSince(%q): %v, want invalid_argument on since", bad, err)
		}
	}
}
