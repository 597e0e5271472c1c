package config

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/noema-mem/noema"
	"github.com/noema-mem/noema/decay"
)

// EnvVar documents one environment variable read by [Load].
type EnvVar struct {
	Name        string
	Description string
}

type envSpec struct {
	EnvVar
	apply func(c *Config, v string) error
}

// envSpecs lists the variables in the order they are applied. The backend
// comes first so that SwitchBackend's reset does not undo the variables
// after it.
func envSpecs() []envSpec {
	return []envSpec{
		{EnvVar{"NOEMA_EMBEDDER", "embedding backend: builtin, ollama, openai, minilm or static (switching clears the file's model, url, model_dir and dimensions)"},
			func(c *Config, v string) error { c.Embedder.SwitchBackend(v); return nil }},
		{EnvVar{"NOEMA_EMBED_MODEL", "embedding model name"},
			func(c *Config, v string) error { c.Embedder.Model = v; return nil }},
		{EnvVar{"NOEMA_EMBED_URL", "embedding server base URL"},
			func(c *Config, v string) error { c.Embedder.URL = v; return nil }},
		{EnvVar{"NOEMA_EMBED_MODEL_DIR", "minilm: the model folder (default $XDG_DATA_HOME/noema/models/MODEL)"},
			func(c *Config, v string) error { c.Embedder.ModelDir = v; return nil }},
		{EnvVar{"NOEMA_EMBED_KEY_ENV", "name of the variable holding the API key (openai)"},
			func(c *Config, v string) error { c.Embedder.APIKeyEnv = v; return nil }},
		{EnvVar{"NOEMA_EMBED_DIMENSIONS", "expected (openai: requested) vector dimension, 0 = the model's own"},
			intSetter(func(c *Config) *int { return &c.Embedder.Dimensions })},
		{EnvVar{"NOEMA_EMBED_BATCH_SIZE", "texts per embedding request"},
			intSetter(func(c *Config) *int { return &c.Embedder.BatchSize })},
		{EnvVar{"NOEMA_EMBED_TIMEOUT", "timeout of one embedding request, e.g. 30s"},
			durationSetter(func(c *Config) *time.Duration { return &c.Embedder.Timeout })},
		{EnvVar{"NOEMA_EMBED_MAX_RETRIES", "retries after a failed embedding request"},
			intSetter(func(c *Config) *int { return &c.Embedder.MaxRetries })},
		{EnvVar{"NOEMA_EMBED_CHUNKS", "how notes are cut for embedding: auto (passages for a meaning model, sections for builtin), passages or sections"},
			func(c *Config, v string) error { c.Embedder.Chunks = v; return nil }},
		{EnvVar{"NOEMA_DECAY_FUNC", "decay curve: exponential or power"},
			func(c *Config, v string) error { c.Decay.Func = decay.Func(v); return nil }},
		{EnvVar{"NOEMA_DECAY_GRACE", "decay grace period in days"},
			floatSetter(func(c *Config) *float64 { return &c.Decay.GraceDays })},
		{EnvVar{"NOEMA_DECAY_HALFLIFE", "decay half-life in days"},
			floatSetter(func(c *Config) *float64 { return &c.Decay.HalfLifeDays })},
		{EnvVar{"NOEMA_DECAY_FOLDER_GRACE", "per-folder grace in days, e.g. journal/=3,inbox/=7 (replaces the file's list)"},
			func(c *Config, v string) error {
				m, err := parseFolderGrace(v)
				if err == nil {
					c.Decay.FolderGrace = m
				}
				return err
			}},
		{EnvVar{"NOEMA_DECAY_DISABLED", "true turns decay off"},
			func(c *Config, v string) error {
				b, err := strconv.ParseBool(v)
				if err != nil {
					return fmt.Errorf("%q is not true or false", v)
				}
				c.Decay.Disabled = b
				return nil
			}},
		{EnvVar{"NOEMA_MAX_NOTE_BYTES", "largest note size, e.g. 1048576 or 2MiB"},
			func(c *Config, v string) error {
				n, err := parseBytes(v)
				if err == nil {
					c.MaxNoteBytes = n
				}
				return err
			}},
		{EnvVar{"NOEMA_WATCH_DEBOUNCE", "file watcher debounce, e.g. 300ms"},
			durationSetter(func(c *Config) *time.Duration { return &c.WatchDebounce })},
		{EnvVar{"NOEMA_OPERATIONS_MAX_AGE", "how long the operation log keeps an operation for undo, e.g. 720h"},
			durationSetter(func(c *Config) *time.Duration { return &c.Operations.MaxAge })},
		{EnvVar{"NOEMA_OPERATIONS_MAX_BYTES", "largest size of the operation log, e.g. 200MiB"},
			func(c *Config, v string) error {
				n, err := parseBytes(v)
				if err == nil {
					c.Operations.MaxBytes = n
				}
				return err
			}},
		{EnvVar{"NOEMA_STORE", "a team's PostgreSQL store of record, postgres://…/db?vault=NAME"},
			func(c *Config, v string) error { c.Store = v; return nil }},
	}
}

// EnvVars lists the environment variables [Load] reads, for help texts.
func EnvVars() []EnvVar {
	specs := envSpecs()
	out := make([]EnvVar, len(specs))
	for i, s := range specs {
		out[i] = s.EnvVar
	}
	return out
}

// applyEnv overrides cfg with the non-empty variables; it reports every bad
// value at once.
func applyEnv(cfg *Config, getenv func(string) string) error {
	var problems []string
	for _, s := range envSpecs() {
		v := strings.TrimSpace(getenv(s.Name))
		if v == "" {
			continue
		}
		if err := s.apply(cfg, v); err != nil {
			problems = append(problems, fmt.Sprintf("%s: %v", s.Name, err))
		}
	}
	if len(problems) > 0 {
		return noema.Errorf(noema.EINVALID, "environment: %s", strings.Join(problems, "; "))
	}
	return nil
}

func intSetter(field func(*Config) *int) func(*Config, string) error {
	return func(c *Config, v string) error {
		n, err := strconv.Atoi(v)
		if err != nil {
			return fmt.Errorf("%q is not a whole number", v)
		}
		*field(c) = n
		return nil
	}
}

func floatSetter(field func(*Config) *float64) func(*Config, string) error {
	return func(c *Config, v string) error {
		f, err := strconv.ParseFloat(v, 64)
		if err != nil {
			return fmt.Errorf("%q is not a number", v)
		}
		*field(c) = f
		return nil
	}
}

func durationSetter(field func(*Config) *time.Duration) func(*Config, string) error {
	return func(c *Config, v string) error {
		d, err := time.ParseDuration(v)
		if err != nil {
			return fmt.Errorf("%q is not a duration (examples: 300ms, 2s, 1m; a unit is required)", v)
		}
		*field(c) = d
		return nil
	}
}

// parseFolderGrace parses "journal/=3,inbox/=7".
func parseFolderGrace(v string) (map[string]float64, error) {
	m := map[string]float64{}
	for item := range strings.SplitSeq(v, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		prefix, days, ok := strings.Cut(item, "=")
		prefix, days = strings.TrimSpace(prefix), strings.TrimSpace(days)
		if !ok || prefix == "" {
			return nil, fmt.Errorf("%q: want folder/=days items separated by commas, e.g. journal/=3,inbox/=7", item)
		}
		f, err := strconv.ParseFloat(days, 64)
		if err != nil {
			return nil, fmt.Errorf("%q: %q is not a number of days", item, days)
		}
		if _, dup := m[prefix]; dup {
			return nil, fmt.Errorf("folder %q is listed twice", prefix)
		}
		m[prefix] = f
	}
	return m, nil
}
