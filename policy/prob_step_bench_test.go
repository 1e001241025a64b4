package policy

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// BenchmarkProbRow: one bottleneck row of 801 columns (the 1,024-node
// machine's head and candidate) over R running jobs, step after step
// (one) and as applyFrom computes it (groups of stepG and single steps
// as plan splits them), for single-processor jobs (serial: every step a
// chain through the row) and a mix of 1 to 128 processors.
func BenchmarkProbRow(b *testing.B) {
	for _, p := range []struct {
		name string
		f    func(*rand.Rand) int
	}{{"serial", func(*rand.Rand) int { return 1 }}, {"mixed", func(g *rand.Rand) int { return 1 << g.IntN(8) }}} {
		for _, R := range []int{2, 3, 4, 6, 8, 10, 16} {
			rng := rand.New(rand.NewPCG(1, 2))
			r := make([]int, R)
			q := make([]float64, R)
			for i := range r {
				r[i], q[i] = p.f(rng), rng.Float64()
			}
			row := make([]float64, 801)
			b.Run(fmt.Sprintf("%s/R=%d/one", p.name, R), func(b *testing.B) {
				for b.Loop() {
					clear(row)
					for n := range R {
						step(row, r[n], q[n], n == 0)
					}
				}
			})
			ps := &probState{}
			rr, qq := make([]int, R), make([]float64, R)
			b.Run(fmt.Sprintf("%s/R=%d/grouped", p.name, R), func(b *testing.B) {
				for b.Loop() {
					clear(row)
					row[0] = 1
					copy(rr, r)
					copy(qq, q)
					ps.steps(row, rr, qq, &ps.wbuf)
				}
			})
		}
	}
}

// BenchmarkProbStepCost: what plan's cost estimates (stepCost, groupCost)
// stand for: one step of r processors over n columns, and one group of
// probG steps (stepG), on rows of a coarse row's length (66) and a fine
// row's on the 1,024-node machine (1,025).
func BenchmarkProbStepCost(b *testing.B) {
	for _, n := range []int{66, 1025} {
		row := make([]float64, n)
		for _, r := range []int{1, 2, 3, 4, 8, 16, 64} {
			b.Run(fmt.Sprintf("n=%d/step/r=%d", n, r), func(b *testing.B) {
				for b.Loop() {
					step(row, r, 0.3, true)
				}
			})
		}
		ps := &probState{}
		rs, qs := make([]int, probG), make([]float64, probG)
		for k := range rs {
			rs[k], qs[k] = 1, 0.3
		}
		b.Run(fmt.Sprintf("n=%d/group", n), func(b *testing.B) {
			for b.Loop() {
				row[0] = 1
				ps.stepG(row, rs, qs, &ps.wbuf)
			}
		})
	}
}
