package metrics_test

import (
	"encoding/json"
	"math"
	"slices"
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
	s := metrics.Summarize(e.Jobs(), 4, series)
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
	near("utilization without series", metrics.Summarize(e.Jobs(), 4, nil).Utilization, 50.0/60)
	// Slowdown = response / run; stretch for J2 = 14/5.
	near("J2 slowdown", recs[1].Slowdown, 14.0/5)
	// The series: at t=2 J3 starts while J1 runs (4 busy), J2 waits (1 queued).
	found := false
	for p := range series.All() {
		if p.Time == 2 {
			found = p.Busy == 4 && p.Queued == 1 && p.Running == 2
		}
	}
	if !found {
		t.Errorf("series at t=2 wrong: %+v", slices.Collect(series.All()))
	}
}

// TestSeriesChunks: a series long enough to span many chunks (as a
// million-job run has) keeps
// every point in order (consecutive duplicates dropped, same-time samples
// replaced) and integrates like the obvious slice.
func TestSeriesChunks(t *testing.T) {
	s := &metrics.Series{}
	var want []metrics.Point
	for i := 0; i < 2_000_000; i++ {
		now := float64(i / 2) // two samples per instant: the second replaces the first
		busy := (i * 7919) % 13
		s.Sample(now, busy, 16, i%5)
		p := metrics.Point{Time: now, Busy: busy, Avail: 16, Queued: i % 5}
		if n := len(want); n > 0 && want[n-1].Busy == p.Busy && want[n-1].Queued == p.Queued {
			continue
		} else if n > 0 && want[n-1].Time == now {
			want[n-1] = p
			continue
		}
		want = append(want, p)
	}
	if len(want) < 900_000 { // more than 56 chunks: 256 << 56 overflowed once
		t.Fatalf("only %d points", len(want))
	}
	got := slices.Collect(s.All())
	if s.Len() != len(want) || !slices.Equal(got, want) {
		t.Fatalf("series has %d points, want %d (first difference at %d)", s.Len(), len(want), firstDiff(got, want))
	}
	var busy, avail float64
	for i, p := range want {
		end := 1_200_000.0
		if i+1 < len(want) {
			end = min(end, want[i+1].Time)
		}
		if start := max(p.Time, 10.0); end > start {
			busy += float64(p.Busy) * (end - start)
			avail += float64(p.Avail) * (end - start)
		}
	}
	if b, a := s.Integrals(10, 1_200_000); b != busy || a != avail {
		t.Fatalf("Integrals = %g, %g; want %g, %g", b, a, busy, avail)
	}
}

func firstDiff(a, b []metrics.Point) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

// rejectAll rejects every job at its arrival: a run where no job runs.
type rejectAll struct{ q []*engine.Job }

func (r *rejectAll) Notify(_ *engine.View, n engine.Notice) {
	if n.Kind == engine.NoticeSubmitted {
		r.q = append(r.q, n.Job)
	}
}

func (r *rejectAll) Schedule(_ *engine.View, p *engine.Plan) {
	for _, j := range r.q {
		if err := p.Reject(j); err != nil {
			panic(err)
		}
	}
	r.q = r.q[:0]
}

// TestSummaryJSONLeavesOutMissingMetrics (issue 18 item 6): when no job
// ran to an end — no job at all, or every job rejected — summary.json
// has no wait, response, bounded_slowdown, utilization, makespan,
// throughput, first_submit or last_end (not zeros); the counts stay.
func TestSummaryJSONLeavesOutMissingMetrics(t *testing.T) {
	absent := []string{"wait", "response", "bounded_slowdown", "utilization", "makespan", "throughput_per_hour", "first_submit", "last_end"}
	e := engine.New(model.Uniform("t", 4, 1), Jobs(
		J(1).At(0).Procs(2).Run(10).Est(10),
		J(2).At(5).Procs(1).Run(3).Est(4),
	), &rejectAll{}, engine.Options{})
	if err := e.Run(); err != nil {
		t.Fatal(err)
	}
	for name, s := range map[string]metrics.Summary{
		"no jobs":  metrics.Summarize(nil, 4, nil),
		"rejected": metrics.Summarize(e.Jobs(), 4, nil),
	} {
		if s.Ended() {
			t.Fatalf("%s: Ended() = true", name)
		}
		b, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]any
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatal(err)
		}
		for _, k := range absent {
			if _, ok := m[k]; ok {
				t.Errorf("%s: %q present in %s", name, k, b)
			}
		}
		for _, k := range []string{"jobs", "completed", "dropped", "processors"} {
			if _, ok := m[k]; !ok {
				t.Errorf("%s: %q missing from %s", name, k, b)
			}
		}
		if name == "rejected" && (m["jobs"] != 2.0 || m["dropped"] != 2.0) {
			t.Errorf("rejected: counts wrong in %s", b)
		}
	}
}

// TestSummaryJSONMatchesStruct: when a job ran to an end, the summary is
// written exactly as the plain struct would be (same keys, same order),
// so the written form cannot drift from Summary's fields.
func TestSummaryJSONMatchesStruct(t *testing.T) {
	e := engine.New(model.Uniform("t", 4, 1), Jobs(
		J(1).At(0).Procs(2).Run(10).Est(10),
		J(2).At(1).Procs(4).Run(5).Est(5),
	), policy.NewEASY(policy.FirstFit{}), engine.Options{})
	if err := e.Run(); err != nil {
		t.Fatal(err)
	}
	s := metrics.Summarize(e.Jobs(), 4, nil)
	s.Extra = map[string]float64{"x": 1}
	type plain metrics.Summary // no MarshalJSON
	got, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := json.Marshal(plain(s))
	if string(got) != string(want) {
		t.Fatalf("summary JSON\n got %s\nwant %s", got, want)
	}
	s.Extra = nil
	got, _ = json.Marshal(s)
	want, _ = json.Marshal(plain(s))
	if string(got) != string(want) {
		t.Fatalf("summary JSON without extra\n got %s\nwant %s", got, want)
	}
}
