package noematest

import (
	"context"
	"strings"
	"testing"

	"github.com/noema-mem/noema/app"
	"github.com/noema-mem/noema/internal/corpus"
)

// EmbeddedApp generates a vault with opts, opens and syncs it (see
// SyncedApp) and embeds its notes' chunks with the app's embedder: the
// vault the search and recall benchmarks measure.
func EmbeddedApp(tb testing.TB, opts corpus.Options) (*app.App, *corpus.Manifest) {
	tb.Helper()
	a, m := SyncedApp(tb, opts, app.Options{})
	if err := a.Semantic.RefreshChunks(context.Background()); err != nil {
		tb.Fatal(err)
	}
	return a, m
}

// RecallQueries returns the search_notes queries and build_context
// concepts the benchmarks ask of a generated vault: 50 of each, drawn from
// its concept labels as an agent asks — one label, two labels, or a label
// in a question.
func RecallQueries(m *corpus.Manifest) (queries, concepts []string) {
	for i := 0; i < 50; i++ {
		c1 := m.Concepts[(i*37)%len(m.Concepts)].Label
		c2 := m.Concepts[(i*101+7)%min(len(m.Concepts), 200)].Label
		concepts = append(concepts, c1)
		switch i % 3 {
		case 0:
			queries = append(queries, c1)
		case 1:
			queries = append(queries, c1+" "+c2)
		default:
			queries = append(queries, "how does "+strings.ToLower(c2)+" relate to notes")
		}
	}
	return queries, concepts
}
