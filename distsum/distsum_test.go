package distsum

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

func TestOf(t *testing.T) {
	// 20 values 1..20: median is the 10th (empirical), p95 the 19th.
	var x []float64
	for i := 20; i >= 1; i-- {
		x = append(x, float64(i))
	}
	got := Of(x)
	want := Summary{Min: 1, Mean: 10.5, Median: 10, P95: 19, Max: 20}
	if got != want {
		t.Fatalf("%+v, want %+v", got, want)
	}
	if Of(nil) != (Summary{}) {
		t.Fatal("empty sample")
	}
}

// TestSortEqualsSlicesSort: the radix sort leaves large samples exactly as
// slices.Sort does (bit for bit, -0 and +0 apart), so summaries — the
// mean summed in sorted order included — do not change (issue 30).
func TestSortEqualsSlicesSort(t *testing.T) {
	r := rand.New(rand.NewPCG(30, 1))
	draws := []func() float64{
		func() float64 { return math.Floor(r.ExpFloat64() * 3600) },          // waits: integers, many equal
		func() float64 { return 1 + r.ExpFloat64()*r.Float64()*50 },          // slowdowns
		func() float64 { return r.NormFloat64() * 1e6 },                      // both signs
		func() float64 { return []float64{0, 1, 2, math.Inf(1)}[r.IntN(4)] }, // few values, +Inf
		func() float64 { return math.Ldexp(r.Float64(), r.IntN(2000)-1000) }, // every exponent
		func() float64 { return -math.Inf(1) * float64(r.IntN(2)) },          // -Inf and NaN (0 × -Inf)
	}
	for k, draw := range draws {
		for _, n := range []int{1, radixMin - 1, radixMin, 10_000, 100_003} {
			x := make([]float64, n)
			for i := range x {
				x[i] = draw()
			}
			want := slices.Clone(x)
			slices.Sort(want)
			got := slices.Clone(x)
			Sort(got)
			for i := range got {
				if math.Float64bits(got[i]) != math.Float64bits(want[i]) && !(got[i] == 0 && want[i] == 0) && !(got[i] != got[i] && want[i] != want[i]) {
					t.Fatalf("draw %d, n %d: x[%d] = %g, slices.Sort %g", k, n, i, got[i], want[i])
				}
			}
			if a, b := Of(slices.Clone(x)), Of(want); !(a == b || k == 5) {
				t.Fatalf("draw %d, n %d: summary %+v, sorted by slices.Sort %+v", k, n, a, b)
			}
		}
	}
}

// TestScratchReused: one Scratch sorting samples of several sizes in
// turn (longer, then shorter, then longer again: its buffer's old contents
// in the way) gives every sample the summary a fresh sort gives.
func TestScratchReused(t *testing.T) {
	r := rand.New(rand.NewPCG(30, 3))
	var s Scratch
	for _, n := range []int{100_000, radixMin, 50_000, 7, 100_001} {
		x := make([]float64, n)
		for i := range x {
			x[i] = math.Floor(r.ExpFloat64() * 3600)
		}
		want := Of(slices.Clone(x))
		if got := s.Of(x); got != want {
			t.Fatalf("n %d: reused scratch %+v, fresh %+v", n, got, want)
		}
		if !slices.IsSorted(x) {
			t.Fatalf("n %d: not sorted", n)
		}
	}
}

func BenchmarkOf(b *testing.B) {
	r := rand.New(rand.NewPCG(30, 2))
	x := make([]float64, 1_000_000)
	for i := range x {
		x[i] = math.Floor(r.ExpFloat64() * 3600)
	}
	y := make([]float64, len(x))
	for _, name := range []string{"radix", "slices.Sort"} {
		b.Run(name, func(b *testing.B) {
			for range b.N {
				copy(y, x)
				if name == "radix" {
					Sort(y)
				} else {
					slices.Sort(y)
				}
			}
		})
	}
}
