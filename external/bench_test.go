package external_test

import (
	"syscall"
	"testing"
	"time"

	"github.com/gridsched/gridsched/engine"
	"github.com/gridsched/gridsched/external"
	"github.com/gridsched/gridsched/model"
	"github.com/gridsched/gridsched/policy"
	"github.com/gridsched/gridsched/workload"
)

// BenchmarkProtocol measures what deciding over the protocol costs: the
// same FCFS decides in the engine (builtin) and in another process (the
// Go scheduler of these tests, asked at every settled instant) on 20,000
// built-in jobs on 128 processors. The external sub-benchmark reports
// the protocol's overhead per decision request: (its time − the built-in
// run's) / decisions, both sides' encoding and parsing and the two
// context switches of a round trip included, in wall time (µs/decision)
// and in CPU time of both processes (cpu-µs/decision, from getrusage: what
// a loaded machine's wall time hides).
func BenchmarkProtocol(b *testing.B) {
	jobs, err := workload.Builtin(3, 20000, 128, 0.9)
	if err != nil {
		b.Fatal(err)
	}
	p := model.Uniform("128 nodes", 128, 1)
	run := func(pol engine.Policy) {
		e := engine.New(p, jobs, pol, engine.Options{})
		err := e.Run()
		if f, ok := pol.(engine.FinishingPolicy); ok {
			err = f.Finish(e.View(), err)
		}
		if err != nil {
			b.Fatal(err)
		}
	}
	var builtin, builtinCPU time.Duration
	b.Run("builtin-fcfs", func(b *testing.B) {
		c0 := cpuTime()
		for b.Loop() {
			run(policy.NewFCFS(policy.FirstFit{}))
		}
		builtin = b.Elapsed() / time.Duration(b.N)
		builtinCPU = (cpuTime() - c0) / time.Duration(b.N)
	})
	b.Run("external-fcfs", func(b *testing.B) {
		argv, _ := external.SplitCommand(helperCommand())
		var decisions int64
		c0 := cpuTime()
		for b.Loop() {
			pol := external.New(external.Command(argv, time.Minute, ""), nil, external.Options{Deadlock: external.DefaultDeadlock})
			run(pol)
			decisions = pol.Decisions()
		}
		per := b.Elapsed() / time.Duration(b.N)
		perCPU := (cpuTime() - c0) / time.Duration(b.N)
		b.ReportMetric(float64(decisions), "decisions/op")
		if builtin > 0 && decisions > 0 {
			b.ReportMetric(float64(per-builtin)/float64(decisions)/1e3, "µs/decision")
			b.ReportMetric(float64(perCPU-builtinCPU)/float64(decisions)/1e3, "cpu-µs/decision")
		}
	})
}

// cpuTime is the CPU time of this process and of its children that have
// been waited for.
func cpuTime() time.Duration {
	var self, kids syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &self)
	syscall.Getrusage(syscall.RUSAGE_CHILDREN, &kids)
	tv := func(t syscall.Timeval) time.Duration { return time.Duration(t.Nano()) }
	return tv(self.Utime) + tv(self.Stime) + tv(kids.Utime) + tv(kids.Stime)
}
