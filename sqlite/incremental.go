package sqlite

import (
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"unicode/utf8"

	"github.com/noema-mem/noema"
)

// Change records what a batch of note writes can affect in the concept
// registry, so that Apply can update only the concepts of the keys those
// notes link instead of recomputing the registry from every link.
//
// Anything that can move a key between owners — a page (explicit or by
// title) appearing, changing or going away, a note's names changing, a key
// becoming linked or unlinked while some note is named by it — makes Apply
// fall back to RecomputeConcepts, so both paths always agree (a test checks
// it after random edits).
//
// Apply works on sets, not key by key: a note linking 100,000 distinct keys
// costs a handful of statements whose parameters are JSON arrays (read with
// json_each), not several statements per key.
type Change struct {
	paths   []string        // the paths written (or deleted)
	keys    map[string]bool // link keys of the notes, before and after
	oldKeys map[string]bool // link keys of the notes before the writes
	newKeys map[string]bool // link keys of the records written
	names   map[string]bool // name keys of the notes, before and after
	full    bool
	// spellings are the differences the writes make to link_spellings:
	// the records' link counts minus the notes' stored ones, by key and
	// spelling.
	spellings map[spelling]int
	// dates are each written note's dates and keys before and after, by
	// which updateKeys derives a linked concept's created and updated
	// times from its stored ones instead of from all its links.
	dates []noteDates
}

// spelling is a key and one way it is written (a link's target).
type spelling struct{ key, target string }

// noteDates is one written note's creation and modification times and
// link keys, before the writes (had) and after (has).
type noteDates struct {
	had, has                bool
	oldCreated, oldModified int64
	newCreated, newModified int64
	oldKeys, newKeys        map[string]bool
}

// pageishQuery tells whether note ?1 contributes a page or is a concept's
// page; run for every note a write changes, so both lookups go by index.
const pageishQuery = `SELECT EXISTS (SELECT 1 FROM pages WHERE note_id = ?1)
	OR EXISTS (SELECT 1 FROM concepts WHERE page_note_id = ?1)`

// BeginChange captures, before the writes, the registry-relevant state of
// the notes at paths (which may not exist yet) and of the records about to
// be written there. Only these notes may be written (or deleted) before
// Apply; a rename must call Full.
func BeginChange(tx *Tx, paths []string, recs []*NoteRecord) (*Change, error) {
	c := &Change{paths: paths, keys: map[string]bool{}, oldKeys: map[string]bool{}, newKeys: map[string]bool{}, names: map[string]bool{},
		spellings: map[spelling]int{}}
	oldNames := map[string][]string{}
	dates := map[string]*noteDates{}
	for _, p := range paths {
		if dates[p] != nil {
			continue // a path listed twice is one note
		}
		var id int64
		d := &noteDates{}
		dates[p] = d
		err := tx.QueryRow(`SELECT id, created_ns, modified_ns FROM notes WHERE path = ?`, p).Scan(&id, &d.oldCreated, &d.oldModified)
		if errors.Is(err, sql.ErrNoRows) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("capture change of %s: %w", p, err)
		}
		var pageish int
		if err := tx.QueryRow(pageishQuery, id).Scan(&pageish); err != nil {
			return nil, fmt.Errorf("capture change of %s: %w", p, err)
		}
		if pageish != 0 {
			c.full = true
		}
		d.had, d.oldKeys = true, map[string]bool{}
		err = eachRow(tx.ctx, tx, `SELECT key, target, count FROM links WHERE note_id = ?`, []any{id}, func(rows *sql.Rows) error {
			var sp spelling
			var n int
			if err := rows.Scan(&sp.key, &sp.target, &n); err != nil {
				return err
			}
			c.spellings[sp] -= n
			c.keys[sp.key] = true
			c.oldKeys[sp.key] = true
			d.oldKeys[sp.key] = true
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("capture change of %s: %w", p, err)
		}
		names, err := queryStrings(tx.ctx, tx, `SELECT key FROM note_names WHERE note_id = ? ORDER BY key`, id)
		if err != nil {
			return nil, fmt.Errorf("capture change of %s: %w", p, err)
		}
		oldNames[p] = names
		for _, k := range names {
			c.names[k] = true
		}
	}
	for _, r := range recs {
		if r.HasPageRow() {
			c.full = true
		}
		if old, ok := oldNames[r.Path]; ok && !slices.Equal(old, r.NameKeys) {
			c.full = true
		}
		d := dates[r.Path]
		if d == nil || d.has {
			c.full = true // a record for a path not captured, or twice
			d = &noteDates{}
		}
		d.has, d.newCreated, d.newModified, d.newKeys = true, nsOf(r.Created), nsOf(r.Modified), map[string]bool{}
		for _, l := range r.Links {
			c.spellings[spelling{l.Key, l.Target}] += l.Count
			c.keys[l.Key] = true
			c.newKeys[l.Key] = true
			d.newKeys[l.Key] = true
		}
		for _, k := range r.NameKeys {
			c.names[k] = true
		}
	}
	for _, p := range paths {
		if d := dates[p]; d != nil {
			c.dates = append(c.dates, *d)
			delete(dates, p) // a path listed twice is one note
		}
	}
	return c, nil
}

// datesOf derives, from a linked concept's stored created and updated
// times (the earliest known creation and the latest modification of the
// notes linking its key, see linkTimes), the times after the writes, note
// by note: a note that links the key now moves them out to its own; one
// that no longer links it, or moved its time inward, leaves them unless
// it held the extreme — then (ok false) only a pass over the key's links
// can tell. A creation time of 0 is unknown and counts for nothing.
func (c *Change) datesOf(key string, created, updated int64) (int64, int64, bool) {
	return c.datesOfKeys([]string{key}, created, updated)
}

// datesOfKeys is datesOf for a concept named by several keys: a note
// links it when it links any of them.
func (c *Change) datesOfKeys(keys []string, created, updated int64) (int64, int64, bool) {
	if created == 0 || updated == 0 {
		return 0, 0, false
	}
	any := func(set map[string]bool) bool {
		for _, k := range keys {
			if set[k] {
				return true
			}
		}
		return false
	}
	for _, d := range c.dates {
		had, has := d.had && any(d.oldKeys), d.has && any(d.newKeys)
		if !had && !has {
			continue
		}
		if had && d.oldCreated != 0 && d.oldCreated == created && !(has && d.newCreated != 0 && d.newCreated <= d.oldCreated) {
			return 0, 0, false // the earliest note went later or away
		}
		if had && d.oldModified == updated && !(has && d.newModified >= d.oldModified) {
			return 0, 0, false // the latest note went earlier or away
		}
		if has {
			if d.newCreated != 0 {
				created = min(created, d.newCreated)
			}
			updated = max(updated, d.newModified)
		}
	}
	return created, updated, true
}

// writeSpellings adds the writes' differences to link_spellings, which
// then sums the links as they are now.
func (c *Change) writeSpellings(tx *Tx) error {
	var rows [][]any // key, target, difference
	for sp, n := range c.spellings {
		if n != 0 {
			rows = append(rows, []any{sp.key, sp.target, n})
		}
	}
	if len(rows) == 0 {
		return nil
	}
	arr, err := jsonArray(rows)
	if err != nil {
		return err
	}
	if _, err := tx.Exec(`INSERT INTO link_spellings (key, target, count)
		SELECT value->>0, value->>1, value->>2 FROM json_each(?) WHERE true
		ON CONFLICT(key, target) DO UPDATE SET count = count + excluded.count`, arr); err != nil {
		return fmt.Errorf("update link spellings: %w", err)
	}
	if _, err := tx.Exec(`DELETE FROM link_spellings WHERE (key, target) IN
		(SELECT value->>0, value->>1 FROM json_each(?)) AND count <= 0`, arr); err != nil {
		return fmt.Errorf("update link spellings: %w", err)
	}
	return nil
}

// rewriteSpellings makes link_spellings hold the sums of links (every
// key's, as loadLinkAggs reads them), writing only the rows that differ.
func rewriteSpellings(tx *Tx, links map[string]*linkAgg) error {
	diff := make(map[spelling]int)
	for k, a := range links {
		for t, n := range a.spellings {
			diff[spelling{k, t}] = n
		}
	}
	err := eachRow(tx.ctx, tx, `SELECT key, target, count FROM link_spellings`, nil, func(rows *sql.Rows) error {
		var sp spelling
		var n int
		if err := rows.Scan(&sp.key, &sp.target, &n); err != nil {
			return err
		}
		if diff[sp] == n {
			delete(diff, sp)
		} else {
			diff[sp] -= n
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("read link spellings: %w", err)
	}
	c := &Change{spellings: diff}
	return c.writeSpellings(tx)
}

// Full makes Apply recompute the whole registry.
func (c *Change) Full() { c.full = true }

// Apply brings the registry in step with the writes made since BeginChange.
func (c *Change) Apply(tx *Tx, keyOf KeyFunc) (warnings []string, err error) {
	if !c.full {
		if c.full, err = c.needsFull(tx); err != nil {
			return nil, err
		}
	}
	if c.full {
		return RecomputeConcepts(tx, keyOf)
	}
	if err := c.writeSpellings(tx); err != nil {
		return nil, err
	}
	keys := make([]string, 0, len(c.keys))
	for k := range c.keys {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	changed, err := updateKeys(tx, keys, c)
	if err != nil {
		return nil, err
	}
	if changed {
		return nil, bumpConceptsVersion(tx)
	}
	return nil, nil
}

// needsFull reports whether the writes may have moved a key between owners.
// Only the written notes' links changed, so a key is linked after the
// writes when a written note links it now or another note links it, and
// its linked state changed only when the written notes' old and new links
// disagree about it and no other note links it.
func (c *Change) needsFull(tx *Tx) (bool, error) {
	paths, err := jsonArray(c.paths)
	if err != nil {
		return false, err
	}
	// A note written here is named by a key linked after the writes: it is
	// (or becomes) a page.
	var names []string
	for k := range c.names {
		if c.newKeys[k] {
			return true, nil
		}
		names = append(names, k)
	}
	if len(names) > 0 {
		arr, err := jsonArray(names)
		if err != nil {
			return false, err
		}
		var linked int
		if err := tx.QueryRow(`SELECT EXISTS (SELECT 1 FROM json_each(?1) j WHERE EXISTS (
			SELECT 1 FROM links l WHERE l.key = j.value
				AND l.note_id NOT IN (SELECT n.id FROM notes n JOIN json_each(?2) p ON n.path = p.value)))`,
			arr, paths).Scan(&linked); err != nil {
			return false, fmt.Errorf("check links of names: %w", err)
		}
		if linked != 0 {
			return true, nil
		}
	}
	// A key whose linked state may have changed names some note: that note
	// gains or loses its page.
	var flipped []string
	for k := range c.keys {
		if c.oldKeys[k] != c.newKeys[k] {
			flipped = append(flipped, k)
		}
	}
	if len(flipped) == 0 {
		return false, nil
	}
	arr, err := jsonArray(flipped)
	if err != nil {
		return false, err
	}
	var named int
	if err := tx.QueryRow(`SELECT EXISTS (SELECT 1 FROM json_each(?1) j
		WHERE EXISTS (SELECT 1 FROM note_names nn WHERE nn.key = j.value)
		AND NOT EXISTS (SELECT 1 FROM links l WHERE l.key = j.value
			AND l.note_id NOT IN (SELECT n.id FROM notes n JOIN json_each(?2) p ON n.path = p.value)))`,
		arr, paths).Scan(&named); err != nil {
		return false, fmt.Errorf("check names of linked keys: %w", err)
	}
	return named != 0, nil
}

// keyOwner is the stored concept a key names.
type keyOwner struct {
	id               string
	page             bool
	label            string
	created, updated int64
}

// updateKeys re-derives the concepts that keys (sorted) name, when no page
// changes owner: an implicit concept's label and times (created, updated or
// deleted with its links), or a page concept's times. It reports whether
// any concept changed.
func updateKeys(tx *Tx, keys []string, c *Change) (bool, error) {
	if len(keys) == 0 {
		return false, nil
	}
	arr, err := jsonArray(keys)
	if err != nil {
		return false, err
	}
	owners := make(map[string]keyOwner)
	err = eachRow(tx.ctx, tx, `SELECT ck.key, c.id, c.page_note_id IS NOT NULL, c.label, c.created_ns, c.updated_ns
		FROM json_each(?) j JOIN concept_keys ck ON ck.key = j.value JOIN concepts c ON c.id = ck.concept_id`, []any{arr}, func(rows *sql.Rows) error {
		var k string
		var o keyOwner
		if err := rows.Scan(&k, &o.id, &o.page, &o.label, &o.created, &o.updated); err != nil {
			return err
		}
		owners[k] = o
		return nil
	})
	if err != nil {
		return false, fmt.Errorf("owners of linked keys: %w", err)
	}
	aggs, err := c.aggregate(tx, arr, keys, owners)
	if err != nil {
		return false, err
	}
	var (
		pages   []string // concepts with a page: re-derive their times
		deletes []string
		updates [][]any // id, label, created, updated
		texts   [][]any // key, label
		inserts []string
	)
	seenPage := map[string]bool{}
	for _, k := range keys {
		o, hasOwner := owners[k]
		if hasOwner && o.page {
			if !seenPage[o.id] {
				seenPage[o.id] = true
				pages = append(pages, o.id)
			}
			continue
		}
		a := aggs[k]
		switch {
		case a == nil && hasOwner:
			deletes = append(deletes, o.id)
		case a == nil:
		case hasOwner:
			label := bestSpelling(a.spellings)
			if label != o.label || a.created != o.created || a.updated != o.updated {
				updates = append(updates, []any{o.id, label, a.created, a.updated})
				texts = append(texts, []any{k, label})
			}
		default:
			inserts = append(inserts, k)
		}
	}
	changed := len(deletes) > 0 || len(updates) > 0 || len(inserts) > 0
	if len(deletes) > 0 {
		if err := execJSON(tx, `DELETE FROM concepts WHERE id IN (SELECT value FROM json_each(?))`, deletes); err != nil {
			return false, fmt.Errorf("delete concepts: %w", err)
		}
	}
	if len(updates) > 0 {
		if err := execJSON(tx, `UPDATE concepts SET label = j.value->>1, created_ns = j.value->>2, updated_ns = j.value->>3
			FROM json_each(?) j WHERE concepts.id = j.value->>0`, updates); err != nil {
			return false, fmt.Errorf("update concepts: %w", err)
		}
		if err := execJSON(tx, `UPDATE concept_keys SET text = j.value->>1
			FROM json_each(?) j WHERE concept_keys.key = j.value->>0`, texts); err != nil {
			return false, fmt.Errorf("update concept keys: %w", err)
		}
	}
	if len(inserts) > 0 {
		if err := insertImplicit(tx, inserts, aggs); err != nil {
			return false, err
		}
	}
	if len(pages) > 0 {
		ch, err := c.updatePageTimes(tx, pages)
		if err != nil {
			return false, err
		}
		changed = changed || ch
	}
	return changed, nil
}

// aggregateLinks aggregates the links of the keys in the JSON array arr as
// loadLinkAggs does for every key: per spelling in SQL (a key linked by
// thousands of notes is a few rows), then over spellings.
func aggregateLinks(tx *Tx, arr string) (map[string]*linkAgg, error) {
	return linkAggs(tx, `SELECT l.key, l.target, SUM(l.count), `+linkTimes+`
		FROM json_each(?) j JOIN links l ON l.key = j.value JOIN notes n ON n.id = l.note_id
		GROUP BY l.key, l.target`, arr)
}

// aggregate is aggregateLinks for the keys of a write: a key whose
// concept is stored (implicit, not a page) reads its spellings' sums from
// link_spellings (already updated by writeSpellings) and derives its times
// from the stored ones (datesOf), so a note linking a hub concept reads
// neither the 75,000 links of its key nor their notes; the other keys, and
// those datesOf cannot settle, are aggregated in full.
func (c *Change) aggregate(tx *Tx, arr string, keys []string, owners map[string]keyOwner) (map[string]*linkAgg, error) {
	out := make(map[string]*linkAgg, len(keys))
	err := eachRow(tx.ctx, tx, `SELECT s.key, s.target, s.count FROM json_each(?) j JOIN link_spellings s ON s.key = j.value`,
		[]any{arr}, func(rows *sql.Rows) error {
			var key, target string
			var n int
			if err := rows.Scan(&key, &target, &n); err != nil {
				return err
			}
			a := out[key]
			if a == nil {
				a = &linkAgg{spellings: map[string]int{}}
				out[key] = a
			}
			a.spellings[target] += n
			return nil
		})
	if err != nil {
		return nil, fmt.Errorf("sum link spellings: %w", err)
	}
	var rest []string
	for _, k := range keys {
		a := out[k]
		if a == nil {
			continue // no links left
		}
		o, ok := owners[k]
		if ok && !o.page {
			if a.created, a.updated, ok = c.datesOf(k, o.created, o.updated); ok {
				continue
			}
		}
		rest = append(rest, k)
	}
	if len(rest) == 0 {
		return out, nil
	}
	restArr, err := jsonArray(rest)
	if err != nil {
		return nil, err
	}
	full, err := aggregateLinks(tx, restArr)
	if err != nil {
		return nil, err
	}
	for _, k := range rest {
		out[k] = full[k]
	}
	return out, nil
}

// insertImplicit creates the implicit concepts of keys (sorted), which no
// concept names yet. Each gets the id noema.ConceptID(key, 1), or — when a
// concept already has that id (it was first seen under this key and has
// since been renamed) — noema.ConceptID(key, n) for the first free n ≥ 2.
func insertImplicit(tx *Tx, keys []string, aggs map[string]*linkAgg) error {
	ids := make([]string, len(keys))
	for i, k := range keys {
		ids[i] = noema.ConceptID(k, 1)
	}
	taken, err := existingIDs(tx, ids)
	if err != nil {
		return err
	}
	rows := make([][]any, 0, len(keys))
	for i, k := range keys {
		id := ids[i]
		for n := 2; taken[id]; n++ {
			id = noema.ConceptID(k, n)
			if !taken[id] {
				more, err := existingIDs(tx, []string{id})
				if err != nil {
					return err
				}
				taken[id] = more[id]
			}
		}
		taken[id] = true
		a := aggs[k]
		rows = append(rows, []any{id, k, bestSpelling(a.spellings), a.created, a.updated})
	}
	if err := execJSON(tx, `INSERT INTO concepts (id, key, label, aliases, description, metadata, page_note_id, created_ns, updated_ns)
		SELECT value->>0, value->>1, value->>2, '[]', '', '{}', NULL, value->>3, value->>4 FROM json_each(?)`, rows); err != nil {
		return fmt.Errorf("insert concepts: %w", err)
	}
	if err := execJSON(tx, `INSERT INTO concept_keys (key, concept_id, text, is_label)
		SELECT value->>1, value->>0, value->>2, 1 FROM json_each(?)`, rows); err != nil {
		return fmt.Errorf("insert concept keys: %w", err)
	}
	return nil
}

// existingIDs returns which of ids are concept ids already.
func existingIDs(tx *Tx, ids []string) (map[string]bool, error) {
	arr, err := jsonArray(ids)
	if err != nil {
		return nil, err
	}
	taken, err := queryStringSet(tx.ctx, tx, `SELECT j.value FROM json_each(?) j WHERE EXISTS (SELECT 1 FROM concepts c WHERE c.id = j.value)`, arr)
	if err != nil {
		return nil, fmt.Errorf("check concept ids: %w", err)
	}
	return taken, nil
}

// updatePageTimes re-derives page concepts' created/updated times: the
// page note's and its linking notes' times, overridden by the page's front
// matter. The page note itself is never among the written notes here (a
// write of a page recomputes the registry), so the stored times are moved
// by the written notes alone, as datesOf moves an implicit concept's; only
// the concepts whose earliest or latest linking note moved inward or went
// away have their links read again. It reports whether any changed.
func (c *Change) updatePageTimes(tx *Tx, ids []string) (bool, error) {
	arr, err := jsonArray(ids)
	if err != nil {
		return false, err
	}
	type page struct {
		created, updated     int64 // stored
		fmCreated, fmUpdated int64
		keys                 []string
	}
	pages := map[string]*page{}
	err = eachRow(tx.ctx, tx, `SELECT c.id, c.created_ns, c.updated_ns, COALESCE(p.created_ns, 0), COALESCE(p.updated_ns, 0), ck.key
		FROM json_each(?) j JOIN concepts c ON c.id = j.value LEFT JOIN pages p ON p.note_id = c.page_note_id
		JOIN concept_keys ck ON ck.concept_id = c.id`, []any{arr}, func(rows *sql.Rows) error {
		var id, key string
		var pg page
		if err := rows.Scan(&id, &pg.created, &pg.updated, &pg.fmCreated, &pg.fmUpdated, &key); err != nil {
			return err
		}
		if pages[id] == nil {
			pages[id] = &pg
		}
		pages[id].keys = append(pages[id].keys, key)
		return nil
	})
	if err != nil {
		return false, fmt.Errorf("page times: %w", err)
	}
	var updates [][]any
	var rest []string
	for _, id := range ids {
		pg := pages[id]
		if pg == nil {
			rest = append(rest, id)
			continue
		}
		created, updated, ok := c.datesOfKeys(pg.keys, pg.created, pg.updated)
		if !ok && (pg.fmCreated == 0 || pg.fmUpdated == 0) {
			rest = append(rest, id)
			continue
		}
		if pg.fmCreated != 0 {
			created = pg.fmCreated
		}
		if pg.fmUpdated != 0 {
			updated = pg.fmUpdated
		}
		if created != pg.created || updated != pg.updated {
			updates = append(updates, []any{id, created, updated})
		}
	}
	if len(rest) > 0 {
		more, err := pageTimes(tx, rest)
		if err != nil {
			return false, err
		}
		updates = append(updates, more...)
	}
	if len(updates) == 0 {
		return false, nil
	}
	if err := execJSON(tx, `UPDATE concepts SET created_ns = j.value->>1, updated_ns = j.value->>2
		FROM json_each(?) j WHERE concepts.id = j.value->>0`, updates); err != nil {
		return false, fmt.Errorf("update page times: %w", err)
	}
	return true, nil
}

// pageTimes derives page concepts' created/updated times from the page
// note's and every linking note's times, overridden by the page's front
// matter, and returns those that differ from the stored ones (id, created,
// updated).
func pageTimes(tx *Tx, ids []string) ([][]any, error) {
	arr, err := jsonArray(ids)
	if err != nil {
		return nil, err
	}
	var updates [][]any
	err = eachRow(tx.ctx, tx, `SELECT c.id, c.created_ns, c.updated_ns, pn.created_ns, pn.modified_ns,
			COALESCE(p.created_ns, 0), COALESCE(p.updated_ns, 0), lt.created, lt.updated
		FROM json_each(?1) j JOIN concepts c ON c.id = j.value JOIN notes pn ON pn.id = c.page_note_id
		LEFT JOIN pages p ON p.note_id = c.page_note_id
		LEFT JOIN (SELECT ck.concept_id AS id, MIN(NULLIF(n.created_ns, 0)) AS created, MAX(n.modified_ns) AS updated
			FROM json_each(?1) jj JOIN concept_keys ck ON ck.concept_id = jj.value
			JOIN links l ON l.key = ck.key JOIN notes n ON n.id = l.note_id GROUP BY ck.concept_id) lt ON lt.id = c.id`, []any{arr}, func(rows *sql.Rows) error {
		var id string
		var oldCreated, oldUpdated, created, updated, fc, fu int64
		var lc, lu sql.NullInt64
		if err := rows.Scan(&id, &oldCreated, &oldUpdated, &created, &updated, &fc, &fu, &lc, &lu); err != nil {
			return err
		}
		if lc.Valid { // unknown creation times (0) count for nothing, as in RecomputeConcepts
			created = minNonZero(created, lc.Int64)
		}
		if lu.Valid {
			updated = max(updated, lu.Int64)
		}
		if fc != 0 {
			created = fc
		}
		if fu != 0 {
			updated = fu
		}
		if created != oldCreated || updated != oldUpdated {
			updates = append(updates, []any{id, created, updated})
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("page times: %w", err)
	}
	return updates, nil
}

// jsonArray encodes v as the JSON parameter of a json_each statement.
// Strings must be valid UTF-8: JSON cannot carry other bytes unchanged.
func jsonArray[T any](v []T) (string, error) {
	if err := checkUTF8(v); err != nil {
		return "", err
	}
	b, err := json.Marshal(v)
	if err != nil {
		return "", fmt.Errorf("encode parameters: %w", err)
	}
	return string(b), nil
}

func checkUTF8(v any) error {
	switch x := v.(type) {
	case string:
		if !utf8.ValidString(x) {
			return fmt.Errorf("invalid UTF-8 in %q", x)
		}
	case []string:
		for _, s := range x {
			if err := checkUTF8(s); err != nil {
				return err
			}
		}
	case [][]any:
		for _, r := range x {
			if err := checkUTF8(r); err != nil {
				return err
			}
		}
	case []any:
		for _, e := range x {
			if err := checkUTF8(e); err != nil {
				return err
			}
		}
	}
	return nil
}

// execJSON runs a statement whose one parameter is v as a JSON array.
func execJSON[T any](tx *Tx, query string, v []T) error {
	arr, err := jsonArray(v)
	if err != nil {
		return err
	}
	_, err = tx.Exec(query, arr)
	return err
}
