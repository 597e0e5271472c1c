package corpus_test

import (
	"context"
	"fmt"
	"log"
	"os"

	"github.com/noema-mem/noema/internal/corpus"
)

func ExampleGenerate() {
	dir, err := os.MkdirTemp("", "vault")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)

	m, err := corpus.Generate(context.Background(), dir, corpus.Options{Seed: 42, Notes: 20, LinksPerNote: 5})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(m.Totals.Notes, "notes,", m.Totals.Links, "links")
	fmt.Println(len(m.Notes[0].Targets()), "links in", m.Notes[0].Path)
	// Output:
	// 20 notes, 100 links
	// 5 links in projects/alpha/Notes on Fréchet distance and kraxkoulel.md
}
