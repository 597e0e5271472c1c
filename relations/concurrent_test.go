package relations_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/noema-mem/noema/app"
	"github.com/noema-mem/noema/internal/noematest"
	"github.com/noema-mem/noema/notes"
	"github.com/noema-mem/noema/relations"
)

// TestConcurrentCreatesAllStored creates relations from one concept at
// once through two services on one vault (two servers): every acknowledged
// relation must be stored, and none may fail.
func TestConcurrentCreatesAllStored(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir() + "/vault"
	a := noematest.OpenApp(t, dir, app.Options{})
	b := noematest.OpenApp(t, dir, app.Options{})
	const n = 24
	var body string
	for i := range n {
		body += fmt.Sprintf("[[Target %d]] ", i)
	}
	noematest.WriteNote(t, a, notes.WriteInput{Title: "Seed", Content: "[[Hub]] " + body})
	ids := make([]string, n)
	errs := noematest.Concurrently(n, func(i int) error {
		svc := a.Relations
		if i%2 == 1 {
			svc = b.Relations
		}
		r, err := svc.Create(ctx, relations.CreateInput{From: "Hub", Type: "relates_to", To: fmt.Sprintf("Target %d", i)})
		if r != nil {
			ids[i] = r.ID
		}
		return err
	})
	for i, err := range errs {
		if err != nil {
			t.Errorf("create %d: %v", i, err)
		}
	}
	if _, err := b.Indexer.Sync(ctx, nil); err != nil {
		t.Fatal(err)
	}
	for i, id := range ids {
		if id == "" {
			continue
		}
		if _, err := a.Relations.Get(ctx, id); err != nil {
			t.Errorf("acknowledged relation %d (%s) lost: %v", i, id, err)
		}
	}
}
