package vector_test

import (
	"fmt"

	"github.com/noema-mem/noema/vector"
)

func ExampleIndex_Search() {
	x := vector.New(3)
	x.Set(1, []float32{1, 0, 0})
	x.Set(2, []float32{1, 1, 0}) // stored normalized
	x.Set(3, []float32{0, 0, 1})
	x.Set(4, []float32{2, 0, 0}) // same direction as 1

	for _, h := range x.Search([]float32{1, 0.1, 0}, 3, nil) {
		fmt.Printf("%d %.3f\n", h.ID, h.Score)
	}
	notOne := func(id int64) bool { return id != 1 }
	fmt.Println(x.Search([]float32{1, 0, 0}, 1, notOne))
	// Output:
	// 1 0.995
	// 4 0.995
	// 2 0.774
	// [{4 1}]
}
