// Package safetensors reads tensors from a file in the safetensors format
// (an 8-byte little-endian header length, a JSON header naming each
// tensor's dtype, shape and byte range, then the raw little-endian data).
// Tensors are returned as float32 whatever their stored type (F32, F16,
// BF16, F64).
package safetensors

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"sort"
)

// Tensor is one entry of the header.
type Tensor struct {
	Name  string
	DType string
	Shape []int
	begin int64
	end   int64
}

// File is an open safetensors file.
type File struct {
	f       *os.File
	base    int64 // offset of the data section
	size    int64
	tensors map[string]*Tensor
	Meta    map[string]string
}

const maxHeader = 100 << 20

// Open reads the header of a safetensors file.
func Open(path string) (*File, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	sf, err := parse(f)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return sf, nil
}

func parse(f *os.File) (*File, error) {
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	var lenBuf [8]byte
	if _, err := io.ReadFull(f, lenBuf[:]); err != nil {
		return nil, fmt.Errorf("safetensors: short file: %w", err)
	}
	n := binary.LittleEndian.Uint64(lenBuf[:])
	if n > maxHeader || int64(n)+8 > st.Size() {
		return nil, fmt.Errorf("safetensors: header length %d is invalid for a %d-byte file", n, st.Size())
	}
	hdr := make([]byte, n)
	if _, err := io.ReadFull(f, hdr); err != nil {
		return nil, fmt.Errorf("safetensors: header: %w", err)
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(hdr, &raw); err != nil {
		return nil, fmt.Errorf("safetensors: header: %w", err)
	}
	sf := &File{f: f, base: 8 + int64(n), size: st.Size() - 8 - int64(n), tensors: map[string]*Tensor{}}
	for name, msg := range raw {
		if name == "__metadata__" {
			_ = json.Unmarshal(msg, &sf.Meta)
			continue
		}
		var e struct {
			DType   string  `json:"dtype"`
			Shape   []int   `json:"shape"`
			Offsets []int64 `json:"data_offsets"`
		}
		if err := json.Unmarshal(msg, &e); err != nil {
			return nil, fmt.Errorf("safetensors: tensor %q: %w", name, err)
		}
		if len(e.Offsets) != 2 || e.Offsets[0] < 0 || e.Offsets[1] < e.Offsets[0] || e.Offsets[1] > sf.size {
			return nil, fmt.Errorf("safetensors: tensor %q: data offsets %v outside the %d-byte data section", name, e.Offsets, sf.size)
		}
		es := elemSize(e.DType)
		if es == 0 {
			return nil, fmt.Errorf("safetensors: tensor %q: dtype %q is not supported", name, e.DType)
		}
		count := int64(1)
		for _, d := range e.Shape {
			if d < 0 {
				return nil, fmt.Errorf("safetensors: tensor %q: negative dimension", name)
			}
			count *= int64(d)
		}
		if count*int64(es) != e.Offsets[1]-e.Offsets[0] {
			return nil, fmt.Errorf("safetensors: tensor %q: shape %v of %s needs %d bytes, data has %d", name, e.Shape, e.DType, count*int64(es), e.Offsets[1]-e.Offsets[0])
		}
		sf.tensors[name] = &Tensor{Name: name, DType: e.DType, Shape: e.Shape, begin: e.Offsets[0], end: e.Offsets[1]}
	}
	return sf, nil
}

func elemSize(dtype string) int {
	switch dtype {
	case "F32":
		return 4
	case "F16", "BF16":
		return 2
	case "F64":
		return 8
	}
	return 0
}

// Close closes the file.
func (f *File) Close() error { return f.f.Close() }

// Names returns the tensor names, sorted.
func (f *File) Names() []string {
	names := make([]string, 0, len(f.tensors))
	for n := range f.tensors {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Tensor returns the header entry of a tensor, nil when there is none.
func (f *File) Tensor(name string) *Tensor { return f.tensors[name] }

// Float32 reads a tensor as float32 values in row-major order and returns
// them with its shape.
func (f *File) Float32(name string) ([]float32, []int, error) {
	t := f.tensors[name]
	if t == nil {
		return nil, nil, fmt.Errorf("safetensors: no tensor %q", name)
	}
	es := elemSize(t.DType)
	out := make([]float32, (t.end-t.begin)/int64(es))
	// Read and convert in chunks: no second copy of the tensor in memory.
	const chunk = 1 << 20
	buf := make([]byte, min(chunk, t.end-t.begin))
	for off := int64(0); off < t.end-t.begin; {
		n := min(int64(len(buf)), t.end-t.begin-off)
		b := buf[:n]
		if _, err := f.f.ReadAt(b, f.base+t.begin+off); err != nil {
			return nil, nil, fmt.Errorf("safetensors: tensor %q: %w", name, err)
		}
		dst := out[off/int64(es) : (off+n)/int64(es)]
		switch t.DType {
		case "F32":
			for i := range dst {
				dst[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
			}
		case "F64":
			for i := range dst {
				dst[i] = float32(math.Float64frombits(binary.LittleEndian.Uint64(b[8*i:])))
			}
		case "BF16":
			for i := range dst {
				dst[i] = math.Float32frombits(uint32(binary.LittleEndian.Uint16(b[2*i:])) << 16)
			}
		case "F16":
			for i := range dst {
				dst[i] = halfToFloat(binary.LittleEndian.Uint16(b[2*i:]))
			}
		}
		off += n
	}
	return out, t.Shape, nil
}

func halfToFloat(h uint16) float32 {
	sign := uint32(h>>15) << 31
	exp := uint32(h>>10) & 0x1f
	mant := uint32(h) & 0x3ff
	switch {
	case exp == 0 && mant == 0:
		return math.Float32frombits(sign)
	case exp == 0: // subnormal
		e := uint32(127 - 15 + 1)
		for mant&0x400 == 0 {
			mant <<= 1
			e--
		}
		mant &= 0x3ff
		return math.Float32frombits(sign | e<<23 | mant<<13)
	case exp == 0x1f:
		return math.Float32frombits(sign | 0xff<<23 | mant<<13)
	}
	return math.Float32frombits(sign | (exp+127-15)<<23 | mant<<13)
}

// Write writes tensors in the safetensors format (F32), names sorted; for
// tests and fixtures.
func Write(w io.Writer, tensors map[string][]float32, shapes map[string][]int) error {
	names := make([]string, 0, len(tensors))
	for n := range tensors {
		names = append(names, n)
	}
	sort.Strings(names)
	hdr := map[string]any{}
	var off int64
	for _, n := range names {
		size := int64(4 * len(tensors[n]))
		hdr[n] = map[string]any{"dtype": "F32", "shape": shapes[n], "data_offsets": []int64{off, off + size}}
		off += size
	}
	hb, err := json.Marshal(hdr)
	if err != nil {
		return err
	}
	for len(hb)%8 != 0 {
		hb = append(hb, ' ')
	}
	var lb [8]byte
	binary.LittleEndian.PutUint64(lb[:], uint64(len(hb)))
	if _, err := w.Write(lb[:]); err != nil {
		return err
	}
	if _, err := w.Write(hb); err != nil {
		return err
	}
	for _, n := range names {
		b := make([]byte, 4*len(tensors[n]))
		for i, v := range tensors[n] {
			binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(v))
		}
		if _, err := w.Write(b); err != nil {
			return err
		}
	}
	return nil
}
