package policy_test

import (
	"flag"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gridsched/gridsched/internal/testenv"
	"github.com/gridsched/gridsched/model"
	"github.com/gridsched/gridsched/policy"
	sim "github.com/gridsched/gridsched/simulate"
)

// BenchmarkCatalogue measures every alias's cost per job on the built-in
// workload (workload.Builtin: log-normal run times, estimates 1–4× the run
// time, 20 users; the one `gridsched simulate --jobs` generates) at offered
// load 0.8: a CTC-style machine (430 single-processor nodes, the CTC SP2's
// size, 50,000 jobs) and the 1,024-node machine at 100,000 and 1,000,000
// jobs (the 1M runs only when asked: -bench 'Catalogue/1M'). The workload is generated once per size
// and only simulations are timed. Each iteration runs the policy and then
// easy on the same workload, so that every ratio is measured side by side
// on a shared machine: cpu-ns/job is the policy's CPU time (user + system,
// getrusage) per job and x-easy its CPU time over easy's. A cost per job
// that grows from 100k to 1M is super-linear. GRIDSCHED_BENCH_POLICIES
// (comma-separated) restricts the aliases; GRIDSCHED_BENCH_LOAD sets
// another offered load (one a policy keeps up with, where a policy that
// cannot keep up with 0.8 piles up a queue that grows with the run).
func BenchmarkCatalogue(b *testing.B) {
	names := policy.AliasNames()
	load := 0.8
	if l := os.Getenv("GRIDSCHED_BENCH_LOAD"); l != "" {
		var err error
		if load, err = strconv.ParseFloat(l, 64); err != nil || !(load > 0) {
			b.Fatalf("GRIDSCHED_BENCH_LOAD=%q: want an offered load above 0", l)
		}
	}
	if only := os.Getenv("GRIDSCHED_BENCH_POLICIES"); only != "" {
		names = strings.Split(only, ",")
	}
	for _, size := range []struct {
		name  string
		jobs  int
		nodes int
	}{{"ctc", 50_000, 430}, {"100k", 100_000, 1024}, {"1M", 1_000_000, 1024}} {
		b.Run(size.name, func(b *testing.B) {
			if f := flag.Lookup("test.bench"); size.name == "1M" && (f == nil || !strings.Contains(f.Value.String(), "1M")) {
				b.Skip("the 1M runs only when asked: -bench 'Catalogue/1M'")
			}
			cfg := sim.Config{BuiltinJobs: size.jobs, BuiltinLoad: load, Platform: model.Uniform("u", size.nodes, 1), Nodes: size.nodes}
			wl, plat, err := sim.Load(&cfg)
			if err != nil {
				b.Fatal(err)
			}
			run := func(b *testing.B, pol string) time.Duration {
				c := cfg
				c.Policy = pol
				c0 := testenv.CPUTime()
				r, err := sim.RunLoaded(c, wl, plat)
				if err != nil {
					b.Fatal(err)
				}
				if r.Summary.Completed+r.Summary.Killed != size.jobs {
					b.Fatalf("%d of %d jobs ended", r.Summary.Completed+r.Summary.Killed, size.jobs)
				}
				return testenv.CPUTime() - c0
			}
			for _, pol := range names {
				b.Run(pol, func(b *testing.B) {
					var cpu, easy time.Duration
					for i := 0; i < b.N; i++ {
						cpu += run(b, pol)
						b.StopTimer()
						easy += run(b, "easy")
						b.StartTimer()
					}
					b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N*size.jobs), "cpu-ns/job")
					b.ReportMetric(float64(cpu)/float64(easy), "x-easy")
				})
			}
		})
	}
}
