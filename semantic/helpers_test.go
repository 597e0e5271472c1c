package semantic_test

import (
	"testing"

	"github.com/noema-mem/noema"
	"github.com/noema-mem/noema/app"
	"github.com/noema-mem/noema/config"
)

func builtinAgain(t testing.TB, _ *app.App) noema.Embedder {
	t.Helper()
	e, err := app.NewEmbedder(config.Default().Embedder, nil)
	if err != nil {
		t.Fatal(err)
	}
	return e
}
