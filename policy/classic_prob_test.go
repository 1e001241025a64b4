package policy

import (
	"math"
	"testing"

	"pgregory.net/rapid"
)

// stepRef is the recurrence's step as pyss writes it: one loop over the
// columns, each updated in place from the column r below as this step
// left it.
func stepRef(row []float64, r int, q float64, first bool) {
	if first {
		row[0] = 1
	}
	for cc := 1; cc < len(row); cc++ {
		if cc < r {
			row[cc] += (1 - row[cc]) * q
		} else {
			row[cc] += (row[cc-r] - row[cc]) * q
		}
	}
}

// TestPropertyStepEqualsRef: the split step gives pyss's loop's values
// bit for bit, for any row, processor count (0, 1, below, at and beyond
// the row's length) and Q, applied step after step.
func TestPropertyStepEqualsRef(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(1, 40).Draw(t, "len")
		a := make([]float64, n)
		b := make([]float64, n)
		for s, steps := 0, rapid.IntRange(1, 12).Draw(t, "steps"); s < steps; s++ {
			r := rapid.IntRange(0, n+2).Draw(t, "procs")
			q := rapid.Float64Range(0, 1).Draw(t, "q")
			if rapid.IntRange(0, 4).Draw(t, "q01") == 0 {
				q = float64(rapid.IntRange(0, 1).Draw(t, "q01v"))
			}
			stepRef(a, r, q, s == 0)
			step(b, r, q, s == 0)
			for i := range a {
				if math.Float64bits(a[i]) != math.Float64bits(b[i]) {
					t.Fatalf("step %d (r=%d, q=%v): column %d = %v, pyss's loop %v", s, r, q, i, b[i], a[i])
				}
			}
		}
	})
}
