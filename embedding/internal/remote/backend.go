package remote

import (
	"context"
	"encoding/json"
	"net/http"
	"time"

	"github.com/noema-mem/noema"
)

// Config is the part of a backend's options that every backend shares.
type Config struct {
	// Dimensions, BatchSize and MaxRetries must not be negative.
	Dimensions, BatchSize, MaxRetries int
	// Timeout bounds each HTTP attempt (≤ 0: DefaultTimeout) when HTTP is
	// nil.
	Timeout time.Duration
	// RetryBaseDelay and RetryMaxDelay shape the back-off.
	RetryBaseDelay, RetryMaxDelay time.Duration
	// HTTP, if set, is used instead of a new client.
	HTTP *http.Client
}

// NewClient checks cfg and returns a Client for backend that sends header
// with every request and reads error bodies with errorMessage. Negative
// numbers in cfg are a noema.EINVALID error.
func NewClient(backend string, cfg Config, header http.Header, errorMessage func(body []byte) string) (*Client, error) {
	if cfg.Dimensions < 0 || cfg.BatchSize < 0 || cfg.MaxRetries < 0 {
		return nil, noema.Errorf(noema.EINVALID, "%s: dimensions, batch size and retries must not be negative", backend)
	}
	hc := cfg.HTTP
	if hc == nil {
		t := cfg.Timeout
		if t <= 0 {
			t = DefaultTimeout
		}
		hc = &http.Client{Timeout: t}
	}
	return &Client{
		Backend:      backend,
		HTTP:         hc,
		Header:       header,
		MaxRetries:   cfg.MaxRetries,
		BaseDelay:    cfg.RetryBaseDelay,
		MaxDelay:     cfg.RetryMaxDelay,
		ErrorMessage: errorMessage,
	}, nil
}

// Call POSTs in as JSON to endpoint (see [Client.PostJSON]) and decodes the
// answer into out; an answer that does not decode is noema.EUNAVAILABLE.
func (c *Client) Call(ctx context.Context, endpoint string, in, out any) error {
	raw, err := c.PostJSON(ctx, endpoint, in)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(raw, out); err != nil {
		return noema.Errorf(noema.EUNAVAILABLE, "%s at %s: malformed answer: %v", c.Backend, endpoint, err)
	}
	return nil
}

// CountError reports that model answered got embeddings for want texts, as
// noema.EUNAVAILABLE; nil when the counts agree.
func CountError(backend, model string, got, want int) error {
	if got == want {
		return nil
	}
	return noema.Errorf(noema.EUNAVAILABLE, "%s model %q returned %d embeddings for %d texts", backend, model, got, want)
}
