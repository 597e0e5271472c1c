package gate

import (
	"context"
	"runtime"
	"sync"
	"testing"
	"time"
)

func TestBeginCountsOnce(t *testing.T) {
	var g Gate
	end1, end2 := g.Begin(), g.Begin()
	if n := g.InFlight(); n != 2 {
		t.Fatalf("InFlight after two Begins = %d, want 2", n)
	}
	end1()
	end1() // a second call of the same end changes nothing
	if n := g.InFlight(); n != 1 {
		t.Fatalf("InFlight after one end called twice = %d, want 1", n)
	}
	end2()
	if n := g.InFlight(); n != 0 {
		t.Fatalf("InFlight after both ends = %d, want 0", n)
	}
	var none *Gate
	none.Begin()() // a nil gate counts nothing and does not panic
	if none.InFlight() != 0 {
		t.Fatal("a nil gate has requests in flight")
	}
}

func TestWhichWorkIsBackground(t *testing.T) {
	var g Gate
	ctx := context.Background()
	req := Request(ctx, &g)
	cases := []struct {
		name string
		ctx  context.Context
		want *Gate
	}{
		{"plain", ctx, nil},
		{"request", req, nil},
		{"background", Background(ctx, &g), &g},
		{"derived from background", context.WithValue(Background(ctx, &g), struct{}{}, 1), &g},
		{"detached from a request", Detached(req), &g},
		{"detached from plain", Detached(ctx), nil},
		{"background of no gate", Background(ctx, nil), nil},
	}
	for _, c := range cases {
		if got := From(c.ctx); got != c.want {
			t.Errorf("%s: From = %p, want %p", c.name, got, c.want)
		}
	}
	cancelled, cancel := context.WithCancel(req)
	cancel()
	if Detached(cancelled).Err() != nil {
		t.Error("Detached kept the request's cancellation")
	}
}

// TestYieldReturns: Yield never blocks, whether or not a request is in
// flight and whatever the context.
func TestYieldReturns(t *testing.T) {
	var g Gate
	bg := Background(context.Background(), &g)
	Yield(bg)
	end := g.Begin()
	for range 1000 {
		Yield(bg)
		Yield(context.Background())
	}
	end()
}

func BenchmarkYieldIdle(b *testing.B) {
	var g Gate
	ctx := context.WithValue(Background(context.Background(), &g), struct{}{}, 1)
	for b.Loop() {
		Yield(ctx)
	}
}

// BenchmarkRequestBesideBackground measures what the gate is for: a
// request that blocks briefly several times (as an fsync or a page read
// does) while background goroutines keep every processor busy. Each
// background goroutine works in steps of about 20 µs and calls Yield
// between them; with gated=false they work without a gate. ns/op is one
// request: 8 blocking waits of 50 µs and the work between them.
func BenchmarkRequestBesideBackground(b *testing.B) {
	for _, gated := range []bool{false, true} {
		b.Run(map[bool]string{false: "gate=off", true: "gate=on"}[gated], func(b *testing.B) {
			var g Gate
			ctx, cancel := context.WithCancel(context.Background())
			bg := ctx
			if gated {
				bg = Background(ctx, &g)
			}
			var wg sync.WaitGroup
			for range runtime.GOMAXPROCS(0) {
				wg.Go(func() {
					for bg.Err() == nil {
						spin(20 * time.Microsecond)
						Yield(bg)
					}
				})
			}
			for b.Loop() {
				end := g.Begin()
				for range 8 {
					time.Sleep(50 * time.Microsecond)
					spin(10 * time.Microsecond)
				}
				end()
			}
			cancel()
			wg.Wait()
		})
	}
}

// spin keeps the processor busy for about d.
func spin(d time.Duration) {
	for t := time.Now(); time.Since(t) < d; {
	}
}
