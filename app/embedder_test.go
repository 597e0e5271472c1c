package app_test

import (
	"strings"
	"testing"

	"github.com/noema-mem/noema"
	"github.com/noema-mem/noema/app"
	"github.com/noema-mem/noema/config"
)

func TestNewEmbedder(t *testing.T) {
	env := map[string]string{"OPENAI_API_KEY": "sk-default", "TEAM_KEY": "sk-team"}
	getenv := func(k string) string { return env[k] }
	base := config.Default().Embedder
	with := func(f func(*config.Embedder)) config.Embedder {
		e := base
		f(&e)
		return e
	}
	scenarios := []struct {
		Name     string
		Cfg      config.Embedder
		WantName string
		WantDim  int
		WantErr  string
	}{
		{"default is builtin", base, "builtin/ngram-v1", 384, ""},
		{"builtin with its model", with(func(e *config.Embedder) { e.Model = "ngram-v1"; e.Dimensions = 384 }), "builtin/ngram-v1", 384, ""},
		{"builtin unknown model", with(func(e *config.Embedder) { e.Model = "minilm" }), "", 0, `unknown model "minilm"`},
		{"builtin wrong dimensions", with(func(e *config.Embedder) { e.Dimensions = 768 }), "", 0, "dimension is 384, not 768"},
		{"ollama defaults", with(func(e *config.Embedder) { e.Backend = "ollama" }), "ollama/all-minilm", 384, ""},
		{"ollama model", with(func(e *config.Embedder) { e.Backend = "ollama"; e.Model = "nomic-embed-text" }), "ollama/nomic-embed-text", 768, ""},
		{"ollama bad URL", with(func(e *config.Embedder) { e.Backend = "ollama"; e.URL = "localhost:11434" }), "", 0, "must be absolute"},
		{"openai defaults", with(func(e *config.Embedder) { e.Backend = "openai" }), "openai/text-embedding-3-small", 1536, ""},
		{"openai key from a named variable", with(func(e *config.Embedder) { e.Backend = "openai"; e.APIKeyEnv = "TEAM_KEY"; e.Dimensions = 512 }), "openai/text-embedding-3-small", 512, ""},
		{"openai missing key", with(func(e *config.Embedder) { e.Backend = "openai"; e.APIKeyEnv = "NOPE" }), "", 0, "environment variable NOPE is empty or unset"},
		{"openai-compatible local server needs no key", with(func(e *config.Embedder) {
			e.Backend = "openai"
			e.APIKeyEnv = "NOPE"
			e.URL = "http://localhost:1234/v1"
			e.Model = "nomic-embed-text-v1.5"
		}), "openai/nomic-embed-text-v1.5", 0, ""},
		{"static defaults", with(func(e *config.Embedder) { e.Backend = "static" }), "static/use-lite-256-v1", 256, ""},
		{"static with its model", with(func(e *config.Embedder) { e.Backend = "static"; e.Model = "use-lite-256-v1"; e.Dimensions = 256 }), "static/use-lite-256-v1", 256, ""},
		{"static unknown model", with(func(e *config.Embedder) { e.Backend = "static"; e.Model = "use-lite-512" }), "", 0, `unknown model "use-lite-512"`},
		{"static wrong dimensions", with(func(e *config.Embedder) { e.Backend = "static"; e.Dimensions = 384 }), "", 0, "dimension is 256, not 384"},
		{"unknown backend", with(func(e *config.Embedder) { e.Backend = "cohere" }), "", 0, `unknown embedder backend "cohere"`},
	}
	for _, sc := range scenarios {
		t.Run(sc.Name, func(t *testing.T) {
			e, err := app.NewEmbedder(sc.Cfg, getenv)
			if sc.WantErr != "" {
				if noema.ErrorCode(err) != noema.EINVALID || !strings.Contains(err.Error(), sc.WantErr) {
					t.Fatalf("err = %v, want invalid_argument containing %q", err, sc.WantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if e.Name() != sc.WantName || e.Dimension() != sc.WantDim {
				t.Fatalf("Name, Dimension = %q, %d; want %q, %d", e.Name(), e.Dimension(), sc.WantName, sc.WantDim)
			}
		})
	}
}

// TestIsSpellingModel: the builtin embedder says it is a spelling model; the
// model backends are taken for meaning models.
func TestIsSpellingModel(t *testing.T) {
	for _, tc := range []struct {
		cfg  config.Embedder
		want bool
	}{
		{config.Embedder{Backend: config.BackendBuiltin}, true},
		{config.Embedder{Backend: config.BackendOllama, Model: "all-minilm"}, false},
		{config.Embedder{Backend: config.BackendStatic}, false},
		{config.Embedder{Backend: config.BackendOpenAI, Model: "text-embedding-3-small", APIKeyEnv: "K"}, false},
	} {
		e, err := app.NewEmbedder(tc.cfg, func(string) string { return "key" })
		if err != nil {
			t.Fatal(err)
		}
		if got := noema.IsSpellingModel(e); got != tc.want {
			t.Errorf("IsSpellingModel(%s) = %v, want %v", e.Name(), got, tc.want)
		}
	}
}
