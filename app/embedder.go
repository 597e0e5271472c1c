package app

import (
	"fmt"
	"os"

	"github.com/noema-mem/noema"
	"github.com/noema-mem/noema/config"
	"github.com/noema-mem/noema/embedding/bert"
	"github.com/noema-mem/noema/embedding/builtin"
	"github.com/noema-mem/noema/embedding/ollama"
	"github.com/noema-mem/noema/embedding/openai"
	"github.com/noema-mem/noema/embedding/static"
	"github.com/noema-mem/noema/semantic/chunk"
)

// NewEmbedder returns the embedder cfg configures. getenv resolves the API
// key variable named by cfg.APIKeyEnv (nil means os.Getenv); the key is read
// once, here. NewEmbedder does not contact any server. Configuration errors
// are noema.EINVALID.
func NewEmbedder(cfg config.Embedder, getenv func(string) string) (noema.Embedder, error) {
	if getenv == nil {
		getenv = os.Getenv
	}
	switch cfg.Backend {
	case config.BackendBuiltin:
		if err := checkFixedModel(cfg, builtin.Model, builtin.Dimension); err != nil {
			return nil, err
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
	case config.BackendStatic:
		if err := checkFixedModel(cfg, static.Model, static.Dimension); err != nil {
			return nil, err
		}
		e, err := static.New()
		if err != nil {
			return nil, fmt.Errorf("static embedder: %w", err)
		}
		return e, nil
	default:
		return nil, noema.Errorf(noema.EINVALID, "unknown embedder backend %q (want builtin, ollama, openai, minilm or static)", cfg.Backend)
	}
}

// checkFixedModel returns a noema.EINVALID error unless cfg names model (or
// none) and dimension dim (or 0): a backend built into the binary has one.
func checkFixedModel(cfg config.Embedder, model string, dim int) error {
	if cfg.Model != "" && cfg.Model != model {
		return noema.Errorf(noema.EINVALID, "%s embedder: unknown model %q (only %q)", cfg.Backend, cfg.Model, model)
	}
	if cfg.Dimensions != 0 && cfg.Dimensions != dim {
		return noema.Errorf(noema.EINVALID, "%s embedder: dimension is %d, not %d", cfg.Backend, dim, cfg.Dimensions)
	}
	return nil
}

// chunking is the chunk scheme a configuration's embedder.chunks names; the
// zero Scheme (auto) lets the services choose by the embedder's kind.
func chunking(name string) chunk.Scheme {
	switch name {
	case config.ChunksPassages:
		return chunk.Passages()
	case config.ChunksSections:
		return chunk.Sections()
	}
	return chunk.Scheme{}
}
