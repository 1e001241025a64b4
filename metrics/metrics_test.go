package metrics_test

import (
	"math"
	"testing"

	"github.com/gridsched/gridsched/engine"
	. "github.com/gridsched/gridsched/internal/simtest"
	"github.com/gridsched/gridsched/metrics"
	"github.com/gridsched/gridsched/model"
	"github.com/gridsched/gridsched/policy"
)

// TestSummaryByHand computes the metrics of facts §2c on the classic
// backfilling case (policy.TestClassicBackfill) under EASY:
//
//	J1 submit 0, 2 procs, runs [0,10)   wait 0 response 10 bsld max(1,10/10)=1
//	J2 submit 1, 4 procs, runs [10,15)  wait 9 response 14 bsld 14/max(5,10)=1.4
//	J3 submit 2, 2 procs, runs [2,7)    wait 0 response 5  bsld max(1,5/10)=1
//
// busy = 2·10 + 4·5 + 2·5 = 50 processor-seconds over 4 × 15 available:
// utilization 5/6; makespan 15; throughput 3 jobs / 15 s = 720 per hour.
func TestSummaryByHand(t *testing.T) {
	series := &metrics.Series{}
	e := engine.New(model.Uniform("t", 4, 1), Jobs(
		J(1).At(0).Procs(2).Run(10).Est(10),
		J(2).At(1).Procs(4).Run(5).Est(5),
		J(3).At(2).Procs(2).Run(5).Est(5),
	), policy.NewEASY(policy.FirstFit{}), engine.Options{})
	e.Observe(series)
	if err := e.Run(); err != nil {
		t.Fatal(err)
	}
	recs := metrics.Records(e.Jobs())
	s := metrics.Summarize(recs, 4, series)
	near := func(name string, got, want float64) {
		if math.Abs(got-want) > 1e-9 {
			t.Errorf("%s = %g, want %g", name, got, want)
		}
	}
	near("mean wait", s.Wait.Mean, 3)
	near("median wait", s.Wait.Median, 0)
	near("max wait", s.Wait.Max, 9)
	near("mean response", s.Response.Mean, 29.0/3)
	near("mean bsld", s.BSLD.Mean, 3.4/3)
	near("max bsld", s.BSLD.Max, 1.4)
	near("utilization", s.Utilization, 50.0/60)
	near("makespan", s.Makespan, 15)
	near("throughput", s.Throughput, 720)
	if s.Completed != 3 || s.Jobs != 3 {
		t.Errorf("counts %+v", s)
	}
	// The same utilization without the series (procs × span).
	near("utilization without series", metrics.Summarize(recs, 4, nil).Utilization, 50.0/60)
	// Slowdown = response / run; stretch for J2 = 14/5.
	near("J2 slowdown", recs[1].Slowdown, 14.0/5)
	// The series: at t=2 J3 starts while J1 runs (4 busy), J2 waits (1 queued).
	found := false
	for _, p := range series.Points {
		if p.Time == 2 {
			found = p.Busy == 4 && p.Queued == 1 && p.Running == 2
		}
	}
	if !found {
		t.Errorf("series at t=2 wrong: %+v", series.Points)
	}
}
