// Package remote is the HTTP machinery shared by the network embedders:
// JSON POST with timeouts, retries with exponential back-off and jitter,
// Retry-After, batching, and validation of what the server returned.
//
// Error policy, the same for every backend:
//   - the caller's context ending stops everything and returns its error
//     (errors.Is(err, context.Canceled) or context.DeadlineExceeded);
//   - network errors, timeouts, HTTP 429 and 5xx are retried up to
//     MaxRetries times, then reported as noema.EUNAVAILABLE;
//   - HTTP 400 and 422 (the server rejected the input) are reported at once
//     as noema.EINVALID; any other 4xx (bad key, unknown model, …) at once as
//     noema.EUNAVAILABLE;
//   - a 2xx answer with the wrong number of vectors or the wrong dimension is
//     reported as noema.EUNAVAILABLE, without retry.
//
// Every error carries the backend's own message (parsed from its error
// body), and the original cause stays reachable with errors.Is/As.
package remote

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/noema-mem/noema"
	"github.com/noema-mem/noema/vector"
)

// Defaults applied by [Client] for zero fields.
const (
	DefaultTimeout       = 60 * time.Second
	DefaultBatchSize     = 64
	DefaultBaseDelay     = 500 * time.Millisecond
	DefaultMaxDelay      = 15 * time.Second
	DefaultMaxRetryAfter = 60 * time.Second
	// MaxResponseBytes caps a response body (2,048 inputs × 3,072 floats as
	// JSON is about 130 MB).
	MaxResponseBytes = 256 << 20
	maxErrorBody     = 64 << 10
)

// Client posts JSON to one backend with retries. Set the fields before the
// first call; it is then safe for concurrent use.
type Client struct {
	// Backend names the backend in messages ("ollama", "openai").
	Backend string
	// HTTP is the client used; nil means one with a DefaultTimeout timeout.
	HTTP *http.Client
	// Header is added to every request (e.g. Authorization).
	Header http.Header
	// MaxRetries is the number of retries after the first attempt; 0 means
	// none.
	MaxRetries int
	// BaseDelay is the first back-off delay, doubled at every retry up to
	// MaxDelay; each wait is drawn uniformly from [d/2, d].
	BaseDelay, MaxDelay time.Duration
	// MaxRetryAfter is the longest Retry-After the client will wait for; a
	// server asking for longer makes it give up at once.
	MaxRetryAfter time.Duration
	// ErrorMessage extracts the human message from an error response body;
	// it returns "" when the body is not in the backend's error format.
	ErrorMessage func(body []byte) string
}

// StatusError is an HTTP error answer from a backend.
type StatusError struct {
	StatusCode int
	// Message is the backend's message, or the start of the raw body.
	Message string
	// RetryAfter is the server's requested wait, 0 if none.
	RetryAfter time.Duration
}

// Error implements error.
func (e *StatusError) Error() string {
	return fmt.Sprintf("HTTP %d %s: %s", e.StatusCode, http.StatusText(e.StatusCode), e.Message)
}

// retryable reports whether the status is worth retrying.
func (e *StatusError) retryable() bool {
	return e.StatusCode == http.StatusTooManyRequests || e.StatusCode >= 500
}

// PostJSON marshals body, POSTs it to endpoint and returns the body of the
// 2xx answer, retrying as described in the package documentation.
func (c *Client) PostJSON(ctx context.Context, endpoint string, body any) ([]byte, error) {
	payload, err := json.Marshal(body)
	if err != nil {
		return nil, fmt.Errorf("%s: encode request: %w", c.Backend, err)
	}
	hc := c.HTTP
	if hc == nil {
		hc = &http.Client{Timeout: DefaultTimeout}
	}
	base, maxDelay, maxRA := orDefault(c.BaseDelay, DefaultBaseDelay), orDefault(c.MaxDelay, DefaultMaxDelay), orDefault(c.MaxRetryAfter, DefaultMaxRetryAfter)

	for attempt := 0; ; attempt++ {
		out, err := c.post(ctx, hc, endpoint, payload)
		if err == nil {
			return out, nil
		}
		if ctx.Err() != nil {
			return nil, fmt.Errorf("%s embed: %w", c.Backend, ctx.Err())
		}
		var se *StatusError
		isStatus := errors.As(err, &se)
		if isStatus && !se.retryable() {
			code := noema.EUNAVAILABLE
			if se.StatusCode == http.StatusBadRequest || se.StatusCode == http.StatusUnprocessableEntity {
				code = noema.EINVALID
			}
			return nil, c.fail(code, endpoint, attempt+1, "", err)
		}
		if attempt >= c.MaxRetries {
			return nil, c.fail(noema.EUNAVAILABLE, endpoint, attempt+1, "", err)
		}
		wait := backoff(base, maxDelay, attempt)
		if isStatus && se.RetryAfter > 0 {
			if se.RetryAfter > maxRA {
				return nil, c.fail(noema.EUNAVAILABLE, endpoint, attempt+1,
					fmt.Sprintf("server asked to retry after %v, longer than %v", se.RetryAfter, maxRA), err)
			}
			wait = se.RetryAfter
		}
		if dl, ok := ctx.Deadline(); ok && time.Until(dl) < wait {
			return nil, c.fail(noema.EUNAVAILABLE, endpoint, attempt+1,
				"context deadline comes before the next retry", err)
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, fmt.Errorf("%s embed: %w", c.Backend, ctx.Err())
		case <-t.C:
		}
	}
}

// fail builds the caller-facing error: a noema.Error with the code and a
// readable message, joined with the cause.
func (c *Client) fail(code, endpoint string, attempts int, why string, cause error) error {
	msg := fmt.Sprintf("%s embedding backend at %s", c.Backend, redact(endpoint))
	if why != "" {
		msg += ": " + why
	}
	shown := cause
	if ue, ok := errors.AsType[*url.Error](cause); ok {
		shown = ue.Err // the URL is already in the message
	}
	msg += fmt.Sprintf(": %v", shown)
	if attempts > 1 {
		msg += fmt.Sprintf(" (%d attempts)", attempts)
	}
	return fmt.Errorf("%w%w", noema.Errorf(code, "%s", msg), silent{cause})
}

// silent wraps an error for errors.Is/As without adding to the message
// (fail already put the cause's text into the noema.Error message).
type silent struct{ err error }

func (s silent) Error() string { return "" }
func (s silent) Unwrap() error { return s.err }

// post makes one attempt.
func (c *Client) post(ctx context.Context, hc *http.Client, endpoint string, payload []byte) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint, bytes.NewReader(payload))
	if err != nil {
		return nil, err
	}
	for k, vs := range c.Header {
		req.Header[k] = vs
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", "noema")
	resp, err := hc.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()

	if resp.StatusCode/100 != 2 {
		raw, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
		return nil, &StatusError{
			StatusCode: resp.StatusCode,
			Message:    c.message(raw, resp.StatusCode),
			RetryAfter: retryAfter(resp.Header, time.Now()),
		}
	}
	raw, err := io.ReadAll(io.LimitReader(resp.Body, MaxResponseBytes+1))
	if err != nil {
		return nil, fmt.Errorf("read response: %w", err)
	}
	if len(raw) > MaxResponseBytes {
		return nil, fmt.Errorf("response larger than %d bytes", MaxResponseBytes)
	}
	return raw, nil
}

// message returns the backend's error message from an error body.
func (c *Client) message(raw []byte, status int) string {
	if c.ErrorMessage != nil {
		if m := c.ErrorMessage(raw); m != "" {
			return m
		}
	}
	s := strings.TrimSpace(string(raw))
	if s == "" {
		return "(empty body)"
	}
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}

// retryAfter parses Retry-After (seconds or an HTTP date) and the
// millisecond variant some OpenAI-compatible servers send.
func retryAfter(h http.Header, now time.Time) time.Duration {
	if ms := h.Get("Retry-After-Ms"); ms != "" {
		if n, err := strconv.ParseFloat(ms, 64); err == nil && n > 0 {
			return time.Duration(n * float64(time.Millisecond))
		}
	}
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0
	}
	if n, err := strconv.ParseFloat(v, 64); err == nil {
		if n <= 0 {
			return 0
		}
		return time.Duration(n * float64(time.Second))
	}
	if t, err := http.ParseTime(v); err == nil && t.After(now) {
		return t.Sub(now)
	}
	return 0
}

// backoff returns the wait before retry number attempt+1: base·2^attempt
// capped at max, drawn uniformly from its upper half ("equal jitter").
func backoff(base, max time.Duration, attempt int) time.Duration {
	d := base
	for range attempt {
		if d >= max/2 {
			d = max
			break
		}
		d *= 2
	}
	d = min(d, max)
	half := d / 2
	return half + rand.N(half+1)
}

func orDefault(d, def time.Duration) time.Duration {
	if d > 0 {
		return d
	}
	return def
}

// redact drops user information and the query from an endpoint for
// messages.
func redact(endpoint string) string {
	u, err := url.Parse(endpoint)
	if err != nil {
		return endpoint
	}
	u.User, u.RawQuery = nil, ""
	return u.String()
}

// ParseBase validates a backend base URL: absolute, http or https, with a
// host. It returns the URL without a trailing slash.
func ParseBase(backend, raw string) (string, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return "", noema.Errorf(noema.EINVALID, "%s: base URL %q: %v", backend, raw, err)
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", noema.Errorf(noema.EINVALID, "%s: base URL %q must be absolute http:// or https://", backend, raw)
	}
	if u.RawQuery != "" || u.Fragment != "" {
		return "", noema.Errorf(noema.EINVALID, "%s: base URL %q must not have a query or fragment", backend, raw)
	}
	return strings.TrimRight(u.String(), "/"), nil
}

// Batch embeds texts in batches of size (≤ 0 means DefaultBatchSize) with
// embed, and concatenates the results. It checks that every batch returns
// one vector per text, and it returns nothing if any batch fails.
func Batch(ctx context.Context, backend string, texts []string, size int, embed func(ctx context.Context, batch []string) ([][]float32, error)) ([][]float32, error) {
	if size <= 0 {
		size = DefaultBatchSize
	}
	out := make([][]float32, 0, len(texts))
	for lo := 0; lo < len(texts); lo += size {
		hi := min(lo+size, len(texts))
		vecs, err := embed(ctx, texts[lo:hi])
		if err != nil {
			if lo > 0 {
				return nil, fmt.Errorf("texts %d–%d of %d: %w", lo+1, hi, len(texts), err)
			}
			return nil, err
		}
		if len(vecs) != hi-lo {
			return nil, noema.Errorf(noema.EUNAVAILABLE, "%s embedding backend returned %d vectors for %d texts", backend, len(vecs), hi-lo)
		}
		out = append(out, vecs...)
	}
	return out, nil
}

// Dim is an expected vector dimension: fixed up front, or learned from the
// first answer when it starts at 0. It is safe for concurrent use.
type Dim struct{ v atomic.Int64 }

// NewDim returns a Dim expecting d (0: learn it).
func NewDim(d int) *Dim {
	x := &Dim{}
	x.v.Store(int64(d))
	return x
}

// Get returns the expected dimension, 0 while unknown.
func (d *Dim) Get() int { return int(d.v.Load()) }

// Check validates vecs — all of the expected dimension (learning it when
// unknown), none degenerate except all-zero — and normalizes them in place.
func (d *Dim) Check(backend, model string, vecs [][]float32) error {
	if len(vecs) == 0 {
		return nil
	}
	want := d.v.Load()
	if want == 0 {
		got := int64(len(vecs[0]))
		if got == 0 {
			return noema.Errorf(noema.EUNAVAILABLE, "%s model %q returned an empty vector", backend, model)
		}
		if !d.v.CompareAndSwap(0, got) {
			want = d.v.Load()
		} else {
			want = got
		}
	}
	for i, v := range vecs {
		if int64(len(v)) != want {
			return noema.Errorf(noema.EUNAVAILABLE, "%s model %q returned a vector of dimension %d (text %d), expected %d; set the embedder's dimensions to match the model",
				backend, model, len(v), i+1, want)
		}
		if !vector.Normalize(v) && !allZero(v) {
			return noema.Errorf(noema.EUNAVAILABLE, "%s model %q returned a non-finite vector (text %d)", backend, model, i+1)
		}
	}
	return nil
}

func allZero(v []float32) bool {
	for _, x := range v {
		if x != 0 {
			return false
		}
	}
	return true
}
