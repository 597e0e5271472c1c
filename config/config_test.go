package config_test

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/noema-mem/noema"
	"github.com/noema-mem/noema/config"
	"github.com/noema-mem/noema/decay"
)

// vault returns a temporary vault whose .noema/config.yaml holds yaml
// (no file when yaml is "-").
func vault(t *testing.T, yaml string) string {
	t.Helper()
	dir := t.TempDir()
	if yaml == "-" {
		return dir
	}
	if err := os.MkdirAll(filepath.Join(dir, ".noema"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(config.Path(dir), []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

func env(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

func TestDefault(t *testing.T) {
	c := config.Default()
	if err := c.Validate(); err != nil {
		t.Fatalf("Default is invalid: %v", err)
	}
	want := config.Config{
		Embedder:      config.Embedder{Backend: "builtin", BatchSize: 64, Timeout: 60 * time.Second, MaxRetries: 3},
		Decay:         decay.Config{Func: decay.Exponential, GraceDays: 14, HalfLifeDays: 30},
		MaxNoteBytes:  1 << 20,
		WatchDebounce: 300 * time.Millisecond,
		Operations:    config.Operations{MaxAge: 30 * 24 * time.Hour, MaxBytes: 200 << 20},
	}
	if !reflect.DeepEqual(c, want) {
		t.Fatalf("Default() = %+v, want %+v", c, want)
	}
}

func TestLoad(t *testing.T) {
	mod := func(f func(*config.Config)) config.Config {
		c := config.Default()
		f(&c)
		return c
	}
	full := `
# every key
embedder:
  backend: ollama
  model: nomic-embed-text
  url: http://gpu-box:11434
  api_key_env: ""
  dimensions: 768
  batch_size: 16
  timeout: 2m
  max_retries: 5
  chunks: sections
decay:
  function: power
  grace_days: 7
  half_life_days: 10.5
  folder_grace:
    journal/: 3
    projects/: 60
  disabled: false
max_note_bytes: 2MiB
watch_debounce: 1s
operations:
  max_age: 168h
  max_bytes: 50MB
`
	scenarios := []struct {
		Name string
		YAML string
		Env  map[string]string
		Want config.Config
	}{
		{"no file", "-", nil, config.Default()},
		{"empty file", "", nil, config.Default()},
		{"comments only", "# nothing yet\n", nil, config.Default()},
		{"every key", full, nil, config.Config{
			Embedder: config.Embedder{Backend: "ollama", Model: "nomic-embed-text", URL: "http://gpu-box:11434",
				Dimensions: 768, BatchSize: 16, Timeout: 2 * time.Minute, MaxRetries: 5, Chunks: "sections"},
			Decay: decay.Config{Func: decay.Power, GraceDays: 7, HalfLifeDays: 10.5,
				FolderGrace: map[string]float64{"journal/": 3, "projects/": 60}},
			MaxNoteBytes:  2 << 20,
			WatchDebounce: time.Second,
			Operations:    config.Operations{MaxAge: 168 * time.Hour, MaxBytes: 50_000_000},
		}},
		{"partial file keeps other defaults", "decay:\n  grace_days: 3\n", nil,
			mod(func(c *config.Config) { c.Decay.GraceDays = 3 })},
		{"plain byte count", "max_note_bytes: 500000\n", nil,
			mod(func(c *config.Config) { c.MaxNoteBytes = 500000 })},
		{"empty section", "embedder:\ndecay:\n", nil, config.Default()},
		{"env overrides file", "decay:\n  grace_days: 3\n  half_life_days: 9\n", map[string]string{
			"NOEMA_DECAY_GRACE": "5", "NOEMA_DECAY_FUNC": "power", "NOEMA_MAX_NOTE_BYTES": "64KiB",
			"NOEMA_WATCH_DEBOUNCE": "50ms", "NOEMA_DECAY_FOLDER_GRACE": "journal/=1, inbox/=0.5",
		}, mod(func(c *config.Config) {
			c.Decay = decay.Config{Func: decay.Power, GraceDays: 5, HalfLifeDays: 9,
				FolderGrace: map[string]float64{"journal/": 1, "inbox/": 0.5}}
			c.MaxNoteBytes = 64 << 10
			c.WatchDebounce = 50 * time.Millisecond
		})},
		{"env embedder", "-", map[string]string{
			"NOEMA_EMBEDDER": "openai", "NOEMA_EMBED_MODEL": "text-embedding-3-large", "NOEMA_EMBED_URL": "https://proxy.example/v1",
			"NOEMA_EMBED_KEY_ENV": "TEAM_KEY", "NOEMA_EMBED_DIMENSIONS": "1024", "NOEMA_EMBED_BATCH_SIZE": "128",
			"NOEMA_EMBED_TIMEOUT": "10s", "NOEMA_EMBED_MAX_RETRIES": "0", "NOEMA_EMBED_CHUNKS": "passages", "NOEMA_DECAY_HALFLIFE": "60", "NOEMA_DECAY_DISABLED": "true",
		}, mod(func(c *config.Config) {
			c.Embedder = config.Embedder{Backend: "openai", Model: "text-embedding-3-large", URL: "https://proxy.example/v1",
				APIKeyEnv: "TEAM_KEY", Dimensions: 1024, BatchSize: 128, Timeout: 10 * time.Second, MaxRetries: 0, Chunks: "passages"}
			c.Decay.HalfLifeDays = 60
			c.Decay.Disabled = true
		})},
		{"env switching backend drops the file's model, url and dimensions", full, map[string]string{"NOEMA_EMBEDDER": "builtin"},
			mod(func(c *config.Config) {
				c.Embedder = config.Embedder{Backend: "builtin", BatchSize: 16, Timeout: 2 * time.Minute, MaxRetries: 5, Chunks: "sections"}
				c.Decay = decay.Config{Func: decay.Power, GraceDays: 7, HalfLifeDays: 10.5,
					FolderGrace: map[string]float64{"journal/": 3, "projects/": 60}}
				c.MaxNoteBytes = 2 << 20
				c.WatchDebounce = time.Second
				c.Operations = config.Operations{MaxAge: 168 * time.Hour, MaxBytes: 50_000_000}
			})},
		{"env naming the same backend keeps the file's model", "embedder:\n  backend: ollama\n  model: bge-m3\n",
			map[string]string{"NOEMA_EMBEDDER": "ollama"},
			mod(func(c *config.Config) { c.Embedder.Backend = "ollama"; c.Embedder.Model = "bge-m3" })},
		{"env operations", "operations:\n  max_age: 1h\n", map[string]string{
			"NOEMA_OPERATIONS_MAX_AGE": "48h", "NOEMA_OPERATIONS_MAX_BYTES": "1MiB",
		}, mod(func(c *config.Config) { c.Operations = config.Operations{MaxAge: 48 * time.Hour, MaxBytes: 1 << 20} })},
		{"blank env values are unset", "-", map[string]string{"NOEMA_DECAY_GRACE": "  ", "NOEMA_EMBEDDER": ""}, config.Default()},
	}
	for _, sc := range scenarios {
		t.Run(sc.Name, func(t *testing.T) {
			got, err := config.Load(vault(t, sc.YAML), env(sc.Env))
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, sc.Want) {
				t.Fatalf("Load =\n %+v\nwant\n %+v", got, sc.Want)
			}
		})
	}
}

func TestLoadErrors(t *testing.T) {
	scenarios := []struct {
		Name    string
		YAML    string
		Env     map[string]string
		WantMsg []string
	}{
		{"unknown top-level key", "embeder:\n  backend: ollama\n", nil,
			[]string{"unknown key embeder (line 1; valid keys here: embedder, decay, max_note_bytes, watch_debounce, concepts, store, operations)"}},
		{"unknown nested keys, all reported", "embedder:\n  modle: x\ndecay:\n  grace: 3\n  halflife: 2\n", nil,
			[]string{"unknown keys", "embedder.modle (line 2", "decay.grace (line 4", "decay.halflife (line 5", "valid keys here: function, grace_days"}},
		{"not a mapping", "- a\n- b\n", nil, []string{"must be a mapping"}},
		{"syntax error", "embedder: [\n", nil, []string{"config.yaml"}},
		{"two documents", "decay: {}\n---\ndecay: {}\n", nil, []string{"more than one YAML document"}},
		{"duplicate key", "decay: {}\ndecay: {}\n", nil, []string{"already defined"}},
		{"bad number", "decay:\n  grace_days: soon\n", nil, []string{"line 2", "soon"}},
		{"duration without unit", "watch_debounce: 300\n", nil, []string{`line 1: "300" is not a duration`}},
		{"bad size", "max_note_bytes: 1 MB please\n", nil, []string{"is not a size"}},
		{"negative size", "max_note_bytes: -5\n", nil, []string{"is not a size"}},
		{"zero operations age", "operations:\n  max_age: 0s\n", nil, []string{"operations.max_age 0s: want a positive duration"}},
		{"zero operations size", "operations:\n  max_bytes: 0\n", nil, []string{"operations.max_bytes 0: want a positive size"}},
		{"folder grace not a mapping", "decay:\n  folder_grace: [journal]\n", nil, []string{"line 2"}},
		{"invalid values, all reported", "embedder:\n  backend: cohere\n  batch_size: 0\ndecay:\n  function: linear\n  half_life_days: 0\n", nil,
			[]string{`embedder.backend "cohere" is unknown (want one of builtin, ollama, openai, minilm, static)`, "embedder.batch_size 0", `decay function "linear" is unknown`, "half-life"}},
		{"env bad values, all reported", "-", map[string]string{"NOEMA_DECAY_GRACE": "two weeks", "NOEMA_EMBED_TIMEOUT": "30", "NOEMA_DECAY_DISABLED": "maybe"},
			[]string{`NOEMA_DECAY_GRACE: "two weeks" is not a number`, `NOEMA_EMBED_TIMEOUT: "30" is not a duration`, `NOEMA_DECAY_DISABLED: "maybe"`}},
		{"env bad folder grace", "-", map[string]string{"NOEMA_DECAY_FOLDER_GRACE": "journal/:3"}, []string{"NOEMA_DECAY_FOLDER_GRACE", "folder/=days"}},
		{"env value invalid after parsing", "-", map[string]string{"NOEMA_DECAY_HALFLIFE": "-1"}, []string{"half-life", "-1"}},
		{"API key in place of its variable name", "embedder:\n  backend: openai\n  api_key_env: sk-abc123\n", nil,
			[]string{"looks like an API key"}},
	}
	for _, sc := range scenarios {
		t.Run(sc.Name, func(t *testing.T) {
			_, err := config.Load(vault(t, sc.YAML), env(sc.Env))
			if err == nil {
				t.Fatal("Load succeeded, want an error")
			}
			if noema.ErrorCode(err) != noema.EINVALID {
				t.Errorf("code = %q, want invalid_argument (err: %v)", noema.ErrorCode(err), err)
			}
			for _, m := range sc.WantMsg {
				if !strings.Contains(err.Error(), m) {
					t.Errorf("error %q does not contain %q", err, m)
				}
			}
			if strings.Contains(err.Error(), "sk-abc123") {
				t.Errorf("error %q repeats a secret", err)
			}
		})
	}
}

func TestLoadUnreadable(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(config.Path(dir), 0o755); err != nil { // a directory where the file should be
		t.Fatal(err)
	}
	if _, err := config.Load(dir, env(nil)); err == nil || !strings.Contains(err.Error(), "read config") {
		t.Fatalf("err = %v", err)
	}
}

func TestValidate(t *testing.T) {
	mod := func(f func(*config.Config)) config.Config {
		c := config.Default()
		f(&c)
		return c
	}
	scenarios := []struct {
		Name    string
		Cfg     config.Config
		WantMsg string // "" means valid
	}{
		{"default", config.Default(), ""},
		{"ollama with URL", mod(func(c *config.Config) { c.Embedder.Backend = "ollama"; c.Embedder.URL = "http://h:1" }), ""},
		{"zero debounce", mod(func(c *config.Config) { c.WatchDebounce = 0 }), ""},
		{"zero retries", mod(func(c *config.Config) { c.Embedder.MaxRetries = 0 }), ""},
		{"empty backend", mod(func(c *config.Config) { c.Embedder.Backend = "" }), "embedder.backend is empty"},
		{"builtin with URL", mod(func(c *config.Config) { c.Embedder.URL = "http://h" }), "takes no URL"},
		{"builtin other model", mod(func(c *config.Config) { c.Embedder.Model = "x" }), `only model "ngram-v1"`},
		{"builtin other dims", mod(func(c *config.Config) { c.Embedder.Dimensions = 128 }), "384 dimensions"},
		{"relative URL", mod(func(c *config.Config) { c.Embedder.Backend = "openai"; c.Embedder.URL = "api.example.com" }), "absolute"},
		{"model with spaces", mod(func(c *config.Config) { c.Embedder.Backend = "ollama"; c.Embedder.Model = "all-minilm " }), "trailing spaces"},
		{"bad env name", mod(func(c *config.Config) { c.Embedder.APIKeyEnv = "MY KEY" }), "not an environment variable name"},
		{"negative dims", mod(func(c *config.Config) { c.Embedder.Dimensions = -1 }), "embedder.dimensions -1"},
		{"huge batch", mod(func(c *config.Config) { c.Embedder.BatchSize = 5000 }), "embedder.batch_size 5000: want 1 to 2048"},
		{"zero timeout", mod(func(c *config.Config) { c.Embedder.Timeout = 0 }), "embedder.timeout"},
		{"too many retries", mod(func(c *config.Config) { c.Embedder.MaxRetries = 11 }), "embedder.max_retries 11"},
		{"unknown chunks", mod(func(c *config.Config) { c.Embedder.Chunks = "turns" }), `embedder.chunks "turns" is unknown (want auto, passages or sections)`},
		{"zero note size", mod(func(c *config.Config) { c.MaxNoteBytes = 0 }), "max_note_bytes 0"},
		{"negative debounce", mod(func(c *config.Config) { c.WatchDebounce = -time.Second }), "watch_debounce -1s"},
		{"bad folder grace", mod(func(c *config.Config) { c.Decay.FolderGrace = map[string]float64{"/abs/": 1} }), "vault-relative"},
		{"minilm default model", mod(func(c *config.Config) { c.Embedder.Backend = "minilm" }), ""},
		{"minilm model and folder", mod(func(c *config.Config) {
			c.Embedder.Backend, c.Embedder.Model, c.Embedder.ModelDir = "minilm", "bge-small-en-v1.5", "/models/bge"
		}), ""},
		{"minilm with URL", mod(func(c *config.Config) { c.Embedder.Backend = "minilm"; c.Embedder.URL = "http://h" }), "takes no URL"},
		{"minilm model path", mod(func(c *config.Config) { c.Embedder.Backend = "minilm"; c.Embedder.Model = "../m" }), "not a path"},
		{"static default model", mod(func(c *config.Config) { c.Embedder.Backend = "static" }), ""},
		{"static unknown model", mod(func(c *config.Config) { c.Embedder.Backend = "static"; c.Embedder.Model = "x" }), "the static backend has only model"},
		{"static with URL", mod(func(c *config.Config) { c.Embedder.Backend = "static"; c.Embedder.URL = "http://h" }), "the static backend takes no URL"},
		{"static wrong dims", mod(func(c *config.Config) { c.Embedder.Backend = "static"; c.Embedder.Dimensions = 384 }), "the static backend has 256 dimensions"},
		{"model_dir for ollama", mod(func(c *config.Config) { c.Embedder.Backend = "ollama"; c.Embedder.ModelDir = "/m" }), "only the minilm backend"},
	}
	for _, sc := range scenarios {
		t.Run(sc.Name, func(t *testing.T) {
			err := sc.Cfg.Validate()
			if sc.WantMsg == "" {
				if err != nil {
					t.Fatalf("Validate = %v", err)
				}
				return
			}
			if noema.ErrorCode(err) != noema.EINVALID || !strings.Contains(err.Error(), sc.WantMsg) {
				t.Fatalf("Validate = %v, want invalid_argument containing %q", err, sc.WantMsg)
			}
		})
	}
}

func TestEnvVarsDocumented(t *testing.T) {
	seen := map[string]bool{}
	for _, v := range config.EnvVars() {
		if !strings.HasPrefix(v.Name, "NOEMA_") || v.Description == "" || seen[v.Name] {
			t.Errorf("bad or duplicate entry %+v", v)
		}
		seen[v.Name] = true
	}
	for _, name := range []string{"NOEMA_EMBEDDER", "NOEMA_EMBED_MODEL", "NOEMA_EMBED_URL", "NOEMA_EMBED_KEY_ENV",
		"NOEMA_DECAY_GRACE", "NOEMA_DECAY_HALFLIFE", "NOEMA_DECAY_FUNC", "NOEMA_MAX_NOTE_BYTES",
		"NOEMA_OPERATIONS_MAX_AGE", "NOEMA_OPERATIONS_MAX_BYTES"} {
		if !seen[name] {
			t.Errorf("%s is not listed", name)
		}
	}
}

func TestSwitchBackend(t *testing.T) {
	e := config.Embedder{Backend: "ollama", Model: "bge-m3", URL: "http://h", Dimensions: 1024, APIKeyEnv: "K", BatchSize: 8}
	e.SwitchBackend("ollama")
	if e.Model != "bge-m3" {
		t.Fatalf("same backend cleared the model: %+v", e)
	}
	e.SwitchBackend("openai")
	want := config.Embedder{Backend: "openai", APIKeyEnv: "K", BatchSize: 8}
	if e != want {
		t.Fatalf("SwitchBackend = %+v, want %+v", e, want)
	}
}

func TestConceptsIgnore(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, ".noema"), 0o755); err != nil {
		t.Fatal(err)
	}
	write := func(s string) {
		if err := os.WriteFile(filepath.Join(dir, ".noema", "config.yaml"), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("concepts:\n  ignore: [todo, \"*.png\", \"*.cs\"]\n")
	cfg, err := config.Load(dir, func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	if got := cfg.Concepts.Ignore; len(got) != 3 || got[0] != "todo" || got[2] != "*.cs" {
		t.Errorf("ignore = %q", got)
	}
	write("concepts:\n  ignore: [\"[bad\"]\n")
	if _, err := config.Load(dir, func(string) string { return "" }); err == nil || !strings.Contains(err.Error(), "concepts.ignore") {
		t.Errorf("bad glob: %v", err)
	}
}

func TestStoreSetting(t *testing.T) {
	dir := t.TempDir()
	env := map[string]string{"NOEMA_STORE": "postgres://team:s3cret@db.example:5432/noema?vault=work"}
	cfg, err := config.Load(dir, func(k string) string { return env[k] })
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Store != env["NOEMA_STORE"] {
		t.Fatalf("store %q", cfg.Store)
	}
	env["NOEMA_STORE"] = "mysql://team:s3cret@db/x"
	_, err = config.Load(dir, func(k string) string { return env[k] })
	if err == nil || !strings.Contains(err.Error(), "postgres:// URL") || strings.Contains(err.Error(), "s3cret") {
		t.Fatalf("a store that is no postgres URL: %v", err)
	}
	if got := config.RedactURL("postgres://team:s3cret@db/x?vault=w"); got != "postgres://team:xxxxx@db/x?vault=w" {
		t.Fatalf("RedactURL = %q", got)
	}
}
