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
	case config.BackendStatic:
		if cfg.Model != "" && cfg.Model != static.Model {
			return nil, noema.Errorf(noema.EINVALID, "static embedder: unknown model %q (only %q)", cfg.Model, static.Model)
		}
		if cfg.Dimensions != 0 && cfg.Dimensions != static.Dimension {
			return nil, noema.Errorf(noema.EINVALID, "static embedder: dimension is %d, not %d", static.Dimension, cfg.Dimensions)
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
