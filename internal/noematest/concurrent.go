package noematest

import "sync"

// Concurrently runs fn(0) … fn(n-1) at once, each on a goroutine of its
// own, and returns their errors by index once all have returned.
func Concurrently(n int, fn func(i int) error) []error {
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { errs[i] = fn(i) })
	}
	wg.Wait()
	return errs
}
