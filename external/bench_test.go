package external_test

import (
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
// context switches of a round trip included.
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
	var builtin time.Duration
	b.Run("builtin-fcfs", func(b *testing.B) {
		for b.Loop() {
			run(policy.NewFCFS(policy.FirstFit{}))
		}
		builtin = b.Elapsed() / time.Duration(b.N)
	})
	b.Run("external-fcfs", func(b *testing.B) {
		argv, _ := external.SplitCommand(helperCommand())
		var decisions int64
		for b.Loop() {
			pol := external.New(external.Command(argv, time.Minute, ""), nil, external.Options{Deadlock: external.DefaultDeadlock})
			run(pol)
			decisions = pol.Decisions()
		}
		per := b.Elapsed() / time.Duration(b.N)
		b.ReportMetric(float64(decisions), "decisions/op")
		if builtin > 0 && decisions > 0 {
			b.ReportMetric(float64(per-builtin)/float64(decisions)/1e3, "µs/decision")
		}
	})
}
