package concepts

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"os"
	"strings"

	"github.com/noema-mem/noema"
	"github.com/noema-mem/noema/fuzzy"
	"github.com/noema-mem/noema/internal/cachefile"
)

// The names snapshot keeps find_concepts' names — every concept's id,
// label and aliases, in the matcher's order (label, then id) — in a file
// beside the index, so that a server's start reads them in a fraction of a
// second instead of a full read of the registry (issue 21: 2 CPU s at a
// million concepts). It is a cache, never the truth:
//
//   - it names the index it was read from (noema.IndexIdentity) and the
//     names revision and deletion count it was read at; a snapshot of
//     another index is ignored;
//   - the concepts added or renamed since its revision are read from the
//     index and laid over it, exactly as over names loaded in full
//     (Service.names); a deletion since, an index behind the snapshot, or
//     more changes than a delta holds make a full read;
//   - the second channel's index (findindex.go) is kept too, for the build
//     of noema that made it only (codeID: the analysis of names may change
//     from one build to the next); another build reads the names and builds
//     the index anew;
//   - a CRC-32C over the whole file rejects a truncated or damaged one;
//   - it is written to a temporary file renamed over the old one, so a
//     process killed while writing leaves the old snapshot or none.
//
// Any doubt (no file, another index, bad checksum, bad format) falls back
// to reading the names from the index.
//
// Layout (integers as unsigned varints unless said): the magic, the index
// id and the code id (each its length, then its bytes), the revision and
// deletion count, the number of concepts, of aliases and of string bytes,
// then every string (each concept's id, label and aliases) in one block,
// then each concept's lengths (id, label, alias count, each alias), then
// the number of find index entries and the entries (8-byte keys, then
// 4-byte concepts, little-endian; none without a code id), then the
// CRC-32C (Castagnoli, 4 bytes little-endian) of everything before it.
const snapshotMagic = "noema concept names v2\n"

// castagnoli is the CRC-32C table (hardware-accelerated on amd64 and arm64).
var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// snapshotHeader is what a snapshot says it holds.
type snapshotHeader struct {
	indexID      string
	codeID       string
	rev, deleted int64
	concepts     int
	aliases      int
	strBytes     int
}

// encodeNames returns the snapshot of m's names read from the index id,
// with m's find index when it is built and codeID is not "".
func encodeNames(m *matcher, indexID, codeID string) []byte {
	var x *findIndex
	if codeID != "" {
		select {
		case <-m.findDone():
			x = m.find.x
		default:
		}
	}
	if x == nil {
		codeID = ""
	}
	nAliases, strBytes := 0, 0
	for g := range m.ids {
		strBytes += len(m.ids[g]) + len(m.labels[g])
		nAliases += len(m.aliases[g])
		for _, a := range m.aliases[g] {
			strBytes += len(a)
		}
	}
	b := make([]byte, 0, len(snapshotMagic)+64+len(indexID)+strBytes+3*len(m.ids)+nAliases+4)
	b = append(b, snapshotMagic...)
	b = binary.AppendUvarint(b, uint64(len(indexID)))
	b = append(b, indexID...)
	b = binary.AppendUvarint(b, uint64(len(codeID)))
	b = append(b, codeID...)
	b = binary.AppendUvarint(b, uint64(m.rev))
	b = binary.AppendUvarint(b, uint64(m.deleted))
	b = binary.AppendUvarint(b, uint64(len(m.ids)))
	b = binary.AppendUvarint(b, uint64(nAliases))
	b = binary.AppendUvarint(b, uint64(strBytes))
	for g := range m.ids {
		b = append(b, m.ids[g]...)
		b = append(b, m.labels[g]...)
		for _, a := range m.aliases[g] {
			b = append(b, a...)
		}
	}
	for g := range m.ids {
		b = binary.AppendUvarint(b, uint64(len(m.ids[g])))
		b = binary.AppendUvarint(b, uint64(len(m.labels[g])))
		b = binary.AppendUvarint(b, uint64(len(m.aliases[g])))
		for _, a := range m.aliases[g] {
			b = binary.AppendUvarint(b, uint64(len(a)))
		}
	}
	if x == nil {
		b = binary.AppendUvarint(b, 0)
	} else {
		b = binary.AppendUvarint(b, uint64(len(x.keys)))
		for _, k := range x.keys {
			b = binary.LittleEndian.AppendUint64(b, k)
		}
		for _, c := range x.cons {
			b = binary.LittleEndian.AppendUint32(b, uint32(c))
		}
	}
	return binary.LittleEndian.AppendUint32(b, crc32.Checksum(b, castagnoli))
}

// errSnapshot is a snapshot that cannot be used as it is.
var errSnapshot = errors.New("not a valid concept names snapshot")

// snapshotReader reads a snapshot's fields, failing once on the first
// field that does not fit.
type snapshotReader struct {
	b []byte
	// beyond is how many bytes of the file follow b unread: a header read
	// from the file's first bytes (readSnapshotHeader) bounds its counts
	// by the whole file, not by the bytes it read.
	beyond int
	err    error
}

func (r *snapshotReader) uint(max uint64) int {
	if r.err != nil {
		return 0
	}
	v, n := binary.Uvarint(r.b)
	if n <= 0 || v > max {
		r.err = errSnapshot
		return 0
	}
	r.b = r.b[n:]
	return int(v)
}

func (r *snapshotReader) bytes(n int) []byte {
	if r.err != nil {
		return nil
	}
	if n > len(r.b) {
		r.err = errSnapshot
		return nil
	}
	out := r.b[:n:n]
	r.b = r.b[n:]
	return out
}

// readHeader reads a snapshot's header (the checksum is not checked).
func (r *snapshotReader) header() snapshotHeader {
	if !strings.HasPrefix(string(r.b[:min(len(r.b), len(snapshotMagic))]), snapshotMagic) {
		r.err = errSnapshot
		return snapshotHeader{}
	}
	r.b = r.b[len(snapshotMagic):]
	var h snapshotHeader
	h.indexID = string(r.bytes(r.uint(1 << 10)))
	h.codeID = string(r.bytes(r.uint(1 << 10)))
	h.rev = int64(r.uint(math.MaxInt64))
	h.deleted = int64(r.uint(math.MaxInt64))
	// Each concept takes at least three length bytes, an alias one: the
	// counts are bounded by the file's size before anything is allocated.
	h.concepts = r.uint(uint64((len(r.b) + r.beyond) / 3))
	h.aliases = r.uint(uint64(len(r.b) + r.beyond))
	h.strBytes = r.uint(uint64(len(r.b) + r.beyond))
	return h
}

// decodeNames returns the names a snapshot holds, as a matcher at the
// snapshot's revision (its version set to none, so that its first use
// compares it with the index), and its header; errSnapshot when the data
// is not a whole, valid snapshot. The find index comes with the names when
// the snapshot's code id is codeID (not "").
func decodeNames(data []byte, codeID string) (*matcher, snapshotHeader, error) {
	if len(data) < len(snapshotMagic)+4 {
		return nil, snapshotHeader{}, errSnapshot
	}
	body := data[:len(data)-4]
	if crc32.Checksum(body, castagnoli) != binary.LittleEndian.Uint32(data[len(body):]) {
		return nil, snapshotHeader{}, fmt.Errorf("%w: checksum mismatch", errSnapshot)
	}
	r := &snapshotReader{b: body}
	h := r.header()
	// One string for every name: the matcher's strings are slices of it.
	blob := string(r.bytes(h.strBytes))
	if r.err != nil {
		return nil, h, r.err
	}
	m := &matcher{
		version: snapshotVersion, rev: h.rev, deleted: h.deleted, byProc: map[string]*fuzzy.Choices{},
		ids: make([]string, h.concepts), labels: make([]string, h.concepts), aliases: make([][]string, h.concepts),
	}
	arena := make([]string, 0, h.aliases)
	at := 0
	str := func() string {
		n := r.uint(uint64(len(blob) - at))
		s := blob[at : at+n]
		at += n
		return s
	}
	for g := range m.ids {
		m.ids[g], m.labels[g] = str(), str()
		na := r.uint(uint64(cap(arena) - len(arena)))
		start := len(arena)
		for range na {
			arena = append(arena, str())
		}
		m.aliases[g] = arena[start:len(arena):len(arena)]
		if r.err != nil {
			return nil, h, r.err
		}
	}
	nkeys := r.uint(uint64(len(r.b) / 12))
	keys, cons := r.bytes(8*nkeys), r.bytes(4*nkeys)
	if r.err != nil || at != len(blob) || len(r.b) != 0 || len(arena) != h.aliases || nkeys > 0 && h.codeID == "" {
		return nil, h, fmt.Errorf("%w: lengths do not add up", errSnapshot)
	}
	m.index()
	if codeID != "" && h.codeID == codeID {
		x := &findIndex{keys: make([]uint64, nkeys), cons: make([]int32, nkeys)}
		for i := range x.keys {
			x.keys[i] = binary.LittleEndian.Uint64(keys[8*i:])
			x.cons[i] = int32(binary.LittleEndian.Uint32(cons[4*i:]))
			if x.cons[i] < 0 || int(x.cons[i]) >= len(m.ids) || i > 0 && x.keys[i] < x.keys[i-1] {
				return nil, h, fmt.Errorf("%w: find index out of order", errSnapshot)
			}
		}
		m.find.once.Do(func() {
			m.find.x = x
			close(m.findDone())
		})
		m.findLoaded = true
	}
	return m, h, nil
}

// snapshotVersion is the version of names read from a snapshot: no
// registry version equals it, so the first use reads what changed since.
const snapshotVersion = "\x00snapshot"

// readSnapshotHeader reads the header of the snapshot file at path.
func readSnapshotHeader(path string) (snapshotHeader, error) {
	f, err := os.Open(path)
	if err != nil {
		return snapshotHeader{}, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return snapshotHeader{}, err
	}
	buf := make([]byte, 2048)
	n, err := io.ReadFull(f, buf)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) {
		return snapshotHeader{}, err
	}
	r := &snapshotReader{b: buf[:n], beyond: max(0, int(fi.Size())-n)}
	h := r.header()
	return h, r.err
}

// writeSnapshotFile writes data to path atomically (cachefile.Write).
func writeSnapshotFile(path string, data []byte) error {
	return cachefile.Write(path, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// codeID names the build of noema running (cachefile.BuildID), for the find
// index kept in the names snapshot. A variable so that tests can name
// another build.
var codeID = cachefile.BuildID

// indexID returns the identity of the index the service reads, "" when
// it offers none (then no snapshot is read or written).
func (s *Service) indexID(ctx context.Context) (string, error) {
	if s.NamesFile == "" {
		return "", nil
	}
	ix, ok := s.DB.(noema.IndexIdentity)
	if !ok {
		return "", nil
	}
	return ix.IndexID(ctx)
}

// loadSnapshot reads the names snapshot (Service.NamesFile) and returns
// its names when it is whole and of this index; nil otherwise. names calls
// it, holding s.mu, when nothing is cached yet.
func (s *Service) loadSnapshot(ctx context.Context) *matcher {
	id, err := s.indexID(ctx)
	if err != nil || id == "" {
		return nil
	}
	data, err := os.ReadFile(s.NamesFile)
	if err != nil {
		return nil
	}
	m, h, err := decodeNames(data, codeID())
	if err != nil || h.indexID != id {
		return nil
	}
	return m
}

// saveSnapshot writes m's names as the snapshot of the index id.
func (s *Service) saveSnapshot(m *matcher, id string) error {
	if err := writeSnapshotFile(s.NamesFile, encodeNames(m, id, codeID())); err != nil {
		return fmt.Errorf("save the concept names snapshot: %w", err)
	}
	return nil
}

// SaveNames brings the names snapshot (Service.NamesFile) up to date with
// the index: nothing when it already holds the index's names revision for
// this build, else every name read from the index (or the names cached in
// full at that revision) and their find index written anew. `noema sync` runs it, so that the next server
// starts from the snapshot.
func (s *Service) SaveNames(ctx context.Context) error {
	id, err := s.indexID(ctx)
	if err != nil || id == "" {
		return err
	}
	at, deleted, err := s.DB.EachConceptByLabelSince(ctx, math.MaxInt64, func(string, string, []string) {})
	if err != nil {
		return err
	}
	code := codeID()
	if h, err := readSnapshotHeader(s.NamesFile); err == nil && h.indexID == id && h.codeID == code && h.rev == at && h.deleted == deleted {
		return nil
	}
	s.mu.Lock()
	var m *matcher
	if s.cache != nil && s.cache.base.rev == at && s.cache.base.deleted == deleted {
		m = s.cache.base
	}
	s.mu.Unlock()
	if m == nil {
		if m, err = s.loadNames(ctx, ""); err != nil {
			return err
		}
	}
	if code != "" && secondChannel {
		m.findIndex()
	}
	return s.saveSnapshot(m, id)
}
