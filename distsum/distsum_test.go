package distsum

import "testing"

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
