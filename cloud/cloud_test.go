package cloud

import (
	"math"
	"slices"
	"sort"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/gridsched/gridsched/gen"
	"github.com/gridsched/gridsched/model"
)

// J is a job: id, arrival, service, size.
func J(id int64, at, svc float64, size int) model.Job {
	return model.NewJob(id, at, svc, size)
}

// fixed runs jobs on a fixed pool of n VMs.
func fixed(t *testing.T, n int, p Params, jobs ...model.Job) *Sim {
	t.Helper()
	p.FixedVMs = n
	return runP(t, p, jobs...)
}

func runP(t *testing.T, p Params, jobs ...model.Job) *Sim {
	t.Helper()
	p.Defaults()
	s, err := New(jobs, p, 1)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Run(); err != nil {
		t.Fatal(err)
	}
	return s
}

func none() Params { return Params{Migration: "none"} }

// TestShortestQueue (§2.1): A (2 tasks) takes VMs 0 and 1; B (3 tasks)
// the shortest queues: 2 and 3 (empty), then 0 (one task; ties by id).
// B starts when VM 0 is free, at 10.
func TestShortestQueue(t *testing.T) {
	s := fixed(t, 4, none(), J(1, 0, 10, 2), J(2, 1, 5, 3))
	b := s.Jobs()[1]
	if got := b.VMs; len(got) != 3 || got[0] != 0 || got[1] != 2 || got[2] != 3 {
		t.Errorf("B's VMs %v, want [0 2 3]", got)
	}
	if b.Start != 10 {
		t.Errorf("B starts at %g, want 10", b.Start)
	}
}

// TestAFCFSvsLJFS (§2.2): A (4 tasks) runs 0–10 on all four VMs; B (3
// tasks) waits on VMs 0–2, C (1) on VM 3, D (4) on all. At 10, AFCFS
// starts in arrival order every job whose VMs are idle: B and C; D waits
// until both end (15). LJFS starts the largest first: D at 10.
func TestAFCFSvsLJFS(t *testing.T) {
	jobs := []model.Job{J(1, 0, 10, 4), J(2, 1, 5, 3), J(3, 2, 5, 1), J(4, 3, 5, 4)}
	a := fixed(t, 4, none(), jobs...).Jobs()
	if a[1].Start != 10 || a[2].Start != 10 || a[3].Start != 15 {
		t.Errorf("AFCFS starts B %g, C %g, D %g; want 10, 10, 15", a[1].Start, a[2].Start, a[3].Start)
	}
	p := none()
	p.Policy = "ljfs"
	l := fixed(t, 4, p, jobs...).Jobs()
	if l[3].Start != 10 || l[1].Start != 15 || l[2].Start != 15 {
		t.Errorf("LJFS starts D %g, B %g, C %g; want 10, 15, 15", l[3].Start, l[1].Start, l[2].Start)
	}
}

// migrationCase: A (3 tasks) runs 0–10 on VMs 0–2; B (2) runs 0.1–2.1 on
// VMs 3–4; X (1) waits on VM 0, Y (2) on VMs 1–2. At 2.1 nothing can
// start normally and two VMs are idle; both X and Y fit them.
func migrationCase() []model.Job {
	return []model.Job{J(1, 0, 10, 3), J(2, 0.1, 2, 2), J(3, 0.2, 5, 1), J(4, 0.3, 5, 2)}
}

// TestMigration (§2.3): first-fit migrates X (first in queue order) to
// VM 3 and it starts at 2.1; then one VM is idle and Y does not fit;
// when X ends (7.1) two VMs are idle again and Y migrates. Best-fit
// migrates Y first (it fills both idle VMs) to VMs 3–4, and X at 7.1. The
// monitor with limit 2 forbids migration while 2 jobs fit: X waits for
// VM 0 (10). With an overhead the migrated job starts that much later.
func TestMigration(t *testing.T) {
	p := none()
	p.Migration = "first-fit"
	s := fixed(t, 5, p, migrationCase()...)
	x, y := s.Jobs()[2], s.Jobs()[3]
	if x.Start != 2.1 || !x.Migrated || x.VMs[0] != 3 || !near(y.Start, 7.1) || s.Migrations != 2 {
		t.Errorf("first-fit: X at %g on %v (migrated %v), Y at %g, %d migrations", x.Start, x.VMs, x.Migrated, y.Start, s.Migrations)
	}
	// Both migrated: the mean wait of the migrated jobs is theirs.
	if w := s.Result().WaitMigrated; !near(w, (2.1-x.Arrival+7.1-y.Arrival)/2) || !y.Migrated {
		t.Errorf("first-fit: wait of the migrated jobs %g, want %g", w, (2.1-x.Arrival+7.1-y.Arrival)/2)
	}
	p.Migration = "best-fit"
	s = fixed(t, 5, p, migrationCase()...)
	x, y = s.Jobs()[2], s.Jobs()[3]
	if y.Start != 2.1 || !y.Migrated || y.VMs[0] != 3 || y.VMs[1] != 4 || !near(x.Start, 7.1) || s.TasksMoved != 3 {
		t.Errorf("best-fit: Y at %g on %v (migrated %v), X at %g, %d tasks moved", y.Start, y.VMs, y.Migrated, x.Start, s.TasksMoved)
	}
	p.MonitorLimit = 2
	s = fixed(t, 5, p, migrationCase()...)
	if s.Migrations != 0 || s.Jobs()[2].Start != 10 {
		t.Errorf("monitor limit 2 with 2 fitting jobs: %d migrations, X at %g (want none, 10)", s.Migrations, s.Jobs()[2].Start)
	}
	p = none()
	p.Migration, p.Overhead = "first-fit", 0.5
	s = fixed(t, 5, p, migrationCase()...)
	if x := s.Jobs()[2]; x.Start != 2.6 {
		t.Errorf("overhead 0.5: X starts at %g, want 2.6", x.Start)
	}
}

// TestDemandControl (§2.4): A (2 tasks) runs 0–10 on both VMs; B (1 task,
// service 1) waits on VM 0 and starves at 1 + (3 − 1)·1 = 3 (XFactor 3);
// C (service 10) waits on VM 1 and would starve only at 24. At 10 B
// starts; normal scheduling is paused while B is in the starving queue,
// so C waits for the next instant (11) though VM 1 is idle. Without
// demand control both start at 10.
func TestDemandControl(t *testing.T) {
	jobs := []model.Job{J(1, 0, 10, 2), J(2, 1, 1, 1), J(3, 4, 10, 1)}
	p := none()
	p.XFactor = 3
	s := fixed(t, 2, p, jobs...)
	b, c := s.Jobs()[1], s.Jobs()[2]
	if !b.Starving || c.Starving || b.Start != 10 || c.Start != 11 || s.Starved != 1 {
		t.Errorf("XFactor 3: B starving %v at %g, C starving %v at %g, %d starved", b.Starving, b.Start, c.Starving, c.Start, s.Starved)
	}
	s = fixed(t, 2, none(), jobs...)
	if s.Jobs()[2].Start != 10 {
		t.Errorf("no demand control: C starts at %g, want 10", s.Jobs()[2].Start)
	}
}

// TestLease (§3.1): boot 0.1. A (3 tasks) at 0 leases 3 VMs (condition
// 1) and starts at 0.1; B (5) at 0.05 leases 2 more, waits in the
// dispatcher until 0.15, then queues on VMs 3, 4 and 0–2. C (2) at 0.2:
// with ALF 0.5 the load factor is 5 queued / 5 VMs = 1 > 0.5, so 2 VMs
// are leased (condition 2) and C starts on them at 0.3; without ALF it
// goes to the shortest queues, VMs 3 and 4 (idle: B waits for A there),
// and starts at once, so B waits for C too.
func TestLease(t *testing.T) {
	jobs := []model.Job{J(1, 0, 1, 3), J(2, 0.05, 1, 5), J(3, 0.2, 1, 2)}
	p := Params{Migration: "none", BootMin: 0.1, BootMax: 0.1, ALF: 0.5}
	s := runP(t, p, jobs...)
	a, b, c := s.Jobs()[0], s.Jobs()[1], s.Jobs()[2]
	if a.Start != 0.1 || len(s.VMs()) != 7 || b.Start != a.End {
		t.Errorf("A at %g, B at %g (A ends %g), %d VMs leased", a.Start, b.Start, a.End, len(s.VMs()))
	}
	if !near(c.Start, 0.3) || c.VMs[0] != 5 || c.VMs[1] != 6 {
		t.Errorf("ALF lease: C at %g on %v, want 0.3 on [5 6]", c.Start, c.VMs)
	}
	p.ALF = 0
	s = runP(t, p, jobs...)
	if c := s.Jobs()[2]; len(s.VMs()) != 5 || c.VMs[0] != 3 || c.Start != 0.2 || s.Jobs()[1].Start != c.End {
		t.Errorf("no ALF: C at %g on %v, B at %g, %d VMs", c.Start, c.VMs, s.Jobs()[1].Start, len(s.VMs()))
	}
	if _, err := New(jobs, Params{Policy: "afcfs", Migration: "none", MaxVMs: 4}, 1); err == nil || !strings.Contains(err.Error(), "max_vms") {
		t.Errorf("a cap below the largest job: %v", err)
	}
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

// TestRelease (§3.2): A (1 task) runs 0.1–1.1 on VM 0; B (2 tasks)
// arrives at 1.05, leases one VM (ready 1.15) and waits in the
// dispatcher. VM 0 is idle with an empty queue at 1.1 but is kept: a job
// waits in the dispatcher. B runs 1.15–2.15 on VMs 0 and 1, and both go
// at 2.15. Lease time = 2.15 + (2.15 − 1.05).
func TestRelease(t *testing.T) {
	s := runP(t, Params{Migration: "none", BootMin: 0.1, BootMax: 0.1}, J(1, 0, 1, 1), J(2, 1.05, 1, 2))
	v := s.VMs()
	if len(v) != 2 || !near(v[0].ReleasedAt, 2.15) || !near(v[1].ReleasedAt, 2.15) {
		t.Fatalf("VMs %+v %+v", v[0], v[1])
	}
	if r := s.Result(); !near(r.LeaseTime, 2.15+1.1) {
		t.Errorf("lease time %g, want 3.25", r.LeaseTime)
	}
	// A single job: its VMs go as soon as it ends.
	s = runP(t, Params{Migration: "none", BootMin: 0.1, BootMax: 0.1}, J(1, 0, 1, 2), J(2, 5, 1, 1))
	if v := s.VMs(); len(v) != 3 || !near(v[0].ReleasedAt, 1.1) || !near(v[2].LeasedAt, 5) {
		t.Errorf("VMs: released at %g, third leased at %g", v[0].ReleasedAt, v[2].LeasedAt)
	}
	// Billing by started hour: 1.1 h → 2 h per VM.
	s = runP(t, Params{Migration: "none", BootMin: 0.1, BootMax: 0.1, Billing: 1, Price: 0.5}, J(1, 0, 1, 2))
	if r := s.Result(); !near(r.Cost, 2) || !near(r.LeaseTime, 2.2) {
		t.Errorf("cost %g lease %g, want 2 (2 VMs × 2 started hours × 0.5) and 2.2", r.Cost, r.LeaseTime)
	}
}

// TestInvariants (property, §2–§3): on random workloads and parameters,
// a job's tasks start at the same instant on distinct VMs; no two jobs
// overlap on a VM; no task runs on a VM before it is ready or after it is
// released; lease time is Σ (release − lease); every job completes once.
func TestInvariants(t *testing.T) {
	migrated, starved := 0, 0
	defer func() {
		if migrated < 50 || starved < 20 {
			t.Errorf("weak test: %d migrations, %d starving jobs", migrated, starved)
		}
	}()
	rapid.Check(t, func(rt *rapid.T) {
		gp := gen.DefaultGangParams()
		gp.SmallMax, gp.LargeMin, gp.LargeMax = 4, 5, 8
		gp.Q = float64(rapid.IntRange(0, 4).Draw(rt, "q")) / 4
		gp.Lambda = float64(rapid.IntRange(1, 40).Draw(rt, "lambda10")) / 10
		g, err := gen.NewGang(gp, rapid.Uint64().Draw(rt, "seed"))
		if err != nil {
			rt.Fatal(err)
		}
		jobs := Hours(gen.Take(g, rapid.IntRange(1, 80).Draw(rt, "jobs")))
		p := Params{
			Policy:        rapid.SampledFrom([]string{"afcfs", "ljfs"}).Draw(rt, "policy"),
			Migration:     rapid.SampledFrom([]string{"none", "first-fit", "best-fit"}).Draw(rt, "migration"),
			MonitorLimit:  rapid.IntRange(0, 4).Draw(rt, "limit"),
			Overhead:      float64(rapid.IntRange(0, 2).Draw(rt, "overhead")) / 10,
			XFactor:       float64(rapid.SampledFrom([]int{0, 2, 5, 10}).Draw(rt, "xfactor")),
			BootMax:       float64(rapid.IntRange(0, 4).Draw(rt, "boot")) / 10,
			ALF:           float64(rapid.IntRange(0, 3).Draw(rt, "alf")) / 2,
			MaxVMs:        rapid.SampledFrom([]int{0, 8, 12}).Draw(rt, "cap"),
			Monitor:       rapid.SampledFrom([]string{"jobs", "tasks"}).Draw(rt, "monitor"),
			LeaseCooldown: float64(rapid.IntRange(0, 2).Draw(rt, "cooldown")) / 4,
			ReleaseHold:   rapid.SampledFrom([]string{"migrating", "starving", "none"}).Draw(rt, "hold"),
		}
		if rapid.Bool().Draw(rt, "fixed-pool") {
			p.MaxVMs, p.FixedVMs = 0, rapid.IntRange(8, 12).Draw(rt, "fixed")
		}
		p.Defaults()
		s, err := New(jobs, p, rapid.Uint64().Draw(rt, "run-seed"))
		if err != nil {
			rt.Fatal(err)
		}
		if err := s.Run(); err != nil {
			rt.Fatal(err)
		}
		sameAsNaive(rt, jobs, p, s)
		type iv struct{ a, b float64 }
		busy := map[int][]iv{}
		for _, j := range s.Jobs() {
			if j.state != jDone || math.IsNaN(j.End) || !near(j.End, j.Start+j.Service) {
				rt.Fatalf("job %d: state %d, %g–%g, service %g", j.ID, j.state, j.Start, j.End, j.Service)
			}
			if len(j.VMs) != j.Size {
				rt.Fatalf("job %d of %d tasks on %d VMs", j.ID, j.Size, len(j.VMs))
			}
			for k, id := range j.VMs {
				if k > 0 && j.VMs[k-1] == id {
					rt.Fatalf("job %d: two tasks on VM %d", j.ID, id)
				}
				v := s.VMs()[id]
				if j.Start < v.ReadyAt || j.End > v.ReleasedAt+1e-9 {
					rt.Fatalf("job %d runs %g–%g on VM %d, ready %g, released %g", j.ID, j.Start, j.End, id, v.ReadyAt, v.ReleasedAt)
				}
				busy[id] = append(busy[id], iv{j.Start, j.End})
			}
			if j.Start < j.Arrival {
				rt.Fatalf("job %d starts at %g before it arrives at %g", j.ID, j.Start, j.Arrival)
			}
		}
		for id, ivs := range busy {
			sort.Slice(ivs, func(a, b int) bool { return ivs[a].a < ivs[b].a })
			for k := 1; k < len(ivs); k++ {
				if ivs[k].a < ivs[k-1].b-1e-9 {
					rt.Fatalf("VM %d runs two tasks at once: %v and %v", id, ivs[k-1], ivs[k])
				}
			}
		}
		lt := 0.0
		for _, v := range s.VMs() {
			if !v.released || v.nq > 0 || v.running != nil {
				rt.Fatalf("VM %d at the end: released %v, %d queued, running %v", v.ID, v.released, v.nq, v.running != nil)
			}
			lt += v.ReleasedAt - v.LeasedAt
		}
		r := s.Result()
		if !near(r.LeaseTime, lt) {
			rt.Fatalf("lease time %g, Σ (release − lease) %g", r.LeaseTime, lt)
		}
		// The wait decomposition adds up: dispatcher + VM queues, and
		// lease jobs + the others; no job leaves the dispatcher before
		// it arrives or starts before it is dispatched.
		if math.Abs(r.WaitDispatcher+r.WaitVMQueue-r.MeanWait) > 1e-9*max(1, r.MeanWait) ||
			math.Abs(r.LeaseJobs*r.WaitLeaseJobs+(1-r.LeaseJobs)*r.WaitOtherJobs-r.MeanWait) > 1e-9*max(1, r.MeanWait) ||
			r.WaitDispatcher < 0 || r.WaitVMQueue < 0 || r.IdleAtArrival > r.PoolAtArrival || r.EmptyDispatch > 1 {
			rt.Fatalf("wait decomposition: %+v", r)
		}
		for _, j := range s.Jobs() {
			if j.dispatched < j.Arrival || j.Start < j.dispatched {
				rt.Fatalf("job %d: arrival %g, dispatched %g, start %g", j.ID, j.Arrival, j.dispatched, j.Start)
			}
		}
		if p.MaxVMs > 0 && s.MaxPool > p.MaxVMs {
			rt.Fatalf("pool reached %d VMs, cap %d", s.MaxPool, p.MaxVMs)
		}
		migrated += s.Migrations
		starved += s.Starved
	})
}

// TestMM1 is the statistical check of issue 8: with migration, demand
// control and elasticity off, a fixed pool of 4 VMs and every job a gang
// of 4 tasks, the model is an M/M/1 queue (each gang holds the whole
// pool, AFCFS serves in arrival order), so the mean response time is
// 1/(μ − λ): 1.111 at λ = 0.1 and 2 at λ = 0.5 (μ = 1). 200,000 jobs;
// tolerance 4% (the batch-means standard error is about 1%).
func TestMM1(t *testing.T) {
	for _, lambda := range []float64{0.1, 0.5} {
		gp := gen.GangParams{Lambda: lambda, Mu: 1, Q: 1, SmallMin: 4, SmallMax: 4, LargeMin: 4, LargeMax: 4}
		g, err := gen.NewGang(gp, 7)
		if err != nil {
			t.Fatal(err)
		}
		s := fixed(t, 4, Params{Migration: "none"}, Hours(gen.Take(g, 200000))...)
		want := 1 / (1 - lambda)
		if r := s.Result(); math.Abs(r.MeanResponse-want) > 0.04*want {
			t.Errorf("λ = %g: mean response %g, M/M/1 gives %g", lambda, r.MeanResponse, want)
		}
	}
}

// TestReleaseConditions (§3.2), each condition on its own: an idle VM
// with an empty queue is kept while a job waits in the dispatcher or a
// migration is planned (unless release_hold is none, which switches
// condition 3 off), and while its queue holds a task; otherwise it goes.
func TestReleaseConditions(t *testing.T) {
	mk := func() (*Sim, *VM) {
		s, err := New(nil, Params{Policy: "afcfs", Migration: "none"}, 1)
		if err != nil {
			t.Fatal(err)
		}
		s.now = 5
		return s, s.addVM(0, 1)
	}
	s, v := mk()
	s.disp = []*Job{{ID: 9, Size: 1}}
	if s.releaseIdle(); v.released {
		t.Error("released while a job waits in the dispatcher")
	}
	s, v = mk()
	s.migrationsOpen = 1
	if s.releaseIdle(); v.released {
		t.Error("released while a migration is planned")
	}
	s, v = mk()
	s.migrationsOpen = 1
	s.p.ReleaseHold = "none" // condition 3 off
	if s.releaseIdle(); !v.released {
		t.Error("release_hold none: kept while a migration is planned")
	}
	s, v = mk()
	enqueue(v, &Job{ID: 9, Size: 1})
	if s.releaseIdle(); v.released {
		t.Error("released with a queued task")
	}
	s, v = mk()
	v.running = &Job{ID: 9, Size: 1}
	if s.releaseIdle(); v.released {
		t.Error("released while running")
	}
	s, v = mk()
	if s.releaseIdle(); !v.released || v.ReleasedAt != 5 || len(s.pool) != 0 {
		t.Errorf("idle, empty, nothing pending: released %v at %g, pool %d", v.released, v.ReleasedAt, len(s.pool))
	}
}

// TestMonitorTasks (§2.3, the "tasks" reading of the monitor): at 2.1 in
// migrationCase X has 1 task to move (VM 0 is busy), Y 2 (VMs 1–2). With
// limit 2 the job reading forbids migration (2 jobs fit); the task
// reading lets X migrate (1 < 2) but never Y, even under best-fit, which
// would otherwise take Y: Y waits for A (10).
func TestMonitorTasks(t *testing.T) {
	p := none()
	p.Migration, p.MonitorLimit, p.Monitor = "best-fit", 2, "tasks"
	s := fixed(t, 5, p, migrationCase()...)
	x, y := s.Jobs()[2], s.Jobs()[3]
	if x.Start != 2.1 || !x.Migrated || y.Start != 10 || y.Migrated || s.Migrations != 1 || s.TasksMoved != 1 {
		t.Errorf("tasks reading: X at %g (migrated %v), Y at %g (migrated %v), %d migrations, %d tasks", x.Start, x.Migrated, y.Start, y.Migrated, s.Migrations, s.TasksMoved)
	}
	p.Monitor = "jobs"
	if s := fixed(t, 5, p, migrationCase()...); s.Migrations != 0 {
		t.Errorf("jobs reading, limit 2: %d migrations, want 0", s.Migrations)
	}
	if _, err := New(migrationCase(), Params{Policy: "afcfs", Migration: "none", Monitor: "task"}, 1); err == nil || !strings.Contains(err.Error(), "monitor") {
		t.Errorf("bad monitor reading: %v", err)
	}
}

// TestLeaseCooldown (§3.1, our reading of the "tenth period" clause): in
// TestLease's case B's lease at 0.05 is the last before C arrives (0.2).
// A cooldown of 0.5 holds back C's lease on load, so C goes to VMs 3–4 as
// without ALF; a cooldown of 0.1 has passed, and C leases as before.
func TestLeaseCooldown(t *testing.T) {
	jobs := []model.Job{J(1, 0, 1, 3), J(2, 0.05, 1, 5), J(3, 0.2, 1, 2)}
	p := Params{Migration: "none", BootMin: 0.1, BootMax: 0.1, ALF: 0.5, LeaseCooldown: 0.5}
	s := runP(t, p, jobs...)
	if c := s.Jobs()[2]; len(s.VMs()) != 5 || c.VMs[0] != 3 || c.Start != 0.2 {
		t.Errorf("cooldown 0.5: C at %g on %v, %d VMs", c.Start, c.VMs, len(s.VMs()))
	}
	p.LeaseCooldown = 0.1
	s = runP(t, p, jobs...)
	if c := s.Jobs()[2]; len(s.VMs()) != 7 || !near(c.Start, 0.3) {
		t.Errorf("cooldown 0.1: C at %g on %v, %d VMs", c.Start, c.VMs, len(s.VMs()))
	}
}

// TestReleaseHoldStarving (§3.2 condition 3, the "starving" reading): an
// idle VM with an empty queue stays while a starving job waits in the VM
// queues (it may migrate to it), and goes under the literal reading.
func TestReleaseHoldStarving(t *testing.T) {
	for _, hold := range []string{"starving", "migrating"} {
		s, err := New(nil, Params{Policy: "afcfs", Migration: "first-fit", ReleaseHold: hold}, 1)
		if err != nil {
			t.Fatal(err)
		}
		s.now = 5
		v := s.addVM(0, 1)
		j := &Job{ID: 9, Size: 1, state: jQueued}
		s.starv = []*Job{j} // the reference scheduler's list
		s.ix.init(1)
		s.ix.starve(j) // the indexed one's count
		s.releaseIdle()
		if v.released != (hold == "migrating") {
			t.Errorf("release_hold %s: released %v", hold, v.released)
		}
	}
}

// sameAsNaive runs jobs again under the reference scheduler, which scans
// every waiting job at every instant, and fails unless every job starts
// and ends at the same instant on the same VMs, and every count and VM
// lifetime is the same, as the indexed run s.
func sameAsNaive(t interface{ Fatalf(string, ...any) }, jobs []model.Job, p Params, s *Sim) {
	n, err := New(jobs, p, s.seed)
	if err != nil {
		t.Fatalf("%v", err)
	}
	n.naive = true
	if err := n.Run(); err != nil {
		t.Fatalf("%v", err)
	}
	for i, j := range s.Jobs() {
		r := n.Jobs()[i]
		if j.Start != r.Start || j.End != r.End || !slices.Equal(j.VMs, r.VMs) || j.Migrated != r.Migrated || j.Starving != r.Starving {
			t.Fatalf("job %d: indexed %g–%g on %v (migrated %v, starving %v), reference %g–%g on %v (%v, %v)",
				j.ID, j.Start, j.End, j.VMs, j.Migrated, j.Starving, r.Start, r.End, r.VMs, r.Migrated, r.Starving)
		}
	}
	if len(s.VMs()) != len(n.VMs()) {
		t.Fatalf("%d VMs leased, reference %d", len(s.VMs()), len(n.VMs()))
	}
	for i, v := range s.VMs() {
		r := n.VMs()[i]
		if v.LeasedAt != r.LeasedAt || v.ReadyAt != r.ReadyAt || v.ReleasedAt != r.ReleasedAt || v.busyTime != r.busyTime {
			t.Fatalf("VM %d: indexed %g/%g/%g, reference %g/%g/%g", v.ID, v.LeasedAt, v.ReadyAt, v.ReleasedAt, r.LeasedAt, r.ReadyAt, r.ReleasedAt)
		}
	}
	if a, b := s.Result(), n.Result(); a != b {
		t.Fatalf("results differ:\nindexed   %+v\nreference %+v", a, b)
	}
}

// TestIndexedEqualsNaive: seeded runs of the gang model (seed 003's
// workload, 1,500 jobs) in the catalogue's settings and in the overloaded
// one (ALF off: the pool stays at 32 VMs and the waiting list grows to
// thousands), for both policies, both migration rules and both monitor
// readings, with and without demand control and a migration overhead:
// the indexed scheduler decides exactly as the reference scan.
func TestIndexedEqualsNaive(t *testing.T) {
	gp := gen.DefaultGangParams()
	gp.Lambda = 2.5
	g, err := gen.NewGang(gp, 11)
	if err != nil {
		t.Fatal(err)
	}
	jobs := Hours(gen.Take(g, 1500))
	for _, alf := range []float64{1, 0} {
		for _, pol := range []string{"afcfs", "ljfs"} {
			for _, mig := range []string{"first-fit", "best-fit", "none"} {
				for _, mon := range []string{"jobs", "tasks"} {
					p := DefaultParams()
					p.ALF, p.Policy, p.Migration, p.Monitor = alf, pol, mig, mon
					if mon == "tasks" {
						p.MonitorLimit, p.Overhead, p.XFactor, p.ReleaseHold = 2, 0.05, 20, "starving"
					}
					s, err := New(jobs, p, 5)
					if err != nil {
						t.Fatal(err)
					}
					if err := s.Run(); err != nil {
						t.Fatal(err)
					}
					if s.Migrations == 0 && mig != "none" {
						t.Errorf("%+v: no migration, a weak case", p)
					}
					sameAsNaive(t, jobs, p, s)
				}
			}
		}
	}
}

// TestWaitDecomposition (docs/cloud.md, "The ALF lease threshold across
// λ"): the wait split into dispatcher and VM-queue time, lease jobs
// (§3.1 (1) and (2)) against the others, the load a job finds on its VMs
// at dispatch, and the state arrivals find, on a run worked out by hand.
// Boot 0.1 h, ALF threshold 0.4, no migration, no demand control.
// J1 (2 tasks, 10 h) at 0: no VMs, leases 2 (§3.1 (1)), dispatched at 0.1
// onto VMs 0–1. J2 (1 task) at 1: ALF 0/2, no lease; dispatched at once
// to VM 0 (loads 1, 1; ties by id) behind J1: starts at 10.1. J3 (1 task)
// at 2: ALF 1/2 = 0.5 > 0.4, leases VM 2 (§3.1 (2)), dispatched at 2.1
// onto it (load 0), runs 2.1–3.1; VM 2 goes at 3.1. J4 (1 task) at 5: the
// same as J3 with VM 3.
func TestWaitDecomposition(t *testing.T) {
	s := runP(t, Params{Migration: "none", BootMin: 0.1, BootMax: 0.1, ALF: 0.4},
		J(1, 0, 10, 2), J(2, 1, 1, 1), J(3, 2, 1, 1), J(4, 5, 1, 1))
	if st := []float64{s.Jobs()[1].Start, s.Jobs()[2].Start, s.Jobs()[3].Start}; !near(st[0], 10.1) || !near(st[1], 2.1) || !near(st[2], 5.1) {
		t.Fatalf("starts %v, want 10.1, 2.1, 5.1", st)
	}
	r := s.Result()
	want := map[string][2]float64{
		"mean wait":           {r.MeanWait, 9.4 / 4},
		"dispatcher":          {r.WaitDispatcher, 0.3 / 4},
		"VM queues":           {r.WaitVMQueue, 9.1 / 4},
		"lease jobs":          {r.LeaseJobs, 3.0 / 4},
		"lease jobs' wait":    {r.WaitLeaseJobs, 0.1},
		"other jobs' wait":    {r.WaitOtherJobs, 9.1},
		"tasks ahead":         {r.TasksAhead, 1.0 / 4},
		"empty dispatch":      {r.EmptyDispatch, 3.0 / 4},
		"ALF at arrivals":     {r.ALFAtArrival, 1.0 / 4},
		"pool at arrivals":    {r.PoolAtArrival, 6.0 / 4},
		"idle VMs at arrival": {r.IdleAtArrival, 0},
	}
	for name, v := range want {
		if !near(v[0], v[1]) {
			t.Errorf("%s %g, want %g", name, v[0], v[1])
		}
	}
	// A fixed pool of 4: J1 (2 tasks) at 0 finds 4 idle VMs, J2 (1 task)
	// at 1 finds 2 (VMs 2 and 3) and starts at once on VM 2; no leases.
	s = fixed(t, 4, none(), J(1, 0, 10, 2), J(2, 1, 1, 1))
	r = s.Result()
	if !near(r.IdleAtArrival, 3) || !near(r.PoolAtArrival, 4) || r.LeaseJobs != 0 || r.EmptyDispatch != 1 || r.MeanWait != 0 {
		t.Errorf("fixed pool: idle %g, pool %g, lease jobs %g, empty dispatch %g, wait %g; want 3, 4, 0, 1, 0",
			r.IdleAtArrival, r.PoolAtArrival, r.LeaseJobs, r.EmptyDispatch, r.MeanWait)
	}
}

// TestBSLDTail: the shares of jobs whose bounded slowdown max(1, RT /
// max(τ, e)) exceeds 10 and 20, the paper's two XFactor thresholds. One
// VM, no migration or demand control: J1 runs 0–10 (slowdown 1), J2
// (service 0.4, arrives 0.5) runs 10–10.4 (9.9 / 0.4 = 24.75), J3
// (service 1, arrives 1) runs 10.4–11.4 (10.4).
func TestBSLDTail(t *testing.T) {
	s := fixed(t, 1, none(), J(1, 0, 10, 1), J(2, 0.5, 0.4, 1), J(3, 1, 1, 1))
	if j := s.Jobs(); !near(j[1].Start, 10) || !near(j[2].Start, 10.4) {
		t.Fatalf("starts %g, %g; want 10, 10.4", j[1].Start, j[2].Start)
	}
	r := s.Result()
	if !near(r.BSLDOver10, 2.0/3) || !near(r.BSLDOver20, 1.0/3) {
		t.Errorf("bounded slowdown above 10: %g (want 2/3), above 20: %g (want 1/3)", r.BSLDOver10, r.BSLDOver20)
	}
	if m := r.Metrics(); m["bsld_over_10"] != r.BSLDOver10 || m["bsld_over_20"] != r.BSLDOver20 {
		t.Errorf("metrics %g, %g; result %g, %g", m["bsld_over_10"], m["bsld_over_20"], r.BSLDOver10, r.BSLDOver20)
	}
}

// TestALFOffLeasesOnlyForSize (§3.1): with leasing on load off (alf 0)
// only condition (1) leases, a job larger than the pool, so the pool never
// passes the largest job (8 tasks here) however long the queues grow; with
// the threshold at 1, condition (2) grows it further on the same jobs.
func TestALFOffLeasesOnlyForSize(t *testing.T) {
	var jobs []model.Job
	for i := range 60 {
		jobs = append(jobs, J(int64(i+1), float64(i)*0.1, 1, 1+i%8))
	}
	if r := runP(t, Params{Migration: "none", ALF: 0}, jobs...).Result(); r.MaxVMs != 8 {
		t.Errorf("alf 0: %d VMs at most, want 8 (the largest job)", r.MaxVMs)
	}
	if r := runP(t, Params{Migration: "none", ALF: 1}, jobs...).Result(); r.MaxVMs <= 8 {
		t.Errorf("alf 1: %d VMs at most, want more than the largest job's 8", r.MaxVMs)
	}
}

// TestPropertyShortestEqualsSort: dispatch's counting selection picks the
// VMs that sorting every ready VM by (load, id) put first (issue 30).
func TestPropertyShortestEqualsSort(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(1, 80).Draw(t, "vms")
		var ls []loaded
		id := 0
		for range n {
			id += rapid.IntRange(1, 3).Draw(t, "id-step")
			ls = append(ls, loaded{rapid.IntRange(0, 12).Draw(t, "load"), &VM{ID: id}})
		}
		k := rapid.IntRange(1, n).Draw(t, "k")
		sorted := slices.Clone(ls)
		slices.SortFunc(sorted, func(a, b loaded) int {
			if a.n != b.n {
				return a.n - b.n
			}
			return a.v.ID - b.v.ID
		})
		var want []int
		for _, x := range sorted[:k] {
			want = append(want, x.v.ID)
		}
		slices.Sort(want)
		var got []int
		shortest(ls, k, nil, func(x loaded) { got = append(got, x.v.ID) })
		if !slices.Equal(got, want) {
			t.Fatalf("picked %v, sorting picks %v", got, want)
		}
	})
}
