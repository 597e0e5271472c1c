// Package config loads noema's configuration.
//
// Settings come from three layers, each overriding the one before:
//
//  1. defaults ([Default]);
//  2. the vault's file <vault>/.noema/config.yaml (optional);
//  3. environment variables (NOEMA_…, see [EnvVars]).
//
// Command-line flags come last; the caller applies them to the loaded
// [Config] and calls [Config.Validate] again.
//
// The file, with every key and its default:
//
//	embedder:
//	  backend: builtin        # builtin | ollama | openai | minilm | static
//	  model: ""               # "" = the backend's default (ngram-v1, all-minilm, text-embedding-3-small, all-MiniLM-L6-v2, use-lite-256-v1)
//	  model_dir: ""           # minilm: the model folder ("" = $XDG_DATA_HOME/noema/models/MODEL)
//	  url: ""                 # "" = the backend's default (http://localhost:11434, https://api.openai.com)
//	  api_key_env: ""         # openai: name of the variable holding the key ("" = OPENAI_API_KEY)
//	  dimensions: 0           # 0 = the model's own; openai: requested size
//	  batch_size: 64          # texts per request
//	  timeout: 60s            # per HTTP attempt
//	  max_retries: 3          # after a failed attempt (network, 429, 5xx)
//	decay:
//	  function: exponential   # exponential | power
//	  grace_days: 14
//	  half_life_days: 30
//	  folder_grace:           # longest matching path prefix wins
//	    journal/: 3
//	  disabled: false
//	max_note_bytes: 1MiB      # bytes, or with a unit: KB KiB MB MiB GB GiB
//	concepts:
//	  ignore: []              # link targets that never become concepts: names (todo) and globs (*.png, *.cs)
//	watch_debounce: 300ms
//	store: ""                 # a team's PostgreSQL store of record, postgres://…/db?vault=NAME ("" = this folder is the store)
//	operations:               # the log of multi-file operations that undo_operation reverts (.noema/operations/)
//	  max_age: 720h           # entries older than this go (30 days)
//	  max_bytes: 200MiB       # then the oldest, until the log is at most this size
//
// A missing file means defaults. An unknown key is an error that names it
// (typos do not pass silently), and so is any invalid value.
package config

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/noema-mem/noema"
	"github.com/noema-mem/noema/decay"
	"github.com/noema-mem/noema/embedding/builtin"
	"github.com/noema-mem/noema/embedding/static"
)

// Embedder backends.
const (
	BackendBuiltin = "builtin"
	BackendOllama  = "ollama"
	BackendOpenAI  = "openai"
	// BackendMiniLM runs a BERT sentence encoder in process (package
	// embedding/bert).
	BackendMiniLM = "minilm"
	// BackendStatic is a table of word-piece vectors distilled from a
	// sentence encoder, in the binary (package embedding/static): a meaning
	// model that runs offline.
	BackendStatic = "static"
)

// Ways of cutting notes for embedding ([Embedder.Chunks]).
const (
	ChunksAuto     = "auto"
	ChunksPassages = "passages"
	ChunksSections = "sections"
)

// Backends lists the valid values of [Embedder.Backend].
func Backends() []string {
	return []string{BackendBuiltin, BackendOllama, BackendOpenAI, BackendMiniLM, BackendStatic}
}

// Defaults of [Default].
const (
	// DefaultMaxNoteBytes (1 MiB) is the one default size limit of a note;
	// indexer.New uses it too.
	DefaultMaxNoteBytes  = 1 << 20
	DefaultWatchDebounce = 300 * time.Millisecond
	DefaultBatchSize     = 64
	DefaultTimeout       = 60 * time.Second
	DefaultMaxRetries    = 3
	// DefaultOperationsMaxAge (30 days) and DefaultOperationsMaxBytes
	// (200 MiB) bound the operation log.
	DefaultOperationsMaxAge   = 30 * 24 * time.Hour
	DefaultOperationsMaxBytes = 200 << 20
)

// Limits checked by [Config.Validate].
const (
	MaxBatchSize  = 2048
	MaxRetries    = 10
	MaxDimensions = 65536
)

// Config is noema's configuration.
type Config struct {
	// Embedder chooses and configures the embedding backend.
	Embedder Embedder
	// Decay configures recency weighting.
	Decay decay.Config
	// MaxNoteBytes is the largest note noema reads or writes; larger notes
	// are refused with noema.ETOOLARGE.
	MaxNoteBytes int64
	// WatchDebounce is how long the file watcher waits for a burst of
	// changes to settle before syncing.
	WatchDebounce time.Duration
	// Concepts configures the concept registry.
	Concepts Concepts
	// Store is the URL of a team's store of record (PostgreSQL,
	// postgres://…/db?vault=NAME); the vault folder is then its working
	// copy. Empty: the folder is the store of record.
	Store string
	// Operations bounds the operation log.
	Operations Operations
}

// Operations bounds the log of multi-file operations (merges, moves with
// link rewriting, concept renames and deletions, vault rename-files) that
// undo_operation reverts: entries older than MaxAge go, then the oldest
// until the log holds at most MaxBytes.
type Operations struct {
	MaxAge   time.Duration
	MaxBytes int64
}

// Concepts configures the concept registry.
type Concepts struct {
	// Ignore lists link targets that never become concepts: names,
	// compared by concept key ("todo" ignores [[todo]], [[ToDo]] and
	// [[TODO]]), and globs with * ? [ ] matched against the lowercased
	// target ("*.png", "*.cs", "daily/*"). Matching links stay in the
	// text; writes that make one say so in a warning.
	Ignore []string
}

// Embedder configures the embedding backend. Empty strings and zero numbers
// mean "the backend's default" where documented.
type Embedder struct {
	// Backend is one of [Backends].
	Backend string
	// Model is the model name; "" means the backend's default. The builtin
	// backend accepts only "" or "ngram-v1", the static one "" or
	// "use-lite-256-v1".
	Model string
	// URL is the server's base URL; "" means the backend's default. Not
	// used by builtin, minilm or static.
	URL string
	// ModelDir is the minilm backend's model folder; "" means
	// $XDG_DATA_HOME/noema/models/<Model>.
	ModelDir string
	// APIKeyEnv names the environment variable holding the API key (openai);
	// "" means OPENAI_API_KEY. The key itself never appears in the
	// configuration.
	APIKeyEnv string
	// Dimensions is the expected (openai: requested) vector dimension; 0
	// means the model's own.
	Dimensions int
	// BatchSize is the number of texts per request.
	BatchSize int
	// Timeout bounds each HTTP attempt.
	Timeout time.Duration
	// MaxRetries is the number of retries after a failed attempt.
	MaxRetries int
	// Chunks is how notes are cut for embedding: ChunksPassages (a turn
	// or a paragraph each), ChunksSections (1,000–1,600 bytes each: four
	// times fewer vectors), or "" / ChunksAuto, which is passages for a
	// meaning model and sections for the builtin spelling model.
	Chunks string
}

// Default returns the default configuration: the builtin embedder, default
// decay, 1 MiB notes, 300ms watch debounce.
func Default() Config {
	return Config{
		Embedder: Embedder{
			Backend:    BackendBuiltin,
			BatchSize:  DefaultBatchSize,
			Timeout:    DefaultTimeout,
			MaxRetries: DefaultMaxRetries,
		},
		Decay:         decay.DefaultConfig(),
		MaxNoteBytes:  DefaultMaxNoteBytes,
		WatchDebounce: DefaultWatchDebounce,
		Operations:    Operations{MaxAge: DefaultOperationsMaxAge, MaxBytes: DefaultOperationsMaxBytes},
	}
}

// SwitchBackend sets the backend and, when it differs from the current one,
// clears Model, URL and Dimensions, which belong to the previous backend.
// Environment variables and flags that choose a backend use it, so that
// NOEMA_EMBEDDER=builtin works whatever model the file names for ollama.
func (e *Embedder) SwitchBackend(backend string) {
	if backend != e.Backend {
		e.Model, e.URL, e.ModelDir, e.Dimensions = "", "", "", 0
	}
	e.Backend = backend
}

// Path returns the configuration file of the vault at vaultRoot.
func Path(vaultRoot string) string {
	return filepath.Join(vaultRoot, ".noema", "config.yaml")
}

// Load returns the configuration of the vault at vaultRoot: defaults, then
// the file (if it exists), then the environment read through getenv (nil
// means os.Getenv; an empty value counts as unset). The result is
// validated. Errors are noema.EINVALID and name the file and key or the
// variable at fault.
func Load(vaultRoot string, getenv func(string) string) (Config, error) {
	if getenv == nil {
		getenv = os.Getenv
	}
	cfg := Default()
	path := Path(vaultRoot)
	data, err := os.ReadFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return Config{}, fmt.Errorf("read config: %w", err)
	default:
		if err := parseFile(&cfg, data); err != nil {
			return Config{}, noema.Errorf(noema.EINVALID, "config %s: %v", path, err)
		}
	}
	if err := applyEnv(&cfg, getenv); err != nil {
		return Config{}, err
	}
	if err := cfg.Validate(); err != nil {
		return Config{}, noema.Errorf(noema.EINVALID, "config (file %s and NOEMA_* environment): %s", path, noema.ErrorMessage(err))
	}
	return cfg, nil
}

// checkFixedModel adds the problems of e for a backend built into the
// binary, which has the one model of dimension dim and takes no URL.
func (e Embedder) checkFixedModel(add func(format string, args ...any), model string, dim int) {
	if e.Model != "" && e.Model != model {
		add("embedder.model %q: the %s backend has only model %q", e.Model, e.Backend, model)
	}
	if e.URL != "" {
		add("embedder.url %q: the %s backend takes no URL", e.URL, e.Backend)
	}
	if e.Dimensions != 0 && e.Dimensions != dim {
		add("embedder.dimensions %d: the %s backend has %d dimensions", e.Dimensions, e.Backend, dim)
	}
}

// Validate reports every invalid setting in one noema.EINVALID error, or
// returns nil.
func (c Config) Validate() error {
	var problems []string
	add := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }

	e := c.Embedder
	switch e.Backend {
	case BackendBuiltin:
		e.checkFixedModel(add, builtin.Model, builtin.Dimension)
	case BackendStatic:
		e.checkFixedModel(add, static.Model, static.Dimension)
	case BackendMiniLM:
		if e.URL != "" {
			add("embedder.url %q: the minilm backend takes no URL (it runs in process; model_dir names its folder)", e.URL)
		}
		if e.Model != "" && (e.Model != filepath.Base(e.Model) || e.Model == "." || e.Model == "..") && e.ModelDir == "" {
			add("embedder.model %q: a model name, not a path (give model_dir for a folder)", e.Model)
		}
	case BackendOllama, BackendOpenAI:
		if e.URL != "" {
			if err := checkURL(e.URL); err != nil {
				add("embedder.url %q: %v", e.URL, err)
			}
		}
	case "":
		add("embedder.backend is empty (want one of %s)", strings.Join(Backends(), ", "))
	default:
		add("embedder.backend %q is unknown (want one of %s)", e.Backend, strings.Join(Backends(), ", "))
	}
	if strings.TrimSpace(e.Model) != e.Model {
		add("embedder.model %q has leading or trailing spaces", e.Model)
	}
	if e.ModelDir != "" && e.Backend != BackendMiniLM {
		add("embedder.model_dir %q: only the minilm backend reads a model folder", e.ModelDir)
	}
	if e.APIKeyEnv != "" && !envName.MatchString(e.APIKeyEnv) {
		if strings.HasPrefix(e.APIKeyEnv, "sk-") {
			add("embedder.api_key_env looks like an API key: it must name the environment variable that holds the key (e.g. OPENAI_API_KEY), never the key itself")
		} else {
			add("embedder.api_key_env %q is not an environment variable name", e.APIKeyEnv)
		}
	}
	if e.Dimensions < 0 || e.Dimensions > MaxDimensions {
		add("embedder.dimensions %d: want 0 (the model's own) to %d", e.Dimensions, MaxDimensions)
	}
	if e.BatchSize < 1 || e.BatchSize > MaxBatchSize {
		add("embedder.batch_size %d: want 1 to %d", e.BatchSize, MaxBatchSize)
	}
	if e.Timeout <= 0 {
		add("embedder.timeout %v: want a positive duration such as 30s", e.Timeout)
	}
	switch e.Chunks {
	case "", ChunksAuto, ChunksPassages, ChunksSections:
	default:
		add("embedder.chunks %q is unknown (want %s, %s or %s)", e.Chunks, ChunksAuto, ChunksPassages, ChunksSections)
	}
	if e.MaxRetries < 0 || e.MaxRetries > MaxRetries {
		add("embedder.max_retries %d: want 0 to %d", e.MaxRetries, MaxRetries)
	}
	if err := c.Decay.Validate(); err != nil {
		for _, line := range strings.Split(err.Error(), "\n") {
			add("%s", line)
		}
	}
	if c.MaxNoteBytes <= 0 {
		add("max_note_bytes %d: want a positive size such as 1MiB", c.MaxNoteBytes)
	}
	if c.Operations.MaxAge <= 0 {
		add("operations.max_age %s: want a positive duration such as 720h", c.Operations.MaxAge)
	}
	if c.Operations.MaxBytes <= 0 {
		add("operations.max_bytes %d: want a positive size such as 200MiB", c.Operations.MaxBytes)
	}
	for _, p := range c.Concepts.Ignore {
		if strings.TrimSpace(p) == "" {
			add("concepts.ignore: an empty pattern")
		} else if _, err := path.Match(strings.ToLower(p), ""); err != nil {
			add("concepts.ignore %q: not a valid glob (%v)", p, err)
		}
	}
	if c.WatchDebounce < 0 {
		add("watch_debounce %v: want a duration ≥ 0 such as 300ms", c.WatchDebounce)
	}
	if c.Store != "" && !strings.HasPrefix(c.Store, "postgres://") && !strings.HasPrefix(c.Store, "postgresql://") {
		add("store: want a postgres:// URL (postgres://user@host:5432/db?vault=NAME), not %q", RedactURL(c.Store))
	}
	if len(problems) == 0 {
		return nil
	}
	return noema.Errorf(noema.EINVALID, "%s", strings.Join(problems, "; "))
}

var envName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

func checkURL(raw string) error {
	u, err := url.Parse(raw)
	if err != nil {
		return err
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return errors.New("want an absolute http:// or https:// URL")
	}
	return nil
}

// parseBytes parses a size: a whole number of bytes, optionally followed by
// a unit (B, KB, KiB, MB, MiB, GB, GiB; case-insensitive).
func parseBytes(s string) (int64, error) {
	s = strings.TrimSpace(s)
	i := strings.IndexFunc(s, func(r rune) bool { return (r < '0' || r > '9') && r != '.' })
	num, unit := s, ""
	if i >= 0 {
		num, unit = strings.TrimSpace(s[:i]), strings.TrimSpace(s[i:])
	}
	units := map[string]float64{"": 1, "b": 1, "kb": 1e3, "kib": 1 << 10, "mb": 1e6, "mib": 1 << 20, "gb": 1e9, "gib": 1 << 30}
	mul, ok := units[strings.ToLower(unit)]
	if num == "" || !ok {
		return 0, fmt.Errorf("%q is not a size (examples: 1048576, 512KiB, 1MiB)", s)
	}
	f, err := strconv.ParseFloat(num, 64)
	if err != nil {
		return 0, fmt.Errorf("%q is not a size (examples: 1048576, 512KiB, 1MiB)", s)
	}
	b := f * mul
	if b > math.MaxInt64/2 || b != math.Trunc(b) {
		return 0, fmt.Errorf("%q is not a whole number of bytes below 4 EiB", s)
	}
	return int64(b), nil
}

// RedactURL returns u with any password replaced by "xxxxx", for messages
// and status: a store URL may carry one.
func RedactURL(u string) string {
	parsed, err := url.Parse(u)
	if err != nil || parsed.User == nil {
		if err != nil {
			return "(unparsable URL)"
		}
		return u
	}
	if _, has := parsed.User.Password(); has {
		parsed.User = url.UserPassword(parsed.User.Username(), "xxxxx")
	}
	return parsed.String()
}
