package cloud

import (
	"testing"

	"github.com/gridsched/gridsched/gen"
)

// BenchmarkRun100k: one paper-scale run (100,000 jobs, q = 0.5, λ = 2.5,
// AFCFS, first-fit migration, XFactor 10, elastic pool).
func BenchmarkRun100k(b *testing.B) {
	gp := gen.DefaultGangParams()
	gp.Lambda, gp.Q = 2.5, 0.5
	g, err := gen.NewGang(gp, 1)
	if err != nil {
		b.Fatal(err)
	}
	jobs := Hours(gen.Take(g, 100000))
	for b.Loop() {
		s, err := New(jobs, DefaultParams(), 1)
		if err != nil {
			b.Fatal(err)
		}
		if err := s.Run(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(jobs))*float64(b.N)/b.Elapsed().Seconds(), "jobs/s")
}

// BenchmarkOverloaded: the overloaded setting (ALF off: the pool never
// grows past the largest job, 32 VMs, while q = 0.5, λ = 2.5 keep about
// 41 VMs busy), where the waiting list grows to tens of thousands of
// jobs; 100,000 jobs.
func BenchmarkOverloaded(b *testing.B) {
	gp := gen.DefaultGangParams()
	gp.Lambda, gp.Q = 2.5, 0.5
	g, err := gen.NewGang(gp, 1)
	if err != nil {
		b.Fatal(err)
	}
	jobs := Hours(gen.Take(g, 100000))
	p := DefaultParams()
	p.ALF = 0
	for b.Loop() {
		s, err := New(jobs, p, 1)
		if err != nil {
			b.Fatal(err)
		}
		if err := s.Run(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(jobs))*float64(b.N)/b.Elapsed().Seconds(), "jobs/s")
}

// BenchmarkOverloadedReference: the same overloaded setting under the
// reference scheduler (a scan of every waiting job at every instant), on
// 20,000 jobs: its time grows with the square of the run's length.
func BenchmarkOverloadedReference(b *testing.B) {
	gp := gen.DefaultGangParams()
	gp.Lambda, gp.Q = 2.5, 0.5
	g, err := gen.NewGang(gp, 1)
	if err != nil {
		b.Fatal(err)
	}
	jobs := Hours(gen.Take(g, 20000))
	p := DefaultParams()
	p.ALF = 0
	for b.Loop() {
		s, err := New(jobs, p, 1)
		if err != nil {
			b.Fatal(err)
		}
		s.naive = true
		if err := s.Run(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(jobs))*float64(b.N)/b.Elapsed().Seconds(), "jobs/s")
}
