package bert

import (
	"math"
	"testing"

	"github.com/noema-mem/noema/embedding/bert/gemm"
)

func TestExpf(t *testing.T) {
	worst := 0.0
	for x := -87.0; x < 88; x += 0.0137 {
		got := float64(gemm.Expf(float32(x)))
		want := math.Exp(float64(float32(x)))
		if rel := math.Abs(got-want) / want; rel > worst {
			worst = rel
		}
	}
	if worst > 3e-7 {
		t.Errorf("expf: worst relative error %g", worst)
	}
	if gemm.Expf(-100) != 0 {
		t.Errorf("gemm.Expf(-100) = %g", gemm.Expf(-100))
	}
}

func TestErff(t *testing.T) {
	worst := 0.0
	for x := -6.0; x < 6; x += 0.001 {
		got := float64(gemm.Erff(float32(x)))
		want := math.Erf(float64(float32(x)))
		if d := math.Abs(got - want); d > worst {
			worst = d
		}
	}
	if worst > 5e-7 {
		t.Errorf("erff: worst absolute error %g", worst)
	}
}
