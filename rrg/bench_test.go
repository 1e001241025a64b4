package rrg

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// BenchmarkAddQNode measures one admission test (algorithm 1) against a
// graph already holding n admitted reservations on 50 resources with
// random windows (seed 000's shapes: window 5–50, flexibility 0.1).
func BenchmarkAddQNode(b *testing.B) {
	for _, n := range []int{10, 100, 1000, 10000} {
		b.Run(fmt.Sprintf("admitted-%d", n), func(b *testing.B) {
			r := rand.New(rand.NewPCG(1, 2))
			g := New()
			for id := 1; id <= 50; id++ {
				g.AddResource(Resource{ID: id, Level: 1 + r.IntN(5), Cost: 1})
			}
			mk := func(id int) *Reservation {
				et := r.Float64() * float64(n) * 2
				w := 5 + r.Float64()*45
				return &Reservation{ID: id, ET: et, LT: et + w, Dur: 0.9 * w, Level: 1 + r.IntN(5)}
			}
			for id := 0; len(g.Reservations()) < n; id++ {
				g.AddQNode(mk(id))
			}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				q := mk(n + i)
				if g.AddQNode(q) {
					b.StopTimer()
					g.Complete(q) // keep the graph at n reservations
					b.StartTimer()
				}
			}
		})
	}
}
