package sqlite

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"
	"unsafe"

	"github.com/noema-mem/noema/internal/notepath"
)

// NoteStateSet is the state of every note of one snapshot of the index,
// as DB.NoteStates reads it, in the order a walk of the vault visits their
// paths (notepath.Compare): a sync merges it with its walk. The states
// are held without a pointer each (100,000 of them are a few allocations
// the collector does not scan); State gives one as a NoteState.
type NoteStateSet struct {
	// Pos is the change log position (GraphLogPosition) the states are
	// the notes' state at.
	Pos int64
	// snapPos is the position of the saved snapshot the states were read
	// from, -1 when they were read from the note rows.
	snapPos int64
	recs    []stateRec
	// arenas hold the states' paths and hashes; a record names its
	// arena. An arena is only ever appended to: the strings cut from it
	// stay as they are.
	arenas [][]byte
}

// stateRec is one note's state in a NoteStateSet.
type stateRec struct {
	id, size, mtimeNS, ctimeNS, inode, verifiedNS int64
	path, hash                                    uint32 // where in the record's arena
	pathLen, hashLen                              uint32
	arena                                         uint32
	rawHash                                       bool // hash holds the 32 bytes of a "sha256:<hex>" hash
}

// Len is the number of states.
func (s *NoteStateSet) Len() int { return len(s.recs) }

// Path is the path of state i.
func (s *NoteStateSet) Path(i int) string {
	r := &s.recs[i]
	return s.str(r.arena, r.path, r.pathLen)
}

// str returns the n bytes at at of an arena, which never change.
func (s *NoteStateSet) str(arena, at, n uint32) string {
	if n == 0 {
		return ""
	}
	return unsafe.String(&s.arenas[arena][at], n)
}

// hash is state i's hash as it is kept: the 32 bytes, or the text.
func (s *NoteStateSet) hash(i int) string {
	r := &s.recs[i]
	return s.str(r.arena, r.hash, r.hashLen)
}

// State returns state i.
func (s *NoteStateSet) State(i int) NoteState {
	r := &s.recs[i]
	st := NoteState{Path: s.Path(i), ID: r.id, Size: r.size, MtimeNS: r.mtimeNS,
		File: FileState{CtimeNS: r.ctimeNS, Inode: r.inode, VerifiedNS: r.verifiedNS}, Hash: s.hash(i)}
	if r.rawHash {
		st.Hash = hashPrefix + hex.EncodeToString([]byte(st.Hash))
	}
	return st
}

// Stat returns what sync compares with a file's stat of state i: its
// size, modification time and file state.
func (s *NoteStateSet) Stat(i int) (size, mtimeNS int64, file FileState) {
	r := &s.recs[i]
	return r.size, r.mtimeNS, FileState{CtimeNS: r.ctimeNS, Inode: r.inode, VerifiedNS: r.verifiedNS}
}

// All returns every state, in the set's order.
func (s *NoteStateSet) All() []NoteState {
	out := make([]NoteState, s.Len())
	for i := range out {
		out[i] = s.State(i)
	}
	return out
}

// FromSnapshot reports whether the states were read from the snapshot a
// sync saved (SaveNoteStates), with the notes changed since read again.
func (s *NoteStateSet) FromSnapshot() bool { return s.snapPos >= 0 }

// stateBuilder adds states to a set, their strings to a new arena.
type stateBuilder struct {
	set   *NoteStateSet
	arena []byte
	at    uint32 // the arena's index in set.arenas
}

func newStateBuilder(set *NoteStateSet, size int) *stateBuilder {
	set.arenas = append(set.arenas, nil)
	return &stateBuilder{set: set, arena: make([]byte, 0, size), at: uint32(len(set.arenas) - 1)}
}

// add adds st, its hash as 32 bytes when it is a sha256 hash spelled in
// lower-case hexadecimal, as text otherwise.
func (b *stateBuilder) add(st *NoteState) {
	r := stateRec{id: st.ID, size: st.Size, mtimeNS: st.MtimeNS, ctimeNS: st.File.CtimeNS, inode: st.File.Inode,
		verifiedNS: st.File.VerifiedNS, arena: b.at}
	r.path, r.pathLen = b.put(st.Path)
	if h, ok := strings.CutPrefix(st.Hash, hashPrefix); ok && len(h) == 2*rawHashLen && isLowerHex(h) {
		r.rawHash = true
		r.hash = uint32(len(b.arena))
		b.arena, _ = hex.AppendDecode(b.arena, []byte(h))
		r.hashLen = rawHashLen
	} else {
		r.hash, r.hashLen = b.put(st.Hash)
	}
	b.set.recs = append(b.set.recs, r)
}

func (b *stateBuilder) put(s string) (at, n uint32) {
	at = uint32(len(b.arena))
	b.arena = append(b.arena, s...)
	return at, uint32(len(s))
}

// done ends the builder: its arena joins the set's.
func (b *stateBuilder) done() { b.set.arenas[b.at] = b.arena }

// sortStates sorts set's states by path in the walk's order, unless they
// already are.
func sortStates(set *NoteStateSet) {
	sorted := true
	for i := 1; i < set.Len() && sorted; i++ {
		sorted = notepath.Compare(set.Path(i-1), set.Path(i)) < 0
	}
	if sorted {
		return
	}
	at := func(r *stateRec) string { return set.str(r.arena, r.path, r.pathLen) }
	slices.SortFunc(set.recs, func(a, b stateRec) int { return notepath.Compare(at(&a), at(&b)) })
}

// snapshotLag is how many notes may change after the snapshot was saved
// before a sync saves it again: a sync reads those notes again one by
// one (a few milliseconds a thousand), and saving costs about as much as
// reading every note row once.
const snapshotLag = 2048

// NoteStates returns the stored state of every note in the snapshot of
// tx. The state of 100,000 notes costs a quarter of a CPU second read row
// by row, and a fortieth as one record: so they are read from the
// snapshot the last sync saved (SaveNoteStates) with the notes the change
// log names since then read again — unless there is none, it was saved
// under another schema or record version, the log no longer reaches back
// to it, or too many notes changed since, and then from every note row.
// Both give the same states (TestNoteStatesSnapshotFollowsEveryChange).
// n is the number of notes in tx's snapshot (CountNotes).
func (db *DB) NoteStates(tx *sql.Tx, n int) (NoteStateSet, error) {
	ctx := context.Background()
	set, ok, err := readSnapshot(ctx, tx, n)
	if err != nil || ok {
		return set, err
	}
	return readAllStates(ctx, tx, n)
}

// CountNotes returns the number of notes in tx's snapshot of the index.
func CountNotes(tx *sql.Tx) (int, error) {
	var n int
	if err := tx.QueryRowContext(context.Background(), `SELECT COUNT(*) FROM notes`).Scan(&n); err != nil {
		return 0, fmt.Errorf("count notes: %w", err)
	}
	return n, nil
}

// readSnapshot reads the saved snapshot and follows the change log from
// it; ok is false when it cannot be used (see NoteStates).
func readSnapshot(ctx context.Context, tx *sql.Tx, n int) (set NoteStateSet, ok bool, err error) {
	var (
		pos, schema int64
		// The driver's copy of the record, read in place: decodeStates
		// copies what it keeps (its paths and hashes).
		data sql.RawBytes
	)
	cur, err := schemaVersion(ctx, tx)
	if err != nil {
		return set, false, err
	}
	rows, err := tx.QueryContext(ctx, `SELECT pos, schema_version, data FROM note_state_snapshot WHERE id = 1`)
	if err != nil {
		return set, false, fmt.Errorf("read the note state snapshot: %w", err)
	}
	defer rows.Close()
	if !rows.Next() {
		return set, false, rows.Err()
	}
	if err := rows.Scan(&pos, &schema, &data); err != nil {
		return set, false, fmt.Errorf("read the note state snapshot: %w", err)
	}
	if schema != cur {
		return set, false, nil
	}
	if set, ok = decodeStates(data); !ok {
		return set, false, nil
	}
	if err := rows.Close(); err != nil {
		return set, false, err
	}
	set.Pos, set.snapPos = pos, pos
	now, ok, err := followStates(ctx, tx, &set)
	if err != nil || !ok || now.Len() != n {
		return NoteStateSet{}, false, err
	}
	return now, true, nil
}

// readAllStates reads the state of every note row (n of them).
func readAllStates(ctx context.Context, tx *sql.Tx, n int) (NoteStateSet, error) {
	pos, err := logPosition(ctx, tx)
	if err != nil {
		return NoteStateSet{}, err
	}
	set := NoteStateSet{Pos: pos, snapPos: -1, recs: make([]stateRec, 0, n)}
	b := newStateBuilder(&set, n*64)
	err = eachState(ctx, tx, `SELECT path, `+noteStateColumns+` FROM notes`, nil, b.add)
	if err != nil {
		return NoteStateSet{}, fmt.Errorf("list note states: %w", err)
	}
	b.done()
	sortStates(&set)
	return set, nil
}

// eachState calls fn with the state of every row of query (path, then
// noteStateColumns).
func eachState(ctx context.Context, tx *sql.Tx, query string, args []any, fn func(*NoteState)) error {
	var s NoteState
	dest := []any{&s.Path, &s.ID, &s.Size, &s.MtimeNS, &s.File.CtimeNS, &s.File.Inode, &s.File.VerifiedNS, &s.Hash}
	return eachRow(ctx, tx, query, args, func(rows *sql.Rows) error {
		if err := rows.Scan(dest...); err != nil {
			return err
		}
		fn(&s)
		return nil
	})
}

// logPosition is GraphLogPosition in any transaction.
func logPosition(ctx context.Context, tx *sql.Tx) (int64, error) {
	var seq int64
	if err := tx.QueryRowContext(ctx, `SELECT COALESCE(MAX(seq), 0) FROM graph_log`).Scan(&seq); err != nil {
		return 0, fmt.Errorf("read the change log position: %w", err)
	}
	return seq, nil
}

// schemaVersion is the database's schema cookie, which every change to
// the schema moves: a migration that rebuilt the notes table would not
// log its rows.
func schemaVersion(ctx context.Context, tx *sql.Tx) (int64, error) {
	var v int64
	if err := tx.QueryRowContext(ctx, `PRAGMA schema_version`).Scan(&v); err != nil {
		return 0, fmt.Errorf("read the schema version: %w", err)
	}
	return v, nil
}

// followStates brings set, of change log position set.Pos, to the log's
// position in tx: every note the log names since (kind 1, each insert,
// update or delete of a note row) is dropped and read again. ok is false
// when the log does not reach back to set.Pos (pruned, or made again) or
// names more notes than reading every row costs. The set it returns
// shares set's arenas; set is left as it was.
func followStates(ctx context.Context, tx *sql.Tx, set *NoteStateSet) (out NoteStateSet, ok bool, err error) {
	var lo, hi sql.NullInt64
	if err := tx.QueryRowContext(ctx, `SELECT (SELECT MIN(seq) FROM graph_log), (SELECT MAX(seq) FROM graph_log)`).Scan(&lo, &hi); err != nil {
		return out, false, fmt.Errorf("read the change log: %w", err)
	}
	pos := set.Pos
	if pos > hi.Int64 || (lo.Valid && pos < lo.Int64-1) {
		return out, false, nil
	}
	if pos == hi.Int64 {
		return *set, true, nil
	}
	limit := 4096 + set.Len()/4
	changed := map[int64]struct{}{}
	err = eachRow(ctx, tx, `SELECT DISTINCT ref FROM graph_log WHERE seq > ? AND kind = ?`, []any{pos, logNote}, func(rows *sql.Rows) error {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return err
		}
		changed[id] = struct{}{}
		return nil
	})
	if err != nil {
		return out, false, fmt.Errorf("read the change log: %w", err)
	}
	if len(changed) > limit {
		return out, false, nil
	}
	out = NoteStateSet{Pos: hi.Int64, snapPos: set.snapPos, recs: make([]stateRec, 0, set.Len()+len(changed)),
		arenas: slices.Clip(slices.Clone(set.arenas))}
	for _, r := range set.recs {
		if _, ok := changed[r.id]; !ok {
			out.recs = append(out.recs, r)
		}
	}
	kept := len(out.recs)
	b := newStateBuilder(&out, 0)
	err = eachState(ctx, tx, `SELECT path, `+noteStateColumns+` FROM notes
		WHERE id IN (SELECT ref FROM graph_log WHERE seq > ? AND kind = ?)`, []any{pos, logNote}, b.add)
	if err != nil {
		return NoteStateSet{}, false, fmt.Errorf("read changed note states: %w", err)
	}
	b.done()
	mergeStates(&out, kept)
	return out, true, nil
}

// mergeStates puts set's states in the walk's order of their paths, when
// the first kept are in it already.
func mergeStates(set *NoteStateSet, kept int) {
	path := func(r *stateRec) string { return set.str(r.arena, r.path, r.pathLen) }
	added := set.recs[kept:]
	if len(added) == 0 {
		return
	}
	slices.SortFunc(added, func(a, b stateRec) int { return notepath.Compare(path(&a), path(&b)) })
	merged := make([]stateRec, 0, len(set.recs))
	old := set.recs[:kept]
	for len(old) > 0 && len(added) > 0 {
		if notepath.Compare(path(&added[0]), path(&old[0])) < 0 {
			merged = append(merged, added[0])
			added = added[1:]
		} else {
			merged = append(merged, old[0])
			old = old[1:]
		}
	}
	set.recs = append(append(merged, old...), added...)
}

// SaveNoteStates keeps the snapshot DB.NoteStates starts from within
// snapshotLag notes of the index; a full sync calls it in its last
// transaction with the states it read. When no snapshot is stored, or
// more notes changed since it was saved, it saves set brought up to the
// transaction's position (every note row read again when set is too far
// behind: a cold sync's).
func SaveNoteStates(tx *Tx, set *NoteStateSet) error {
	ctx := tx.ctx
	if set.snapPos >= 0 {
		var lo sql.NullInt64
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT (SELECT MIN(seq) FROM graph_log),
			(SELECT COUNT(DISTINCT ref) FROM graph_log WHERE seq > ? AND kind = ?)`, set.snapPos, logNote).Scan(&lo, &n); err != nil {
			return fmt.Errorf("read the change log: %w", err)
		}
		if n <= snapshotLag && !(lo.Valid && set.snapPos < lo.Int64-1) {
			return nil
		}
	}
	now, ok, err := followStates(ctx, tx.Tx, set)
	if err != nil {
		return err
	}
	if !ok {
		n, err := CountNotes(tx.Tx)
		if err != nil {
			return err
		}
		if now, err = readAllStates(ctx, tx.Tx, n); err != nil {
			return err
		}
	}
	schema, err := schemaVersion(ctx, tx.Tx)
	if err != nil {
		return err
	}
	if _, err := tx.Exec(`INSERT INTO note_state_snapshot (id, pos, schema_version, data) VALUES (1, ?, ?, ?)
		ON CONFLICT (id) DO UPDATE SET pos = excluded.pos, schema_version = excluded.schema_version, data = excluded.data`,
		now.Pos, schema, encodeStates(&now)); err != nil {
		return fmt.Errorf("save the note state snapshot: %w", err)
	}
	return nil
}

// The snapshot's record: statesMagic, the number of states, the bytes
// their paths and kept hashes take, then for each state (in the walk's
// order of their paths) its path (length-prefixed), id, size, mtime,
// ctime, inode and read time (varints), and its hash: hashRaw and the 32
// bytes of a "sha256:<64 lower-case hex digits>" hash, or hashText and
// the hash length-prefixed.
const (
	statesMagic = "noema-note-states-2\n"
	hashPrefix  = "sha256:"
	hashRaw     = 1
	hashText    = 0
	rawHashLen  = 32
)

// encodeStates encodes set as the snapshot's record.
func encodeStates(set *NoteStateSet) []byte {
	strs := 0
	for i := range set.recs {
		strs += int(set.recs[i].pathLen + set.recs[i].hashLen)
	}
	b := make([]byte, 0, len(statesMagic)+2*binary.MaxVarintLen64+set.Len()*24+strs)
	b = append(b, statesMagic...)
	b = binary.AppendUvarint(b, uint64(set.Len()))
	b = binary.AppendUvarint(b, uint64(strs))
	for i := range set.recs {
		r := &set.recs[i]
		b = binary.AppendUvarint(b, uint64(r.pathLen))
		b = append(b, set.Path(i)...)
		for _, v := range [...]int64{r.id, r.size, r.mtimeNS, r.ctimeNS, r.inode, r.verifiedNS} {
			b = binary.AppendVarint(b, v)
		}
		if r.rawHash {
			b = append(b, hashRaw)
			b = append(b, set.hash(i)...)
			continue
		}
		b = append(b, hashText)
		b = binary.AppendUvarint(b, uint64(r.hashLen))
		b = append(b, set.hash(i)...)
	}
	return b
}

// isLowerHex reports whether s holds only lower-case hexadecimal digits
// (what hex.EncodeToString gives back).
func isLowerHex(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// decodeStates decodes a snapshot record (ok false when data is not
// one) into states in the walk's order of their paths. It copies what it
// keeps of data — paths and hashes, into one arena of the size the record
// gives — so data may change after the call.
func decodeStates(data []byte) (set NoteStateSet, ok bool) {
	rest, ok := bytes.CutPrefix(data, []byte(statesMagic))
	if !ok {
		return set, false
	}
	// A state takes 9 bytes at least, and its strings no more than the
	// record: a refused count or size allocates nothing.
	count, k := binary.Uvarint(rest)
	if k <= 0 || count > uint64(len(rest))/9 {
		return set, false
	}
	rest = rest[k:]
	strs, k := binary.Uvarint(rest)
	if k <= 0 || strs > uint64(len(rest)) {
		return set, false
	}
	rest = rest[k:]
	s := unsafe.String(unsafe.SliceData(rest), len(rest))
	set.recs = make([]stateRec, count)
	arena := make([]byte, 0, strs)
	at := 0
	uvarint := func() (uint64, bool) {
		v, n := uvarintString(s[at:])
		if n <= 0 {
			return 0, false
		}
		at += n
		return v, true
	}
	put := func(n uint64) (uint32, uint32, bool) {
		if n > uint64(len(s)-at) || n > uint64(cap(arena)-len(arena)) {
			return 0, 0, false
		}
		p := uint32(len(arena))
		arena = append(arena, s[at:at+int(n)]...)
		at += int(n)
		return p, uint32(n), true
	}
	for i := range set.recs {
		r := &set.recs[i]
		n, ok := uvarint()
		if !ok {
			return NoteStateSet{}, false
		}
		if r.path, r.pathLen, ok = put(n); !ok {
			return NoteStateSet{}, false
		}
		for _, dst := range [...]*int64{&r.id, &r.size, &r.mtimeNS, &r.ctimeNS, &r.inode, &r.verifiedNS} {
			u, ok := uvarint()
			if !ok {
				return NoteStateSet{}, false
			}
			*dst = int64(u>>1) ^ -int64(u&1) // zig-zag, as binary.AppendVarint
		}
		if at >= len(s) {
			return NoteStateSet{}, false
		}
		tag := s[at]
		at++
		switch tag {
		case hashRaw:
			r.rawHash = true
			n = rawHashLen
		case hashText:
			if n, ok = uvarint(); !ok {
				return NoteStateSet{}, false
			}
		default:
			return NoteStateSet{}, false
		}
		if r.hash, r.hashLen, ok = put(n); !ok {
			return NoteStateSet{}, false
		}
	}
	if at != len(s) || uint64(len(arena)) != strs {
		return NoteStateSet{}, false
	}
	set.arenas = [][]byte{arena}
	sortStates(&set)
	return set, true
}

// uvarintString is binary.Uvarint of the bytes of s.
func uvarintString(s string) (uint64, int) {
	var x uint64
	var shift uint
	for i := 0; i < len(s) && i < binary.MaxVarintLen64; i++ {
		c := s[i]
		if c < 0x80 {
			if i == binary.MaxVarintLen64-1 && c > 1 {
				return 0, -(i + 1) // overflow
			}
			return x | uint64(c)<<shift, i + 1
		}
		x |= uint64(c&0x7f) << shift
		shift += 7
	}
	return 0, 0
}
