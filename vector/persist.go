package vector

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
)

// An index can be written to a stream and read back as it was — the same
// ids, rows, codes and bounds, bit for bit — so that a process keeps a
// large one in a file beside the data it came from and reads it in a
// fraction of the time a rebuild takes (noema: a hundred thousand notes'
// chunk vectors, 8 CPU seconds to read through SQLite and Set, against a
// few hundred milliseconds from the file). The format is this package's:
// [Index.WriteTo] writes it and [ReadIndex] reads it, and nothing else
// should. It carries no checksum; the caller's file does.
//
// Layout (integers as unsigned varints unless said): the magic, a kind
// byte (0 float32 rows, 1 half rows, 2 codes only), whether the rows have
// int8 codes (0 or 1), the dimension, the number of rows, then the ids
// (8 bytes each), the rows (4 or 2 bytes a value; none for codes only),
// the codes (1 byte a value) and each row's scale, error bound and L1
// bound (4 bytes each), all little-endian.
const persistMagic = "noema vector index v1\n"

// ErrFormat is returned by [ReadIndex] for a stream that is not an index
// written by [Index.WriteTo] of this build's layout.
var ErrFormat = errors.New("vector: not a stored index of this format")

const (
	kindFloat = iota
	kindHalf
	kindCodes
)

// kind is the index's storage kind byte.
func (x *Index) kind() byte {
	switch {
	case x.codesOnly:
		return kindCodes
	case x.half:
		return kindHalf
	}
	return kindFloat
}

// WriteTo writes the index to w in the form [ReadIndex] reads. It holds
// the index for reading meanwhile: searches go on, writers wait.
func (x *Index) WriteTo(w io.Writer) (int64, error) {
	x.mu.RLock()
	defer x.mu.RUnlock()
	bw := bufio.NewWriterSize(w, 1<<16)
	cw := &countWriter{w: bw}
	var head []byte
	head = append(head, persistMagic...)
	head = append(head, x.kind())
	head = append(head, boolByte(x.quant))
	head = binary.AppendUvarint(head, uint64(x.dim))
	head = binary.AppendUvarint(head, uint64(len(x.ids)))
	cw.Write(head)
	putAll(cw, x.ids, 8, func(b []byte, v int64) { binary.LittleEndian.PutUint64(b, uint64(v)) })
	switch x.kind() {
	case kindFloat:
		putAll(cw, x.slab, 4, func(b []byte, v float32) { binary.LittleEndian.PutUint32(b, math.Float32bits(v)) })
	case kindHalf:
		putAll(cw, x.hslab, 2, func(b []byte, v uint16) { binary.LittleEndian.PutUint16(b, v) })
	}
	if x.quant {
		putAll(cw, x.codes, 1, func(b []byte, v int8) { b[0] = byte(v) })
		for _, fs := range [][]float32{x.scale, x.qerr, x.ql1} {
			putAll(cw, fs, 4, func(b []byte, v float32) { binary.LittleEndian.PutUint32(b, math.Float32bits(v)) })
		}
	}
	if cw.err == nil {
		cw.err = bw.Flush()
	}
	return cw.n, cw.err
}

// ReadIndex reads an index [Index.WriteTo] wrote from r, reading at most
// limit bytes (the size of what holds it): a damaged count cannot make it
// allocate more than the stream could hold. It fails with [ErrFormat] for
// a stream of another layout, for an index this build would not make (int8
// codes where its kernels take none, or none where they do), and for one
// whose ids repeat; and with io.ErrUnexpectedEOF for one cut short.
func ReadIndex(r io.Reader, limit int64) (*Index, error) {
	br := bufio.NewReaderSize(io.LimitReader(r, limit), 1<<16)
	magic := make([]byte, len(persistMagic))
	if _, err := io.ReadFull(br, magic); err != nil {
		return nil, eofIsUnexpected(err)
	}
	if string(magic) != persistMagic {
		return nil, ErrFormat
	}
	kind, err := br.ReadByte()
	if err != nil {
		return nil, eofIsUnexpected(err)
	}
	quant, err := br.ReadByte()
	if err != nil {
		return nil, eofIsUnexpected(err)
	}
	dim, err := binary.ReadUvarint(br)
	if err != nil {
		return nil, eofIsUnexpected(err)
	}
	n, err := binary.ReadUvarint(br)
	if err != nil {
		return nil, eofIsUnexpected(err)
	}
	if dim == 0 || dim > 1<<16 || kind > kindCodes || quant > 1 {
		return nil, ErrFormat
	}
	var x *Index
	switch kind {
	case kindFloat:
		x = New(int(dim))
	case kindHalf:
		x = NewHalf(int(dim))
	case kindCodes:
		if x = NewCodes(int(dim)); !x.codesOnly {
			return nil, ErrFormat
		}
	}
	if x.quant != (quant == 1) {
		return nil, ErrFormat
	}
	// Every row takes at least 8 bytes (its id) and dim more: a count the
	// stream cannot hold is damage, found before anything is allocated.
	perRow := uint64(8)
	switch kind {
	case kindFloat:
		perRow += 4 * dim
	case kindHalf:
		perRow += 2 * dim
	}
	if x.quant {
		perRow += dim + 12
	}
	if limit < 0 || n > uint64(limit)/perRow {
		return nil, fmt.Errorf("%w: %d rows of %d bytes in %d", io.ErrUnexpectedEOF, n, perRow, limit)
	}
	rows, d := int(n), int(dim)
	x.ids = make([]int64, rows)
	if err := getAll(br, x.ids, 8, func(b []byte) int64 { return int64(binary.LittleEndian.Uint64(b)) }); err != nil {
		return nil, err
	}
	switch kind {
	case kindFloat:
		x.slab = make([]float32, rows*d)
		err = getAll(br, x.slab, 4, func(b []byte) float32 { return math.Float32frombits(binary.LittleEndian.Uint32(b)) })
	case kindHalf:
		x.hslab = make([]uint16, rows*d)
		err = getAll(br, x.hslab, 2, func(b []byte) uint16 { return binary.LittleEndian.Uint16(b) })
	}
	if err != nil {
		return nil, err
	}
	if x.quant {
		x.codes = make([]int8, rows*d)
		if err := getAll(br, x.codes, 1, func(b []byte) int8 { return int8(b[0]) }); err != nil {
			return nil, err
		}
		x.scale, x.qerr, x.ql1 = make([]float32, rows), make([]float32, rows), make([]float32, rows)
		for _, fs := range [][]float32{x.scale, x.qerr, x.ql1} {
			if err := getAll(br, fs, 4, func(b []byte) float32 { return math.Float32frombits(binary.LittleEndian.Uint32(b)) }); err != nil {
				return nil, err
			}
		}
	}
	x.rows = make(map[int64]int, rows)
	for r, id := range x.ids {
		if _, dup := x.rows[id]; dup {
			return nil, fmt.Errorf("%w: id %d repeats", ErrFormat, id)
		}
		x.rows[id] = r
	}
	return x, nil
}

// putAll writes vs, size bytes each, through a reused block.
func putAll[T any](w io.Writer, vs []T, size int, put func([]byte, T)) {
	var block [1 << 14]byte
	per := len(block) / size
	for i := 0; i < len(vs); i += per {
		part := vs[i:min(i+per, len(vs))]
		for j, v := range part {
			put(block[j*size:], v)
		}
		w.Write(block[:len(part)*size])
	}
}

// getAll fills vs from r, size bytes each.
func getAll[T any](r io.Reader, vs []T, size int, get func([]byte) T) error {
	var block [1 << 14]byte
	per := len(block) / size
	for i := 0; i < len(vs); i += per {
		part := vs[i:min(i+per, len(vs))]
		b := block[:len(part)*size]
		if _, err := io.ReadFull(r, b); err != nil {
			return eofIsUnexpected(err)
		}
		for j := range part {
			part[j] = get(b[j*size:])
		}
	}
	return nil
}

// countWriter counts what it writes and keeps the first error, after
// which it writes nothing.
type countWriter struct {
	w   io.Writer
	n   int64
	err error
}

func (c *countWriter) Write(p []byte) (int, error) {
	if c.err != nil {
		return 0, c.err
	}
	n, err := c.w.Write(p)
	c.n += int64(n)
	c.err = err
	return n, err
}

func boolByte(b bool) byte {
	if b {
		return 1
	}
	return 0
}

// eofIsUnexpected turns the io.EOF of a stream that ended inside a field
// into io.ErrUnexpectedEOF.
func eofIsUnexpected(err error) error {
	if errors.Is(err, io.EOF) {
		return io.ErrUnexpectedEOF
	}
	return err
}

// SameRow reports whether a and b store id's vector the same way, bit for
// bit: the same kind of index and dimension, the same row (float32 or
// half) and, when they have them, the same int8 codes and bounds. A
// process that reads an index another build wrote compares a sample of its
// rows with rows it Sets itself from the same vectors: any change in the
// arithmetic of Set shows there.
func SameRow(a, b *Index, id int64) bool {
	a.mu.RLock()
	defer a.mu.RUnlock()
	b.mu.RLock()
	defer b.mu.RUnlock()
	if a.dim != b.dim || a.kind() != b.kind() || a.quant != b.quant {
		return false
	}
	ra, okA := a.rows[id]
	rb, okB := b.rows[id]
	if !okA || !okB {
		return false
	}
	d := a.dim
	switch a.kind() {
	case kindFloat:
		for i := range d {
			if math.Float32bits(a.slab[ra*d+i]) != math.Float32bits(b.slab[rb*d+i]) {
				return false
			}
		}
	case kindHalf:
		if !slices.Equal(a.hslab[ra*d:(ra+1)*d], b.hslab[rb*d:(rb+1)*d]) {
			return false
		}
	}
	if a.quant {
		if !slices.Equal(a.codes[ra*d:(ra+1)*d], b.codes[rb*d:(rb+1)*d]) {
			return false
		}
		for _, f := range [][2][]float32{{a.scale, b.scale}, {a.qerr, b.qerr}, {a.ql1, b.ql1}} {
			if math.Float32bits(f[0][ra]) != math.Float32bits(f[1][rb]) {
				return false
			}
		}
	}
	return true
}

// NewLike returns an empty index of x's kind and dimension.
func NewLike(x *Index) *Index {
	switch x.kind() {
	case kindCodes:
		return NewCodes(x.dim)
	case kindHalf:
		return NewHalf(x.dim)
	}
	return New(x.dim)
}
