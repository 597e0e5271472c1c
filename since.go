package noema

import (
	"fmt"
	"math"
	"strings"
	"time"
)

// ParseSince parses the `since` of recent_activity and search_notes: an
// RFC 3339 time, a date (2006-01-02), or a duration back from now ("90m",
// "24h", "7d", "1.5d"). Anything else, a negative duration included, is
// invalid_argument naming the since parameter.
func ParseSince(s string, now time.Time) (time.Time, error) {
	s = strings.TrimSpace(s)
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t, nil
	}
	if t, err := time.Parse("2006-01-02", s); err == nil {
		return t, nil
	}
	if strings.HasSuffix(s, "d") {
		var days float64
		if _, err := fmt.Sscanf(s, "%gd", &days); err == nil && days >= 0 && !math.IsInf(days, 0) {
			return now.Add(-time.Duration(days * 24 * float64(time.Hour))), nil
		}
	}
	if d, err := time.ParseDuration(s); err == nil && d >= 0 {
		return now.Add(-d), nil
	}
	return time.Time{}, Errorf(EINVALID, "since %q is not a time, date or duration (e.g. 2026-01-02, 24h, 7d)", s).WithParam("since")
}
