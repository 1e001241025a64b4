package policy_test

import (
	"testing"

	"github.com/gridsched/gridsched/model"
	"github.com/gridsched/gridsched/policy"
	sim "github.com/gridsched/gridsched/simulate"
)

// BenchmarkCatalogue measures every alias's cost per job (ns/job) on the
// built-in Lublin–Feitelson workload at offered load 0.8: a CTC-style
// machine (430 single-processor nodes, the CTC SP2's size, 50,000 jobs)
// and the 1,024-node machine at 100,000 and 1,000,000 jobs (the 1M runs
// only when asked: -bench 'Catalogue/1M'). A cost per job that grows from
// 100k to 1M is super-linear.
func BenchmarkCatalogue(b *testing.B) {
	for _, size := range []struct {
		name  string
		jobs  int
		nodes int
	}{{"ctc", 50_000, 430}, {"100k", 100_000, 1024}, {"1M", 1_000_000, 1024}} {
		b.Run(size.name, func(b *testing.B) {
			for _, pol := range policy.AliasNames() {
				b.Run(pol, func(b *testing.B) {
					for i := 0; i < b.N; i++ {
						r, err := sim.Run(sim.Config{Policy: pol, BuiltinJobs: size.jobs, BuiltinLoad: 0.8, Platform: model.Uniform("u", size.nodes, 1), Nodes: size.nodes})
						if err != nil {
							b.Fatal(err)
						}
						if r.Summary.Completed+r.Summary.Killed != size.jobs {
							b.Fatalf("%d of %d jobs ended", r.Summary.Completed+r.Summary.Killed, size.jobs)
						}
					}
					b.ReportMetric(b.Elapsed().Seconds()*1e9/float64(b.N*size.jobs), "ns/job")
				})
			}
		})
	}
}
