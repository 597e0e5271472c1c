// Package openai embeds text with the OpenAI embeddings API or any server
// that speaks it (LM Studio, vLLM, llama.cpp server, LocalAI, Azure-style
// proxies…).
//
// Wire format: POST {URL}/v1/embeddings with {"model": M, "input": [texts…]}
// and, when Dimensions is set, "dimensions": N. The answer is
// {"data": [{"embedding": […], "index": i}, …], "model": M}; entries are put
// back in input order by "index". An error answer is
// {"error": {"message", "type", "code"}}. A URL that already ends in "/v1"
// (the usual "base URL" of compatible servers) is not given a second one.
//
// The API key is sent as "Authorization: Bearer KEY" when set. It is
// required for api.openai.com and optional elsewhere (local servers usually
// need none).
//
// Retries, time-outs and error codes follow the shared policy: network
// errors, 429 and 5xx are retried with back-off honouring Retry-After, then
// reported as noema.EUNAVAILABLE; see the remote package documentation.
// Vectors are returned L2-normalized.
package openai

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/noema-mem/noema"
	"github.com/noema-mem/noema/embedding/internal/remote"
)

// Defaults for zero [Options] fields.
const (
	DefaultURL    = "https://api.openai.com"
	DefaultModel  = "text-embedding-3-small"
	DefaultKeyEnv = "OPENAI_API_KEY"
)

// knownDims are the native dimensions of OpenAI's embedding models.
var knownDims = map[string]int{
	"text-embedding-3-small": 1536,
	"text-embedding-3-large": 3072,
	"text-embedding-ada-002": 1536,
}

// Options configures an [Embedder].
type Options struct {
	// URL is the server's base URL; "" means DefaultURL.
	URL string
	// Model is the model name; "" means DefaultModel.
	Model string
	// APIKey is the bearer token; required when the host is api.openai.com.
	APIKey string
	// APIKeyEnv names the variable APIKey came from; it is only used in
	// error messages ("" means DefaultKeyEnv).
	APIKeyEnv string
	// Dimensions, when > 0, is sent as "dimensions" (the text-embedding-3
	// models can shorten their vectors) and is the expected dimension. 0
	// means the model's native dimension: known for OpenAI's models,
	// otherwise learned from the first answer.
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

// Embedder calls an OpenAI-compatible embeddings endpoint. It is safe for
// concurrent use.
//
// Name is "openai/" followed by the model name. Dimension is the configured
// one, the native one of OpenAI's models, or the one learned from the first
// answer; 0 until known. Embed returns one normalized vector per text, in
// order, or an error and no vectors.
type Embedder struct{ *embedder }

var _ noema.Embedder = (*Embedder)(nil)

type embedder = remote.Embedder

// New returns an Embedder for opts. It does not contact the server; an
// invalid URL or a missing key for api.openai.com is a noema.EINVALID error.
func New(opts Options) (*Embedder, error) {
	header := http.Header{}
	if opts.APIKey != "" {
		header.Set("Authorization", "Bearer "+opts.APIKey)
	}
	model := cmp.Or(opts.Model, DefaultModel)
	r, err := remote.NewEmbedder(remote.Backend{
		Name: "openai", URL: cmp.Or(opts.URL, DefaultURL), Model: model,
		Dim: cmp.Or(opts.Dimensions, knownDims[model]),
		Config: remote.Config{Dimensions: opts.Dimensions, BatchSize: opts.BatchSize,
			MaxRetries: opts.MaxRetries, Timeout: opts.Timeout, RetryBaseDelay: opts.RetryBaseDelay,
			RetryMaxDelay: opts.RetryMaxDelay, HTTP: opts.HTTPClient},
		Header:       header,
		ErrorMessage: errorMessage,
		Endpoint: func(base string) (string, error) {
			if u, _ := url.Parse(base); opts.APIKey == "" && strings.EqualFold(u.Hostname(), "api.openai.com") {
				env := cmp.Or(opts.APIKeyEnv, DefaultKeyEnv)
				return "", noema.Errorf(noema.EINVALID, "openai: no API key for %s: environment variable %s is empty or unset", base, env)
			}
			if strings.HasSuffix(base, "/v1") {
				return base + "/embeddings", nil
			}
			return base + "/v1/embeddings", nil
		},
		Batch: func(ctx context.Context, c *remote.Conn, batch []string) ([][]float32, error) {
			return embedBatch(ctx, c, batch, opts.Dimensions)
		},
	})
	if err != nil {
		return nil, err
	}
	return &Embedder{r}, nil
}

type request struct {
	remote.Request
	Dimensions int `json:"dimensions,omitempty"` // sent when > 0
}

type response struct {
	Data []struct {
		Embedding []float32 `json:"embedding"`
		Index     *int      `json:"index"`
	} `json:"data"`
	Model string `json:"model"`
}

func (r *response) Len() int { return len(r.Data) }

func embedBatch(ctx context.Context, c *remote.Conn, batch []string, dimensions int) ([][]float32, error) {
	var resp response
	if err := c.Call(ctx, request{remote.Request{Model: c.Model, Input: batch}, dimensions}, &resp, len(batch)); err != nil {
		return nil, err
	}
	vecs := make([][]float32, len(batch))
	for _, d := range resp.Data {
		if d.Index == nil {
			return nil, noema.Errorf(noema.EUNAVAILABLE, "openai model %q returned an embedding without an index", c.Model)
		}
		i := *d.Index
		if i < 0 || i >= len(batch) || vecs[i] != nil {
			return nil, noema.Errorf(noema.EUNAVAILABLE, "openai model %q returned an out-of-range or repeated index %d for %d texts", c.Model, i, len(batch))
		}
		if d.Embedding == nil {
			d.Embedding = []float32{} // let Check report the empty vector
		}
		vecs[i] = d.Embedding
	}
	if err := c.Check(vecs); err != nil {
		return nil, err
	}
	return vecs, nil
}

// errorMessage extracts the message of an OpenAI error body
// {"error": {"message", "type", "code"}}, with its type and code.
func errorMessage(body []byte) string {
	var v struct {
		Error *struct {
			Message string `json:"message"`
			Type    string `json:"type"`
			Code    any    `json:"code"`
		} `json:"error"`
	}
	if json.Unmarshal(body, &v) != nil || v.Error == nil {
		return ""
	}
	msg := v.Error.Message
	var tags []string
	if v.Error.Type != "" {
		tags = append(tags, "type "+v.Error.Type)
	}
	if v.Error.Code != nil && v.Error.Code != "" {
		tags = append(tags, fmt.Sprintf("code %v", v.Error.Code))
	}
	if len(tags) > 0 {
		msg += " (" + strings.Join(tags, ", ") + ")"
	}
	return msg
}
