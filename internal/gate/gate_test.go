package gate

import (
	"context"
	"testing"
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
