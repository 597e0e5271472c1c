package sqlite

import (
	"database/sql"
	"encoding/json"
	"fmt"
	"sort"

	"github.com/noema-mem/noema"
)

// KeyFunc normalizes a label into a concept key (vault.Key); the index
// takes it as a parameter so that it does not depend on the vault package.
type KeyFunc func(string) string

type desiredConcept struct {
	id, key, label, description, metadata string
	aliases                               []string
	pageNoteID                            int64
	created, updated                      int64
	keys                                  map[string]string // key -> text
}

type linkAgg struct {
	spellings        map[string]int
	created, updated int64
}

type pageRow struct {
	noteID                              int64
	explicit                            bool
	conceptID, label, description, meta string
	aliases                             []string
	fmCreated, fmUpdated                int64
	noteCreated, noteModified           int64
	path                                string
}

// RecomputeConcepts derives the concept registry from the stored links and
// pages and writes only the differences. Ownership of keys, in order:
// explicit pages by path (label key, then alias keys), then notes whose
// title or an alias is linked (title-match pages), then every remaining
// linked key as an implicit concept labelled by its most frequent spelling
// (ties: the lexicographically smallest). A key claimed twice stays with
// the first claimant; the returned warnings name the loser.
func RecomputeConcepts(tx *Tx, keyOf KeyFunc) (warnings []string, err error) {
	links, err := loadLinkAggs(tx)
	if err != nil {
		return nil, err
	}
	pages, err := loadPages(tx)
	if err != nil {
		return nil, err
	}

	owner := make(map[string]*desiredConcept) // key -> concept
	var desired []*desiredConcept
	usedIDs := make(map[string]bool)
	newConcept := func(key, fmID string) *desiredConcept {
		id := fmID
		if id == "" || usedIDs[id] {
			id = noema.ConceptID(key, 1)
			for n := 2; usedIDs[id]; n++ {
				id = noema.ConceptID(key, n)
			}
		}
		usedIDs[id] = true
		c := &desiredConcept{id: id, key: key, keys: map[string]string{}, metadata: "{}", aliases: []string{}}
		desired = append(desired, c)
		return c
	}
	claimPage := func(p *pageRow, key string) {
		c := newConcept(key, p.conceptID)
		c.label, c.description, c.pageNoteID = p.label, p.description, p.noteID
		if p.meta != "" {
			c.metadata = p.meta
		}
		c.keys[key] = p.label
		owner[key] = c
		for _, a := range p.aliases {
			ak := keyOf(a)
			if ak == "" || ak == key {
				continue
			}
			if o, ok := owner[ak]; ok {
				if o != c {
					warnings = append(warnings, fmt.Sprintf("%s: alias %q is already a name of concept %q", p.path, a, o.label))
				}
				continue
			}
			owner[ak] = c
			c.keys[ak] = a
			c.aliases = append(c.aliases, a)
		}
		c.created, c.updated = p.noteCreated, p.noteModified
		for k := range c.keys {
			if l, ok := links[k]; ok {
				c.created = minNonZero(c.created, l.created)
				c.updated = max(c.updated, l.updated)
			}
		}
		if p.fmCreated != 0 {
			c.created = p.fmCreated
		}
		if p.fmUpdated != 0 {
			c.updated = p.fmUpdated
		}
	}
	for _, p := range pages {
		key := keyOf(p.label)
		if key == "" {
			continue
		}
		if p.explicit {
			if o, ok := owner[key]; ok {
				warnings = append(warnings, fmt.Sprintf("%s: concept %q already has the page of concept %q", p.path, p.label, o.label))
				continue
			}
			claimPage(p, key)
			continue
		}
		if _, ok := owner[key]; ok {
			continue
		}
		linked := links[key] != nil
		for _, a := range p.aliases {
			if links[keyOf(a)] != nil {
				linked = true
			}
		}
		if linked {
			claimPage(p, key)
		}
	}
	implicitKeys := make([]string, 0, len(links))
	for k := range links {
		if _, ok := owner[k]; !ok {
			implicitKeys = append(implicitKeys, k)
		}
	}
	sort.Strings(implicitKeys)
	for _, k := range implicitKeys {
		l := links[k]
		c := newConcept(k, "")
		c.label = bestSpelling(l.spellings)
		c.keys[k] = c.label
		c.created, c.updated = l.created, l.updated
		owner[k] = c
	}
	if err := rewriteSpellings(tx, links); err != nil {
		return nil, err
	}
	return warnings, writeConcepts(tx, desired)
}

func minNonZero(a, b int64) int64 {
	if a == 0 || (b != 0 && b < a) {
		return b
	}
	return a
}

func bestSpelling(sp map[string]int) string {
	best, bestN := "", -1
	for s, n := range sp {
		if n > bestN || (n == bestN && s < best) {
			best, bestN = s, n
		}
	}
	return best
}

func loadLinkAggs(tx *Tx) (map[string]*linkAgg, error) {
	return linkAggs(tx, `SELECT l.key, l.target, SUM(l.count), `+linkTimes+`
		FROM links l JOIN notes n ON n.id = l.note_id GROUP BY l.key, l.target`)
}

// linkTimes selects, over a group of links, the earliest creation time of
// their notes (0, unknown, counts only when no note has one: a note of
// unknown creation does not hide the others) and the latest modification.
const linkTimes = `COALESCE(MIN(NULLIF(n.created_ns, 0)), 0), MAX(n.modified_ns)`

// linkAggs aggregates per key the rows of query, which selects a key, a
// spelling (target), its link count and its notes' earliest creation and
// latest modification times.
func linkAggs(tx *Tx, query string, args ...any) (map[string]*linkAgg, error) {
	out := make(map[string]*linkAgg)
	err := eachRow(tx.ctx, tx, query, args, func(rows *sql.Rows) error {
		var key, target string
		var n int
		var created, updated int64
		if err := rows.Scan(&key, &target, &n, &created, &updated); err != nil {
			return err
		}
		a := out[key]
		if a == nil {
			a = &linkAgg{spellings: map[string]int{}, created: created, updated: updated}
			out[key] = a
		}
		a.spellings[target] += n
		a.created = minNonZero(a.created, created)
		a.updated = max(a.updated, updated)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("aggregate links: %w", err)
	}
	return out, nil
}

func loadPages(tx *Tx) ([]*pageRow, error) {
	var out []*pageRow
	err := eachRow(tx.ctx, tx, `SELECT * FROM (
		SELECT p.note_id, p.explicit, p.concept_id, p.label, p.aliases, p.description, p.metadata,
			p.created_ns, p.updated_ns, n.created_ns, n.modified_ns, n.path
		FROM pages p JOIN notes n ON n.id = p.note_id
		UNION ALL
		SELECT n.id, 0, '', n.title, n.aliases, '', '{}', 0, 0, n.created_ns, n.modified_ns, n.path
		FROM notes n WHERE NOT EXISTS (SELECT 1 FROM pages p WHERE p.note_id = n.id)
	) ORDER BY 2 DESC, 12`, nil, func(rows *sql.Rows) error {
		var p pageRow
		var aliases string
		if err := rows.Scan(&p.noteID, &p.explicit, &p.conceptID, &p.label, &aliases, &p.description, &p.meta,
			&p.fmCreated, &p.fmUpdated, &p.noteCreated, &p.noteModified, &p.path); err != nil {
			return err
		}
		if err := json.Unmarshal([]byte(aliases), &p.aliases); err != nil {
			return fmt.Errorf("decode aliases of %s: %w", p.path, err)
		}
		out = append(out, &p)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("list pages: %w", err)
	}
	return out, nil
}

type storedConcept struct {
	key, label, aliases, description, metadata string
	pageNoteID                                 *int64
	created, updated                           int64
}

// writeConcepts replaces the stored registry with want, touching only rows
// that differ, and bumps the registry version when any did.
func writeConcepts(tx *Tx, want []*desiredConcept) error {
	have := make(map[string]storedConcept)
	err := eachRow(tx.ctx, tx, `SELECT id, key, label, aliases, description, metadata, page_note_id, created_ns, updated_ns FROM concepts`, nil, func(rows *sql.Rows) error {
		var id string
		var s storedConcept
		if err := rows.Scan(&id, &s.key, &s.label, &s.aliases, &s.description, &s.metadata, &s.pageNoteID, &s.created, &s.updated); err != nil {
			return err
		}
		have[id] = s
		return nil
	})
	if err != nil {
		return fmt.Errorf("list concepts: %w", err)
	}
	type keyRow struct {
		id, text string
		isLabel  bool
	}
	haveKeys := make(map[string]keyRow)
	err = eachRow(tx.ctx, tx, `SELECT key, concept_id, text, is_label FROM concept_keys`, nil, func(rows *sql.Rows) error {
		var k string
		var r keyRow
		if err := rows.Scan(&k, &r.id, &r.text, &r.isLabel); err != nil {
			return err
		}
		haveKeys[k] = r
		return nil
	})
	if err != nil {
		return fmt.Errorf("list concept keys: %w", err)
	}

	wantIDs := make(map[string]bool, len(want))
	wantKeys := make(map[string]keyRow)
	for _, c := range want {
		wantIDs[c.id] = true
		for k, text := range c.keys {
			wantKeys[k] = keyRow{id: c.id, text: text, isLabel: k == c.key}
		}
	}
	// Every difference is written with one statement per kind, whose
	// parameter is a JSON array of rows: a registry of 100,000 concepts is a
	// handful of statements, not 200,000.
	var delKeys, delIDs []string
	for k, v := range haveKeys {
		if w, ok := wantKeys[k]; !ok || w != v {
			delKeys = append(delKeys, k)
		}
	}
	for id := range have {
		if !wantIDs[id] {
			delIDs = append(delIDs, id)
		}
	}
	var upserts [][]any // id, key, label, aliases, description, metadata, page note (or null), created, updated
	for _, c := range want {
		var page *int64
		if c.pageNoteID != 0 {
			page = &c.pageNoteID
		}
		aliases := jsonList(c.aliases)
		s, ok := have[c.id]
		if ok && s.key == c.key && s.label == c.label && s.aliases == aliases && s.description == c.description &&
			s.metadata == c.metadata && eqPtr(s.pageNoteID, page) && s.created == c.created && s.updated == c.updated {
			continue
		}
		upserts = append(upserts, []any{c.id, c.key, c.label, aliases, c.description, c.metadata, page, c.created, c.updated})
	}
	var keyRows [][]any // key, concept id, text, is label
	for k, w := range wantKeys {
		if v, ok := haveKeys[k]; ok && v == w {
			continue
		}
		keyRows = append(keyRows, []any{k, w.id, w.text, w.isLabel})
	}
	if len(delKeys)+len(delIDs)+len(upserts)+len(keyRows) == 0 {
		return nil
	}
	// Keys first (they reference concepts), then concepts.
	if len(delKeys) > 0 {
		if err := execJSON(tx, `DELETE FROM concept_keys WHERE key IN (SELECT value FROM json_each(?))`, delKeys); err != nil {
			return fmt.Errorf("delete concept keys: %w", err)
		}
	}
	if len(delIDs) > 0 {
		if err := execJSON(tx, `DELETE FROM concepts WHERE id IN (SELECT value FROM json_each(?))`, delIDs); err != nil {
			return fmt.Errorf("delete concepts: %w", err)
		}
	}
	if len(upserts) > 0 {
		// A key can move between concepts (e.g. a rename): park every key a
		// written concept takes on a placeholder first (the concept holding it
		// is itself written below, with its own key), then write them all.
		if err := execJSON(tx, `UPDATE concepts SET key = char(0) || concepts.id FROM json_each(?) j
			WHERE concepts.key = j.value->>1 AND concepts.id != j.value->>0`, upserts); err != nil {
			return fmt.Errorf("free concept keys: %w", err)
		}
		if err := execJSON(tx, `INSERT INTO concepts (id, key, label, aliases, description, metadata, page_note_id, created_ns, updated_ns)
			SELECT value->>0, value->>1, value->>2, value->>3, value->>4, value->>5, value->>6, value->>7, value->>8
			FROM json_each(?) WHERE true
			ON CONFLICT(id) DO UPDATE SET key = excluded.key, label = excluded.label, aliases = excluded.aliases,
				description = excluded.description, metadata = excluded.metadata, page_note_id = excluded.page_note_id,
				created_ns = excluded.created_ns, updated_ns = excluded.updated_ns`, upserts); err != nil {
			return fmt.Errorf("write concepts: %w", err)
		}
	}
	if len(keyRows) > 0 {
		if err := execJSON(tx, `INSERT INTO concept_keys (key, concept_id, text, is_label)
			SELECT value->>0, value->>1, value->>2, value->>3 FROM json_each(?) WHERE true
			ON CONFLICT(key) DO UPDATE SET concept_id = excluded.concept_id, text = excluded.text, is_label = excluded.is_label`,
			keyRows); err != nil {
			return fmt.Errorf("write concept keys: %w", err)
		}
	}
	return bumpConceptsVersion(tx)
}

func eqPtr(a, b *int64) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}

// ConceptsVersionKey is the meta key counting changes to the concept
// registry; caches of concept names compare it to know when to rebuild.
const ConceptsVersionKey = "concepts_version"

func bumpConceptsVersion(tx *Tx) error {
	_, err := tx.Exec(`INSERT INTO meta (key, value) VALUES (?, '1')
		ON CONFLICT(key) DO UPDATE SET value = CAST(CAST(value AS INTEGER) + 1 AS TEXT)`, ConceptsVersionKey)
	if err != nil {
		return fmt.Errorf("bump concepts version: %w", err)
	}
	return nil
}
