package bert_test

import (
	"context"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/noema-mem/noema"
	"github.com/noema-mem/noema/app"
	"github.com/noema-mem/noema/config"
	"github.com/noema-mem/noema/embedding/bert"
	"github.com/noema-mem/noema/embedding/builtin"
	"github.com/noema-mem/noema/embedding/embeddingtest"
	"github.com/noema-mem/noema/internal/noematest"
	"github.com/noema-mem/noema/notes"
	"github.com/noema-mem/noema/semantic"
)

var e2eModel = flag.String("bert.e2e-model", "", "model folder for the end-to-end test (default testdata/tiny); CI passes the random MiniLM-shaped model (384 dimensions)")

func e2eDir(t *testing.T) (dir string, dim int) {
	dir, dim = "testdata/tiny", 32
	if *e2eModel != "" {
		dir, dim = *e2eModel, 384
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		t.Fatal(err)
	}
	return abs, dim
}

func TestConformance(t *testing.T) {
	dir, _ := e2eDir(t)
	e, err := app.NewEmbedder(config.Embedder{Backend: config.BackendMiniLM, ModelDir: dir}, nil)
	if err != nil {
		t.Fatal(err)
	}
	embeddingtest.Run(t, e)
}

// TestEndToEnd configures the minilm backend on a vault: find_similar_concepts
// and the note chunks use it, the model name and dimension are stored with
// the vectors, and switching to builtin and back re-uses the cached vectors.
func TestEndToEnd(t *testing.T) {
	ctx := context.Background()
	dir, dim := e2eDir(t)
	cfg := config.Default()
	cfg.Embedder.Backend, cfg.Embedder.Model, cfg.Embedder.ModelDir = config.BackendMiniLM, "random-minilm", dir
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	a := noematest.OpenApp(t, "", app.Options{Config: &cfg})
	for _, n := range []struct{ title, body string }{
		{"GC", "The [[Garbage Collector]] and [[Garbage Collection]] in the JVM; [[G1]] is one. " + strings.Repeat("Heap regions are collected concurrently. ", 60)},
		{"Training", "[[Gradient Checkpointing]] trades compute for memory in [[Backpropagation]]."},
		{"Databases", "[[Write-Ahead Log]] and [[PostgreSQL]] durability."},
	} {
		if _, err := a.Notes.Write(ctx, notes.WriteInput{Title: n.title, Content: n.body}); err != nil {
			t.Fatal(err)
		}
	}
	res, err := a.Semantic.FindSimilar(ctx, semantic.SimilarInput{Concept: "Garbage Collector", MaxResults: 10})
	if err != nil {
		t.Fatal(err)
	}
	if res.Embedder != "minilm/random-minilm" || len(res.Results) != 6 || !strings.HasPrefix(res.Meaning, "model embedder") {
		t.Fatalf("find_similar_concepts: %+v", res)
	}
	if p := a.Semantic.Progress(); p.Embedder != "minilm/random-minilm" || p.Dimension != dim || p.Embedded != 7 {
		t.Errorf("progress: %+v", p)
	}
	if err := a.Semantic.RefreshChunks(ctx); err != nil {
		t.Fatal(err)
	}
	total, embedded, err := a.DB.Semantic().CountChunks(ctx, "minilm/random-minilm")
	if err != nil || total < 3 || embedded != total {
		t.Errorf("chunks: %d of %d embedded, %v", embedded, total, err)
	}
	count := func() (rows int, dims string) {
		if err := a.DB.Read().QueryRowContext(ctx, `SELECT COUNT(*), GROUP_CONCAT(DISTINCT model || ':' || dim) FROM embeddings`).Scan(&rows, &dims); err != nil {
			t.Fatal(err)
		}
		return
	}
	rows, dims := count()
	if !strings.Contains(dims, "minilm/random-minilm:") {
		t.Errorf("stored models and dimensions: %s", dims)
	}
	// Switch to builtin and back: the minilm vectors are re-used, none are
	// embedded again.
	minilm := a.Semantic.Embedder
	a.Semantic.Embedder = builtin.New()
	if _, err := a.Semantic.FindSimilar(ctx, semantic.SimilarInput{Concept: "Garbage Collector"}); err != nil {
		t.Fatal(err)
	}
	afterBuiltin, _ := count()
	a.Semantic.Embedder = counting{Embedder: minilm, t: t}
	res2, err := a.Semantic.FindSimilar(ctx, semantic.SimilarInput{Concept: "Garbage Collector", MaxResults: 10})
	if err != nil {
		t.Fatal(err)
	}
	if after, _ := count(); after != afterBuiltin || afterBuiltin <= rows {
		t.Errorf("embedding rows: %d with minilm, %d after builtin, %d back on minilm", rows, afterBuiltin, after)
	}
	if len(res2.Results) != len(res.Results) || res2.Results[0].ID != res.Results[0].ID {
		t.Errorf("back on minilm: %+v, before %+v", res2.Results, res.Results)
	}
}

// counting fails the test if a concept is embedded again (a query text of
// one string is allowed: the concept itself is looked up by name).
type counting struct {
	noema.Embedder
	t *testing.T
}

func (c counting) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	if len(texts) > 1 {
		c.t.Errorf("re-embedded %d texts after switching back", len(texts))
	}
	return c.Embedder.Embed(ctx, texts)
}

// TestNotPulled: a model that is not on disk does not stop noema from
// opening; embedding fails as unavailable with the command that fixes it.
func TestNotPulled(t *testing.T) {
	data := t.TempDir()
	getenv := func(k string) string {
		if k == "XDG_DATA_HOME" {
			return data
		}
		return os.Getenv(k)
	}
	e, err := app.NewEmbedder(config.Embedder{Backend: config.BackendMiniLM}, getenv)
	if err != nil {
		t.Fatal(err)
	}
	if e.Name() != "minilm/all-MiniLM-L6-v2" || e.Dimension() != 384 {
		t.Errorf("name %q, dimension %d", e.Name(), e.Dimension())
	}
	_, err = e.Embed(context.Background(), []string{"x"})
	if noema.ErrorCode(err) != noema.EUNAVAILABLE || !strings.Contains(err.Error(), "noema model pull all-MiniLM-L6-v2") {
		t.Fatalf("Embed without the model: %v", err)
	}
	if _, err := bert.Open("all-MiniLM-L6-v2", "", 768, getenv); noema.ErrorCode(err) != noema.EINVALID {
		t.Errorf("wrong dimension: %v", err)
	}
	// A folder that is there later is picked up without a restart.
	dst := filepath.Join(data, "noema", "models", "all-MiniLM-L6-v2")
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		t.Fatal(err)
	}
	src, _ := filepath.Abs("testdata/tiny")
	if err := os.Symlink(src, dst); err != nil {
		t.Skip("no symlinks:", err)
	}
	if _, err := e.Embed(context.Background(), []string{"x"}); err == nil || !strings.Contains(err.Error(), "32 dimensions") {
		t.Errorf("tiny model under the MiniLM name: %v (want a dimension mismatch)", err)
	}
}
