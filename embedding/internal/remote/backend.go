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

// Embedder is a network embedder: the methods of noema.Embedder (Name,
// Dimension, Embed) over a backend's wire format, given by a [BatchFunc]. A
// backend's Embedder embeds it. It is safe for concurrent use.
type Embedder struct {
	conn  *Conn
	batch int
	embed BatchFunc
}

// BatchFunc embeds one batch through c: it posts it with c.Call and returns
// its vectors, checked with c.Check.
type BatchFunc func(ctx context.Context, c *Conn, batch []string) ([][]float32, error)

// Conn is what a [BatchFunc] posts through.
type Conn struct {
	// Backend and Model name the embedder in messages ("ollama",
	// "all-minilm").
	Backend, Model string
	// Endpoint is the URL a batch is posted to.
	Endpoint string
	Client   *Client
	Dim      *Dim
}

// Backend describes a network embedder to [NewEmbedder].
type Backend struct {
	// Name is the backend's name ("ollama"); URL and Model are its base URL
	// and model, defaults applied.
	Name, URL, Model string
	// Dim is the expected dimension (0: learn it from the first answer).
	Dim    int
	Config Config
	// Header and ErrorMessage are passed to [NewClient].
	Header       http.Header
	ErrorMessage func(body []byte) string
	// Endpoint returns the URL batches are posted to, given the base URL
	// ([ParseBase]), or a noema.EINVALID error when the backend cannot be
	// used there as configured.
	Endpoint func(base string) (string, error)
	Batch    BatchFunc
}

// NewEmbedder checks b and returns its Embedder. It does not contact the
// server.
func NewEmbedder(b Backend) (*Embedder, error) {
	base, err := ParseBase(b.Name, b.URL)
	if err != nil {
		return nil, err
	}
	client, err := NewClient(b.Name, b.Config, b.Header, b.ErrorMessage)
	if err != nil {
		return nil, err
	}
	endpoint, err := b.Endpoint(base)
	if err != nil {
		return nil, err
	}
	conn := &Conn{Backend: b.Name, Model: b.Model, Endpoint: endpoint, Client: client, Dim: NewDim(b.Dim)}
	return &Embedder{conn: conn, batch: b.Config.BatchSize, embed: b.Batch}, nil
}

// Name returns the backend's name, "/" and the model ("ollama/all-minilm").
func (e *Embedder) Name() string { return e.conn.Backend + "/" + e.conn.Model }

// Dimension returns the vector dimension: the configured or known one, or
// the one learned from the first answer; 0 until known.
func (e *Embedder) Dimension() int { return e.conn.Dim.Get() }

// Embed returns one normalized vector per text, in order, or an error and no
// vectors.
func (e *Embedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	// Errors already name the backend and model; no texts is no request.
	return Batch(ctx, e.conn.Backend, texts, e.batch, func(ctx context.Context, batch []string) ([][]float32, error) {
		return e.embed(ctx, e.conn, batch)
	})
}

// Request is the body of an embedding request in both APIs.
type Request struct {
	Model string   `json:"model"`
	Input []string `json:"input"`
}

// Answer is a backend's decoded answer; Len is the number of vectors in it.
type Answer interface{ Len() int }

// Call posts req to Endpoint and decodes the answer into resp (see
// [Client.Call]); an answer with other than n vectors is noema.EUNAVAILABLE.
func (c *Conn) Call(ctx context.Context, req any, resp Answer, n int) error {
	if err := c.Client.Call(ctx, c.Endpoint, req, resp); err != nil {
		return err
	}
	return CountError(c.Backend, c.Model, resp.Len(), n)
}

// Check validates and normalizes the vectors of one batch (see [Dim.Check]).
func (c *Conn) Check(vecs [][]float32) error { return c.Dim.Check(c.Backend, c.Model, vecs) }
