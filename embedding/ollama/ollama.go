// Package ollama embeds text with a local (or remote) Ollama server through
// its /api/embed endpoint.
//
// Wire format: POST {URL}/api/embed with {"model": M, "input": [texts…]};
// the answer is {"model": M, "embeddings": [[…], …]} with one vector per
// input, in order; an error answer is {"error": "message"} with a 4xx or 5xx
// status (404 when the model has not been pulled).
//
// Retries, time-outs and error codes follow the shared policy: network
// errors, 429 and 5xx are retried with back-off and then reported as
// noema.EUNAVAILABLE, as is an unreachable server; see the remote package
// documentation for details. Vectors are returned L2-normalized.
package ollama

import (
	"cmp"
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"time"

	"github.com/noema-mem/noema"
	"github.com/noema-mem/noema/embedding/internal/remote"
)

// Defaults for zero [Options] fields.
const (
	DefaultURL   = "http://localhost:11434"
	DefaultModel = "all-minilm"
)

// knownDims are the output dimensions of common embedding models, by name
// without tag, so Dimension can answer before the first request.
var knownDims = map[string]int{
	"all-minilm":        384,
	"nomic-embed-text":  768,
	"mxbai-embed-large": 1024,
	"bge-m3":            1024,
}

// Options configures an [Embedder].
type Options struct {
	// URL is the server's base URL; "" means DefaultURL.
	URL string
	// Model is the Ollama model name, tag allowed ("all-minilm:l6-v2");
	// "" means DefaultModel.
	Model string
	// Dimensions is the expected vector dimension. 0 means: known for
	// common models, otherwise learned from the first answer. It is not
	// sent to the server (not every model can change its dimension); a
	// server answering with another dimension is an error.
	Dimensions int
	// BatchSize is the number of texts per request; 0 means 64.
	BatchSize int
	// Timeout bounds each HTTP attempt; 0 means 60s. It is ignored when
	// HTTPClient is set.
	Timeout time.Duration
	// MaxRetries is the number of retries after a failed attempt; 0 means
	// none.
	MaxRetries int
	// RetryBaseDelay and RetryMaxDelay shape the back-off (0: 500ms, 15s).
	RetryBaseDelay, RetryMaxDelay time.Duration
	// HTTPClient, if set, is used instead of a new client.
	HTTPClient *http.Client
}

// Embedder calls Ollama. It is safe for concurrent use.
//
// Name is "ollama/" followed by the model name. Dimension is the configured
// one, the known one for common models, or the one learned from the first
// answer; 0 until known. Embed returns one normalized vector per text, in
// order, or an error and no vectors.
type Embedder struct{ *embedder }

var _ noema.Embedder = (*Embedder)(nil)

type embedder = remote.Embedder

// New returns an Embedder for opts. It does not contact the server; an
// invalid URL is a noema.EINVALID error.
func New(opts Options) (*Embedder, error) {
	model := cmp.Or(opts.Model, DefaultModel)
	r, err := remote.NewEmbedder(remote.Backend{
		Name: "ollama", URL: cmp.Or(opts.URL, DefaultURL), Model: model,
		Dim: cmp.Or(opts.Dimensions, knownDims[strings.SplitN(model, ":", 2)[0]]),
		Config: remote.Config{Dimensions: opts.Dimensions, BatchSize: opts.BatchSize,
			MaxRetries: opts.MaxRetries, Timeout: opts.Timeout, RetryBaseDelay: opts.RetryBaseDelay,
			RetryMaxDelay: opts.RetryMaxDelay, HTTP: opts.HTTPClient},
		ErrorMessage: errorMessage,
		Endpoint:     func(base string) (string, error) { return base + "/api/embed", nil },
		Batch:        embedBatch,
	})
	if err != nil {
		return nil, err
	}
	return &Embedder{r}, nil
}

type response struct {
	Model      string      `json:"model"`
	Embeddings [][]float32 `json:"embeddings"`
}

func (r *response) Len() int { return len(r.Embeddings) }

func embedBatch(ctx context.Context, c *remote.Conn, batch []string) ([][]float32, error) {
	var resp response
	if err := c.Call(ctx, remote.Request{Model: c.Model, Input: batch}, &resp, len(batch)); err != nil {
		return nil, err
	}
	if err := c.Check(resp.Embeddings); err != nil {
		return nil, err
	}
	return resp.Embeddings, nil
}

// errorMessage extracts the message of an Ollama error body {"error": "…"}.
func errorMessage(body []byte) string {
	var v struct {
		Error string `json:"error"`
	}
	if json.Unmarshal(body, &v) != nil {
		return ""
	}
	return v.Error
}
