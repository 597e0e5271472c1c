package sqlite

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"strings"
	"unsafe"
)

// NoteStateSet is the state of every note of one snapshot of the index,
// as DB.NoteStates reads it.
type NoteStateSet struct {
	// List holds one state a note, in no order.
	List []NoteState
	// Pos is the change log position (GraphLogPosition) List is the
	// notes' state at.
	Pos int64
	// snapPos is the position of the saved snapshot List was read from,
	// -1 when it was read from the note rows.
	snapPos int64
}

// FromSnapshot reports whether the states were read from the snapshot a
// sync saved (SaveNoteStates), with the notes changed since read again.
func (s *NoteStateSet) FromSnapshot() bool { return s.snapPos >= 0 }

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
// under another schema, the log no longer reaches back to it, or too many
// notes changed since, and then from every note row. Both give the same
// states (TestNoteStatesSnapshotFollowsEveryChange).
func (db *DB) NoteStates(tx *sql.Tx) (NoteStateSet, error) {
	ctx := context.Background()
	var n int
	if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM notes`).Scan(&n); err != nil {
		return NoteStateSet{}, fmt.Errorf("count note states: %w", err)
	}
	set, ok, err := readSnapshot(ctx, tx, n)
	if err != nil || ok {
		return set, err
	}
	return readAllStates(ctx, tx, n)
}

// readSnapshot reads the saved snapshot and follows the change log from
// it; ok is false when it cannot be used (see NoteStates).
func readSnapshot(ctx context.Context, tx *sql.Tx, n int) (set NoteStateSet, ok bool, err error) {
	var (
		pos, schema int64
		data        []byte // Scan's copy, which decodeStates keeps
		list        []NoteState
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
	if list, ok = decodeStates(data); !ok {
		return set, false, nil
	}
	if err := rows.Close(); err != nil {
		return set, false, err
	}
	list, now, ok, err := followStates(ctx, tx, list, pos)
	if err != nil || !ok || len(list) != n {
		return set, false, err
	}
	return NoteStateSet{List: list, Pos: now, snapPos: pos}, true, nil
}

// readAllStates reads the state of every note row (n of them).
func readAllStates(ctx context.Context, tx *sql.Tx, n int) (NoteStateSet, error) {
	pos, err := logPosition(ctx, tx)
	if err != nil {
		return NoteStateSet{}, err
	}
	list := make([]NoteState, 0, n)
	err = eachState(ctx, tx, `SELECT path, `+noteStateColumns+` FROM notes`, nil, func(s NoteState) { list = append(list, s) })
	if err != nil {
		return NoteStateSet{}, fmt.Errorf("list note states: %w", err)
	}
	return NoteStateSet{List: list, Pos: pos, snapPos: -1}, nil
}

// eachState calls fn with the state of every row of query (path, then
// noteStateColumns).
func eachState(ctx context.Context, tx *sql.Tx, query string, args []any, fn func(NoteState)) error {
	var s NoteState
	dest := []any{&s.Path, &s.ID, &s.Size, &s.MtimeNS, &s.File.CtimeNS, &s.File.Inode, &s.File.VerifiedNS, &s.Hash}
	return eachRow(ctx, tx, query, args, func(rows *sql.Rows) error {
		if err := rows.Scan(dest...); err != nil {
			return err
		}
		fn(s)
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

// followStates brings the states list, of change log position pos, to
// the log's position in tx: every note the log names since (kind 1, each
// insert, update or delete of a note row) is dropped and read again. ok
// is false when the log does not reach back to pos (pruned, or made
// again) or names more notes than reading every row costs.
func followStates(ctx context.Context, tx *sql.Tx, list []NoteState, pos int64) (out []NoteState, now int64, ok bool, err error) {
	var lo, hi sql.NullInt64
	if err := tx.QueryRowContext(ctx, `SELECT (SELECT MIN(seq) FROM graph_log), (SELECT MAX(seq) FROM graph_log)`).Scan(&lo, &hi); err != nil {
		return nil, 0, false, fmt.Errorf("read the change log: %w", err)
	}
	if pos > hi.Int64 || (lo.Valid && pos < lo.Int64-1) {
		return nil, 0, false, nil
	}
	if pos == hi.Int64 {
		return list, pos, true, nil
	}
	limit := 4096 + len(list)/4
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
		return nil, 0, false, fmt.Errorf("read the change log: %w", err)
	}
	if len(changed) > limit {
		return nil, 0, false, nil
	}
	out = make([]NoteState, 0, len(list)+len(changed))
	for _, s := range list {
		if _, ok := changed[s.ID]; !ok {
			out = append(out, s)
		}
	}
	err = eachState(ctx, tx, `SELECT path, `+noteStateColumns+` FROM notes
		WHERE id IN (SELECT ref FROM graph_log WHERE seq > ? AND kind = ?)`, []any{pos, logNote},
		func(s NoteState) { out = append(out, s) })
	if err != nil {
		return nil, 0, false, fmt.Errorf("read changed note states: %w", err)
	}
	return out, hi.Int64, true, nil
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
	list, pos, ok, err := followStates(ctx, tx.Tx, set.List, set.Pos)
	if err != nil {
		return err
	}
	if !ok {
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM notes`).Scan(&n); err != nil {
			return fmt.Errorf("count note states: %w", err)
		}
		all, err := readAllStates(ctx, tx.Tx, n)
		if err != nil {
			return err
		}
		list, pos = all.List, all.Pos
	}
	schema, err := schemaVersion(ctx, tx.Tx)
	if err != nil {
		return err
	}
	if _, err := tx.Exec(`INSERT INTO note_state_snapshot (id, pos, schema_version, data) VALUES (1, ?, ?, ?)
		ON CONFLICT (id) DO UPDATE SET pos = excluded.pos, schema_version = excluded.schema_version, data = excluded.data`,
		pos, schema, encodeStates(list)); err != nil {
		return fmt.Errorf("save the note state snapshot: %w", err)
	}
	return nil
}

// The snapshot's record: statesMagic, the number of states, then for
// each its path (length-prefixed), id, size, mtime, ctime, inode and read
// time (varints), and its hash: hashRaw and the 32 bytes of a
// "sha256:<64 lower-case hex digits>" hash, or hashText and the hash
// length-prefixed.
const (
	statesMagic = "noema-note-states-1\n"
	hashPrefix  = "sha256:"
	hashRaw     = 1
	hashText    = 0
	rawHashLen  = 32
)

// encodeStates encodes list as the snapshot's record.
func encodeStates(list []NoteState) []byte {
	b := make([]byte, 0, len(statesMagic)+binary.MaxVarintLen64+len(list)*112)
	b = append(b, statesMagic...)
	b = binary.AppendUvarint(b, uint64(len(list)))
	var raw [rawHashLen]byte
	for _, s := range list {
		b = binary.AppendUvarint(b, uint64(len(s.Path)))
		b = append(b, s.Path...)
		for _, v := range [...]int64{s.ID, s.Size, s.MtimeNS, s.File.CtimeNS, s.File.Inode, s.File.VerifiedNS} {
			b = binary.AppendVarint(b, v)
		}
		if h, ok := strings.CutPrefix(s.Hash, hashPrefix); ok && len(h) == 2*rawHashLen && isLowerHex(h) {
			hex.Decode(raw[:], []byte(h))
			b = append(b, hashRaw)
			b = append(b, raw[:]...)
			continue
		}
		b = append(b, hashText)
		b = binary.AppendUvarint(b, uint64(len(s.Hash)))
		b = append(b, s.Hash...)
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

// decodeStates decodes a snapshot record; ok is false when data is not
// one. The paths and hashes are cut from two strings (data itself, and
// the hashes spelled out), not allocated one by one: data must not change
// after the call.
func decodeStates(data []byte) (list []NoteState, ok bool) {
	rest, ok := bytes.CutPrefix(data, []byte(statesMagic))
	if !ok {
		return nil, false
	}
	// A state takes 9 bytes at least: a refused count allocates nothing.
	count, k := binary.Uvarint(rest)
	if k <= 0 || count > uint64(len(rest))/9 {
		return nil, false
	}
	rest = rest[k:]
	s := unsafe.String(unsafe.SliceData(rest), len(rest))
	list = make([]NoteState, count)
	const spelled = len(hashPrefix) + 2*rawHashLen
	hashes := make([]byte, 0, int(count)*spelled)
	rawAt := make([]int32, count) // where each raw hash is in hashes, -1 for none
	at := 0
	uvarint := func() (uint64, bool) {
		v, n := uvarintString(s[at:])
		if n <= 0 {
			return 0, false
		}
		at += n
		return v, true
	}
	for i := range list {
		st := &list[i]
		n, ok := uvarint()
		if !ok || n > uint64(len(s)-at) {
			return nil, false
		}
		st.Path = s[at : at+int(n)]
		at += int(n)
		for _, dst := range [...]*int64{&st.ID, &st.Size, &st.MtimeNS, &st.File.CtimeNS, &st.File.Inode, &st.File.VerifiedNS} {
			u, ok := uvarint()
			if !ok {
				return nil, false
			}
			*dst = int64(u>>1) ^ -int64(u&1) // zig-zag, as binary.AppendVarint
		}
		if at >= len(s) {
			return nil, false
		}
		tag := s[at]
		at++
		rawAt[i] = -1
		switch tag {
		case hashRaw:
			if len(s)-at < rawHashLen {
				return nil, false
			}
			rawAt[i] = int32(len(hashes))
			hashes = append(hashes, hashPrefix...)
			hashes = hex.AppendEncode(hashes, []byte(s[at:at+rawHashLen]))
			at += rawHashLen
		case hashText:
			n, ok := uvarint()
			if !ok || n > uint64(len(s)-at) {
				return nil, false
			}
			st.Hash = s[at : at+int(n)]
			at += int(n)
		default:
			return nil, false
		}
	}
	if at != len(s) {
		return nil, false
	}
	hs := string(hashes)
	for i, a := range rawAt {
		if a >= 0 {
			list[i].Hash = hs[a : int(a)+spelled]
		}
	}
	return list, true
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
