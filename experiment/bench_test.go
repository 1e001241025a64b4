package experiment

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gridsched/gridsched/internal/testenv"
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

// sweepScalingSpec is the sweep of issue 19's target 5: 1,000 small runs
// (Lublin, 500 jobs on 64 nodes, FCFS and EASY, 10 arrival scales × 50
// replications), each a few milliseconds, so per-run overhead (workload
// generation, garbage collection, the store's commits) decides how the
// runner scales. scripts/sweep-scaling.sh runs the same spec through
// gridsched run.
const sweepScalingSpec = `name: sweep1000
workload:
  model: lublin
  params: {nodes: 64}
  jobs: 500
platform: {nodes: 64}
policies: [fcfs, easy]
grid:
  workload.params.arrival_scale: [0.6, 0.7, 0.8, 0.9, 1.0, 1.1, 1.2, 1.3, 1.4, 1.5]
replications: {count: 50}
seed: 1
metrics: [mean_wait, mean_bsld, utilization]
`

// BenchmarkSweepScaling runs the 1,000-run sweep into a fresh store with 1
// and 2 workers and reports runs per second and the process's CPU seconds
// (user + sys) per sweep: speed-up = runs/s(2) / runs/s(1).
func BenchmarkSweepScaling(b *testing.B) {
	s, err := Parse("sweep1000.yaml", []byte(sweepScalingSpec), "")
	if err != nil {
		b.Fatal(err)
	}
	for _, workers := range []int{1, 2} {
		b.Run(fmt.Sprintf("workers-%d", workers), func(b *testing.B) {
			runs := 0
			var cpu time.Duration
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				dir := b.TempDir()
				st, err := OpenStore(filepath.Join(dir, "s.db"), s, false)
				if err != nil {
					b.Fatal(err)
				}
				c0 := testenv.CPUTime()
				b.StartTimer()
				sum, err := Sweep(s, st, Options{Workers: workers})
				if err != nil {
					b.Fatal(err)
				}
				if err := st.Close(); err != nil {
					b.Fatal(err)
				}
				b.StopTimer()
				cpu += testenv.CPUTime() - c0
				runs += sum.Ran
				os.RemoveAll(dir)
				b.StartTimer()
			}
			b.ReportMetric(float64(runs)/b.Elapsed().Seconds(), "runs/s")
			b.ReportMetric(cpu.Seconds()/float64(b.N), "cpu-s/op")
		})
	}
}

// BenchmarkFig89 runs single configurations of the built-in
// easy-unstable-fig89 and -fig89-blue (replication 0, u updated on the
// delaying machines), those that cost most at paper scale: the large
// platforms, where every start ordered all idle nodes (issue 19, target
// 6). Needs the shared traces.
func BenchmarkFig89(b *testing.B) {
	specs := map[string]*Spec{}
	for _, name := range []string{"easy-unstable-fig89", "easy-unstable-fig89-blue"} {
		s, err := LoadBuiltin(name, "")
		if err != nil {
			b.Fatal(err)
		}
		if err := s.CheckFiles(); err != nil {
			b.Skip(err)
		}
		specs[name] = s
	}
	cases := []struct{ name, spec, trace, nodes, sel, pol string }{
		{"BLUE-1600-random-easy", "easy-unstable-fig89-blue", "", "1600", "random", "easy"},
		{"Par-1000-random-easy", "easy-unstable-fig89", "SDSC-Par", "1000", "random", "easy"},
		{"Par-1000-u-single", "easy-unstable-fig89", "SDSC-Par", "1000", "u", "easy-single"},
		{"Atlas-3000-random-easy", "easy-unstable-fig89", "LLNL-Atlas", "3000", "random", "easy"},
		{"Atlas-3000-expected-single", "easy-unstable-fig89", "LLNL-Atlas", "3000", "expected", "easy-single"},
		// The largest platform, every node choice (issue 30: the pass
		// over every idle node was 93 % of these runs), and 1,000 nodes
		// to compare with.
		{"Atlas-1000-u-easy", "easy-unstable-fig89", "LLNL-Atlas", "1000", "u", "easy"},
		{"Atlas-1000-expected-easy", "easy-unstable-fig89", "LLNL-Atlas", "1000", "expected", "easy"},
		{"Atlas-27000-random-easy", "easy-unstable-fig89", "LLNL-Atlas", "27000", "random", "easy"},
		{"Atlas-27000-u-easy", "easy-unstable-fig89", "LLNL-Atlas", "27000", "u", "easy"},
		{"Atlas-27000-u-single", "easy-unstable-fig89", "LLNL-Atlas", "27000", "u", "easy-single"},
		{"Atlas-27000-expected-easy", "easy-unstable-fig89", "LLNL-Atlas", "27000", "expected", "easy"},
	}
	for _, bc := range cases {
		s := specs[bc.spec]
		cfgs := s.Configs()
		b.Run(bc.name, func(b *testing.B) {
			var c *Config
			for i := range cfgs {
				p := cfgs[i].Param
				if strings.Contains(p("workload.trace"), bc.trace) && p("platform.nodes") == bc.nodes && p("node_select") == bc.sel &&
					p("policy") == bc.pol && p("instability.u_update") == "delaying" && (p("workload.skip") == "" || p("workload.skip") == "0") {
					c = &cfgs[i]
					break
				}
			}
			if c == nil {
				b.Fatalf("no configuration %s", bc.name)
			}
			c0 := testenv.CPUTime()
			for i := 0; i < b.N; i++ {
				if _, err := s.Execute(s.NewRun(c, 0), NewCache()); err != nil {
					b.Fatal(err)
				}
			}
			// CPU time too: wall time means little on a loaded machine.
			b.ReportMetric((testenv.CPUTime()-c0).Seconds()/float64(b.N), "cpu-s/op")
		})
	}
}
