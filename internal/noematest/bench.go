package noematest

import "testing"

// Bench runs fn as the sub-benchmark name of b, once per iteration, and
// fails it when fn fails.
func Bench(b *testing.B, name string, fn func() error) {
	b.Helper()
	b.Run(name, func(b *testing.B) {
		for b.Loop() {
			if err := fn(); err != nil {
				b.Fatal(err)
			}
		}
	})
}
