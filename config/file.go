package config

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/noema-mem/noema/decay"
)

// fileConfig is the schema of config.yaml. Its yaml tags are the file's
// keys; unknownKeys checks a document against them.
type fileConfig struct {
	Embedder      fileEmbedder `yaml:"embedder"`
	Decay         fileDecay    `yaml:"decay"`
	MaxNoteBytes  byteSize     `yaml:"max_note_bytes"`
	WatchDebounce duration     `yaml:"watch_debounce"`
	Concepts      fileConcepts `yaml:"concepts"`
	Store         string       `yaml:"store"`
	Operations    fileOps      `yaml:"operations"`
}

type fileOps struct {
	MaxAge   duration `yaml:"max_age"`
	MaxBytes byteSize `yaml:"max_bytes"`
}

type fileConcepts struct {
	Ignore []string `yaml:"ignore"`
}

type fileEmbedder struct {
	Backend    string   `yaml:"backend"`
	Model      string   `yaml:"model"`
	URL        string   `yaml:"url"`
	ModelDir   string   `yaml:"model_dir"`
	APIKeyEnv  string   `yaml:"api_key_env"`
	Dimensions int      `yaml:"dimensions"`
	BatchSize  int      `yaml:"batch_size"`
	Timeout    duration `yaml:"timeout"`
	MaxRetries int      `yaml:"max_retries"`
	Chunks     string   `yaml:"chunks"`
}

type fileDecay struct {
	Function     string             `yaml:"function"`
	GraceDays    float64            `yaml:"grace_days"`
	HalfLifeDays float64            `yaml:"half_life_days"`
	FolderGrace  map[string]float64 `yaml:"folder_grace"`
	Disabled     bool               `yaml:"disabled"`
}

// duration is a time.Duration written as "300ms", "2s", "1m30s".
type duration time.Duration

// UnmarshalYAML implements yaml.Unmarshaler.
func (d *duration) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind != yaml.ScalarNode {
		return fmt.Errorf("line %d: want a duration such as 300ms or 2s", n.Line)
	}
	v, err := time.ParseDuration(strings.TrimSpace(n.Value))
	if err != nil {
		return fmt.Errorf("line %d: %q is not a duration (examples: 300ms, 2s, 1m; a unit is required)", n.Line, n.Value)
	}
	*d = duration(v)
	return nil
}

// byteSize is a size in bytes, written as a number or with a unit.
type byteSize int64

// UnmarshalYAML implements yaml.Unmarshaler.
func (b *byteSize) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind != yaml.ScalarNode {
		return fmt.Errorf("line %d: want a size such as 1048576 or 1MiB", n.Line)
	}
	v, err := parseBytes(n.Value)
	if err != nil {
		return fmt.Errorf("line %d: %v", n.Line, err)
	}
	*b = byteSize(v)
	return nil
}

// parseFile overlays the YAML document data on cfg. It reports every
// unknown key at once, then any ill-typed value.
func parseFile(cfg *Config, data []byte) error {
	var doc yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return nil // empty file
		}
		return cleanYAMLError(err)
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); !errors.Is(err, io.EOF) {
		return errors.New("more than one YAML document")
	}
	if len(doc.Content) == 0 || doc.Content[0].Tag == "!!null" {
		return nil // comments only, or an explicit null
	}
	root := doc.Content[0]
	if root.Kind != yaml.MappingNode {
		return fmt.Errorf("line %d: the file must be a mapping of keys (embedder, decay, …)", root.Line)
	}
	if unknown := unknownKeys(root, reflect.TypeFor[fileConfig](), ""); len(unknown) > 0 {
		return fmt.Errorf("unknown key%s %s", plural(len(unknown)), strings.Join(unknown, ", "))
	}

	fc := toFile(*cfg)
	fc.Decay.FolderGrace = nil // the file's map replaces the default one
	if err := root.Decode(&fc); err != nil {
		return cleanYAMLError(err)
	}
	*cfg = fromFile(fc)
	return nil
}

// unknownKeys returns "path.key (line N; valid: …)" for every mapping key of
// n that t has no yaml field for, recursing into struct-typed fields.
func unknownKeys(n *yaml.Node, t reflect.Type, path string) []string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if n.Kind != yaml.MappingNode || t.Kind() != reflect.Struct {
		return nil
	}
	fields := map[string]reflect.Type{}
	var valid []string
	for i := range t.NumField() {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("yaml"), ",")
		if name != "" && name != "-" {
			fields[name] = t.Field(i).Type
			valid = append(valid, name)
		}
	}
	var out []string
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		ft, ok := fields[k.Value]
		if !ok {
			out = append(out, fmt.Sprintf("%s%s (line %d; valid keys here: %s)", path, k.Value, k.Line, strings.Join(valid, ", ")))
			continue
		}
		out = append(out, unknownKeys(v, ft, path+k.Value+".")...)
	}
	return out
}

// cleanYAMLError drops the library's "yaml: " prefixes and the Go type
// names from decoding errors. Decoding errors are a *yaml.TypeError, one
// message per field; the library has no type for syntax errors, whose text
// only loses its prefix.
func cleanYAMLError(err error) error {
	var msg string
	if te := (*yaml.TypeError)(nil); errors.As(err, &te) {
		msg = strings.Join(te.Errors, "; ")
	} else {
		msg = strings.TrimPrefix(err.Error(), "yaml: ")
	}
	for _, r := range [][2]string{
		{"config.duration", "duration"}, {"config.byteSize", "size"},
		{"map[string]float64", "a mapping of folder prefixes to days"},
	} {
		msg = strings.ReplaceAll(msg, r[0], r[1])
	}
	return errors.New(msg)
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

func toFile(c Config) fileConfig {
	e := c.Embedder
	return fileConfig{
		Embedder: fileEmbedder{
			Backend: e.Backend, Model: e.Model, URL: e.URL, ModelDir: e.ModelDir, APIKeyEnv: e.APIKeyEnv,
			Dimensions: e.Dimensions, BatchSize: e.BatchSize, Timeout: duration(e.Timeout), MaxRetries: e.MaxRetries,
			Chunks: e.Chunks,
		},
		Decay: fileDecay{
			Function: string(c.Decay.Func), GraceDays: c.Decay.GraceDays, HalfLifeDays: c.Decay.HalfLifeDays,
			FolderGrace: c.Decay.FolderGrace, Disabled: c.Decay.Disabled,
		},
		MaxNoteBytes:  byteSize(c.MaxNoteBytes),
		WatchDebounce: duration(c.WatchDebounce),
		Concepts:      fileConcepts{Ignore: c.Concepts.Ignore},
		Store:         c.Store,
		Operations:    fileOps{MaxAge: duration(c.Operations.MaxAge), MaxBytes: byteSize(c.Operations.MaxBytes)},
	}
}

func fromFile(f fileConfig) Config {
	e := f.Embedder
	return Config{
		Embedder: Embedder{
			Backend: e.Backend, Model: e.Model, URL: e.URL, ModelDir: e.ModelDir, APIKeyEnv: e.APIKeyEnv,
			Dimensions: e.Dimensions, BatchSize: e.BatchSize, Timeout: time.Duration(e.Timeout), MaxRetries: e.MaxRetries,
			Chunks: e.Chunks,
		},
		Decay: decay.Config{
			Func: decay.Func(f.Decay.Function), GraceDays: f.Decay.GraceDays, HalfLifeDays: f.Decay.HalfLifeDays,
			FolderGrace: f.Decay.FolderGrace, Disabled: f.Decay.Disabled,
		},
		MaxNoteBytes:  int64(f.MaxNoteBytes),
		WatchDebounce: time.Duration(f.WatchDebounce),
		Concepts:      Concepts{Ignore: f.Concepts.Ignore},
		Store:         f.Store,
		Operations:    Operations{MaxAge: time.Duration(f.Operations.MaxAge), MaxBytes: int64(f.Operations.MaxBytes)},
	}
}
