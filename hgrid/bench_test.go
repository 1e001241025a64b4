package hgrid

import (
	"testing"

	"github.com/gridsched/gridsched/gen"
)

// BenchmarkPaper109 simulates 2,000 seed-004 jobs (s = 3) on the 109-node
// tree under each dispatcher; jobs/s is reported.
func BenchmarkPaper109(b *testing.B) {
	spec, _ := Paper109(0.5)
	tr, err := Build(spec)
	if err != nil {
		b.Fatal(err)
	}
	gp := gen.DefaultGridParams()
	gp.Sites = []float64{1, 1, 1, 1, 1, 1}
	gp.UHi, gp.S = 5, 3
	g, err := gen.NewGrid(gp, 1)
	if err != nil {
		b.Fatal(err)
	}
	jobs := gen.Take(g, 2000)
	for _, d := range Dispatchers {
		b.Run(d, func(b *testing.B) {
			for b.Loop() {
				run(b, tr, d, DefaultParams(), jobs)
			}
			b.ReportMetric(float64(len(jobs))*float64(b.N)/b.Elapsed().Seconds(), "jobs/s")
		})
	}
}
