package vector

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// randomUnit returns n random unit vectors of dimension dim in one slab,
// generated from seed.
func randomUnit(seed uint64, n, dim int) []float32 {
	r := rand.New(rand.NewPCG(seed, 0))
	slab := make([]float32, n*dim)
	for i := range n {
		v := slab[i*dim : (i+1)*dim]
		for j := range v {
			v[j] = float32(r.NormFloat64())
		}
		Normalize(v)
	}
	return slab
}

func BenchmarkSearch(b *testing.B) {
	for _, n := range []int{1000, 10000, 100000} {
		const dim = 384
		slab := randomUnit(1, n, dim)
		x := New(dim)
		for i := range n {
			if err := x.Set(int64(i), slab[i*dim:(i+1)*dim]); err != nil {
				b.Fatal(err)
			}
		}
		q := randomUnit(2, 1, dim)
		for _, k := range []int{10, 800} { // 800: what search_notes asks for
			name := fmt.Sprintf("N=%d/dim=%d", n, dim)
			if k != 10 {
				name += fmt.Sprintf("/k=%d", k)
			}
			b.Run(name, func(b *testing.B) {
				b.SetBytes(int64(n * dim * 4))
				for b.Loop() {
					if len(x.Search(q, k, nil)) != k {
						b.Fatal("short result")
					}
				}
			})
		}
		if n == 100000 {
			b.Run(fmt.Sprintf("N=%d/dim=%d/filter=half", n, dim), func(b *testing.B) {
				b.SetBytes(int64(n * dim * 4))
				for b.Loop() {
					x.Search(q, 10, func(id int64) bool { return id%2 == 0 })
				}
			})
		}
	}
}

// BenchmarkRawScan is the floor Search is measured against: one goroutine
// computing the dot product of the query with 100,000 × 384 float32 in a
// plain slab, with no heap, no lock and no filter.
func BenchmarkRawScan(b *testing.B) {
	const n, dim = 100000, 384
	slab := randomUnit(1, n, dim)
	q := randomUnit(2, 1, dim)
	for _, impl := range dotImpls {
		b.Run(impl.name, func(b *testing.B) {
			b.SetBytes(int64(n * dim * 4))
			var sink float32
			for b.Loop() {
				for r := range n {
					sink += impl.f(q, slab[r*dim:(r+1)*dim])
				}
			}
			_ = sink
		})
	}
}

// BenchmarkDot compares dot products of one cache-resident pair: a plain
// loop, Dot (four lanes; an eight-lane variant was slower) and the kernel
// the scan uses.
func BenchmarkDot(b *testing.B) {
	const dim = 384
	v := randomUnit(3, 2, dim)
	x, y := v[:dim], v[dim:]
	for _, impl := range dotImpls {
		b.Run(impl.name, func(b *testing.B) {
			var sink float32
			for b.Loop() {
				sink += impl.f(x, y)
			}
			_ = sink
		})
	}
}

var dotImpls = []struct {
	name string
	f    func(a, b []float32) float32
}{
	{"simple", dotSimple},
	{"unroll4", Dot},
	{"kernel", dot1}, // the assembly kernel where the CPU has it
}

func dotSimple(a, b []float32) float32 {
	b = b[:len(a)]
	var s float32
	for i := range a {
		s += a[i] * b[i]
	}
	return s
}

func TestDotVariantsAgree(t *testing.T) {
	v := randomUnit(4, 2, 389)
	a, b := v[:389], v[389:]
	want := dotSimple(a, b)
	for _, impl := range dotImpls {
		if got := impl.f(a, b); abs32(got-want) > 1e-5 {
			t.Errorf("%s = %v, want %v", impl.name, got, want)
		}
	}
}

func abs32(x float32) float32 {
	if x < 0 {
		return -x
	}
	return x
}
