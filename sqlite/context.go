package sqlite

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/noema-mem/noema/graph"
)

// This file holds the reads of build_context (package recall): the
// mention graph, kept in memory and refreshed from the index when another
// connection has committed (MentionGraph), the notes' text and a concept's
// relations. Each query reads the read pool; lists of ids travel as one
// JSON array argument expanded with json_each, so no statement text
// depends on the number of ids.

// intsArg encodes row ids as one query argument for json_each.
func intsArg(ids []int64) string {
	var b strings.Builder
	b.Grow(len(ids)*6 + 2)
	b.WriteByte('[')
	for i, id := range ids {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.FormatInt(id, 10))
	}
	b.WriteByte(']')
	return b.String()
}

// MentionGraph is an immutable in-memory copy of the mention graph: every
// note with its activity and the concepts it links, and every concept with
// its label and the notes that link it. build_context walks co-occurrence
// through thousands of notes per call; in memory that is microseconds per
// thousand links where a query per call costs tens of milliseconds on a
// 10,000-note vault.
//
// Notes and concepts are numbered densely: Notes[i].Concepts and
// Concepts[j].Notes hold indexes into the other slice. A graph is never
// modified once returned (a refresh builds a new one, sharing unchanged
// notes), so callers may read it without locks.
type MentionGraph struct {
	// Notes are by ascending row id.
	Notes []MentionNote
	// Concepts are by id.
	Concepts []MentionConcept

	noteIndex    map[int64]int32
	conceptIndex map[string]int32
	owner        map[string]int32 // concept key -> concept index
	conceptsVer  string

	// seen records, per read connection (its driver connection), the
	// PRAGMA data_version at which the graph was known to match the index.
	// The value changes whenever any other connection commits, so an
	// unchanged value proves the graph still current.
	mu   sync.Mutex
	seen map[any]int64
}

// MentionNote is a note of a MentionGraph.
type MentionNote struct {
	// ID is the note's row id in the index.
	ID    int64
	Path  string
	Title string
	// Modified is the front matter `modified`, else the file's mtime.
	Modified time.Time
	// Accessed is the latest explicit read (zero when never read).
	Accessed time.Time
	// Concepts are the indexes of the concepts the note links, each once,
	// ascending.
	Concepts []int32
	// Order holds the same concepts in the order of their first link:
	// the note joins those within graph.CooccurrenceWindow places of
	// each other (see graph.Window).
	Order []int32

	// hash and verified (the content hash and when the file was last
	// read) tell whether the note's links may have been re-derived.
	hash     string
	verified int64
	sig      string   // the row's signature (see noteSig)
	keys     []string // the keys of its links, in the order of their first link
}

// MentionConcept is a concept of a MentionGraph.
type MentionConcept struct {
	ID    string
	Label string
	// Notes are the indexes of the notes that link the concept (under any
	// key), ascending.
	Notes []int32
	// At is, for each of Notes, the concept's place in that note's Order.
	At []int32
}

// Concept returns the index of the concept with the id.
func (g *MentionGraph) Concept(id string) (int32, bool) {
	i, ok := g.conceptIndex[id]
	return i, ok
}

// Note returns the index of the note with the row id.
func (g *MentionGraph) Note(id int64) (int32, bool) {
	i, ok := g.noteIndex[id]
	return i, ok
}

// maxSeen bounds how many read connections a graph remembers; the pool
// holds at most a few, but closes idle ones and opens new ones.
const maxSeen = 32

// MentionGraph returns a mention graph that matches the index as of this
// call: prev itself when nothing was committed since prev was built (the
// cost of one PRAGMA), else a graph refreshed from prev in one read
// transaction. A refresh compares every note row's signature (see
// noteSig) and reads the access table; it reads in full only the rows that
// changed, re-reads the links of only the notes whose hash or verification
// time moved (the indexer re-derives a note's links only from a fresh read
// of its file, and records the time of that read), and re-reads the
// concept registry only when its version moved. With prev nil, everything
// is read. Keep the returned graph and pass it as prev next time.
func (db *DB) MentionGraph(ctx context.Context, prev *MentionGraph) (*MentionGraph, error) {
	conn, err := db.rd().Conn(ctx)
	if err != nil {
		return nil, fmt.Errorf("read mention graph: %w", err)
	}
	defer conn.Close()
	var dc any
	if err := conn.Raw(func(c any) error { dc = c; return nil }); err != nil {
		return nil, fmt.Errorf("read mention graph: %w", err)
	}
	if prev != nil {
		var dv int64
		if err := conn.QueryRowContext(ctx, `PRAGMA data_version`).Scan(&dv); err != nil {
			return nil, fmt.Errorf("read data version: %w", err)
		}
		prev.mu.Lock()
		v, ok := prev.seen[dc]
		prev.mu.Unlock()
		if ok && v == dv {
			return prev, nil
		}
	}
	tx, err := conn.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return nil, fmt.Errorf("begin read: %w", err)
	}
	defer tx.Rollback()
	// The version is read inside the transaction, after its snapshot
	// began: it matches what the refresh reads.
	var cv sql.NullString
	if err := tx.QueryRowContext(ctx, `SELECT (SELECT value FROM meta WHERE key = ?)`, ConceptsVersionKey).Scan(&cv); err != nil {
		return nil, fmt.Errorf("read concepts version: %w", err)
	}
	var dv int64
	if err := tx.QueryRowContext(ctx, `PRAGMA data_version`).Scan(&dv); err != nil {
		return nil, fmt.Errorf("read data version: %w", err)
	}
	g, err := refreshMentions(ctx, tx, prev, cv.String)
	if err != nil {
		return nil, err
	}
	g.mu.Lock()
	if g.seen == nil || len(g.seen) >= maxSeen {
		g.seen = make(map[any]int64) // connections come and go: forget the old ones
	}
	g.seen[dc] = dv
	g.mu.Unlock()
	return g, nil
}

// refreshMentions builds the graph of the snapshot tx reads, reusing what
// prev (if any) has that did not change; it returns prev itself when
// nothing did.
func refreshMentions(ctx context.Context, tx *sql.Tx, prev *MentionGraph, conceptsVer string) (*MentionGraph, error) {
	accessed, err := readAccess(ctx, tx)
	if err != nil {
		return nil, err
	}
	g := &MentionGraph{conceptsVer: conceptsVer}
	registry := prev == nil || prev.conceptsVer != conceptsVer
	// remap: the concepts' numbering or their keys changed, so every
	// note's concepts must be resolved again. A new version often changes
	// only labels or times (every write moves a concept's updated time).
	remap := prev == nil
	if registry {
		if err := readRegistry(ctx, tx, g); err != nil {
			return nil, err
		}
		remap = remap || !sameNumbering(g, prev)
	} else {
		g.Concepts, g.conceptIndex, g.owner = prev.Concepts, prev.conceptIndex, prev.owner
	}

	changed := registry || prev == nil
	notes, stale, moved, err := readNotes(ctx, tx, prev, accessed)
	if err != nil {
		return nil, err
	}
	g.Notes = notes
	changed = changed || moved
	if !changed && len(g.Notes) == len(prev.Notes) {
		return prev, nil // every note of prev is still there (same ids, same count)
	}
	g.noteIndex = make(map[int64]int32, len(g.Notes))
	for i := range g.Notes {
		g.noteIndex[g.Notes[i].ID] = int32(i)
	}
	if err := readLinkKeys(ctx, tx, g, stale); err != nil {
		return nil, err
	}
	// Resolve keys to concepts: every note when the registry's numbering
	// or keys changed, else the notes whose links were read.
	resolve := stale
	if remap {
		resolve = make([]int32, len(g.Notes))
		for i := range resolve {
			resolve[i] = int32(i)
		}
	}
	for _, i := range resolve {
		n := &g.Notes[i]
		cs := make([]int32, 0, len(n.keys))
		for _, k := range n.keys {
			if c, ok := g.owner[k]; ok {
				cs = append(cs, c)
			}
		}
		n.Order = graph.FirstMentions(cs)
		n.Concepts = slices.Clone(n.Order)
		slices.Sort(n.Concepts)
	}
	// The inverted lists, rebuilt on every change: note indexes shift.
	counts := make([]int32, len(g.Concepts))
	for i := range g.Notes {
		for _, c := range g.Notes[i].Concepts {
			counts[c]++
		}
	}
	concepts := make([]MentionConcept, len(g.Concepts))
	for j, c := range g.Concepts {
		concepts[j] = MentionConcept{ID: c.ID, Label: c.Label, Notes: make([]int32, 0, counts[j]), At: make([]int32, 0, counts[j])}
	}
	for i := range g.Notes {
		for p, c := range g.Notes[i].Order {
			concepts[c].Notes = append(concepts[c].Notes, int32(i))
			concepts[c].At = append(concepts[c].At, int32(p))
		}
	}
	g.Concepts = concepts
	return g, nil
}

// sameNumbering reports whether g has the concepts of prev, in the same
// order, with the same keys: then prev's notes' concept indexes hold in g.
func sameNumbering(g, prev *MentionGraph) bool {
	if len(g.Concepts) != len(prev.Concepts) || len(g.owner) != len(prev.owner) {
		return false
	}
	for i := range g.Concepts {
		if g.Concepts[i].ID != prev.Concepts[i].ID {
			return false
		}
	}
	for k, c := range g.owner {
		if pc, ok := prev.owner[k]; !ok || pc != c {
			return false
		}
	}
	return true
}

// noteSig is one text holding every column of a note row the graph
// depends on: comparing it with the previous one tells an unchanged row
// with one text column, where reading the six columns costs half again as
// much (the scan of every note row is most of a refresh).
const noteSig = `id || char(31) || hash || char(31) || verified_ns || char(31) || modified_ns || char(31) ||
	length(CAST(path AS BLOB)) || char(31) || path || title`

// readNotes reads every note row, by ascending id. A row whose signature
// is prev's keeps prev's note (its access time refreshed); the others are
// read in full, and those whose hash or verification time moved are
// stale: their links must be read. moved reports whether anything
// differs from prev (always, without prev).
func readNotes(ctx context.Context, tx *sql.Tx, prev *MentionGraph, accessed map[string]int64) (notes []MentionNote, stale []int32, moved bool, err error) {
	const full = `SELECT id, path, title, hash, verified_ns, modified_ns, ` + noteSig + ` FROM notes`
	scan := func(rows *sql.Rows) (MentionNote, error) {
		var n MentionNote
		var mod int64
		err := rows.Scan(&n.ID, &n.Path, &n.Title, &n.hash, &n.verified, &mod, &n.sig)
		n.Modified = timeOf(mod)
		n.Accessed = timeOf(accessed[n.Path])
		return n, err
	}
	if prev == nil {
		notes, err := collect(ctx, tx, full+` ORDER BY id`, nil, scan)
		if err != nil {
			return nil, nil, false, fmt.Errorf("list notes: %w", err)
		}
		stale = make([]int32, len(notes))
		for i := range stale {
			stale[i] = int32(i)
		}
		return notes, stale, true, nil
	}

	notes = make([]MentionNote, 0, len(prev.Notes)+16)
	var reread []int64      // ids of rows that changed
	at := map[int64]int32{} // their positions in notes
	err = eachRow(ctx, tx, `SELECT id, `+noteSig+` FROM notes ORDER BY id`, nil, func(rows *sql.Rows) error {
		var id int64
		var sig string
		if err := rows.Scan(&id, &sig); err != nil {
			return err
		}
		if i, ok := prev.noteIndex[id]; ok && prev.Notes[i].sig == sig {
			n := prev.Notes[i]
			n.Accessed = timeOf(accessed[n.Path])
			if !n.Accessed.Equal(prev.Notes[i].Accessed) {
				moved = true
			}
			notes = append(notes, n)
			return nil
		}
		moved = true
		at[id] = int32(len(notes))
		reread = append(reread, id)
		notes = append(notes, MentionNote{ID: id})
		return nil
	})
	if err != nil {
		return nil, nil, false, fmt.Errorf("list notes: %w", err)
	}
	if len(notes) != len(prev.Notes) {
		moved = true // deleted notes (every kept id was matched above)
	}
	if len(reread) == 0 {
		return notes, nil, moved, nil
	}
	err = eachRow(ctx, tx, full+` WHERE id IN (SELECT value FROM json_each(?))`, []any{intsArg(reread)}, func(rows *sql.Rows) error {
		n, err := scan(rows)
		if err != nil {
			return err
		}
		i, ok := at[n.ID]
		if !ok {
			return nil
		}
		if j, ok := prev.noteIndex[n.ID]; ok && prev.Notes[j].hash == n.hash && prev.Notes[j].verified == n.verified {
			n.keys, n.Concepts, n.Order = prev.Notes[j].keys, prev.Notes[j].Concepts, prev.Notes[j].Order // moved or re-dated, same links
		} else {
			stale = append(stale, i)
		}
		notes[i] = n
		return nil
	})
	if err != nil {
		return nil, nil, false, fmt.Errorf("read notes: %w", err)
	}
	return notes, stale, moved, nil
}

// readAccess reads every note's latest explicit access, by path.
func readAccess(ctx context.Context, tx *sql.Tx) (map[string]int64, error) {
	out, err := queryMap[string, int64](ctx, tx, `SELECT path, accessed_ns FROM access`)
	if err != nil {
		return nil, fmt.Errorf("read accesses: %w", err)
	}
	return out, nil
}

// readRegistry reads every concept (by id) and which concept owns each
// key into g.
func readRegistry(ctx context.Context, tx *sql.Tx, g *MentionGraph) error {
	g.conceptIndex = make(map[string]int32)
	err := eachRow(ctx, tx, `SELECT id, label FROM concepts ORDER BY id`, nil, func(rows *sql.Rows) error {
		var c MentionConcept
		if err := rows.Scan(&c.ID, &c.Label); err != nil {
			return err
		}
		g.conceptIndex[c.ID] = int32(len(g.Concepts))
		g.Concepts = append(g.Concepts, c)
		return nil
	})
	if err != nil {
		return fmt.Errorf("list concepts: %w", err)
	}
	g.owner = make(map[string]int32)
	err = eachRow(ctx, tx, `SELECT key, concept_id FROM concept_keys`, nil, func(rows *sql.Rows) error {
		var k, id string
		if err := rows.Scan(&k, &id); err != nil {
			return err
		}
		if c, ok := g.conceptIndex[id]; ok {
			g.owner[k] = c
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("list concept keys: %w", err)
	}
	return nil
}

// readLinkKeys reads the link keys of the notes at the indexes stale: all
// links in one scan when they are most notes, else by note. Each note's
// keys come in the order of their first link.
func readLinkKeys(ctx context.Context, tx *sql.Tx, g *MentionGraph, stale []int32) error {
	if len(stale) == 0 {
		return nil
	}
	type keyAt struct {
		pos int
		key string
	}
	links := make(map[int32][]keyAt, len(stale))
	for _, i := range stale {
		g.Notes[i].keys = []string{}
		links[i] = nil
	}
	query, args := `SELECT note_id, key, pos FROM links`, []any(nil)
	if len(stale) < len(g.Notes)/2 {
		ids := make([]int64, len(stale))
		for j, i := range stale {
			ids[j] = g.Notes[i].ID
		}
		query, args = `SELECT note_id, key, pos FROM links WHERE note_id IN (SELECT value FROM json_each(?))`, []any{intsArg(ids)}
	}
	err := eachRow(ctx, tx, query, args, func(rows *sql.Rows) error {
		var id int64
		var k keyAt
		if err := rows.Scan(&id, &k.key, &k.pos); err != nil {
			return err
		}
		if i, ok := g.noteIndex[id]; ok {
			if ks, ok := links[i]; ok {
				links[i] = append(ks, k)
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("read links: %w", err)
	}
	for i, ks := range links {
		slices.SortFunc(ks, func(a, b keyAt) int { return cmp.Or(cmp.Compare(a.pos, b.pos), strings.Compare(a.key, b.key)) })
		keys := make([]string, len(ks))
		for j, k := range ks {
			keys[j] = k.key
		}
		g.Notes[i].keys = graph.FirstMentions(keys) // one row per spelling
	}
	return nil
}

// NoteBodies returns the indexed text (the Markdown after the front
// matter, as it was indexed) of the notes with the row ids, by row id;
// notes without indexed text are absent.
func (db *DB) NoteBodies(ctx context.Context, ids []int64) (map[int64]string, error) {
	if len(ids) == 0 {
		return map[int64]string{}, nil
	}
	out, err := queryMap[int64, string](ctx, db.rd(), `SELECT rowid, body FROM notes_fts WHERE rowid IN (SELECT value FROM json_each(?))`, intsArg(ids))
	if err != nil {
		return nil, fmt.Errorf("read note bodies: %w", err)
	}
	return out, nil
}

// ConceptRelations returns the typed relations at the concept with the
// id: those its page declares and those pointing at it through any of its
// keys, each once, in no particular order. Edges are resolved as
// [graph.Reader.Relations] resolves them (a dangling target is
// "concept:<key>" or a missing note's URI).
func (db *DB) ConceptRelations(ctx context.Context, id string) ([]graph.Edge, error) {
	var out []graph.Edge
	err := db.ReadGraph(ctx, func(r graph.Reader) error {
		var err error
		out, err = r.Relations(ctx, nil, []string{id}, false)
		return err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}
