package splitmix

import "testing"

// TestReference checks the first outputs of seed 1234567 against the
// reference implementation (Vigna's splitmix64.c).
func TestReference(t *testing.T) {
	want := []uint64{6457827717110365317, 3203168211198807973, 9817491932198370423, 4593380528125082431, 16408922859458223821}
	r := New(1234567)
	for i, w := range want {
		if got := r.Next(); got != w {
			t.Fatalf("output %d = %d, want %d", i, got, w)
		}
	}
}

func TestIntn(t *testing.T) {
	r := New(7)
	seen := make([]bool, 10)
	for range 1000 {
		v := r.Intn(10)
		if v < 0 || v >= 10 {
			t.Fatalf("Intn(10) = %d", v)
		}
		seen[v] = true
	}
	for v, ok := range seen {
		if !ok {
			t.Errorf("Intn(10) never returned %d in 1000 draws", v)
		}
	}
}
