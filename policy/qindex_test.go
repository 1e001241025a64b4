package policy

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestDown32: an inner node's estimate is the largest float32 at most the
// subtree's smallest estimate, so pruning by it never skips a job that
// could pass the exact test (issue 30, target 5).
func TestDown32(t *testing.T) {
	r := rand.New(rand.NewPCG(30, 5))
	xs := []float64{0, 1, 3600, 1e-300, math.MaxFloat32, math.MaxFloat64, math.Inf(1), 16777217, 0.1, 86400.5}
	for range 100_000 {
		xs = append(xs, math.Ldexp(r.Float64(), r.IntN(300)-150))
	}
	for _, x := range xs {
		f := down32(x)
		if float64(f) > x {
			t.Fatalf("down32(%g) = %g, above it", x, f)
		}
		if up := math.Nextafter32(f, float32(math.Inf(1))); !math.IsInf(x, 1) && float64(up) <= x {
			t.Fatalf("down32(%g) = %g, but %g is at most %g too", x, f, up, x)
		}
		if math.IsInf(x, 1) && !math.IsInf(float64(f), 1) {
			t.Fatalf("down32(+Inf) = %g", f)
		}
	}
}
