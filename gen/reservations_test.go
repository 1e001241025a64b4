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

// TestWidenReadings: the two readings of "the same requests with more
// flexibility" (parameter widen), in both reservation models. Synthetic
// (duration_at 0.1): keep-start keeps every request's earliest start and
// duration at flexibility 0.9 and widens its window ninefold at the end;
// move-start multiplies the book-ahead by the same factor. At the base
// flexibility the two are the same workload, and without duration_at
// (windows kept, durations shrunk) widen changes nothing. OSC
// (trace-reservations): move-start sets the book-ahead to half the
// widened window (5 durations at 0.9), keep-start to half the duration
// (the window at flexibility 0), both with the window 10 durations.
func TestWidenReadings(t *testing.T) {
	synth := func(f, at float64, widen string) []model.Job {
		p := DefaultReservationParams()
		p.Requests, p.Flexibility, p.DurationAt, p.Widen = 50, f, at, widen
		g, err := NewReservations(p, 5)
		if err != nil {
			t.Fatal(err)
		}
		return Take(g, 1<<20)
	}
	base := synth(0.1, 0.1, WidenKeepStart)
	keep, move := synth(0.9, 0.1, WidenKeepStart), synth(0.9, 0.1, WidenMoveStart)
	for i, b := range base {
		k, m := keep[i], move[i]
		if k.Submit != b.Submit || k.Runtime != b.Runtime || k.WindowStart != b.WindowStart || math.Abs((k.WindowEnd-k.WindowStart)-9*(b.WindowEnd-b.WindowStart)) > 1e-9 {
			t.Fatalf("keep-start, request %d: %+v from %+v", i, *k.ModelFields, *b.ModelFields)
		}
		if m.Runtime != b.Runtime || math.Abs((m.WindowStart-m.Submit)-9*(b.WindowStart-b.Submit)) > 1e-9 || math.Abs((m.WindowEnd-m.WindowStart)-(k.WindowEnd-k.WindowStart)) > 1e-9 {
			t.Fatalf("move-start, request %d: book-ahead %g (base %g), window %g", i, m.WindowStart-m.Submit, b.WindowStart-b.Submit, m.WindowEnd-m.WindowStart)
		}
	}
	for i, m := range synth(0.1, 0.1, WidenMoveStart) {
		if !sameRequest(m, base[i]) {
			t.Fatalf("at the base flexibility the readings differ: %+v vs %+v", *m.ModelFields, *base[i].ModelFields)
		}
	}
	shrinkK, shrinkM := synth(0.9, 0, WidenKeepStart), synth(0.9, 0, WidenMoveStart)
	for i := range shrinkK {
		if !sameRequest(shrinkK[i], shrinkM[i]) {
			t.Fatal("without duration_at, widen changed a request")
		}
	}

	var trace []model.Job
	for i := range 400 {
		trace = append(trace, model.NewJob(int64(i+1), float64(10*i), float64(100+i), 1+i%4))
	}
	osc := func(f float64, widen string) []model.Job {
		p := DefaultTraceReservationParams()
		p.Fraction, p.Flexibility, p.Widen, p.QuadNodes, p.DualNodes = 0.5, f, widen, 2, 2
		jobs, err := FromTrace(trace, p, 3)
		if err != nil {
			t.Fatal(err)
		}
		return jobs
	}
	b0, bk := osc(0, ""), osc(0, WidenKeepStart)
	ok, om := osc(0.9, WidenKeepStart), osc(0.9, "")
	n := 0
	for i, j := range om {
		if j.Queue == TypeTask {
			continue
		}
		n++
		d := j.Runtime
		if !sameRequest(bk[i], b0[i]) {
			t.Fatalf("request %d: the readings differ at flexibility 0", j.ID)
		}
		if math.Abs(j.WindowStart-j.Submit-5*d) > 1e-6*d || math.Abs(j.WindowEnd-j.WindowStart-10*d) > 1e-6*d {
			t.Fatalf("move-start, request %d (duration %g): book-ahead %g, window %g; want 5 and 10 durations", j.ID, d, j.WindowStart-j.Submit, j.WindowEnd-j.WindowStart)
		}
		k := ok[i]
		if k.WindowStart != b0[i].WindowStart || math.Abs(k.WindowEnd-k.WindowStart-10*d) > 1e-6*d {
			t.Fatalf("keep-start, request %d: earliest start %g (flexibility 0: %g), window %g", j.ID, k.WindowStart, b0[i].WindowStart, k.WindowEnd-k.WindowStart)
		}
	}
	if n < 100 {
		t.Fatalf("only %d requests", n)
	}
	p := DefaultReservationParams()
	p.Widen = "both"
	if _, err := NewReservations(p, 1); err == nil || err.Error() != `widen: want keep-start or move-start, got "both"` {
		t.Errorf("bad widen: %v", err)
	}
}

// sameRequest compares what a request is: submit, duration, window, level.
func sameRequest(a, b model.Job) bool {
	return a.Submit == b.Submit && a.Runtime == b.Runtime && a.WindowStart == b.WindowStart && a.WindowEnd == b.WindowEnd && a.Level == b.Level
}
