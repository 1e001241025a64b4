package policy

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// BenchmarkProbRow: one bottleneck row of 801 columns (the 1,024-node
// machine's head and candidate) over R running jobs, step after step
// (one) and as applyFrom computes it (groups of stepG, the last one or
// two steps alone), for single-processor jobs (serial: every step a
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
