package semantic_test

import (
	"testing"

	"github.com/noema-mem/noema/app"
	"github.com/noema-mem/noema/config"
	"github.com/noema-mem/noema/embedding"
)

func builtinAgain(t testing.TB, _ *app.App) embedding.Embedder {
	t.Helper()
	e, err := embedding.New(config.Default().Embedder, nil)
	if err != nil {
		t.Fatal(err)
	}
	return e
}
