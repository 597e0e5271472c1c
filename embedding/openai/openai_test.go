package openai_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/noema-mem/noema"
	"github.com/noema-mem/noema/embedding/builtin"
	"github.com/noema-mem/noema/embedding/embeddingtest"
	"github.com/noema-mem/noema/embedding/openai"
	"github.com/noema-mem/noema/vector"
)

const testKey = "sk-test-123"

// server is a fake OpenAI embeddings endpoint. It checks the bearer key,
// answers with builtin vectors (deterministic per text) in reverse order
// (the client must sort by index), and lets a test's hook answer first.
type server struct {
	*httptest.Server
	embeddingtest.Recorder[wireRequest]
	key  string
	mu   sync.Mutex
	auth []string
}

type wireRequest struct {
	Model      string   `json:"model"`
	Input      []string `json:"input"`
	Dimensions *int     `json:"dimensions"`
}

type datum struct {
	Object    string    `json:"object"`
	Embedding []float32 `json:"embedding"`
	Index     int       `json:"index"`
}

func newServer(t *testing.T, key string) *server {
	s := &server{key: key}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.Close)
	return s
}

func (s *server) serve(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.URL.Path != "/v1/embeddings" {
		writeError(w, http.StatusNotFound, "Invalid URL ("+r.Method+" "+r.URL.Path+")", "invalid_request_error", nil)
		return
	}
	auth := r.Header.Get("Authorization")
	s.mu.Lock()
	s.auth = append(s.auth, auth)
	s.mu.Unlock()
	if s.key != "" && auth != "Bearer "+s.key {
		writeError(w, http.StatusUnauthorized, "Incorrect API key provided: sk-wro***.", "invalid_request_error", "invalid_api_key")
		return
	}
	req, answered, err := s.Receive(w, r)
	if err != nil {
		writeError(w, http.StatusBadRequest, "We could not parse the JSON body of your request.", "invalid_request_error", nil)
		return
	}
	if answered {
		return
	}
	for _, in := range req.Input {
		if in == "" {
			writeError(w, http.StatusBadRequest, "'$.input' is invalid.", "invalid_request_error", nil)
			return
		}
	}
	data := data(req.Input)
	slices.Reverse(data)
	writeData(w, req.Model, data)
}

func data(texts []string) []datum {
	out := make([]datum, len(texts))
	for i, t := range texts {
		out[i] = datum{Object: "embedding", Embedding: builtin.Vector(t), Index: i}
	}
	return out
}

func writeData(w http.ResponseWriter, model string, data []datum) {
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{
		"object": "list",
		"data":   data,
		"model":  model,
		"usage":  map[string]int{"prompt_tokens": 8, "total_tokens": 8},
	})
}

func writeError(w http.ResponseWriter, status int, msg, typ string, code any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{"message": msg, "type": typ, "param": nil, "code": code}})
}

func newEmbedder(t *testing.T, opts openai.Options) *openai.Embedder {
	t.Helper()
	if opts.RetryBaseDelay == 0 {
		opts.RetryBaseDelay, opts.RetryMaxDelay = time.Millisecond, 5*time.Millisecond
	}
	e, err := openai.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func TestConformance(t *testing.T) {
	s := newServer(t, testKey)
	// A compatible server serving builtin vectors under a model name.
	e := newEmbedder(t, openai.Options{URL: s.URL, APIKey: testKey, Model: "builtin-compatible", BatchSize: 50})
	embeddingtest.Run(t, e)
}

func TestWire(t *testing.T) {
	s := newServer(t, testKey)
	e := newEmbedder(t, openai.Options{URL: s.URL, APIKey: testKey, BatchSize: 4})
	if e.Name() != "openai/text-embedding-3-small" || e.Dimension() != 1536 {
		t.Fatalf("Name, Dimension = %q, %d", e.Name(), e.Dimension())
	}
	s.Hook = func(n int, req wireRequest, w http.ResponseWriter, _ *http.Request) bool {
		// Pretend to be text-embedding-3-small: 1536 dimensions.
		d := data(req.Input)
		for i := range d {
			d[i].Embedding = append(d[i].Embedding, make([]float32, 1536-384)...)
		}
		slices.Reverse(d)
		writeData(w, req.Model, d)
		return true
	}
	texts := embeddingtest.Texts(6)
	vecs, err := e.Embed(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range vecs {
		if c := vector.Cosine(v[:384], builtin.Vector(texts[i])); c < 0.9999 {
			t.Fatalf("vector %d is not text %d's (cosine %v): index order not restored", i, i, c)
		}
	}
	reqs := s.Requests()
	if len(reqs) != 2 || len(reqs[0].Input) != 4 || len(reqs[1].Input) != 2 {
		t.Fatalf("requests = %+v, want batches of 4 and 2", reqs)
	}
	if reqs[0].Model != "text-embedding-3-small" || reqs[0].Dimensions != nil {
		t.Fatalf("request = %+v, want the default model and no dimensions", reqs[0])
	}
}

func TestDimensionsParameter(t *testing.T) {
	s := newServer(t, testKey)
	s.Hook = func(n int, req wireRequest, w http.ResponseWriter, _ *http.Request) bool {
		d := data(req.Input)
		for i := range d {
			d[i].Embedding = d[i].Embedding[:*req.Dimensions]
			d[i].Embedding[0] = 1
		}
		writeData(w, req.Model, d)
		return true
	}
	e := newEmbedder(t, openai.Options{URL: s.URL, APIKey: testKey, Model: "text-embedding-3-large", Dimensions: 256})
	vecs, err := e.Embed(context.Background(), []string{"a"})
	if err != nil || len(vecs[0]) != 256 || e.Dimension() != 256 {
		t.Fatalf("Embed = %v, %v; Dimension %d", len(vecs), err, e.Dimension())
	}
	if d := s.Requests()[0].Dimensions; d == nil || *d != 256 {
		t.Fatalf("dimensions sent = %v, want 256", d)
	}
}

func TestKeyAndURL(t *testing.T) {
	t.Run("no key for api.openai.com", func(t *testing.T) {
		_, err := openai.New(openai.Options{APIKeyEnv: "MY_KEY"})
		if noema.ErrorCode(err) != noema.EINVALID || !strings.Contains(err.Error(), "MY_KEY") {
			t.Fatalf("err = %v, want invalid_argument naming MY_KEY", err)
		}
	})
	t.Run("no key for a local server sends no Authorization", func(t *testing.T) {
		s := newServer(t, "")
		e := newEmbedder(t, openai.Options{URL: s.URL + "/v1", Model: "nomic"}) // base URL with /v1
		if _, err := e.Embed(context.Background(), []string{"x"}); err != nil {
			t.Fatal(err)
		}
		if s.auth[0] != "" {
			t.Fatalf("Authorization = %q, want none", s.auth[0])
		}
	})
	t.Run("bearer key", func(t *testing.T) {
		s := newServer(t, testKey)
		e := newEmbedder(t, openai.Options{URL: s.URL, APIKey: testKey, Model: "m"})
		if _, err := e.Embed(context.Background(), []string{"x"}); err != nil {
			t.Fatal(err)
		}
		if s.auth[0] != "Bearer "+testKey {
			t.Fatalf("Authorization = %q", s.auth[0])
		}
	})
	t.Run("bad URL", func(t *testing.T) {
		if _, err := openai.New(openai.Options{URL: "api.openai.com", APIKey: "k"}); noema.ErrorCode(err) != noema.EINVALID {
			t.Fatalf("err = %v", err)
		}
	})
}

func TestErrors(t *testing.T) {
	scenarios := []struct {
		Name      string
		Key       string
		Opts      openai.Options
		Hook      func(n int, req wireRequest, w http.ResponseWriter, r *http.Request) bool
		Texts     []string
		WantCode  string
		WantMsg   []string
		WantCalls int
	}{
		{
			Name:      "wrong key: 401 error body, no retry",
			Key:       "sk-wrong",
			Opts:      openai.Options{MaxRetries: 3},
			WantCode:  noema.EUNAVAILABLE,
			WantMsg:   []string{"HTTP 401", "Incorrect API key provided", "type invalid_request_error", "code invalid_api_key"},
			WantCalls: 0, // rejected before the request is recorded
		},
		{
			Name:      "empty input: 400",
			Opts:      openai.Options{MaxRetries: 3},
			Texts:     []string{"ok", ""},
			WantCode:  noema.EINVALID,
			WantMsg:   []string{"HTTP 400", "'$.input' is invalid."},
			WantCalls: 1,
		},
		{
			Name: "429 with a Retry-After too long: give up at once",
			Opts: openai.Options{MaxRetries: 3},
			Hook: func(n int, _ wireRequest, w http.ResponseWriter, _ *http.Request) bool {
				w.Header().Set("Retry-After", "3600")
				writeError(w, http.StatusTooManyRequests, "You exceeded your current quota, please check your plan and billing details.", "insufficient_quota", "insufficient_quota")
				return true
			},
			WantCode:  noema.EUNAVAILABLE,
			WantMsg:   []string{"retry after 1h0m0s", "exceeded your current quota", "code insufficient_quota"},
			WantCalls: 1,
		},
		{
			Name: "500s exhaust the retries",
			Opts: openai.Options{MaxRetries: 2},
			Hook: func(n int, _ wireRequest, w http.ResponseWriter, _ *http.Request) bool {
				writeError(w, http.StatusInternalServerError, "The server had an error while processing your request.", "server_error", nil)
				return true
			},
			WantCode:  noema.EUNAVAILABLE,
			WantMsg:   []string{"HTTP 500", "The server had an error", "(3 attempts)"},
			WantCalls: 3,
		},
		{
			Name: "wrong dimension",
			Opts: openai.Options{Dimensions: 384, MaxRetries: 2},
			Hook: func(n int, req wireRequest, w http.ResponseWriter, _ *http.Request) bool {
				d := data(req.Input)
				d[0].Embedding = d[0].Embedding[:383]
				writeData(w, req.Model, d)
				return true
			},
			WantCode:  noema.EUNAVAILABLE,
			WantMsg:   []string{"dimension 383 (text 1), expected 384"},
			WantCalls: 1,
		},
		{
			Name: "count mismatch",
			Opts: openai.Options{},
			Hook: func(n int, req wireRequest, w http.ResponseWriter, _ *http.Request) bool {
				writeData(w, req.Model, data(req.Input)[1:])
				return true
			},
			Texts:     []string{"a", "b", "c"},
			WantCode:  noema.EUNAVAILABLE,
			WantMsg:   []string{"returned 2 embeddings for 3 texts"},
			WantCalls: 1,
		},
		{
			Name: "repeated index",
			Opts: openai.Options{},
			Hook: func(n int, req wireRequest, w http.ResponseWriter, _ *http.Request) bool {
				d := data(req.Input)
				d[1].Index = 0
				writeData(w, req.Model, d)
				return true
			},
			Texts:     []string{"a", "b"},
			WantCode:  noema.EUNAVAILABLE,
			WantMsg:   []string{"repeated index 0"},
			WantCalls: 1,
		},
		{
			Name: "timeout",
			Opts: openai.Options{Timeout: 50 * time.Millisecond, MaxRetries: 1},
			Hook: func(n int, _ wireRequest, w http.ResponseWriter, r *http.Request) bool {
				<-r.Context().Done()
				return true
			},
			WantCode:  noema.EUNAVAILABLE,
			WantMsg:   []string{"Client.Timeout exceeded", "(2 attempts)"},
			WantCalls: 2,
		},
	}
	for _, sc := range scenarios {
		t.Run(sc.Name, func(t *testing.T) {
			s := newServer(t, testKey)
			s.Hook = sc.Hook
			sc.Opts.URL = s.URL
			sc.Opts.APIKey = testKey
			if sc.Key != "" {
				sc.Opts.APIKey = sc.Key
			}
			if sc.Texts == nil {
				sc.Texts = []string{"a", "b"}
			}
			e := newEmbedder(t, sc.Opts)
			start := time.Now()
			vecs, err := e.Embed(context.Background(), sc.Texts)
			embeddingtest.WantError(t, vecs, err, sc.WantCode, sc.WantMsg...)
			if n := len(s.Requests()); n != sc.WantCalls {
				t.Errorf("server saw %d requests, want %d", n, sc.WantCalls)
			}
			if d := time.Since(start); d > 5*time.Second {
				t.Errorf("took %v", d)
			}
		})
	}
}

func TestRetryAfterHonoured(t *testing.T) {
	s := newServer(t, testKey)
	s.Hook = func(n int, _ wireRequest, w http.ResponseWriter, _ *http.Request) bool {
		if n == 0 {
			w.Header().Set("Retry-After", "1")
			writeError(w, http.StatusTooManyRequests, "Rate limit reached for requests", "requests", "rate_limit_exceeded")
			return true
		}
		return false
	}
	e := newEmbedder(t, openai.Options{URL: s.URL, APIKey: testKey, Model: "m", MaxRetries: 1})
	start := time.Now()
	vecs, err := e.Embed(context.Background(), []string{"a", "b"})
	if err != nil || len(vecs) != 2 {
		t.Fatalf("Embed = %d, %v; want success after one retry", len(vecs), err)
	}
	if d := time.Since(start); d < time.Second {
		t.Fatalf("retried after %v, want ≥ 1s (Retry-After)", d)
	}
	if n := len(s.Requests()); n != 2 {
		t.Fatalf("server saw %d requests, want 2", n)
	}
}

func TestCancelDuringRequest(t *testing.T) {
	s := newServer(t, testKey)
	s.Hook = func(_ int, _ wireRequest, _ http.ResponseWriter, r *http.Request) bool {
		<-r.Context().Done()
		return true
	}
	e := newEmbedder(t, openai.Options{URL: s.URL, APIKey: testKey, MaxRetries: 3})
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)
	_, err := e.Embed(ctx, []string{"x"})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
}
