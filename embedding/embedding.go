// Package embedding defines the Embedder interface noema uses to turn text
// into vectors, and [New], which builds the embedder a configuration names.
//
// Backends live in subpackages:
//
//   - builtin (default): offline and deterministic hashed character n-grams,
//     384 dimensions. It captures spelling and morphology, not meaning.
//   - ollama: a local Ollama server (/api/embed), e.g. all-minilm,
//     nomic-embed-text.
//   - openai: the OpenAI embeddings API or any compatible server
//     (/v1/embeddings); the key comes from an environment variable.
//   - minilm (package bert): a BERT-family sentence encoder
//     (all-MiniLM-L6-v2, bge-small-en-v1.5) run in pure Go from a model
//     folder that `noema model pull` downloads.
//
// Every backend passes the shared conformance suite in embeddingtest.
//
// # Errors
//
// A network backend that cannot be reached, times out, or keeps failing
// returns an error whose noema.ErrorCode is noema.EUNAVAILABLE, so callers
// can degrade to fuzzy and full-text answers; input the server rejects (HTTP
// 400/422) is noema.EINVALID; a cancelled context returns the context's
// error. Embed never returns partial results.
package embedding

import (
	"context"
	"os"

	"github.com/noema-mem/noema"
	"github.com/noema-mem/noema/config"
	"github.com/noema-mem/noema/embedding/bert"
	"github.com/noema-mem/noema/embedding/builtin"
	"github.com/noema-mem/noema/embedding/ollama"
	"github.com/noema-mem/noema/embedding/openai"
)

// Embedder turns texts into vectors. Implementations are safe for
// concurrent use.
type Embedder interface {
	// Name identifies the backend and model, e.g. "builtin/ngram-v1",
	// "ollama/all-minilm", "openai/text-embedding-3-small". Vectors from
	// different names (or dimensions) must never be compared.
	Name() string
	// Dimension is the length of every vector. A network backend whose
	// model is not known in advance and not configured learns it from its
	// first answer and returns 0 until then.
	Dimension() int
	// Embed returns one vector per text, in the order of texts, each of
	// length Dimension. Vectors are L2-normalized, except that a text with
	// nothing to embed may yield the zero vector (vector.IsDegenerate
	// detects it). On error it returns no vectors at all.
	Embed(ctx context.Context, texts []string) ([][]float32, error)
}

// Spelling reports whether e captures spelling rather than meaning: its
// vectors bring together texts that share letters and word stems, not
// texts that mean the same (the builtin n-gram embedder says so through a
// method Spelling() bool returning true). Search weighs the ranking of such
// an embedder as a tie-breaker (package search, Tuning.SpellingWeight);
// every other embedder is taken for a meaning model.
func Spelling(e Embedder) bool {
	s, ok := e.(interface{ Spelling() bool })
	return ok && s.Spelling()
}

// Compile-time checks that every backend implements Embedder.
var (
	_ Embedder = (*builtin.Embedder)(nil)
	_ Embedder = (*ollama.Embedder)(nil)
	_ Embedder = (*openai.Embedder)(nil)
	_ Embedder = (*bert.Embedder)(nil)
)

// New returns the embedder cfg configures. getenv resolves the API key
// variable named by cfg.APIKeyEnv (nil means os.Getenv); the key is read once,
// here. New does not contact any server. Configuration errors are
// noema.EINVALID.
func New(cfg config.Embedder, getenv func(string) string) (Embedder, error) {
	if getenv == nil {
		getenv = os.Getenv
	}
	switch cfg.Backend {
	case config.BackendBuiltin:
		if cfg.Model != "" && cfg.Model != builtin.Model {
			return nil, noema.Errorf(noema.EINVALID, "builtin embedder: unknown model %q (only %q)", cfg.Model, builtin.Model)
		}
		if cfg.Dimensions != 0 && cfg.Dimensions != builtin.Dimension {
			return nil, noema.Errorf(noema.EINVALID, "builtin embedder: dimension is %d, not %d", builtin.Dimension, cfg.Dimensions)
		}
		return builtin.New(), nil
	case config.BackendOllama:
		return ollama.New(ollama.Options{
			URL:        cfg.URL,
			Model:      cfg.Model,
			Dimensions: cfg.Dimensions,
			BatchSize:  cfg.BatchSize,
			Timeout:    cfg.Timeout,
			MaxRetries: cfg.MaxRetries,
		})
	case config.BackendOpenAI:
		keyEnv := cfg.APIKeyEnv
		if keyEnv == "" {
			keyEnv = openai.DefaultKeyEnv
		}
		return openai.New(openai.Options{
			URL:        cfg.URL,
			Model:      cfg.Model,
			APIKey:     getenv(keyEnv),
			APIKeyEnv:  keyEnv,
			Dimensions: cfg.Dimensions,
			BatchSize:  cfg.BatchSize,
			Timeout:    cfg.Timeout,
			MaxRetries: cfg.MaxRetries,
		})
	case config.BackendMiniLM:
		return bert.Open(cfg.Model, cfg.ModelDir, cfg.Dimensions, getenv)
	default:
		return nil, noema.Errorf(noema.EINVALID, "unknown embedder backend %q (want builtin, ollama, openai or minilm)", cfg.Backend)
	}
}
