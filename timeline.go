package noema

import (
	"strings"
	"time"
)

// Memory over time (docs/time.md): a note may say that it replaces others
// (front matter `supersedes`) and when it holds (`valid_from`,
// `valid_until`). This file holds the front-matter keys, the date grammar
// they and the tools' `as_of` share, and the index's view of them
// ([Timeline]); the port that reads it is [TimeIndex].

// Front-matter keys of memory over time.
const (
	// SupersedesKey lists the notes a note replaces: a "[[Old Note]]"
	// link, a title, a vault path or a memory:// URI, or a list of them.
	SupersedesKey = "supersedes"
	// ValidFromKey is the date or time from which a note holds.
	ValidFromKey = "valid_from"
	// ValidUntilKey is the date or time until which a note holds: a date
	// holds through its whole day.
	ValidUntilKey = "valid_until"
)

// timeLayouts are the forms of a date or time, as Obsidian and people
// write them in front matter, with optional fractional seconds.
var timeLayouts = [...]string{
	time.RFC3339Nano,
	"2006-01-02T15:04:05.999999999",
	"2006-01-02 15:04:05.999999999Z07:00",
	"2006-01-02 15:04:05.999999999",
	"2006-01-02T15:04",
	"2006-01-02 15:04",
	time.DateOnly,
}

// ParseTime parses a date or time as front matter holds one: RFC 3339
// ("2024-05-01T10:00:00+02:00"), a date ("2024-05-01"), "2024-05-01
// 10:00:00" and "2024-05-01T10:00", with optional fractional seconds. A
// time without a zone is UTC, so that the same file means the same instant
// on every machine. dateOnly reports a date without a time (its start in
// UTC is returned); ok is false for anything else.
func ParseTime(s string) (t time.Time, dateOnly, ok bool) {
	s = strings.TrimSpace(s)
	for _, layout := range timeLayouts {
		if t, err := time.Parse(layout, s); err == nil {
			return t, layout == time.DateOnly, true
		}
	}
	return time.Time{}, false, false
}

// EndOfDay returns the last instant of the UTC day that starts at day:
// a date given as the end of a span (valid_until, as_of) holds through its
// whole day.
func EndOfDay(day time.Time) time.Time { return day.AddDate(0, 0, 1).Add(-time.Nanosecond) }

// ParseValidity parses a validity bound given as a tool parameter or read
// from front matter under key (ValidFromKey or ValidUntilKey). A date is
// the start of its day for valid_from and the end of it for valid_until.
// Anything else is invalid_argument naming the parameter.
func ParseValidity(key, s string) (time.Time, error) {
	t, dateOnly, ok := ParseTime(s)
	if !ok {
		return time.Time{}, Errorf(EINVALID, "%s %q is not a date or time (e.g. 2026-01-02 or 2026-01-02T15:04:05Z)", key, s).WithParam(key)
	}
	if dateOnly && key == ValidUntilKey {
		t = EndOfDay(t)
	}
	return t, nil
}

// ParseAsOf parses the `as_of` of search_notes and build_context: a date
// (the end of that day, so a note written during it counts) or a time, as
// [ParseTime] reads them. Anything else is invalid_argument naming as_of.
func ParseAsOf(s string) (time.Time, error) {
	t, dateOnly, ok := ParseTime(s)
	if !ok {
		return time.Time{}, Errorf(EINVALID, "as_of %q is not a date or time (e.g. 2026-01-02 or 2026-01-02T15:04:05Z)", s).WithParam("as_of")
	}
	if dateOnly {
		t = EndOfDay(t)
	}
	return t, nil
}

// Timeline is what the index knows of the notes that have a place in
// time: every note with a validity (valid_from or valid_until) or a
// supersession (it supersedes a note, or a note supersedes it). Notes
// outside it hold always and replace nothing. A Timeline is never
// modified once returned.
type Timeline struct {
	// Version is the index state the timeline was read at (it changes
	// with every note written or removed).
	Version int64
	// Notes holds each note of the timeline by row id.
	Notes map[int64]*TimedNote
}

// TimedNote is one note of a [Timeline].
type TimedNote struct {
	ID    int64
	Path  string
	Title string
	// Created is when the note was written: its front matter `created`,
	// else its file's modification time as the index read it.
	Created time.Time
	// ValidFrom and ValidUntil bound when it holds (zero: unbounded); a
	// valid_until date is the last instant of its day.
	ValidFrom, ValidUntil time.Time
	// Supersedes are the row ids of the notes this one names in
	// `supersedes` (itself excluded), ascending; SupersededBy those of the
	// notes that name it, ascending.
	Supersedes, SupersededBy []int64
}

// Start is when the note begins to hold: its valid_from, else when it was
// written.
func (n *TimedNote) Start() time.Time {
	if !n.ValidFrom.IsZero() {
		return n.ValidFrom
	}
	return n.Created
}
