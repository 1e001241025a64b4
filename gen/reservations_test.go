package gen

import (
	"math"
	"testing"

	"github.com/gridsched/gridsched/model"
)

// TestBackgroundCover (seed 000 §3.1: enough tasks in every queue that a
// task runs whenever a reservation starts): with background_cover c,
// every resource's queue holds at least c × the latest window end of
// work, the requests are exactly those of the unsized generator (same
// streams), and the workload ends after `requests` requests.
func TestBackgroundCover(t *testing.T) {
	p := DefaultReservationParams()
	p.Lambda, p.Requests, p.Resources = 20, 200, 7
	plain, err := NewReservations(p, 11)
	if err != nil {
		t.Fatal(err)
	}
	want := Take(plain, 1<<20)
	if len(want) != 200 {
		t.Fatalf("requests: 200 gave %d jobs", len(want))
	}
	p.BackgroundCover = 1.25
	g, err := NewReservations(p, 11)
	if err != nil {
		t.Fatal(err)
	}
	jobs := Take(g, 1<<20)
	work := make([]float64, p.Resources)
	var reqs []int
	horizon := 0.0
	for i, j := range jobs {
		if j.ID != int64(i+1) {
			t.Fatalf("job %d has ID %d", i, j.ID)
		}
		if j.Queue == TypeTask {
			if len(reqs) > 0 {
				t.Fatalf("task %d after a request", j.ID)
			}
			work[j.Site] += j.Runtime
			continue
		}
		reqs = append(reqs, i)
		horizon = max(horizon, j.WindowEnd)
	}
	if len(reqs) != 200 || horizon < 3000 {
		t.Fatalf("%d requests, horizon %g", len(reqs), horizon)
	}
	for r, w := range work {
		if w < 1.25*horizon {
			t.Errorf("resource %d: %g s of work, want ≥ %g", r, w, 1.25*horizon)
		}
	}
	for k, i := range reqs {
		a, b := jobs[i], want[k]
		if a.Submit != b.Submit || a.WindowStart != b.WindowStart || a.WindowEnd != b.WindowEnd || a.Runtime != b.Runtime || a.Level != b.Level {
			t.Fatalf("request %d differs from the unsized generator's: %+v vs %+v", k, a, b)
		}
	}
	p.Resources = 0
	if _, err := NewReservations(p, 1); err == nil {
		t.Error("background_cover without resources accepted")
	}
}

// TestFromTraceLeavesInput: FromTrace changes the jobs' trace and model
// fields (requested processors, queue, site, window, level) on copies it
// attaches, never through its input's shared values (model.Job), so the
// loaded trace a sweep shares between runs stays as loaded.
func TestFromTraceLeavesInput(t *testing.T) {
	var in []model.Job
	for i := range 200 {
		j := model.NewJob(int64(i+1), float64(10*i), 100, 1+i%4)
		tf := model.UnknownTraceFields
		tf.ReqProcs, tf.Status, tf.Queue, tf.Partition = j.Procs, 1, 0, 1
		j.TraceFields = &tf
		in = append(in, j)
	}
	before := make([]model.TraceFields, len(in))
	for i := range in {
		before[i] = *in[i].TraceFields
	}
	p := DefaultTraceReservationParams()
	p.Fraction = 0.5
	out, err := FromTrace(in, p, 7)
	if err != nil {
		t.Fatal(err)
	}
	changed := 0
	for _, j := range out {
		if j.Queue != 0 {
			changed++
		}
	}
	if changed == 0 {
		t.Fatal("FromTrace changed no job's queue (test is wrong)")
	}
	for i := range in {
		if *in[i].TraceFields != before[i] || in[i].Site != model.Unknown || !math.IsNaN(in[i].WindowStart) {
			t.Fatalf("input job %d changed: %+v %+v", i, *in[i].TraceFields, *in[i].ModelFields)
		}
	}
	if err := model.CheckShared(); err != nil {
		t.Fatal(err)
	}
}
