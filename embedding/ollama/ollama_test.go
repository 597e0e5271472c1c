package ollama_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/noema-mem/noema"
	"github.com/noema-mem/noema/embedding/builtin"
	"github.com/noema-mem/noema/embedding/embeddingtest"
	"github.com/noema-mem/noema/embedding/ollama"
)

// server is a fake Ollama that speaks /api/embed exactly: it answers with
// builtin vectors (so answers are deterministic per text) unless a test's
// hook answers first.
type server struct {
	*httptest.Server
	embeddingtest.Recorder[wireRequest]
}

type wireRequest struct {
	Model string   `json:"model"`
	Input []string `json:"input"`
}

func newServer(t *testing.T) *server {
	s := &server{}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.Close)
	return s
}

func (s *server) serve(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.URL.Path != "/api/embed" {
		http.Error(w, "404 page not found", http.StatusNotFound)
		return
	}
	if ct := r.Header.Get("Content-Type"); ct != "application/json" {
		writeError(w, http.StatusBadRequest, "content type "+ct)
		return
	}
	req, answered, err := s.Receive(w, r)
	if err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	if answered {
		return
	}
	if req.Model != "all-minilm" && req.Model != "all-minilm:l6-v2" {
		writeError(w, http.StatusNotFound, `model "`+req.Model+`" not found, try pulling it first`)
		return
	}
	writeEmbeddings(w, req.Model, vectors(req.Input))
}

func vectors(texts []string) [][]float32 {
	out := make([][]float32, len(texts))
	for i, t := range texts {
		out[i] = builtin.Vector(t)
		out[i][0] += 0.5 // not normalized, as some models answer
	}
	return out
}

func writeEmbeddings(w http.ResponseWriter, model string, vecs [][]float32) {
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{
		"model":             model,
		"embeddings":        vecs,
		"total_duration":    14143917,
		"load_duration":     1019500,
		"prompt_eval_count": 8,
	})
}

func writeError(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(map[string]string{"error": msg})
}

func newEmbedder(t *testing.T, opts ollama.Options) *ollama.Embedder {
	t.Helper()
	if opts.RetryBaseDelay == 0 {
		opts.RetryBaseDelay, opts.RetryMaxDelay = time.Millisecond, 5*time.Millisecond
	}
	e, err := ollama.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func TestConformance(t *testing.T) {
	s := newServer(t)
	e := newEmbedder(t, ollama.Options{URL: s.URL, BatchSize: 32})
	embeddingtest.Run(t, e)
}

func TestWire(t *testing.T) {
	s := newServer(t)
	e := newEmbedder(t, ollama.Options{URL: s.URL + "/", BatchSize: 3})
	if e.Name() != "ollama/all-minilm" || e.Dimension() != 384 {
		t.Fatalf("Name, Dimension = %q, %d", e.Name(), e.Dimension())
	}
	texts := embeddingtest.Texts(7)
	vecs, err := e.Embed(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	reqs := s.Requests()
	if len(reqs) != 3 || len(reqs[0].Input) != 3 || len(reqs[1].Input) != 3 || len(reqs[2].Input) != 1 {
		t.Fatalf("requests = %+v, want batches of 3, 3, 1", reqs)
	}
	if reqs[2].Input[0] != texts[6] || reqs[0].Model != "all-minilm" {
		t.Fatalf("last batch = %+v", reqs[2])
	}
	for i, v := range vecs {
		want := builtin.Vector(texts[i])
		want[0] += 0.5
		var dot float64
		for j := range v {
			dot += float64(v[j]) * float64(want[j])
		}
		if dot <= 0.99*norm(want) {
			t.Fatalf("vector %d is not the server's vector %d, normalized", i, i)
		}
	}
}

func norm(v []float32) float64 {
	var s float64
	for _, x := range v {
		s += float64(x) * float64(x)
	}
	return math.Sqrt(s)
}

func TestErrors(t *testing.T) {
	closed := httptest.NewServer(http.NotFoundHandler())
	closedURL := closed.URL
	closed.Close()

	scenarios := []struct {
		Name      string
		Opts      ollama.Options
		Hook      func(n int, req wireRequest, w http.ResponseWriter, r *http.Request) bool
		Texts     int
		WantCode  string
		WantMsg   []string
		WantCalls int
	}{
		{
			Name:      "model not pulled: 404 error body, no retry",
			Opts:      ollama.Options{Model: "nomic-embed-text", MaxRetries: 3},
			WantCode:  noema.EUNAVAILABLE,
			WantMsg:   []string{"HTTP 404", `model "nomic-embed-text" not found, try pulling it first`},
			WantCalls: 1,
		},
		{
			Name: "400 is invalid input, no retry",
			Opts: ollama.Options{MaxRetries: 3},
			Hook: func(n int, _ wireRequest, w http.ResponseWriter, _ *http.Request) bool {
				writeError(w, http.StatusBadRequest, "input length exceeds the context length")
				return true
			},
			WantCode:  noema.EINVALID,
			WantMsg:   []string{"HTTP 400", "input length exceeds the context length"},
			WantCalls: 1,
		},
		{
			Name: "500s exhaust the retries",
			Opts: ollama.Options{MaxRetries: 2},
			Hook: func(n int, _ wireRequest, w http.ResponseWriter, _ *http.Request) bool {
				writeError(w, http.StatusInternalServerError, "llama runner process has terminated")
				return true
			},
			WantCode:  noema.EUNAVAILABLE,
			WantMsg:   []string{"HTTP 500", "llama runner process has terminated", "(3 attempts)"},
			WantCalls: 3,
		},
		{
			Name: "non-JSON error body is quoted",
			Opts: ollama.Options{},
			Hook: func(n int, _ wireRequest, w http.ResponseWriter, _ *http.Request) bool {
				http.Error(w, "upstream gone", http.StatusBadGateway)
				return true
			},
			WantCode:  noema.EUNAVAILABLE,
			WantMsg:   []string{"HTTP 502", "upstream gone"},
			WantCalls: 1,
		},
		{
			Name: "wrong dimension",
			Opts: ollama.Options{MaxRetries: 3},
			Hook: func(n int, req wireRequest, w http.ResponseWriter, _ *http.Request) bool {
				vecs := vectors(req.Input)
				vecs[1] = vecs[1][:100]
				writeEmbeddings(w, req.Model, vecs)
				return true
			},
			Texts:     3,
			WantCode:  noema.EUNAVAILABLE,
			WantMsg:   []string{"dimension 100 (text 2), expected 384"},
			WantCalls: 1,
		},
		{
			Name: "count mismatch",
			Opts: ollama.Options{MaxRetries: 3},
			Hook: func(n int, req wireRequest, w http.ResponseWriter, _ *http.Request) bool {
				writeEmbeddings(w, req.Model, vectors(req.Input[:1]))
				return true
			},
			Texts:     2,
			WantCode:  noema.EUNAVAILABLE,
			WantMsg:   []string{"returned 1 embeddings for 2 texts"},
			WantCalls: 1,
		},
		{
			Name: "malformed answer",
			Opts: ollama.Options{MaxRetries: 3},
			Hook: func(n int, req wireRequest, w http.ResponseWriter, _ *http.Request) bool {
				io.WriteString(w, `{"embeddings": "nope"}`)
				return true
			},
			WantCode:  noema.EUNAVAILABLE,
			WantMsg:   []string{"malformed answer"},
			WantCalls: 1,
		},
		{
			Name: "second batch fails: nothing partial",
			Opts: ollama.Options{BatchSize: 2},
			Hook: func(n int, _ wireRequest, w http.ResponseWriter, _ *http.Request) bool {
				if n == 1 {
					writeError(w, http.StatusServiceUnavailable, "server busy")
					return true
				}
				return false
			},
			Texts:     5,
			WantCode:  noema.EUNAVAILABLE,
			WantMsg:   []string{"texts 3–4 of 5", "server busy"},
			WantCalls: 2,
		},
		{
			Name: "timeout",
			Opts: ollama.Options{Timeout: 50 * time.Millisecond},
			Hook: func(n int, _ wireRequest, w http.ResponseWriter, r *http.Request) bool {
				<-r.Context().Done()
				return true
			},
			WantCode:  noema.EUNAVAILABLE,
			WantMsg:   []string{"Client.Timeout exceeded"},
			WantCalls: 1,
		},
		{
			Name:     "unreachable",
			Opts:     ollama.Options{URL: closedURL, MaxRetries: 1},
			WantCode: noema.EUNAVAILABLE,
			WantMsg:  []string{"ollama embedding backend at " + closedURL + "/api/embed", "connection refused", "(2 attempts)"},
		},
	}
	for _, sc := range scenarios {
		t.Run(sc.Name, func(t *testing.T) {
			s := newServer(t)
			s.Hook = sc.Hook
			if sc.Opts.URL == "" {
				sc.Opts.URL = s.URL
			}
			e := newEmbedder(t, sc.Opts)
			start := time.Now()
			vecs, err := e.Embed(context.Background(), embeddingtest.Texts(max(sc.Texts, 1)))
			embeddingtest.WantError(t, vecs, err, sc.WantCode, sc.WantMsg...)
			if sc.Opts.URL == s.URL && len(s.Requests()) != sc.WantCalls {
				t.Errorf("server saw %d requests, want %d", len(s.Requests()), sc.WantCalls)
			}
			if d := time.Since(start); d > 5*time.Second {
				t.Errorf("took %v", d)
			}
		})
	}
}

func TestRetryThenSuccess(t *testing.T) {
	s := newServer(t)
	s.Hook = func(n int, _ wireRequest, w http.ResponseWriter, _ *http.Request) bool {
		switch n {
		case 0:
			writeError(w, http.StatusTooManyRequests, "too many requests")
			return true
		case 1:
			writeError(w, http.StatusServiceUnavailable, "model loading")
			return true
		}
		return false
	}
	e := newEmbedder(t, ollama.Options{URL: s.URL, MaxRetries: 2})
	vecs, err := e.Embed(context.Background(), []string{"a", "b"})
	if err != nil || len(vecs) != 2 {
		t.Fatalf("Embed = %d, %v; want success after retries", len(vecs), err)
	}
	if n := len(s.Requests()); n != 3 {
		t.Fatalf("server saw %d requests, want 3", n)
	}
}

func TestLearnsDimension(t *testing.T) {
	s := newServer(t)
	dim := 12
	s.Hook = func(n int, req wireRequest, w http.ResponseWriter, _ *http.Request) bool {
		vecs := make([][]float32, len(req.Input))
		for i := range vecs {
			vecs[i] = builtin.Vector(req.Input[i])[:dim]
			vecs[i][0] = 1
		}
		writeEmbeddings(w, req.Model, vecs)
		return true
	}
	e := newEmbedder(t, ollama.Options{URL: s.URL, Model: "custom-model"})
	if e.Dimension() != 0 {
		t.Fatalf("Dimension before any call = %d, want 0 (unknown)", e.Dimension())
	}
	if _, err := e.Embed(context.Background(), []string{"x"}); err != nil {
		t.Fatal(err)
	}
	if e.Dimension() != 12 {
		t.Fatalf("Dimension = %d, want 12 learned", e.Dimension())
	}
	dim = 13 // the server changes model underneath: refused
	_, err := e.Embed(context.Background(), []string{"x"})
	if err == nil || !strings.Contains(err.Error(), "dimension 13 (text 1), expected 12") {
		t.Fatalf("err = %v", err)
	}
}

func TestContext(t *testing.T) {
	t.Run("cancel during back-off", func(t *testing.T) {
		s := newServer(t)
		s.Hook = func(int, wireRequest, http.ResponseWriter, *http.Request) bool { panic(http.ErrAbortHandler) }
		e := newEmbedder(t, ollama.Options{URL: s.URL, MaxRetries: 5, RetryBaseDelay: 10 * time.Second, RetryMaxDelay: 10 * time.Second})
		ctx, cancel := context.WithCancel(context.Background())
		time.AfterFunc(100*time.Millisecond, cancel)
		start := time.Now()
		_, err := e.Embed(ctx, []string{"x"})
		if !errors.Is(err, context.Canceled) || time.Since(start) > 3*time.Second {
			t.Fatalf("err = %v after %v, want context.Canceled quickly", err, time.Since(start))
		}
	})
	t.Run("deadline before the next retry", func(t *testing.T) {
		s := newServer(t)
		s.Hook = func(_ int, _ wireRequest, w http.ResponseWriter, _ *http.Request) bool {
			writeError(w, http.StatusInternalServerError, "boom")
			return true
		}
		e := newEmbedder(t, ollama.Options{URL: s.URL, MaxRetries: 5, RetryBaseDelay: 10 * time.Second, RetryMaxDelay: 10 * time.Second})
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		start := time.Now()
		_, err := e.Embed(ctx, []string{"x"})
		if noema.ErrorCode(err) != noema.EUNAVAILABLE || !strings.Contains(err.Error(), "boom") || time.Since(start) > time.Second {
			t.Fatalf("err = %v after %v, want the server's error at once", err, time.Since(start))
		}
	})
	t.Run("deadline during the request", func(t *testing.T) {
		s := newServer(t)
		s.Hook = func(_ int, _ wireRequest, _ http.ResponseWriter, r *http.Request) bool {
			<-r.Context().Done()
			return true
		}
		e := newEmbedder(t, ollama.Options{URL: s.URL, MaxRetries: 3})
		ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
		defer cancel()
		_, err := e.Embed(ctx, []string{"x"})
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("err = %v, want context.DeadlineExceeded", err)
		}
	})
}

func TestNew(t *testing.T) {
	for _, url := range []string{"localhost:11434", "ftp://x", "http://", "http://h/?q=1", "::"} {
		if _, err := ollama.New(ollama.Options{URL: url}); noema.ErrorCode(err) != noema.EINVALID {
			t.Errorf("New(URL %q) err = %v, want invalid_argument", url, err)
		}
	}
	e, err := ollama.New(ollama.Options{Model: "nomic-embed-text:v1.5"})
	if err != nil || e.Dimension() != 768 || e.Name() != "ollama/nomic-embed-text:v1.5" {
		t.Fatalf("New = %v, %v", e, err)
	}
	e, _ = ollama.New(ollama.Options{Model: "nomic-embed-text", Dimensions: 256})
	if e.Dimension() != 256 {
		t.Fatalf("configured Dimension = %d, want 256", e.Dimension())
	}
}
