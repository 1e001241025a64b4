// Package cloud is the elastic cloud of seed 003 (a retelling of
// Moschakis & Karatza, "Performance and cost evaluation of gang
// scheduling in a cloud computing system with job migrations and
// starvation handling", ISCC 2011): gang jobs on leased virtual machines,
// each VM with its own queue; shortest-queue dispatch; AFCFS or LJFS;
// task migration (first-fit or best-fit) under a monitor; demand control
// by expansion factor; VM lease on demand and on load, release when idle.
//
// It is its own discrete-event simulation over package sim's event heap:
// the VM pool (booting, per-VM queues, release) is not the engine's fixed
// platform. Time is in hours (mean service 1/μ = 1; see docs/cloud.md).
package cloud

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sort"

	"github.com/gridsched/gridsched/model"
	"github.com/gridsched/gridsched/sim"
)

// Params configure the cloud.
type Params struct {
	// Policy: "afcfs" or "ljfs" (§2.2).
	Policy string `yaml:"policy" json:"policy,omitempty"`
	// Migration: "none", "first-fit" or "best-fit" (§2.3); MonitorLimit:
	// migrate only while fewer than this many waiting jobs fit the idle
	// VMs (0 = no monitor); Overhead: time between the migration and the
	// start of the migrated job (the "next tick"; default 0).
	Migration    string  `yaml:"migration" json:"migration,omitempty"`
	MonitorLimit int     `yaml:"monitor_limit" json:"monitor_limit,omitempty" range:"[0,]"`
	Overhead     float64 `yaml:"overhead" json:"overhead,omitempty" range:"[0,]"`
	// Monitor is the reading of the migration monitor (§2.3, "適配任務數小于
	// 指定數量", 任務 being job or task): "jobs" (default) migrates only
	// while fewer than MonitorLimit waiting jobs fit the idle VMs; "tasks"
	// only migrates a job that has fewer than MonitorLimit tasks to move.
	Monitor string `yaml:"monitor" json:"monitor,omitempty"`
	// XFactor is the demand-control threshold on (wait + service) /
	// service (§2.4); 0 switches demand control off.
	XFactor float64 `yaml:"xfactor" json:"xfactor,omitempty" range:"[0,]"`
	// BootMin, BootMax: VM start-up delay ~ U(BootMin, BootMax) (§3;
	// default 0–0.2 h, mean 0.1 h).
	BootMin float64 `yaml:"boot_min" json:"boot_min,omitempty" range:"[0,]"`
	BootMax float64 `yaml:"boot_max" json:"boot_max,omitempty" range:"[0,]"`
	// ALF: lease when the average load factor (queued tasks per leased
	// VM, formula (3)) exceeds it (§3.1 (2)); 0 = off.
	ALF float64 `yaml:"alf" json:"alf,omitempty" range:"[0,]"`
	// MaxVMs caps the pool (0 = no cap; must allow the largest job).
	MaxVMs int `yaml:"max_vms" json:"max_vms,omitempty" range:"[0,]"`
	// LeaseCooldown: after a lease, no lease on load (§3.1 (2)) for this
	// long (our reading of "no further leases ... after the tenth period";
	// 0 = none). A lease for a job too large for the pool (§3.1 (1)) is
	// never held back.
	LeaseCooldown float64 `yaml:"lease_cooldown" json:"lease_cooldown,omitempty" range:"[0,]"`
	// ReleaseHold is release condition 3 (§3.2): "migrating" (default):
	// no VM goes while a migrated job waits for its start; "starving":
	// also none while a starving job waits in the VM queues (it is
	// collecting idle VMs to migrate to); "none": condition 3 off, idle
	// VMs go while a migrated job waits for its start (its own VMs are
	// reserved, so never released) — to measure what condition 3 does.
	ReleaseHold string `yaml:"release_hold" json:"release_hold,omitempty"`
	// FixedVMs > 0: a fixed pool of that many VMs, ready at 0, never
	// leased or released (elasticity off).
	FixedVMs int `yaml:"fixed_vms" json:"fixed_vms,omitempty" range:"[0,]"`
	// Billing granularity (0 = per unit of time used; 1 = started hours)
	// and price per VM per time unit (default 1).
	Billing float64 `yaml:"billing" json:"billing,omitempty" range:"[0,]"`
	Price   float64 `yaml:"price" json:"price,omitempty" range:"[0,]"`
	// Tau is the bounded-slowdown bound (default 10 s = 1/360 h).
	Tau float64 `yaml:"tau" json:"tau,omitempty" range:"[0,]"`
}

// DefaultParams: AFCFS, first-fit migration with monitor limit 5,
// XFactor 10, boot U(0, 0.2), ALF 1, no cap, continuous billing at 1 per
// VM-hour, τ = 10 s.
func DefaultParams() Params {
	return Params{Policy: "afcfs", Migration: "first-fit", MonitorLimit: 5, Monitor: "jobs", XFactor: 10, BootMax: 0.2, ALF: 1, ReleaseHold: "migrating", Price: 1, Tau: 10.0 / 3600}
}

// Defaults fills zero fields with DefaultParams' values where zero is not
// a meaningful choice (policy, migration, boot range, price, τ).
func (p *Params) Defaults() {
	d := DefaultParams()
	if p.Policy == "" {
		p.Policy = d.Policy
	}
	if p.Migration == "" {
		p.Migration = d.Migration
	}
	if p.Monitor == "" {
		p.Monitor = "jobs"
	}
	if p.ReleaseHold == "" {
		p.ReleaseHold = "migrating"
	}
	if p.BootMin == 0 && p.BootMax == 0 {
		p.BootMax = d.BootMax
	}
	if p.Price == 0 {
		p.Price = d.Price
	}
	if p.Tau == 0 {
		p.Tau = d.Tau
	}
}

// Check validates p for jobs of at most maxSize tasks.
func (p *Params) Check(maxSize int) error {
	switch {
	case p.Policy != "afcfs" && p.Policy != "ljfs":
		return fmt.Errorf("policy: want afcfs or ljfs, got %q", p.Policy)
	case p.Migration != "none" && p.Migration != "first-fit" && p.Migration != "best-fit":
		return fmt.Errorf("migration: want none, first-fit or best-fit, got %q", p.Migration)
	case p.Monitor != "" && p.Monitor != "jobs" && p.Monitor != "tasks":
		return fmt.Errorf("monitor: want jobs or tasks, got %q", p.Monitor)
	case p.ReleaseHold != "" && p.ReleaseHold != "migrating" && p.ReleaseHold != "starving" && p.ReleaseHold != "none":
		return fmt.Errorf("release_hold: want migrating, starving or none, got %q", p.ReleaseHold)
	case p.BootMax < p.BootMin || p.BootMin < 0:
		return fmt.Errorf("boot_min, boot_max: need 0 <= boot_min <= boot_max, got %g, %g", p.BootMin, p.BootMax)
	case p.MaxVMs > model.MaxNodes:
		return fmt.Errorf("max_vms: %d VMs is over the limit of %d (raise it with --max-nodes)", p.MaxVMs, model.MaxNodes)
	case p.FixedVMs > model.MaxNodes:
		return fmt.Errorf("fixed_vms: %d VMs is over the limit of %d (raise it with --max-nodes)", p.FixedVMs, model.MaxNodes)
	case p.MaxVMs > 0 && p.MaxVMs < maxSize:
		return fmt.Errorf("max_vms: %d cannot hold a job of %d tasks", p.MaxVMs, maxSize)
	case p.FixedVMs > 0 && p.MaxVMs > 0:
		return fmt.Errorf("max_vms, fixed_vms: a fixed pool has no cap to respect; give one of them")
	case p.FixedVMs > 0 && p.FixedVMs < maxSize:
		return fmt.Errorf("fixed_vms: %d cannot hold a job of %d tasks", p.FixedVMs, maxSize)
	}
	return nil
}

// Job states.
const (
	jDispatcher = iota // waiting in the dispatcher for VMs to boot
	jQueued            // tasks in VM queues
	jMigrating         // migrated, starts after the overhead
	jRunning
	jDone
)

// Job is one gang job in the cloud.
type Job struct {
	ID       int64
	Size     int
	Arrival  float64
	Service  float64
	VMs      []int // the VMs holding its tasks
	Start    float64
	End      float64
	Migrated bool
	Starving bool
	state    int
	// waitLease: its arrival leased VMs on load (§3.1 (2)); it is
	// dispatched when they are ready.
	waitLease bool
	seq       int // arrival order
	starvSeq  int // order of entry into demand control
	mark      int // scan epoch (candidate deduplication)
	ixq       bool
	ixs       int8 // 1: starving in the dispatcher; 2: starving, queued
	// What the wait decomposition reads (Result): the time it left the
	// dispatcher; the lease its arrival made (0 none, 1: §3.1 (1), 2:
	// §3.1 (2)); the largest load (tasks queued or running) on its VMs
	// when it was dispatched.
	dispatched float64
	leased     int8
	ahead      int
}

// VM is one leased machine.
type VM struct {
	ID                int
	LeasedAt, ReadyAt float64
	ReleasedAt        float64 // NaN while leased
	queue             []*Job  // waiting tasks; entries of jobs that left are dropped lazily
	nq                int     // tasks really waiting in queue
	running           *Job
	reserved          *Job // a migrated job that will start here
	busyTime          float64
	released          bool
	dirty             bool // became idle since the last normal scan
}

// Idle: booted, leased, not running, not reserved.
func (v *VM) idle(now float64) bool {
	return !v.released && v.ReadyAt <= now && v.running == nil && v.reserved == nil
}

const (
	evArrival uint8 = iota
	evEnd
	evReady
	evMigStart
	evStarve
)

// Sim is one run.
type Sim struct {
	p     Params
	q     sim.Queue
	now   float64
	err   error
	jobs  []*Job
	vms   []*VM // every VM ever leased, by id
	pool  []*VM // the leased ones, by id
	rbuf  []*VM // buffers reused between calls
	obuf  []*Job
	lbuf  []loaded
	cbuf  []int  // dispatch's load counts
	disp  []*Job // dispatcher queue
	wait  []*Job // queued jobs, arrival order
	starv []*Job // starving jobs, by crossing time
	boot  *rand.Rand
	next  int // next arrival
	done  int
	// naive: the reference scheduler, which scans every waiting job at
	// every instant (kept for the equivalence test); the default is the
	// indexed one (index.go).
	naive bool
	ix    index
	seed  uint64

	booting    int
	lastLease  float64 // time of the last lease (−Inf before any)
	Migrations int     // jobs migrated
	TasksMoved int
	Starved    int // jobs that entered demand control
	// StarvedAtDispatcher: jobs that entered demand control while still
	// in the dispatcher (waiting for VMs to boot); PausedByDispatcher:
	// scheduling instants at which demand control paused normal
	// scheduling though every starving job was still in the dispatcher.
	StarvedAtDispatcher, PausedByDispatcher int
	MaxPool                                 int
	migrationsOpen                          int // migrated jobs not started yet
	// Sums over arrivals of the state an arriving job finds (before this
	// instant's decisions): ALF (formula (3)), leased and idle VMs.
	arrALF, arrPool, arrIdle float64

	// The series (nil: none) and the counts it reads.
	rec               *Recorder
	nQueued, nRunning int     // jobs queued or migrating; running
	relLease, relCost float64 // lease time and billed cost of released VMs
}

// New prepares a run of jobs (sorted by submit time) under p.
func New(jobs []model.Job, p Params, seed uint64) (*Sim, error) {
	maxSize := 0
	s := &Sim{p: p, seed: seed, boot: sim.Stream(seed, "cloud/boot"), lastLease: math.Inf(-1)}
	for i, j := range jobs {
		if j.Procs < 1 {
			return nil, fmt.Errorf("job %d: a gang needs at least one task, got %d", j.ID, j.Procs)
		}
		if !(j.Runtime > 0) {
			return nil, fmt.Errorf("job %d: service time must be positive, got %g", j.ID, j.Runtime)
		}
		if i > 0 && j.Submit < jobs[i-1].Submit {
			return nil, fmt.Errorf("job %d: jobs must be sorted by submit time", j.ID)
		}
		maxSize = max(maxSize, j.Procs)
		s.jobs = append(s.jobs, &Job{ID: j.ID, Size: j.Procs, Arrival: j.Submit, Service: j.Runtime, seq: i, Start: math.NaN(), End: math.NaN()})
	}
	if err := p.Check(maxSize); err != nil {
		return nil, err
	}
	s.ix.init(maxSize)
	for range p.FixedVMs {
		s.addVM(0, 0)
	}
	return s, nil
}

func (s *Sim) addVM(now, ready float64) *VM {
	v := &VM{ID: len(s.vms), LeasedAt: now, ReadyAt: ready, ReleasedAt: math.NaN()}
	s.vms = append(s.vms, v)
	s.pool = append(s.pool, v)
	if ready > now {
		s.booting++
		s.q.Push(sim.Event{Time: ready, Kind: evReady, Ref: int32(v.ID)})
	}
	s.MaxPool = max(s.MaxPool, s.leased())
	return v
}

// lease starts n VMs (within the cap) booting now.
func (s *Sim) lease(n int) {
	if s.p.MaxVMs > 0 {
		n = min(n, s.p.MaxVMs-s.leased())
	}
	if n > 0 {
		s.lastLease = s.now
	}
	for range n {
		d := s.p.BootMin + s.boot.Float64()*(s.p.BootMax-s.p.BootMin)
		s.addVM(s.now, s.now+d)
	}
}

func (s *Sim) leased() int { return len(s.pool) }

// Run simulates to the last completion.
func (s *Sim) Run() error {
	for s.done < len(s.jobs) && s.err == nil {
		var arr *Job
		if s.next < len(s.jobs) {
			arr = s.jobs[s.next]
		}
		switch {
		case s.q.Len() > 0 && (arr == nil || s.q.Peek().Time <= arr.Arrival):
			e := s.q.Pop()
			s.now = e.Time
			s.handle(e)
		case arr != nil:
			s.next++
			s.now = arr.Arrival
			s.arrive(arr)
		default:
			return fmt.Errorf("cloud: %d jobs can never run (nothing left to happen at %g)", len(s.jobs)-s.done, s.now)
		}
		// Handle every event of this instant before deciding.
		if s.q.Len() > 0 && s.q.Peek().Time == s.now {
			continue
		}
		if s.next < len(s.jobs) && s.jobs[s.next].Arrival == s.now {
			continue
		}
		s.schedule()
		if s.rec != nil {
			s.sample()
		}
	}
	if s.err != nil {
		return s.err
	}
	for len(s.pool) > 0 {
		s.release(s.pool[0])
	}
	if s.rec != nil {
		s.sample()
	}
	return nil
}

func (s *Sim) handle(e sim.Event) {
	switch e.Kind {
	case evEnd:
		j := s.jobs[e.Ref]
		j.state = jDone
		j.End = s.now
		s.done++
		s.nRunning--
		for _, id := range j.VMs {
			v := s.vms[id]
			v.running = nil
			v.busyTime += j.Service
			s.markDirty(v)
		}
	case evReady:
		s.booting--
		s.markDirty(s.vms[e.Ref])
	case evMigStart:
		j := s.jobs[e.Ref]
		s.migrationsOpen--
		for _, id := range j.VMs {
			s.vms[id].reserved = nil
		}
		s.start(j)
	case evStarve:
		j := s.jobs[e.Ref]
		if j.state == jQueued || j.state == jDispatcher {
			j.Starving = true
			s.Starved++
			if j.state == jDispatcher {
				s.StarvedAtDispatcher++
			}
			if s.naive {
				s.starv = append(s.starv, j) // crossing times arrive in order
			} else {
				s.ix.starve(j)
			}
		}
	}
}

func (s *Sim) arrive(j *Job) {
	if s.p.XFactor > 0 {
		// XFactor = (wait + e) / e exceeds X when wait > (X − 1) e.
		s.q.Push(sim.Event{Time: j.Arrival + (s.p.XFactor-1)*j.Service, Kind: evStarve, Ref: int32(j.seq)})
	}
	j.state = jDispatcher
	s.disp = append(s.disp, j)
	s.arrALF += s.alf()
	s.arrPool += float64(s.leased())
	s.arrIdle += float64(s.idleCount())
	if s.p.FixedVMs > 0 {
		return
	}
	// §3.1 (1): too few VMs for the job: lease the missing ones.
	if miss := j.Size - s.leased(); miss > 0 {
		s.lease(miss)
		j.leased = 1
		return
	}
	// §3.1 (2): average load factor above the threshold (and no lease
	// under way): lease as many VMs as the job has tasks.
	if s.p.ALF > 0 && s.booting == 0 && s.now >= s.lastLease+s.p.LeaseCooldown && s.alf() > s.p.ALF {
		s.lease(j.Size)
		j.waitLease = true
		j.leased = 2
	}
}

// alf is formula (3): queued tasks per leased VM.
func (s *Sim) alf() float64 {
	q := 0
	for _, v := range s.pool {
		q += v.nq
	}
	if len(s.pool) == 0 {
		return 0
	}
	return float64(q) / float64(len(s.pool))
}

// ready VMs: booted and leased (in a buffer reused by the next call).
func (s *Sim) ready() []*VM {
	out := s.rbuf[:0]
	for _, v := range s.pool {
		if v.ReadyAt <= s.now {
			out = append(out, v)
		}
	}
	s.rbuf = out
	return out
}

// dispatch sends the dispatcher's jobs, in order, to the shortest queues
// (§2.1) while enough VMs are ready. A job waiting for a lease under way
// waits while any VM is booting.
func (s *Sim) dispatch() {
	for len(s.disp) > 0 {
		j := s.disp[0]
		r := s.ready()
		if len(r) < j.Size || (j.waitLease && s.booting > 0) {
			return
		}
		s.disp = s.disp[1:]
		// The k shortest queues: tasks assigned (queued + running), then
		// VM id.
		ls := s.lbuf[:0]
		for _, v := range r {
			ls = append(ls, loaded{load(v), v})
		}
		s.lbuf = ls
		j.VMs = j.VMs[:0]
		j.dispatched = s.now
		j.ahead = 0
		s.cbuf = shortest(ls, j.Size, s.cbuf, func(x loaded) {
			j.ahead = max(j.ahead, x.n)
			enqueue(x.v, j)
			j.VMs = append(j.VMs, x.v.ID)
		})
		sort.Ints(j.VMs)
		j.state = jQueued
		s.nQueued++
		if s.naive {
			s.wait = append(s.wait, j)
		} else {
			s.ix.queued(j)
		}
	}
}

// loaded is a VM with its queue length, for shortest-queue dispatch.
type loaded struct {
	n int
	v *VM
}

// shortest calls f, in id order, for the k VMs of ls (in id order) with
// the smallest (load, id): every VM below the k-th smallest load and the
// first ones at that load. It counts loads instead of sorting every ready
// VM per dispatched job (issue 30); cnt is scratch space, returned for
// reuse. The ready VMs are in id order because the pool is: ids grow with
// every lease and releases keep the order.
func shortest(ls []loaded, k int, cnt []int, f func(loaded)) []int {
	most := 0
	for _, x := range ls {
		most = max(most, x.n)
	}
	if cap(cnt) < most+1 {
		cnt = make([]int, most+1, 2*(most+1))
	}
	cnt = cnt[:most+1]
	clear(cnt)
	for _, x := range ls {
		cnt[x.n]++
	}
	at, below := 0, 0 // the k-th smallest load, VMs below it
	for below+cnt[at] < k {
		below += cnt[at]
		at++
	}
	take := k - below // VMs at that load to take
	for _, x := range ls {
		if x.n < at || x.n == at && take > 0 {
			if x.n == at {
				take--
			}
			f(x)
		}
	}
	return cnt
}

func load(v *VM) int {
	n := v.nq
	if v.running != nil || v.reserved != nil {
		n++
	}
	return n
}

// canStart: all of j's VMs are idle.
func (s *Sim) canStart(j *Job) bool {
	for _, id := range j.VMs {
		if !s.vms[id].idle(s.now) {
			return false
		}
	}
	return true
}

// start commits j's tasks on its VMs at once (a gang).
func (s *Sim) start(j *Job) {
	for _, id := range j.VMs {
		v := s.vms[id]
		if v.running != nil || v.released || v.ReadyAt > s.now {
			// A broken invariant of this package, not of the input.
			s.err = fmt.Errorf("cloud: job %d would start on VM %d, which is busy, booting or released", j.ID, id)
			return
		}
		v.running = j
		dequeue(v, j)
	}
	s.ix.leave(j)
	j.state = jRunning
	s.nQueued--
	s.nRunning++
	j.Start = s.now
	s.q.Push(sim.Event{Time: s.now + j.Service, Kind: evEnd, Ref: int32(j.seq)})
}

// order is the scan order of the gang policy: arrival (AFCFS) or largest
// first, then arrival (LJFS).
func (s *Sim) order() []*Job {
	out := s.obuf[:0]
	defer func() { s.obuf = out[:0] }()
	for _, j := range s.wait {
		if j.state == jQueued {
			out = append(out, j)
		}
	}
	if s.p.Policy == "ljfs" {
		sort.SliceStable(out, func(a, b int) bool { return out[a].Size > out[b].Size })
	}
	return out
}

// schedule is one scheduling instant: dispatch, then demand control or
// normal scheduling and migration, then release.
func (s *Sim) schedule() {
	if !s.naive {
		s.scheduleIndexed()
		return
	}
	s.dispatch()
	s.prune()
	var starving []*Job
	for _, j := range s.starv {
		if j.state == jQueued || j.state == jDispatcher {
			starving = append(starving, j)
		}
	}
	s.starv = starving
	if len(starving) > 0 {
		queued := false
		for _, j := range starving {
			queued = queued || j.state == jQueued
		}
		if !queued {
			s.PausedByDispatcher++
		}
		// §2.4: normal scheduling and migration pause; starving jobs, in
		// order, start when their VMs are idle or migrate (no monitor cap).
		for _, j := range starving {
			if j.state != jQueued {
				continue
			}
			if s.canStart(j) {
				s.start(j)
			} else if s.p.Migration != "none" && !j.Migrated && s.idleCount() >= j.Size {
				s.migrate(j)
			}
		}
	} else {
		started := 0
		for _, j := range s.order() {
			if s.canStart(j) {
				s.start(j)
				started++
			}
		}
		if started == 0 && s.p.Migration != "none" {
			s.migrations()
		}
	}
	s.prune()
	s.releaseIdle()
}

// prune drops started and finished jobs from the waiting list.
func (s *Sim) prune() {
	kept := s.wait[:0]
	for _, j := range s.wait {
		if j.state == jQueued {
			kept = append(kept, j)
		}
	}
	s.wait = kept
}

func (s *Sim) idleVMs() []*VM {
	out := make([]*VM, 0, 8)
	for _, v := range s.pool {
		if v.idle(s.now) {
			out = append(out, v)
		}
	}
	return out
}

func (s *Sim) idleCount() int {
	n := 0
	for _, v := range s.pool {
		if v.idle(s.now) {
			n++
		}
	}
	return n
}

// migrations is §2.3: only when nothing could start normally; the jobs
// that fit the idle VMs (never migrated before), if fewer than the
// monitor's limit, are candidates; first-fit takes the first in the
// policy's order, best-fit the largest (it leaves the fewest VMs idle).
// Repeats while a candidate remains.
func (s *Sim) migrations() {
	for {
		idle := s.idleCount()
		var fit []*Job
		for _, j := range s.order() {
			if !j.Migrated && j.Size <= idle && (s.p.Monitor != "tasks" || s.p.MonitorLimit == 0 || s.toMove(j) < s.p.MonitorLimit) {
				fit = append(fit, j)
			}
		}
		if len(fit) == 0 || (s.p.Monitor != "tasks" && s.p.MonitorLimit > 0 && len(fit) >= s.p.MonitorLimit) {
			return
		}
		pick := fit[0]
		if s.p.Migration == "best-fit" {
			for _, j := range fit[1:] {
				if j.Size > pick.Size {
					pick = j
				}
			}
		}
		s.migrate(pick)
	}
}

// toMove is the number of j's tasks a migration would move: those on
// VMs that are not idle.
func (s *Sim) toMove(j *Job) int {
	n := 0
	for _, id := range j.VMs {
		if !s.vms[id].idle(s.now) {
			n++
		}
	}
	return n
}

// migrate moves j's tasks waiting on busy VMs to idle VMs not holding
// its tasks, reserves all its VMs and starts it after the overhead.
func (s *Sim) migrate(j *Job) {
	mine := map[int]bool{}
	for _, id := range j.VMs {
		mine[id] = true
	}
	var free []*VM
	for _, v := range s.idleVMs() {
		if !mine[v.ID] {
			free = append(free, v)
		}
	}
	moved := 0
	for i, id := range j.VMs {
		v := s.vms[id]
		if v.idle(s.now) {
			continue
		}
		to := free[0]
		free = free[1:]
		dequeue(v, j)
		enqueue(to, j)
		j.VMs[i] = to.ID
		moved++
	}
	sort.Ints(j.VMs)
	s.ix.leave(j)
	j.Migrated = true
	s.Migrations++
	s.TasksMoved += moved
	if s.p.Overhead == 0 {
		s.start(j)
		return
	}
	for _, id := range j.VMs {
		s.vms[id].reserved = j
	}
	j.state = jMigrating
	s.migrationsOpen++
	s.q.Push(sim.Event{Time: s.now + s.p.Overhead, Kind: evMigStart, Ref: int32(j.seq)})
}

// releaseIdle is §3.2: a VM goes when it is idle with an empty queue, no
// job waits in the dispatcher and no migration is planned (condition 3,
// not checked under release_hold "none").
func (s *Sim) releaseIdle() {
	if s.p.FixedVMs > 0 || len(s.disp) > 0 || (s.migrationsOpen > 0 && s.p.ReleaseHold != "none") {
		return
	}
	if s.p.ReleaseHold == "starving" {
		if !s.naive && s.ix.starvingQueued > 0 {
			return
		}
		for _, j := range s.starv {
			if s.naive && j.state == jQueued {
				return
			}
		}
	}
	kept := s.pool[:0]
	for _, v := range s.pool {
		if v.idle(s.now) && v.nq == 0 {
			s.setReleased(v)
			continue
		}
		kept = append(kept, v)
	}
	clear(s.pool[len(kept):])
	s.pool = kept
}

// release lets v go now.
func (s *Sim) release(v *VM) {
	s.setReleased(v)
	for i, x := range s.pool {
		if x == v {
			s.pool = append(s.pool[:i], s.pool[i+1:]...)
			break
		}
	}
}

// setReleased marks v released now and counts its lease.
func (s *Sim) setReleased(v *VM) {
	v.released = true
	v.ReleasedAt = max(s.now, v.LeasedAt)
	lt := v.ReleasedAt - v.LeasedAt
	s.relLease += lt
	s.relCost += s.billed(lt)
}

// Result is what a run measured.
type Result struct {
	Jobs                             int
	MeanResponse, MeanWait, MeanBSLD float64
	Makespan                         float64
	Migrations, TasksMoved, Starved  int
	StarvedAtDispatcher              int
	PausedByDispatcher               int
	LeaseTime, Cost, Utilization     float64
	MaxVMs, VMsLeased                int
	MeanSize                         float64
	// The wait decomposed (docs/cloud.md, "The ALF lease threshold across
	// λ"): mean time in the dispatcher (arrival → dispatch, boot waits
	// and head-of-line waits) and in VM queues (dispatch → start), so
	// MeanWait = WaitDispatcher + WaitVMQueue; the share of jobs whose
	// arrival leased VMs (§3.1 (1) or (2)) and the mean wait of those and
	// of the others; at dispatch, the mean of the largest load (tasks
	// queued or running) on a job's VMs and the share of jobs dispatched
	// onto VMs with none; the means over arrivals of the ALF, the leased
	// and the idle VMs an arriving job finds; the mean wait of the jobs
	// that migrated (§2.3).
	WaitDispatcher, WaitVMQueue  float64
	LeaseJobs                    float64
	WaitLeaseJobs, WaitOtherJobs float64
	TasksAhead, EmptyDispatch    float64
	ALFAtArrival, PoolAtArrival  float64
	IdleAtArrival, WaitMigrated  float64
	// BSLDOver10, BSLDOver20: the share of jobs whose bounded slowdown
	// exceeds 10 and 20, the paper's two XFactor thresholds (§4.3):
	// demand control (§2.4) acts on a job whose expansion factor reaches
	// the threshold, so these measure the tail each XFactor leaves.
	BSLDOver10, BSLDOver20 float64
}

// Result computes the metrics (§4): mean response time, mean bounded
// slowdown max(1, RT / max(τ, e)), total migrations, total lease time
// Σ (release − lease), cost (lease time per VM rounded up to the billing
// granularity, × price), utilisation (busy VM time / lease time).
func (s *Sim) Result() Result {
	r := Result{Jobs: len(s.jobs), Migrations: s.Migrations, TasksMoved: s.TasksMoved, Starved: s.Starved, StarvedAtDispatcher: s.StarvedAtDispatcher, PausedByDispatcher: s.PausedByDispatcher, MaxVMs: s.MaxPool, VMsLeased: len(s.vms)}
	first := math.Inf(1)
	busy := 0.0
	nLease := 0
	for _, j := range s.jobs {
		rt := j.End - j.Arrival
		r.MeanResponse += rt
		r.MeanWait += j.Start - j.Arrival
		r.WaitDispatcher += j.dispatched - j.Arrival
		r.WaitVMQueue += j.Start - j.dispatched
		if j.leased > 0 {
			nLease++
			r.WaitLeaseJobs += j.Start - j.Arrival
		} else {
			r.WaitOtherJobs += j.Start - j.Arrival
		}
		if j.Migrated {
			r.WaitMigrated += j.Start - j.Arrival
		}
		r.TasksAhead += float64(j.ahead)
		if j.ahead == 0 {
			r.EmptyDispatch++
		}
		bsld := max(1, rt/max(s.p.Tau, j.Service))
		r.MeanBSLD += bsld
		if bsld > 10 {
			r.BSLDOver10++
		}
		if bsld > 20 {
			r.BSLDOver20++
		}
		r.MeanSize += float64(j.Size)
		r.Makespan = max(r.Makespan, j.End)
		first = min(first, j.Arrival)
	}
	n := float64(len(s.jobs))
	r.MeanResponse /= n
	r.MeanWait /= n
	r.MeanBSLD /= n
	r.BSLDOver10 /= n
	r.BSLDOver20 /= n
	r.MeanSize /= n
	r.WaitDispatcher /= n
	r.WaitVMQueue /= n
	r.LeaseJobs = float64(nLease) / n
	if nLease > 0 {
		r.WaitLeaseJobs /= float64(nLease)
	}
	if nLease < len(s.jobs) {
		r.WaitOtherJobs /= float64(len(s.jobs) - nLease)
	}
	r.TasksAhead /= n
	if s.Migrations > 0 {
		r.WaitMigrated /= float64(s.Migrations)
	}
	r.EmptyDispatch /= n
	r.ALFAtArrival, r.PoolAtArrival, r.IdleAtArrival = s.arrALF/n, s.arrPool/n, s.arrIdle/n
	r.Makespan -= first
	for _, v := range s.vms {
		lt := v.ReleasedAt - v.LeasedAt
		r.LeaseTime += lt
		busy += v.busyTime
		if s.p.Billing > 0 {
			lt = math.Ceil(lt/s.p.Billing-1e-9) * s.p.Billing
		}
		r.Cost += lt * s.p.Price
	}
	if r.LeaseTime > 0 {
		r.Utilization = busy / r.LeaseTime
	}
	return r
}

// Hours converts jobs in SWF seconds (the gang generator's output, as
// every SWF) to the model's hours: a copy with submit time and runtime
// divided by 3600. Every caller converts here, at the model's boundary;
// the model itself has no unit field to mix.
func Hours(jobs []model.Job) []model.Job {
	out := make([]model.Job, len(jobs))
	for i, j := range jobs {
		j.Submit /= 3600
		j.Runtime /= 3600
		out[i] = j
	}
	return out
}

// Jobs returns the simulated jobs (read only).
func (s *Sim) Jobs() []*Job { return s.jobs }

// VMs returns the VMs ever leased (read only).
func (s *Sim) VMs() []*VM { return s.vms }
