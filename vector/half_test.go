package vector

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestHalfRoundTrip: every binary16 value decodes to a float32 that
// encodes back to it (NaNs to a NaN).
func TestHalfRoundTrip(t *testing.T) {
	for h := range 1 << 16 {
		f := fromHalf(uint16(h))
		got := toHalf(f)
		if f != f {
			if got&0x7c00 != 0x7c00 || got&0x3ff == 0 {
				t.Fatalf("NaN %#04x came back as %#04x", h, got)
			}
			continue
		}
		if got != uint16(h) {
			t.Fatalf("%#04x → %g → %#04x", h, f, got)
		}
	}
}

// TestHalfRounding: toHalf gives the nearest half, ties to even, checked
// against the neighbouring halves in float64 over random floats of every
// range (subnormal halves, overflow, exact ties).
func TestHalfRounding(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	check := func(f float32) {
		h := toHalf(f)
		got := float64(fromHalf(h))
		if math.IsInf(got, 0) {
			if math.Abs(float64(f)) < 65520 { // the rounding edge of the largest half, 65504
				t.Fatalf("%g → Inf", f)
			}
			return
		}
		d := math.Abs(got - float64(f))
		for _, n := range []uint16{h - 1, h + 1, h ^ 0x8000} {
			v := float64(fromHalf(n))
			if n&0x7c00 == 0x7c00 || n&0x7fff == 0 && h&0x7fff == 0 {
				continue // Inf/NaN neighbours; ±0
			}
			dn := math.Abs(v - float64(f))
			if dn < d || dn == d && h&1 == 1 && n&1 == 0 {
				t.Fatalf("%g (%#08x) → %#04x (%g); %#04x (%g) is nearer or the even tie", f, math.Float32bits(f), h, got, n, v)
			}
		}
	}
	for range 200_000 {
		check(math.Float32frombits(r.Uint32()) / float32(uint64(1)<<r.IntN(40)))
		check(float32(r.NormFloat64() * 0.05))
	}
	for h := range 1<<15 - 1 { // the midpoints between adjacent halves: ties
		a, b := float64(fromHalf(uint16(h))), float64(fromHalf(uint16(h+1)))
		if !math.IsInf(b, 0) {
			check(float32((a + b) / 2))
		}
	}
}

// TestHalfSearchIsExact: a half index's two-pass search returns exactly
// what a scan of its stored rows returns, and its scores are within the
// documented bound of the float32 index's.
func TestHalfSearchIsExact(t *testing.T) {
	for _, tc := range []struct{ n, dim int }{{5000, 384}, {3000, 16}, {500, 384}} {
		r := rand.New(rand.NewPCG(uint64(tc.n), 7))
		half, plain, full := NewHalf(tc.dim), NewHalf(tc.dim), New(tc.dim)
		plain.quant = false
		vs := clustered(r, tc.n, tc.dim, 6, 0.4)
		for i, v := range vs {
			for _, x := range []*Index{half, plain, full} {
				if err := x.Set(int64(i), v); err != nil {
					t.Fatal(err)
				}
			}
			if i%13 == 0 {
				del := int64(r.IntN(i + 1))
				half.Delete(del)
				plain.Delete(del)
				full.Delete(del)
			}
		}
		if len(half.slab) != 0 || len(half.hslab) != half.Len()*tc.dim {
			t.Fatalf("half index holds %d float32 and %d half values for %d rows", len(half.slab), len(half.hslab), half.Len())
		}
		bound := math.Pow(2, -11) + float64(tc.dim)*math.Pow(2, -25)
		for qi, q := range clustered(r, 10, tc.dim, 6, 0.4) {
			for _, k := range []int{1, 10, 300} {
				got, want := half.Search(q, k, nil), plain.Search(q, k, nil)
				if len(got) != len(want) {
					t.Fatalf("n=%d q%d k=%d: %d hits, want %d", tc.n, qi, k, len(got), len(want))
				}
				for i := range got {
					if got[i] != want[i] {
						t.Fatalf("n=%d q%d k=%d hit %d: %v, scan of the stored rows %v", tc.n, qi, k, i, got[i], want[i])
					}
					v, _ := full.Get(got[i].ID)
					qn := append([]float32(nil), q...)
					Normalize(qn)
					if d := math.Abs(float64(got[i].Score - Dot(qn, v))); d > bound {
						t.Fatalf("n=%d q%d hit %d: score %g, float32 %g: off by %g > %g", tc.n, qi, i, got[i].Score, Dot(qn, v), d, bound)
					}
				}
			}
		}
	}
}
