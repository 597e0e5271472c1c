package safetensors

import (
	"bytes"
	"encoding/binary"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

func TestRoundTrip(t *testing.T) {
	var buf bytes.Buffer
	err := Write(&buf, map[string][]float32{"a": {1, -2.5, 3}, "b.w": {0.25, 4, 5, 6}},
		map[string][]int{"a": {3}, "b.w": {2, 2}})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "m.safetensors")
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if got := strings.Join(f.Names(), ","); got != "a,b.w" {
		t.Errorf("names %s", got)
	}
	v, shape, err := f.Float32("b.w")
	if err != nil || len(shape) != 2 || shape[0] != 2 || v[0] != 0.25 || v[3] != 6 {
		t.Errorf("b.w = %v %v %v", v, shape, err)
	}
	if _, _, err := f.Float32("nope"); err == nil {
		t.Error("missing tensor read")
	}
}

// write16 builds a file with one 16-bit tensor.
func write16(t *testing.T, dtype string, vals []uint16) string {
	hdr := `{"x":{"dtype":"` + dtype + `","shape":[` + strconv.Itoa(len(vals)) + `],"data_offsets":[0,` + strconv.Itoa(2*len(vals)) + `]}}`
	var b bytes.Buffer
	binary.Write(&b, binary.LittleEndian, uint64(len(hdr)))
	b.WriteString(hdr)
	for _, v := range vals {
		binary.Write(&b, binary.LittleEndian, v)
	}
	path := filepath.Join(t.TempDir(), dtype+".safetensors")
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestHalfTypes(t *testing.T) {
	// F16: 1.0, -2.0, 0.5, 65504 (max), a subnormal (2^-24), 0
	f, err := Open(write16(t, "F16", []uint16{0x3c00, 0xc000, 0x3800, 0x7bff, 0x0001, 0}))
	if err != nil {
		t.Fatal(err)
	}
	v, _, err := f.Float32("x")
	want := []float32{1, -2, 0.5, 65504, 5.9604645e-08, 0}
	for i := range want {
		if err != nil || v[i] != want[i] {
			t.Fatalf("F16 = %v, %v; want %v", v, err, want)
		}
	}
	f.Close()
	// BF16: 1.0, -3.0
	f, err = Open(write16(t, "BF16", []uint16{0x3f80, 0xc040}))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if v, _, err := f.Float32("x"); err != nil || v[0] != 1 || v[1] != -3 {
		t.Fatalf("BF16 = %v, %v", v, err)
	}
}

func TestCorrupt(t *testing.T) {
	dir := t.TempDir()
	for name, data := range map[string][]byte{
		"short":     {1, 2},
		"huge":      {0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0},
		"badjson":   append(binary.LittleEndian.AppendUint64(nil, 3), "{x}"...),
		"badoffset": append(binary.LittleEndian.AppendUint64(nil, 55), `{"x":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}}`...),
		"badshape":  append(binary.LittleEndian.AppendUint64(nil, 55), `{"x":{"dtype":"F32","shape":[3],"data_offsets":[0,8]}}12345678`...),
		"dtype":     append(binary.LittleEndian.AppendUint64(nil, 54), `{"x":{"dtype":"I8","shape":[8],"data_offsets":[0,8]}}12345678`...),
	} {
		p := filepath.Join(dir, name)
		os.WriteFile(p, data, 0o644)
		if f, err := Open(p); err == nil {
			f.Close()
			t.Errorf("%s: opened", name)
		}
	}
}
