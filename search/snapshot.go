package search

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"slices"

	"github.com/noema-mem/noema"
	"github.com/noema-mem/noema/internal/cachefile"
	"github.com/noema-mem/noema/vector"
)

// The chunk vectors snapshot keeps the semantic search's in-memory note
// chunk vectors (chunkCache) in a file beside the index, so that a
// process starting on a large vault reads them in a fraction of a second
// instead of through SQLite (issue 21: at 100,000 notes, 212,000 chunks,
// about 8 CPU seconds read and converted row by row, competing with the
// first requests, and most of the start's peak memory). It is a cache,
// never the truth:
//
//   - it names the index it was read from (noema.IndexIdentity), the
//     chunks' key (the embedding model and the chunking scheme,
//     chunk.Scheme.Key) and the build of noema that wrote it (cachefile:
//     the half-precision rows and int8 codes are that build's arithmetic);
//     a snapshot of another index, model or scheme is ignored, one of another
//     build unless a sample of its rows is what this build stores
//     (sameArithmetic);
//   - it holds, for each note, the chunked hash its vectors were read at;
//     the load then compares them with the index's chunk states exactly as
//     a refresh does, and reads from the index only the notes that changed
//     since (added, re-chunked, deleted), so a stale snapshot gives the
//     same vectors as a full read;
//   - a CRC-32C over the whole file, checked before anything is decoded,
//     rejects a truncated or damaged one;
//   - it is written to a temporary file renamed over the old one, so a
//     process killed while writing leaves the old snapshot or none.
//
// It is written once a process has read many notes' vectors from the
// index (its first load found no usable snapshot, or one stale by more
// than a twentieth of the notes) and holds at least snapshotMinChunks
// chunks: small vaults load fast enough without it.
//
// Layout (integers as unsigned varints): the magic; the index id, the
// build id and the chunks' key (each its length, then its bytes); the chunks
// version; the number of notes, then each note's id, hash (length,
// bytes) and chunk count; the number of chunks, then each chunk's note
// id, position, start and end; whether an index follows (one byte), then
// the vector index (vector.Index.WriteTo); then the CRC-32C (Castagnoli,
// 4 bytes little-endian) of everything before it.
const chunksMagic = "noema chunk vectors v1\n"

// snapshotMinChunks is the fewest chunks worth a snapshot.
const snapshotMinChunks = 2048

// castagnoli is the CRC-32C table.
var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// errChunkSnapshot is a snapshot that cannot be used as it is.
var errChunkSnapshot = errors.New("not a valid chunk vectors snapshot")

// chunkSnapshot is what a snapshot holds.
type chunkSnapshot struct {
	indexID, build, key string
	version             int64
	idx                 *vector.Index
	hashes              map[int64]string
	counts              map[int64]int
	spans               map[int64]noema.ChunkVector
}

// writeChunks writes c (held for reading by the caller) as a snapshot of
// the index indexID, built by build (the chunks' key is c's).
func writeChunks(w io.Writer, c *chunkCache, indexID, build string) error {
	crc := crc32.New(castagnoli)
	bw := bufio.NewWriterSize(io.MultiWriter(w, crc), 1<<16)
	var b []byte
	str := func(s string) {
		b = binary.AppendUvarint(b, uint64(len(s)))
		b = append(b, s...)
	}
	b = append(b, chunksMagic...)
	str(indexID)
	str(build)
	str(c.key)
	b = binary.AppendUvarint(b, uint64(c.version))
	notes := make([]int64, 0, len(c.hashes))
	for id := range c.hashes {
		notes = append(notes, id)
	}
	slices.Sort(notes)
	b = binary.AppendUvarint(b, uint64(len(notes)))
	flush := func() {
		if len(b) >= 1<<15 {
			bw.Write(b)
			b = b[:0]
		}
	}
	for _, id := range notes {
		b = binary.AppendUvarint(b, uint64(id))
		str(c.hashes[id])
		b = binary.AppendUvarint(b, uint64(c.counts[id]))
		flush()
	}
	b = binary.AppendUvarint(b, uint64(len(c.spans)))
	for _, id := range notes {
		for i := range c.counts[id] {
			cv, ok := c.spans[chunkID(id, i)]
			if !ok {
				return fmt.Errorf("chunk %d of note %d has no span", i, id)
			}
			for _, v := range []int64{cv.NoteID, int64(cv.Idx), int64(cv.Start), int64(cv.End)} {
				b = binary.AppendUvarint(b, uint64(v))
			}
			flush()
		}
	}
	if c.idx == nil {
		b = append(b, 0)
		bw.Write(b)
	} else {
		b = append(b, 1)
		bw.Write(b)
		if _, err := c.idx.WriteTo(bw); err != nil {
			return err
		}
	}
	if err := bw.Flush(); err != nil {
		return err
	}
	_, err := w.Write(binary.LittleEndian.AppendUint32(nil, crc.Sum32()))
	return err
}

// readChunks reads the snapshot file at path: its checksum first, over
// the whole file, then its fields.
func readChunks(path string) (*chunkSnapshot, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	size := fi.Size() - 4
	if size < int64(len(chunksMagic)) {
		return nil, errChunkSnapshot
	}
	crc := crc32.New(castagnoli)
	if _, err := io.CopyN(crc, f, size); err != nil {
		return nil, err
	}
	var sum [4]byte
	if _, err := io.ReadFull(f, sum[:]); err != nil {
		return nil, err
	}
	if binary.LittleEndian.Uint32(sum[:]) != crc.Sum32() {
		return nil, fmt.Errorf("%w: checksum", errChunkSnapshot)
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return nil, err
	}
	return decodeChunks(io.LimitReader(f, size), size)
}

// decodeChunks decodes a snapshot of size bytes (without its checksum).
func decodeChunks(r io.Reader, size int64) (*chunkSnapshot, error) {
	cr := &countingReader{r: bufio.NewReaderSize(r, 1<<16)}
	d := snapshotDecoder{r: cr, size: size}
	magic := d.bytes(uint64(len(chunksMagic)))
	if d.err == nil && string(magic) != chunksMagic {
		return nil, errChunkSnapshot
	}
	s := &chunkSnapshot{indexID: d.string(), build: d.string(), key: d.string(), version: int64(d.uint())}
	nNotes := d.count(3)
	s.hashes, s.counts = make(map[int64]string, nNotes), make(map[int64]int, nNotes)
	for range nNotes {
		id, h, n := int64(d.uint()), d.string(), int(d.count(4))
		if d.err != nil {
			return nil, d.err
		}
		if _, dup := s.hashes[id]; dup {
			return nil, fmt.Errorf("%w: note %d repeats", errChunkSnapshot, id)
		}
		s.hashes[id], s.counts[id] = h, n
	}
	nSpans := d.count(4)
	s.spans = make(map[int64]noema.ChunkVector, nSpans)
	for range nSpans {
		cv := noema.ChunkVector{NoteID: int64(d.uint()), Idx: int(d.uint()), Start: int(d.uint()), End: int(d.uint())}
		s.spans[chunkID(cv.NoteID, cv.Idx)] = cv
	}
	hasIndex := d.bytes(1)
	if d.err != nil {
		return nil, d.err
	}
	if hasIndex[0] > 1 {
		return nil, errChunkSnapshot
	}
	if hasIndex[0] == 1 {
		x, err := vector.ReadIndex(cr, size-cr.n)
		if err != nil {
			return nil, fmt.Errorf("%w: %w", errChunkSnapshot, err)
		}
		s.idx = x
	}
	if cr.n != size {
		return nil, fmt.Errorf("%w: %d bytes beyond its fields", errChunkSnapshot, size-cr.n)
	}
	// Every chunk the notes count has its span and its vector.
	total := 0
	for id, n := range s.counts {
		total += n
		for i := range n {
			if _, ok := s.spans[chunkID(id, i)]; !ok {
				return nil, fmt.Errorf("%w: chunk %d of note %d has no span", errChunkSnapshot, i, id)
			}
		}
	}
	if n := 0; s.idx != nil {
		n = s.idx.Len()
		if n != total || len(s.spans) != total {
			return nil, fmt.Errorf("%w: %d vectors, %d spans for %d chunks", errChunkSnapshot, n, len(s.spans), total)
		}
	} else if total != 0 {
		return nil, fmt.Errorf("%w: %d chunks without vectors", errChunkSnapshot, total)
	}
	return s, nil
}

// snapshotDecoder reads a snapshot's fields, failing once on the first
// that does not fit.
type snapshotDecoder struct {
	r    *countingReader
	size int64
	err  error
}

func (d *snapshotDecoder) uint() uint64 {
	if d.err != nil {
		return 0
	}
	v, err := binary.ReadUvarint(d.r)
	if err != nil {
		d.err = fmt.Errorf("%w: %w", errChunkSnapshot, err)
	}
	return v
}

// count reads a count of items each at least min bytes long: one the
// snapshot cannot hold is damage, refused before anything is allocated.
func (d *snapshotDecoder) count(min int64) int {
	n := d.uint()
	if d.err == nil && n > uint64(d.size-d.r.n)/uint64(min) {
		d.err = fmt.Errorf("%w: %d items in %d bytes", errChunkSnapshot, n, d.size-d.r.n)
	}
	if d.err != nil {
		return 0
	}
	return int(n)
}

func (d *snapshotDecoder) bytes(n uint64) []byte {
	if d.err == nil && n > uint64(d.size-d.r.n) {
		d.err = fmt.Errorf("%w: a field of %d bytes in %d", errChunkSnapshot, n, d.size-d.r.n)
	}
	if d.err != nil {
		return nil
	}
	b := make([]byte, n)
	if _, err := io.ReadFull(d.r, b); err != nil {
		d.err = fmt.Errorf("%w: %w", errChunkSnapshot, err)
	}
	return b
}

func (d *snapshotDecoder) string() string { return string(d.bytes(d.uint())) }

// countingReader counts the bytes read through it.
type countingReader struct {
	r *bufio.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

func (c *countingReader) ReadByte() (byte, error) {
	b, err := c.r.ReadByte()
	if err == nil {
		c.n++
	}
	return b, err
}

// indexID is the identity of the index s reads, "" when there is no
// snapshot file or the index cannot name itself (then none is kept).
func (s *Service) indexID(ctx context.Context) (string, error) {
	if s.VectorsFile == "" || s.buildID() == "" {
		return "", nil
	}
	ix, ok := s.DB.(noema.IndexIdentity)
	if !ok {
		return "", nil
	}
	return ix.IndexID(ctx)
}

// loadChunkSnapshot returns the snapshot of the chunk vectors stored under key for
// this index and build, or nil when there is none usable.
// A snapshot another build wrote (an upgrade; a developer's rebuild) is
// used only when a sample of its rows is what this build's Set makes of the
// same vectors read from the index, bit for bit: up to snapshotSample notes
// spread over the snapshot, unchanged since (same chunked hash), every
// chunk of each compared (vector.SameRow). A build whose arithmetic
// differs (half precision, int8 codes, normalisation) differs on any such
// sample, and its snapshot is read as absent.
const snapshotSample = 64

func (s *Service) loadChunkSnapshot(ctx context.Context, key string, states map[int64]string) *chunkSnapshot {
	id, err := s.indexID(ctx)
	if err != nil || id == "" {
		return nil
	}
	snap, err := readChunks(s.VectorsFile)
	if err != nil {
		return nil // none, or damaged: read from the index (and written anew)
	}
	if snap.indexID != id || snap.key != key {
		return nil
	}
	if snap.build != s.buildID() && !s.sameArithmetic(ctx, snap, states) {
		return nil
	}
	return snap
}

// buildID is the build that reads and writes snapshots: the running one,
// or the one a test names.
func (s *Service) buildID() string {
	if s.build != "" {
		return s.build
	}
	return cachefile.BuildID()
}

// sameArithmetic reports whether this build stores a sample of snap's
// unchanged notes' vectors, read from the index, exactly as snap holds them
// (see snapshotSample).
func (s *Service) sameArithmetic(ctx context.Context, snap *chunkSnapshot, states map[int64]string) bool {
	if snap.idx == nil {
		return true // no vectors: nothing this build would store differently
	}
	var notes []int64
	for id, h := range snap.hashes {
		if snap.counts[id] > 0 && states[id] == h {
			notes = append(notes, id)
		}
	}
	if len(notes) == 0 {
		return false
	}
	slices.Sort(notes)
	step := max(1, len(notes)/snapshotSample)
	var sample []int64
	for i := 0; i < len(notes) && len(sample) < snapshotSample; i += step {
		sample = append(sample, notes[i])
	}
	fresh := vector.NewLike(snap.idx)
	compared, same := 0, true
	err := s.DB.SearchChunkVectors(ctx, s.Embedder.Name(), sample, func(cv noema.ChunkVector) {
		id := chunkID(cv.NoteID, cv.Idx)
		if !same || fresh.Set(id, cv.Vec) != nil {
			return
		}
		compared++
		same = vector.SameRow(fresh, snap.idx, id)
	})
	return err == nil && same && compared > 0
}

// KeepVectors loads the note chunks' vectors (from the snapshot and the
// notes changed since, or all from the index) and writes the snapshot
// when the load made it due: `sync --embed` calls it so that the next
// server starts from the file rather than read every vector through
// SQLite beside its first requests. Nothing without an embedder.
func (s *Service) KeepVectors(ctx context.Context) error {
	if s.Embedder == nil {
		return nil
	}
	if err := s.refreshChunks(ctx); err != nil {
		return err
	}
	return s.SaveVectors(ctx)
}

// SaveVectors writes the chunk vectors snapshot when the last load read
// enough of them from the index to be worth it (see the snapshot's doc),
// holding the vectors for reading meanwhile: searches go on, a refresh
// waits. A server calls it after its start's load; the first search of a
// process that did not warm calls it after its load.
func (s *Service) SaveVectors(ctx context.Context) error {
	c := &s.chunks
	if !c.saveDue.CompareAndSwap(true, false) {
		return nil
	}
	id, err := s.indexID(ctx)
	if err != nil || id == "" {
		return err
	}
	c.mu.RLock()
	defer c.mu.RUnlock()
	if err := cachefile.Write(s.VectorsFile, func(w io.Writer) error { return writeChunks(w, c, id, s.buildID()) }); err != nil {
		return fmt.Errorf("keep the chunk vectors in %s: %w", s.VectorsFile, err)
	}
	return nil
}
