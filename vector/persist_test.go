package vector

import (
	"bytes"
	"errors"
	"io"
	"reflect"
	"testing"
)

// TestReadIndexIsTheIndexWritten: an index read back is the one written —
// every field bit for bit — and answers every search as it does, for each
// kind of index, after deletions, and at dimensions the int8 kernels take
// and do not.
func TestReadIndexIsTheIndexWritten(t *testing.T) {
	kinds := []struct {
		name string
		make func(int) *Index
	}{{"float", New}, {"half", NewHalf}, {"codes", NewCodes}}
	for _, k := range kinds {
		for _, dim := range []int{3, 64, 384} {
			for _, n := range []int{0, 1, 300, 3000} {
				x := k.make(dim)
				slab := randomUnit(uint64(dim+n), n, dim)
				for i := range n {
					if err := x.Set(int64(i*7-50), slab[i*dim:(i+1)*dim]); err != nil {
						t.Fatal(err)
					}
				}
				for i := 0; i < n; i += 5 { // rows move as others are deleted
					x.Delete(int64(i*7 - 50))
				}
				var buf bytes.Buffer
				wrote, err := x.WriteTo(&buf)
				if err != nil || wrote != int64(buf.Len()) {
					t.Fatalf("%s dim %d n %d: WriteTo = %d, %v; %d bytes", k.name, dim, n, wrote, err, buf.Len())
				}
				y, err := ReadIndex(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
				if err != nil {
					t.Fatalf("%s dim %d n %d: ReadIndex: %v", k.name, dim, n, err)
				}
				x.buf, y.buf = nil, nil
				if !reflect.DeepEqual(normalizeEmpty(x), normalizeEmpty(y)) {
					t.Fatalf("%s dim %d n %d: the index read differs from the one written", k.name, dim, n)
				}
				for _, id := range x.ids {
					if !SameRow(x, y, id) {
						t.Fatalf("%s dim %d n %d: row %d read back is not the same row", k.name, dim, n, id)
					}
				}
				if len(x.ids) > 1 { // a row Set from another (random) vector is another row
					z, err := ReadIndex(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
					if err != nil {
						t.Fatal(err)
					}
					id := x.ids[0]
					z.Set(id, randomUnit(7, 1, dim))
					if SameRow(x, z, id) {
						t.Fatalf("%s dim %d n %d: row %d set from another vector is still the same row", k.name, dim, n, id)
					}
				}
				q := randomUnit(99, 1, dim)
				if x.CodesOnly() {
					continue // SearchRows needs the caller's rows; the fields compared above are all it reads
				}
				if a, b := x.Search(q, 10, nil), y.Search(q, 10, nil); !reflect.DeepEqual(a, b) {
					t.Fatalf("%s dim %d n %d: search %v, read back %v", k.name, dim, n, a, b)
				}
			}
		}
	}
}

// normalizeEmpty returns a copy of x whose empty slices are nil, so that
// an index grown and shrunk compares equal to one read with nothing.
func normalizeEmpty(x *Index) *Index {
	c := &Index{dim: x.dim, half: x.half, codesOnly: x.codesOnly, quant: x.quant, rows: x.rows}
	c.slab, c.hslab, c.ids = nilIfEmpty(x.slab), nilIfEmpty(x.hslab), nilIfEmpty(x.ids)
	c.codes, c.scale, c.qerr, c.ql1 = nilIfEmpty(x.codes), nilIfEmpty(x.scale), nilIfEmpty(x.qerr), nilIfEmpty(x.ql1)
	return c
}

func nilIfEmpty[T any](s []T) []T {
	if len(s) == 0 {
		return nil
	}
	return s
}

// TestReadIndexRefusesDamage: a stream cut anywhere is ErrUnexpectedEOF, a
// count beyond the limit is refused before it is allocated, and another
// magic, kind or a repeated id is ErrFormat.
func TestReadIndexRefusesDamage(t *testing.T) {
	x := NewHalf(16)
	slab := randomUnit(1, 40, 16)
	for i := range 40 {
		x.Set(int64(i), slab[i*16:(i+1)*16])
	}
	var buf bytes.Buffer
	if _, err := x.WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	data := buf.Bytes()
	for cut := 0; cut < len(data); cut += 1 + cut/8 {
		if _, err := ReadIndex(bytes.NewReader(data[:cut]), int64(cut)); !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, ErrFormat) {
			t.Fatalf("cut at %d of %d: %v, want an unexpected end", cut, len(data), err)
		}
	}
	// The whole stream read under a smaller limit: the rows cannot fit.
	if _, err := ReadIndex(bytes.NewReader(data), int64(len(data)/2)); !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("limit below the size: %v", err)
	}
	bad := bytes.Clone(data)
	bad[0] ^= 1
	if _, err := ReadIndex(bytes.NewReader(bad), int64(len(bad))); !errors.Is(err, ErrFormat) {
		t.Fatalf("another magic: %v", err)
	}
	bad = bytes.Clone(data)
	bad[len(persistMagic)] = 9 // no such kind
	if _, err := ReadIndex(bytes.NewReader(bad), int64(len(bad))); !errors.Is(err, ErrFormat) {
		t.Fatalf("another kind: %v", err)
	}
	// Row 1's id made row 0's: magic, kind, quant, dim (1 byte), n (1 byte).
	bad = bytes.Clone(data)
	ids := len(persistMagic) + 4
	copy(bad[ids+8:ids+16], bad[ids:ids+8])
	if _, err := ReadIndex(bytes.NewReader(bad), int64(len(bad))); !errors.Is(err, ErrFormat) {
		t.Fatalf("a repeated id: %v", err)
	}
}

// FuzzReadIndex: no stream makes ReadIndex panic or allocate beyond what
// its limit allows, and whatever it accepts it reads again, once written,
// as the same index.
func FuzzReadIndex(f *testing.F) {
	for _, make := range []func(int) *Index{New, NewHalf, NewCodes} {
		x := make(8)
		slab := randomUnit(2, 5, 8)
		for i := range 5 {
			x.Set(int64(i), slab[i*8:(i+1)*8])
		}
		var buf bytes.Buffer
		x.WriteTo(&buf)
		f.Add(buf.Bytes())
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		x, err := ReadIndex(bytes.NewReader(data), int64(len(data)))
		if err != nil {
			return
		}
		var once, twice bytes.Buffer
		if _, err := x.WriteTo(&once); err != nil {
			t.Fatal(err)
		}
		y, err := ReadIndex(bytes.NewReader(once.Bytes()), int64(once.Len()))
		if err != nil {
			t.Fatalf("an index written by WriteTo does not read back: %v", err)
		}
		y.WriteTo(&twice)
		if !bytes.Equal(once.Bytes(), twice.Bytes()) {
			t.Fatalf("read back as another index")
		}
	})
}
