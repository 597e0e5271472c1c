package sqlite

import (
	"database/sql"
	"errors"
	"fmt"
	"slices"
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
type Change struct {
	keys         map[string]bool // link keys of the notes, before and after
	names        map[string]bool // name keys of the notes, before and after
	linkedBefore map[string]bool
	full         bool
}

// BeginChange captures, before the writes, the registry-relevant state of
// the notes at paths (which may not exist yet) and of the records about to
// be written there.
func BeginChange(tx *Tx, paths []string, recs []*NoteRecord) (*Change, error) {
	c := &Change{keys: map[string]bool{}, names: map[string]bool{}, linkedBefore: map[string]bool{}}
	oldNames := map[string][]string{}
	for _, p := range paths {
		var id int64
		err := tx.QueryRow(`SELECT id FROM notes WHERE path = ?`, p).Scan(&id)
		if errors.Is(err, sql.ErrNoRows) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("capture change of %s: %w", p, err)
		}
		var pageish int
		if err := tx.QueryRow(`SELECT EXISTS (SELECT 1 FROM pages WHERE note_id = ?1)
			OR EXISTS (SELECT 1 FROM concepts WHERE page_note_id = ?1)`, id).Scan(&pageish); err != nil {
			return nil, fmt.Errorf("capture change of %s: %w", p, err)
		}
		if pageish != 0 {
			c.full = true
		}
		keys, err := column(tx, `SELECT DISTINCT key FROM links WHERE note_id = ?`, id)
		if err != nil {
			return nil, err
		}
		for _, k := range keys {
			c.keys[k] = true
		}
		names, err := column(tx, `SELECT key FROM note_names WHERE note_id = ? ORDER BY key`, id)
		if err != nil {
			return nil, err
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
		for _, l := range r.Links {
			c.keys[l.Key] = true
		}
		for _, k := range r.NameKeys {
			c.names[k] = true
		}
	}
	for k := range union(c.keys, c.names) {
		linked, err := isLinked(tx, k)
		if err != nil {
			return nil, err
		}
		c.linkedBefore[k] = linked
	}
	return c, nil
}

// Full makes Apply recompute the whole registry.
func (c *Change) Full() { c.full = true }

// Apply brings the registry in step with the writes made since BeginChange.
func (c *Change) Apply(tx *Tx, keyOf KeyFunc) (warnings []string, err error) {
	if !c.full {
		for k := range union(c.keys, c.names) {
			linked, err := isLinked(tx, k)
			if err != nil {
				return nil, err
			}
			if c.names[k] && linked {
				c.full = true // a written note is named by a linked key: it is (or becomes) a page
				break
			}
			if linked != c.linkedBefore[k] {
				var named int
				if err := tx.QueryRow(`SELECT EXISTS (SELECT 1 FROM note_names WHERE key = ?)`, k).Scan(&named); err != nil {
					return nil, fmt.Errorf("check names of %q: %w", k, err)
				}
				if named != 0 {
					c.full = true // some note gains or loses its page
					break
				}
			}
		}
	}
	if c.full {
		return RecomputeConcepts(tx, keyOf)
	}
	changed := false
	keys := make([]string, 0, len(c.keys))
	for k := range c.keys {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		ch, err := updateKey(tx, k)
		if err != nil {
			return nil, err
		}
		changed = changed || ch
	}
	if changed {
		return nil, bumpConceptsVersion(tx)
	}
	return nil, nil
}

// updateKey re-derives the concept that key k names, when no page is
// involved: an implicit concept's label and times, or a page concept's times.
func updateKey(tx *Tx, k string) (bool, error) {
	var owner string
	var page sql.NullInt64
	err := tx.QueryRow(`SELECT c.id, c.page_note_id FROM concept_keys ck JOIN concepts c ON c.id = ck.concept_id WHERE ck.key = ?`, k).Scan(&owner, &page)
	hasOwner := err == nil
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return false, fmt.Errorf("owner of %q: %w", k, err)
	}
	if hasOwner && page.Valid {
		return updatePageTimes(tx, owner, page.Int64)
	}
	rows, err := tx.Query(`SELECT l.target, SUM(l.count), MIN(n.created_ns), MAX(n.modified_ns)
		FROM links l JOIN notes n ON n.id = l.note_id WHERE l.key = ? GROUP BY l.target`, k)
	if err != nil {
		return false, fmt.Errorf("aggregate links of %q: %w", k, err)
	}
	agg := linkAgg{spellings: map[string]int{}}
	for rows.Next() {
		var target string
		var n int
		var created, updated int64
		if err := rows.Scan(&target, &n, &created, &updated); err != nil {
			rows.Close()
			return false, fmt.Errorf("aggregate links of %q: %w", k, err)
		}
		agg.spellings[target] += n
		agg.created = minNonZero(agg.created, created)
		agg.updated = max(agg.updated, updated)
	}
	rows.Close()
	if len(agg.spellings) == 0 {
		if !hasOwner {
			return false, nil
		}
		if _, err := tx.Exec(`DELETE FROM concepts WHERE id = ?`, owner); err != nil {
			return false, fmt.Errorf("delete concept %s: %w", owner, err)
		}
		return true, nil
	}
	label := bestSpelling(agg.spellings)
	if hasOwner {
		res, err := tx.Exec(`UPDATE concepts SET label = ?, created_ns = ?, updated_ns = ?
			WHERE id = ? AND (label != ? OR created_ns != ? OR updated_ns != ?)`,
			label, agg.created, agg.updated, owner, label, agg.created, agg.updated)
		if err != nil {
			return false, fmt.Errorf("update concept %s: %w", owner, err)
		}
		n, _ := res.RowsAffected()
		if n > 0 {
			if _, err := tx.Exec(`UPDATE concept_keys SET text = ? WHERE key = ?`, label, k); err != nil {
				return false, fmt.Errorf("update concept key %q: %w", k, err)
			}
		}
		return n > 0, nil
	}
	id := ConceptID(k)
	for n := 2; ; n++ {
		var used int
		if err := tx.QueryRow(`SELECT COUNT(*) FROM concepts WHERE id = ?`, id).Scan(&used); err != nil {
			return false, fmt.Errorf("check concept id: %w", err)
		}
		if used == 0 {
			break
		}
		id = ConceptID(fmt.Sprintf("%s\x00%d", k, n))
	}
	if _, err := tx.Exec(`INSERT INTO concepts (id, key, label, aliases, description, metadata, page_note_id, created_ns, updated_ns)
		VALUES (?, ?, ?, '[]', '', '{}', NULL, ?, ?)`, id, k, label, agg.created, agg.updated); err != nil {
		return false, fmt.Errorf("insert concept %q: %w", k, err)
	}
	if _, err := tx.Exec(`INSERT INTO concept_keys (key, concept_id, text, is_label) VALUES (?, ?, ?, 1)`, k, id, label); err != nil {
		return false, fmt.Errorf("insert concept key %q: %w", k, err)
	}
	return true, nil
}

// updatePageTimes re-derives a page concept's created/updated times: the
// page note's and its linking notes' times, overridden by the page's front
// matter.
func updatePageTimes(tx *Tx, id string, pageNote int64) (bool, error) {
	var created, updated int64
	if err := tx.QueryRow(`SELECT created_ns, modified_ns FROM notes WHERE id = ?`, pageNote).Scan(&created, &updated); err != nil {
		return false, fmt.Errorf("page of %s: %w", id, err)
	}
	var lc, lu sql.NullInt64
	if err := tx.QueryRow(`SELECT MIN(n.created_ns), MAX(n.modified_ns) FROM links l JOIN notes n ON n.id = l.note_id
		WHERE l.key IN (SELECT key FROM concept_keys WHERE concept_id = ?)`, id).Scan(&lc, &lu); err != nil {
		return false, fmt.Errorf("link times of %s: %w", id, err)
	}
	if lc.Valid {
		created = minNonZero(created, lc.Int64)
		updated = max(updated, lu.Int64)
	}
	var fc, fu int64
	err := tx.QueryRow(`SELECT created_ns, updated_ns FROM pages WHERE note_id = ?`, pageNote).Scan(&fc, &fu)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return false, fmt.Errorf("page times of %s: %w", id, err)
	}
	if fc != 0 {
		created = fc
	}
	if fu != 0 {
		updated = fu
	}
	res, err := tx.Exec(`UPDATE concepts SET created_ns = ?, updated_ns = ? WHERE id = ? AND (created_ns != ? OR updated_ns != ?)`,
		created, updated, id, created, updated)
	if err != nil {
		return false, fmt.Errorf("update times of %s: %w", id, err)
	}
	n, _ := res.RowsAffected()
	return n > 0, nil
}

func isLinked(tx *Tx, k string) (bool, error) {
	var linked int
	if err := tx.QueryRow(`SELECT EXISTS (SELECT 1 FROM links WHERE key = ?)`, k).Scan(&linked); err != nil {
		return false, fmt.Errorf("check links of %q: %w", k, err)
	}
	return linked != 0, nil
}

func column(tx *Tx, query string, args ...any) ([]string, error) {
	rows, err := tx.Query(query, args...)
	if err != nil {
		return nil, fmt.Errorf("query: %w", err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			return nil, fmt.Errorf("scan: %w", err)
		}
		out = append(out, s)
	}
	return out, rows.Err()
}

func union(a, b map[string]bool) map[string]bool {
	out := make(map[string]bool, len(a)+len(b))
	for k := range a {
		out[k] = true
	}
	for k := range b {
		out[k] = true
	}
	return out
}
