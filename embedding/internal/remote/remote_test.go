package remote

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/noema-mem/noema"
)

func TestRetryAfter(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	scenarios := []struct {
		Name   string
		Header map[string]string
		Want   time.Duration
	}{
		{"none", nil, 0},
		{"seconds", map[string]string{"Retry-After": "7"}, 7 * time.Second},
		{"fractional seconds", map[string]string{"Retry-After": "0.25"}, 250 * time.Millisecond},
		{"zero", map[string]string{"Retry-After": "0"}, 0},
		{"negative", map[string]string{"Retry-After": "-3"}, 0},
		{"HTTP date", map[string]string{"Retry-After": now.Add(90 * time.Second).Format(http.TimeFormat)}, 90 * time.Second},
		{"past date", map[string]string{"Retry-After": now.Add(-time.Hour).Format(http.TimeFormat)}, 0},
		{"garbage", map[string]string{"Retry-After": "soon"}, 0},
		{"milliseconds win", map[string]string{"Retry-After": "2", "Retry-After-Ms": "1500"}, 1500 * time.Millisecond},
	}
	for _, sc := range scenarios {
		t.Run(sc.Name, func(t *testing.T) {
			h := http.Header{}
			for k, v := range sc.Header {
				h.Set(k, v)
			}
			if got := retryAfter(h, now); got != sc.Want {
				t.Fatalf("retryAfter = %v, want %v", got, sc.Want)
			}
		})
	}
}

func TestBackoff(t *testing.T) {
	base, maxD := 100*time.Millisecond, 1*time.Second
	for attempt, want := range []time.Duration{100, 200, 400, 800, 1000, 1000, 1000} {
		want *= time.Millisecond
		for range 50 {
			d := backoff(base, maxD, attempt)
			if d < want/2 || d > want {
				t.Fatalf("attempt %d: wait %v outside [%v, %v]", attempt, d, want/2, want)
			}
		}
	}
	if d := backoff(base, maxD, 1000); d > maxD { // no overflow
		t.Fatalf("attempt 1000: %v", d)
	}
}

func TestParseBase(t *testing.T) {
	for raw, want := range map[string]string{
		"http://localhost:11434":     "http://localhost:11434",
		"http://localhost:11434/":    "http://localhost:11434",
		"https://host/proxy/v1/":     "https://host/proxy/v1",
		"HTTP://Example.com:8080///": "http://Example.com:8080",
	} {
		got, err := ParseBase("x", raw)
		if err != nil || got != want {
			t.Errorf("ParseBase(%q) = %q, %v; want %q", raw, got, err, want)
		}
	}
	for _, raw := range []string{"", "localhost:11434", "ftp://h", "http://", "http://h/?a=1", "http://h/#f", "http://[::1"} {
		if _, err := ParseBase("x", raw); noema.ErrorCode(err) != noema.EINVALID {
			t.Errorf("ParseBase(%q) err = %v, want invalid_argument", raw, err)
		}
	}
}

func TestDimCheck(t *testing.T) {
	d := NewDim(0)
	if err := d.Check("b", "m", [][]float32{{3, 4}, {0, 0}}); err != nil {
		t.Fatal(err)
	}
	if d.Get() != 2 {
		t.Fatalf("learned %d, want 2", d.Get())
	}
	if err := d.Check("b", "m", [][]float32{{1, 0, 0}}); err == nil || !strings.Contains(err.Error(), "dimension 3 (text 1), expected 2") {
		t.Fatalf("err = %v", err)
	}
	if err := d.Check("b", "m", [][]float32{{}}); err == nil {
		t.Fatal("an empty vector passed")
	}
	v := [][]float32{{3, 4}}
	if err := d.Check("b", "m", v); err != nil || v[0][0] != 0.6 || v[0][1] != 0.8 {
		t.Fatalf("Check = %v, vector %v; want normalized [0.6 0.8]", err, v[0])
	}
	if err := NewDim(0).Check("b", "m", [][]float32{{}}); err == nil || !strings.Contains(err.Error(), "empty vector") {
		t.Fatalf("err = %v", err)
	}
}

func TestFailKeepsCause(t *testing.T) {
	c := &Client{Backend: "x"}
	err := c.fail(noema.EUNAVAILABLE, "http://u:p@h/api?key=secret", 2, "", syscall.ECONNREFUSED)
	if noema.ErrorCode(err) != noema.EUNAVAILABLE || !errors.Is(err, syscall.ECONNREFUSED) {
		t.Fatalf("err = %v: code %q, Is(ECONNREFUSED) %v", err, noema.ErrorCode(err), errors.Is(err, syscall.ECONNREFUSED))
	}
	if msg := err.Error(); strings.Contains(msg, "secret") || strings.Contains(msg, "u:p") || !strings.Contains(msg, "(2 attempts)") {
		t.Fatalf("message %q leaks credentials or misses the attempt count", msg)
	}
}

func TestBatch(t *testing.T) {
	var sizes []int
	embed := func(_ context.Context, b []string) ([][]float32, error) {
		sizes = append(sizes, len(b))
		out := make([][]float32, len(b))
		for i := range b {
			out[i] = []float32{float32(len(b[i]))}
		}
		return out, nil
	}
	texts := []string{"a", "bb", "ccc", "dddd", "eeeee"}
	got, err := Batch(context.Background(), "x", texts, 2, embed)
	if err != nil || len(got) != 5 || got[4][0] != 5 || len(sizes) != 3 {
		t.Fatalf("Batch = %v, %v; sizes %v", got, err, sizes)
	}
	short := func(_ context.Context, b []string) ([][]float32, error) { return make([][]float32, len(b)-1), nil }
	if _, err := Batch(context.Background(), "x", texts, 2, short); noema.ErrorCode(err) != noema.EUNAVAILABLE {
		t.Fatalf("short answer: err = %v", err)
	}
}
