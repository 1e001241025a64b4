package experiment

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// BenchmarkSweep1000 runs a sweep of 1,020 short simulations (Lublin, 500
// or 5,000 jobs on 64 nodes) into a fresh store, with 1 and 2 workers, and reports
// runs per second: the runner's parallel speed-up (BENCHMARKS.md).
func BenchmarkSweep1000(b *testing.B) {
	for _, jobs := range []int{500, 5000} {
		b.Run(fmt.Sprintf("jobs-%d", jobs), func(b *testing.B) { benchSweep(b, jobs) })
	}
}

func benchSweep(b *testing.B, jobs int) {
	doc := `name: thousand
workload:
  model: lublin
  params: {nodes: 64}
  jobs: JOBS
platform: {nodes: 64}
policies: [fcfs, easy, conservative]
grid:
  workload.params.arrival_scale: [0.6, 0.7, 0.8, 0.9, 1.0, 1.1, 1.2, 1.3, 1.4, 1.5]
replications: {count: 34}
seed: 1
metrics: [mean_wait]
`
	s, err := Parse("bench.yaml", []byte(strings.Replace(doc, "JOBS", fmt.Sprint(jobs), 1)), "")
	if err != nil {
		b.Fatal(err)
	}
	for _, workers := range []int{1, 2} {
		b.Run(fmt.Sprintf("workers-%d", workers), func(b *testing.B) {
			runs := 0
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				dir := b.TempDir()
				st, err := OpenStore(filepath.Join(dir, "s.db"), s, false)
				if err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
				sum, err := Sweep(s, st, Options{Workers: workers})
				if err != nil {
					b.Fatal(err)
				}
				runs += sum.Ran
				b.StopTimer()
				st.Close()
				os.RemoveAll(dir)
				b.StartTimer()
			}
			b.ReportMetric(float64(runs)/b.Elapsed().Seconds(), "runs/s")
		})
	}
}
