package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/noema-mem/noema"
)

// TimeIndex is the index as memory over time reads it (port
// [noema.TimeIndex]): the notes' validity (migration
// 0018_note_validity.sql) and their `supersedes` relations, resolved to
// notes. Get one with [DB.Time].
type TimeIndex struct{ db *DB }

var _ noema.TimeIndex = (*TimeIndex)(nil)

// Time returns the index's time adapter.
func (db *DB) Time() *TimeIndex { return &TimeIndex{db: db} }

// boundNS is a validity bound as stored: NULL when absent, else its Unix
// nanoseconds, clamped to what an int64 holds (a valid_until of 9999-12-31
// is "for ever").
func boundNS(t time.Time) any {
	switch {
	case t.IsZero():
		return nil
	case t.Before(time.Unix(0, math.MinInt64)):
		return int64(math.MinInt64)
	case t.After(time.Unix(0, math.MaxInt64)):
		return int64(math.MaxInt64)
	}
	return t.UnixNano()
}

// boundTime is the time of a stored bound (zero for NULL).
func boundTime(ns sql.NullInt64) time.Time {
	if !ns.Valid {
		return time.Time{}
	}
	return time.Unix(0, ns.Int64).UTC()
}

// supersedesTargets resolves every `supersedes` relation to the notes it
// may name: by path ("note:<path>"), or by name ("concept:<key>": the notes
// whose title, alias or file name has the key).
const supersedesTargets = `
SELECT r.note_id, r.to_ref, n.id, n.path, 0 FROM relations r JOIN notes n ON n.path = substr(r.to_ref, 6)
	WHERE r.type = 'supersedes' AND substr(r.to_ref, 1, 5) = 'note:'
UNION
SELECT r.note_id, r.to_ref, n.id, n.path, 1 FROM relations r JOIN note_names k ON k.key = substr(r.to_ref, 9)
	JOIN notes n ON n.id = k.note_id
	WHERE r.type = 'supersedes' AND substr(r.to_ref, 1, 8) = 'concept:'
UNION
SELECT r.note_id, r.to_ref, n.id, n.path, 1 FROM relations r JOIN notes n ON n.file_key = substr(r.to_ref, 9)
	WHERE r.type = 'supersedes' AND substr(r.to_ref, 1, 8) = 'concept:' AND n.file_key != ''`

// Timeline returns the notes with a validity or a supersession (see
// [noema.Timeline]), prev itself when the index's text version (which
// moves with every note written or removed) is still prev's.
//
// A `supersedes` target by path names the note at that path; one by name
// names the note whose title, alias or file name has its key — of several,
// the first by path, as [[links]] do — never the declaring note itself.
func (t *TimeIndex) Timeline(ctx context.Context, prev *noema.Timeline) (*noema.Timeline, error) {
	v, err := t.db.Search().SearchTextVersion(ctx)
	if err != nil {
		return nil, err
	}
	if prev != nil && prev.Version == v {
		return prev, nil
	}
	tl := &noema.Timeline{Version: v, Notes: map[int64]*noema.TimedNote{}}
	note := func(id int64) *noema.TimedNote {
		n := tl.Notes[id]
		if n == nil {
			n = &noema.TimedNote{ID: id}
			tl.Notes[id] = n
		}
		return n
	}
	rd := t.db.rd()
	err = eachRow(ctx, rd, `SELECT note_id, valid_from_ns, valid_until_ns FROM note_validity`, nil, func(rows *sql.Rows) error {
		var id int64
		var from, until sql.NullInt64
		if err := rows.Scan(&id, &from, &until); err != nil {
			return err
		}
		n := note(id)
		n.ValidFrom, n.ValidUntil = boundTime(from), boundTime(until)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read validity: %w", err)
	}
	// The best target of each (declaring note, reference): a path match,
	// else the first by path of the notes named so.
	type target struct {
		id     int64
		path   string
		byName bool
	}
	type decl struct {
		src int64
		ref string
	}
	best := map[decl]target{}
	err = eachRow(ctx, rd, supersedesTargets, nil, func(rows *sql.Rows) error {
		var src int64
		var ref string
		var tg target
		if err := rows.Scan(&src, &ref, &tg.id, &tg.path, &tg.byName); err != nil {
			return err
		}
		if tg.id == src {
			return nil
		}
		k := decl{src, ref}
		if b, ok := best[k]; !ok || (b.byName && !tg.byName) || (b.byName == tg.byName && tg.path < b.path) {
			best[k] = tg
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("resolve supersedes: %w", err)
	}
	for k, tg := range best {
		src := note(k.src)
		src.Supersedes = append(src.Supersedes, tg.id)
		old := note(tg.id)
		old.SupersededBy = append(old.SupersededBy, src.ID)
	}
	if len(tl.Notes) == 0 {
		return tl, nil
	}
	ids := make([]int64, 0, len(tl.Notes))
	for id, n := range tl.Notes {
		ids = append(ids, id)
		slices.Sort(n.Supersedes)
		n.Supersedes = slices.Compact(n.Supersedes)
		slices.Sort(n.SupersededBy)
		n.SupersededBy = slices.Compact(n.SupersededBy)
	}
	err = eachRow(ctx, rd, `SELECT id, path, title, created_ns FROM notes WHERE id IN (SELECT value FROM json_each(?))`,
		[]any{intsArg(ids)}, func(rows *sql.Rows) error {
			var id, created int64
			var path, title string
			if err := rows.Scan(&id, &path, &title, &created); err != nil {
				return err
			}
			n := tl.Notes[id]
			n.Path, n.Title, n.Created = path, title, time.Unix(0, created).UTC()
			return nil
		})
	if err != nil {
		return nil, fmt.Errorf("read timeline notes: %w", err)
	}
	// A row removed between the reads has no path: leave it out.
	for id, n := range tl.Notes {
		if n.Path == "" {
			delete(tl.Notes, id)
		}
	}
	return tl, nil
}

// NoteCreated returns when each note among ids was written (its created_ns:
// front matter `created`, else the file's modification time).
func (t *TimeIndex) NoteCreated(ctx context.Context, ids []int64) (map[int64]time.Time, error) {
	out := make(map[int64]time.Time, len(ids))
	if len(ids) == 0 {
		return out, nil
	}
	err := eachPair(ctx, t.db.rd(), `SELECT id, created_ns FROM notes WHERE id IN (SELECT value FROM json_each(?))`,
		[]any{intsArg(ids)}, func(id, created int64) { out[id] = time.Unix(0, created).UTC() })
	if err != nil {
		return nil, fmt.Errorf("read note creation times: %w", err)
	}
	return out, nil
}
