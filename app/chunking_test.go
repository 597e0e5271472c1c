package app_test

import (
	"context"
	"testing"

	"github.com/noema-mem/noema/app"
	"github.com/noema-mem/noema/config"
	"github.com/noema-mem/noema/semantic/chunk"
)

// TestChunkingFromConfig checks that embedder.chunks reaches both the
// semantic service, which cuts the notes, and the search service, which
// reads their chunks under the same key: auto (or nothing) leaves the
// choice to the embedder's kind.
func TestChunkingFromConfig(t *testing.T) {
	for _, tc := range []struct {
		chunks string
		want   chunk.Scheme
	}{
		{"", chunk.Scheme{}},
		{config.ChunksAuto, chunk.Scheme{}},
		{config.ChunksPassages, chunk.Passages()},
		{config.ChunksSections, chunk.Sections()},
	} {
		t.Run("chunks="+tc.chunks, func(t *testing.T) {
			cfg := config.Default()
			cfg.Embedder.Chunks = tc.chunks
			a, err := app.Open(context.Background(), t.TempDir(), app.Options{Config: &cfg})
			if err != nil {
				t.Fatal(err)
			}
			defer a.Close()
			if a.Semantic.Chunking != tc.want || a.Search.Chunking != tc.want {
				t.Errorf("semantic chunking %+v, search chunking %+v, want %+v for both", a.Semantic.Chunking, a.Search.Chunking, tc.want)
			}
		})
	}
}
