package builtin_test

import (
	"context"
	"fmt"

	"github.com/noema-mem/noema/embedding/builtin"
	"github.com/noema-mem/noema/vector"
)

func Example() {
	e := builtin.New()
	vecs, _ := e.Embed(context.Background(), []string{
		"gradient checkpointing", "Gradient-Checkpoints", "memory leak", "car", "automobile", "!!!",
	})
	fmt.Println(e.Name(), e.Dimension())
	fmt.Printf("spelling:  %.2f\n", vector.Cosine(vecs[0], vecs[1]))
	fmt.Printf("unrelated: %.2f\n", vector.Cosine(vecs[0], vecs[2]))
	fmt.Printf("synonyms:  %.2f (not its job)\n", vector.Cosine(vecs[3], vecs[4]))
	fmt.Println("no letters is degenerate:", vector.IsDegenerate(vecs[5]))
	// Output:
	// builtin/ngram-v1 384
	// spelling:  0.83
	// unrelated: 0.03
	// synonyms:  0.00 (not its job)
	// no letters is degenerate: true
}
