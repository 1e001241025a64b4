package workload

import (
	"math"
	"strings"
	"testing"

	"github.com/gridsched/gridsched/model"
	"github.com/gridsched/gridsched/swf"
)

const trace = `; MaxProcs: 8
; MaxRecords: 6
1 0 0 10 4 -1 -1 4 20 -1 1 1 1 -1 1 1 -1 -1
2 30 0 -1 4 -1 -1 4 20 -1 5 1 1 -1 1 1 -1 -1
3 20 0 10 -1 -1 -1 -1 20 -1 1 1 1 -1 1 1 -1 -1
4 10 0 0 2 -1 -1 2 20 -1 5 1 1 -1 1 1 -1 -1
5 40 0 5 16 -1 -1 16 -1 -1 1 1 1 -1 1 1 -1 -1
6 5 0 7 -1 -1 -1 3 30 -1 0 1 1 -1 1 1 -1 -1
`

func load(t *testing.T, rules Rules, tr Transform) *Workload {
	t.Helper()
	r, err := swf.NewReader(strings.NewReader(trace), "t.swf")
	if err != nil {
		t.Fatal(err)
	}
	w, err := Read(r, "t.swf", rules, tr)
	if err != nil {
		t.Fatal(err)
	}
	return w
}

func ids(w *Workload) []int64 {
	var out []int64
	for _, j := range w.Jobs {
		out = append(out, j.ID)
	}
	return out
}

func eq(a, b []int64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestSkipRules: each unusable record is counted under its first reason;
// requested processors stand in for a missing allocated count; records
// are sorted by submit time.
func TestSkipRules(t *testing.T) {
	w := load(t, Rules{}, Transform{})
	want := map[string]int{SkipNoRuntime: 1, SkipNoProcs: 1, SkipCancelled: 1}
	for k, v := range want {
		if w.Skipped[k] != v {
			t.Errorf("skipped[%s] = %d, want %d (all: %v)", k, w.Skipped[k], v, w.Skipped)
		}
	}
	// Record 6 has no allocated count: its requested 3 is used.
	if got := ids(w); !eq(got, []int64{1, 6, 5}) {
		t.Fatalf("jobs %v, want [1 6 5] (sorted by submit)", got)
	}
	if w.Jobs[1].Procs != 3 || w.UnsortedSteps != 3 {
		t.Errorf("procs %d, unsorted steps %d", w.Jobs[1].Procs, w.UnsortedSteps)
	}
	w.FitPlatform(8, Rules{})
	if w.Skipped[SkipTooWide] != 1 || !eq(ids(w), []int64{1, 6}) {
		t.Errorf("too-wide: %v %v", w.Skipped, ids(w))
	}
	w = load(t, Rules{KeepCancelled: true, ClampWide: true}, Transform{})
	w.FitPlatform(8, Rules{ClampWide: true})
	if !eq(ids(w), []int64{1, 6, 4, 5}) || w.Jobs[3].Procs != 8 || w.Skipped[SkipTooWide] != 0 {
		t.Errorf("keep+clamp: %v procs %d %v", ids(w), w.Jobs[3].Procs, w.Skipped)
	}
}

func TestTransforms(t *testing.T) {
	w := load(t, Rules{}, Transform{Skip: 2, First: 3, Scale: 0.5, MaxProcs: 2})
	// Records 3, 4, 5 remain; 3 has no processors, 4 was cancelled.
	if w.Records != 3 || !eq(ids(w), []int64{5}) {
		t.Fatalf("records %d jobs %v", w.Records, ids(w))
	}
	if j := w.Jobs[0]; j.Submit != 20 || j.Procs != 2 {
		t.Errorf("job 5: submit %g procs %d, want 20 and 2", j.Submit, j.Procs)
	}
	// Exact estimates: every job's estimate is its run time (job 5 had
	// none, job 1 asked for 20 and ran 10).
	for _, j := range load(t, Rules{}, Transform{Estimates: "exact"}).Jobs {
		if j.Estimate != j.Runtime {
			t.Errorf("exact estimates: job %d estimate %g, run time %g", j.ID, j.Estimate, j.Runtime)
		}
	}
	if j := load(t, Rules{}, Transform{Estimates: "requested"}).Jobs[0]; j.Estimate != 20 {
		t.Errorf("requested estimates: job %d estimate %g, want 20", j.ID, j.Estimate)
	}
	// GridSim's reading: the length is the requested time (job 1: 20),
	// or the run time when none is given (job 5: 5).
	for _, j := range load(t, Rules{}, Transform{Estimates: "gridsim"}).Jobs {
		want := map[int64]float64{1: 20, 6: 30, 5: 5}[j.ID]
		if j.Runtime != want || j.Estimate != want {
			t.Errorf("gridsim: job %d run %g estimate %g, want %g", j.ID, j.Runtime, j.Estimate, want)
		}
	}
	for _, bad := range []Transform{{Skip: -1}, {First: -2}, {Scale: -1}, {Scale: math.NaN()}, {MaxProcs: -3}, {Estimates: "perfect"}} {
		if err := bad.Validate(); err == nil {
			t.Errorf("%+v accepted", bad)
		}
	}
}

func TestDescribe(t *testing.T) {
	w := load(t, Rules{}, Transform{})
	s := w.Describe(0)
	// Jobs 1 (4 procs, 10 s), 6 (3 procs, 7 s), 5 (16 procs, 5 s) on 8
	// processors over 40 s: load = (40 + 21 + 80) / (8 × 40).
	if s.Platform != 8 || math.Abs(s.OfferedLoad-141.0/320) > 1e-12 || s.Processors.Max != 16 {
		t.Errorf("%+v", s)
	}
	if s.Pow2Frac != 2.0/3 || s.SerialFrac != 0 {
		t.Errorf("pow2 %g serial %g", s.Pow2Frac, s.SerialFrac)
	}
}

// TestHorizonRefused: a workload whose last submit time plus total work
// reaches MaxHorizon is refused (naming the record), since its simulated
// times would round in float64 (submit 9007199254740990 s, run time 5 s
// responded in 6 s); one just below is accepted and keeps exact times.
func TestHorizonRefused(t *testing.T) {
	job := func(submit, run float64) model.Job {
		j := model.NewJob(1, submit, run, 1)
		j.Estimate = run
		return j
	}
	_, err := FromJobs("w", []model.Job{job(0, 5), job(9007199254740990, 5)}, nil, Rules{}, Transform{})
	if err == nil || !strings.Contains(err.Error(), "w: record 2: the workload's time horizon") {
		t.Fatalf("a submit time near 2^53: err = %v, want a refusal naming record 2", err)
	}
	_, err = FromJobs("w", []model.Job{job(0, MaxHorizon/2), job(1, MaxHorizon/2), job(2, 1)}, nil, Rules{}, Transform{})
	if err == nil || !strings.Contains(err.Error(), "record 2:") {
		t.Fatalf("total work reaching 2^52: err = %v, want a refusal naming record 2", err)
	}
	w, err := FromJobs("w", []model.Job{job(0, 5), job(MaxHorizon-100, 5)}, nil, Rules{}, Transform{})
	if err != nil {
		t.Fatalf("a horizon below 2^52: %v", err)
	}
	if end := w.Jobs[1].Submit + w.Jobs[1].Runtime; end-w.Jobs[1].Submit != 5 {
		t.Fatalf("below the horizon, submit + run − submit = %v, want exactly 5", end-w.Jobs[1].Submit)
	}
}
