package tools

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/noema-mem/noema"
	"github.com/noema-mem/noema/embedding/bert/models"
)

// ModelPullInput names the models to download.
type ModelPullInput struct {
	Names []string `json:"names,omitempty" jsonschema:"all-MiniLM-L6-v2 (91 MB, the minilm default; pulled when no name is given) and/or bge-small-en-v1.5 (133 MB)" cli:"arg=NAME,optional"`
	Dir   string   `json:"dir,omitempty" jsonschema:"download into this folder instead of $XDG_DATA_HOME/noema/models/NAME (then set embedder.model_dir to it); one model only"`
}

// ModelPullResult reports each model pulled.
type ModelPullResult struct {
	Models []*models.Result `json:"models"`
}

// ModelListInput takes no arguments.
type ModelListInput struct{}

// ModelInfo is a known model and whether it is on disk.
type ModelInfo struct {
	Name      string `json:"name"`
	Repo      string `json:"repo"`
	Revision  string `json:"revision"`
	Pooling   string `json:"pooling"`
	Dimension int    `json:"dimension"`
	MaxTokens int    `json:"max_tokens"`
	Bytes     int64  `json:"bytes"`
	License   string `json:"license"`
	Dir       string `json:"dir"`
	Present   bool   `json:"present"`
}

// ModelList lists the known models.
type ModelList struct {
	Models []ModelInfo `json:"models"`
}

// hubEndpoint is the hub's address: $HF_ENDPOINT (as the Hugging Face
// tools read it, for a mirror), else the hub.
func hubEndpoint() string {
	if u := os.Getenv("HF_ENDPOINT"); u != "" {
		return u
	}
	return models.DefaultBaseURL
}

func modelTools() []*Tool {
	return []*Tool{
		New(Def{
			Command: "model pull", Title: "Download a sentence-embedding model", Hints: idempotent,
			Description: "Download a known sentence-embedding model (the files of the Hugging Face repository at a pinned revision, each checked against its pinned SHA-256) for the minilm embedder: embedder: {backend: minilm, model: NAME} in .noema/config.yaml, or NOEMA_EMBEDDER=minilm. An interrupted download resumes where it stopped; files already there are kept. Needs network access to the hub ($HF_ENDPOINT names a mirror).",
		}, func(ctx context.Context, e *Env, in ModelPullInput) (*ModelPullResult, error) {
			names := in.Names
			if len(names) == 0 {
				names = []string{models.Default}
			}
			if in.Dir != "" && len(names) > 1 {
				return nil, noema.Errorf(noema.EINVALID, "--dir takes one model, not %d", len(names))
			}
			var todo []models.Model
			for _, name := range names {
				m, ok := models.Lookup(name)
				if !ok {
					return nil, noema.Errorf(noema.EINVALID, "unknown model %q (known: %s)", name, strings.Join(models.Names(), ", "))
				}
				todo = append(todo, m)
			}
			out := &ModelPullResult{}
			for _, m := range todo {
				dir := in.Dir
				if dir == "" {
					var err error
					if dir, err = models.Dir(m.Name, nil); err != nil {
						return nil, err
					}
				}
				var progress func(done, total int64)
				if e.Progress != nil {
					progress = func(done, total int64) { e.Progress(int(done), int(total)) }
				}
				res, err := models.Pull(ctx, m, dir, models.PullOptions{BaseURL: hubEndpoint(), Progress: progress, Retries: 3})
				if err != nil {
					return nil, err
				}
				out.Models = append(out.Models, res)
			}
			return out, nil
		}, textModelPull),

		New(Def{
			Command: "model list", Title: "List sentence-embedding models", Hints: idempotent,
			Description: "The models 'noema model pull' can download for the minilm embedder, their size, pooling and dimension, and whether each is on disk.",
		}, func(ctx context.Context, e *Env, _ ModelListInput) (*ModelList, error) {
			out := &ModelList{Models: []ModelInfo{}}
			for _, m := range models.Known {
				dir, err := models.Dir(m.Name, nil)
				if err != nil {
					return nil, err
				}
				out.Models = append(out.Models, ModelInfo{
					Name: m.Name, Repo: m.Repo, Revision: m.Revision, Pooling: m.Pooling, Dimension: m.Dimension,
					MaxTokens: m.MaxLength, Bytes: m.Size(), License: m.License, Dir: dir, Present: len(models.Missing(m, dir)) == 0,
				})
			}
			return out, nil
		}, textModelList),
	}
}

func textModelPull(w io.Writer, res *ModelPullResult) {
	for _, r := range res.Models {
		fmt.Fprintf(w, "%s: %s, checksums verified (%.1f MB downloaded, %.1f MB in all)\n",
			r.Model, r.Dir, float64(r.Downloaded)/1e6, float64(r.Bytes)/1e6)
		fmt.Fprintf(w, "  use it: embedder: {backend: minilm, model: %s} in .noema/config.yaml, or NOEMA_EMBEDDER=minilm NOEMA_EMBED_MODEL=%s\n", r.Model, r.Model)
	}
}

func textModelList(w io.Writer, l *ModelList) {
	for _, m := range l.Models {
		state := "not downloaded"
		if m.Present {
			state = "downloaded"
		}
		fmt.Fprintf(w, "%-20s %4d dims, %s pooling, %d tokens, %.0f MB, %s: %s (%s)\n", m.Name, m.Dimension, m.Pooling, m.MaxTokens, float64(m.Bytes)/1e6, m.License, state, m.Dir)
	}
}
