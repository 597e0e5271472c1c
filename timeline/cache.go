package timeline

import (
	"context"
	"sync/atomic"
	"time"

	"github.com/noema-mem/noema"
)

// Cache keeps the last timeline read from an index, so that a search reads
// it again only after a note changed. Its zero value is ready; it is safe
// for concurrent use.
type Cache struct {
	last atomic.Pointer[noema.Timeline]
}

// View returns the timeline of idx evaluated at at (as_of when asOf, else
// now). A nil idx makes every note current.
func (c *Cache) View(ctx context.Context, idx noema.TimeIndex, at time.Time, asOf bool) (View, error) {
	if idx == nil {
		return NewView(nil, at, asOf), nil
	}
	prev := c.last.Load()
	tl, err := idx.Timeline(ctx, prev)
	if err != nil {
		return View{}, err
	}
	if tl != prev {
		c.last.CompareAndSwap(prev, tl) // a concurrent read may have won: either is current
	}
	return NewView(tl, at, asOf), nil
}
