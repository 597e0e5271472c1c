package bert

import (
	"fmt"
	"strings"

	"github.com/noema-mem/noema"
	"github.com/noema-mem/noema/embedding/bert/models"
)

// Open returns the embedder the configuration names (backend minilm):
// model is a model name ("" means models.Default), dir its folder ("" means
// models.Dir(model)), dims the expected dimension (0: the model's own). A
// known model's pooling and maximum length apply unless the folder says
// otherwise. Nothing is read until the first Embed: a folder that is
// missing makes Embed fail with noema.EUNAVAILABLE and a message that says
// how to pull the model. getenv resolves XDG_DATA_HOME (nil: os.Getenv).
func Open(model, dir string, dims int, getenv func(string) string) (*Embedder, error) {
	name := model
	if name == "" && dir == "" {
		name = models.Default
	}
	o := Options{Name: name, Dir: dir, Dimensions: dims}
	if known, ok := models.Lookup(name); ok {
		o.Name = known.Name
		o.Pooling = Pooling(known.Pooling)
		o.MaxLength = known.MaxLength
		if dims != 0 && dims != known.Dimension {
			return nil, noema.Errorf(noema.EINVALID, "minilm embedder: model %s has %d dimensions, not %d", known.Name, known.Dimension, dims)
		}
		o.Dimensions = known.Dimension
	}
	if o.Dir == "" {
		d, err := models.Dir(o.Name, getenv)
		if err != nil {
			return nil, err
		}
		o.Dir = d
	}
	e := New(o)
	if known, ok := models.Lookup(o.Name); ok {
		if e.dim.Load() == 0 {
			e.dim.Store(int64(known.Dimension))
		}
		if missing := models.Missing(known, o.Dir); len(missing) > 0 {
			e.hint = "run 'noema model pull " + known.Name + "' to download it (" + humanBytes(known.Size()) + ")"
			if dir != "" {
				e.hint = "run 'noema model pull " + known.Name + " --dir " + dir + "' to download it (" + humanBytes(known.Size()) + ")"
			}
		}
	} else {
		e.hint = "the folder must hold config.json, tokenizer.json and model.safetensors (known models: " + strings.Join(models.Names(), ", ") + ")"
	}
	return e, nil
}

func humanBytes(n int64) string {
	return fmt.Sprintf("%.0f MB", float64(n)/1e6)
}
