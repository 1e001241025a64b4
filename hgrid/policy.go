package hgrid

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sort"

	"github.com/gridsched/gridsched/engine"
	"github.com/gridsched/gridsched/sim"
)

// Params configure the grid: the dispatcher, the load tracking (§2.2.1),
// the job distribution (§2.2.2) and the load monitor (§2.2.3).
type Params struct {
	// Period is the reporting period: every Period seconds each live
	// manager reports its nodes' load indices and queue upward; the
	// dispatcher works on the last report (plus the jobs it dispatched
	// since, which the grid manager itself knows: its job-count table).
	Period float64 `yaml:"period" json:"period,omitempty" range:"[1,]"`
	// Weights are formula (1)'s a_j by load index name.
	Weights Weights `yaml:"weights" json:"weights,omitempty"`
	// LLow and LHigh are the load monitor's thresholds on managers' loads
	// (formula (2)); Standby is how many top-level managers start on
	// standby (the last ones); MinActive is b_m, the fewest active
	// managers. Standby = 0 switches the monitor off.
	LLow      float64 `yaml:"l_low" json:"l_low,omitempty" range:"[0,]"`
	LHigh     float64 `yaml:"l_high" json:"l_high,omitempty" range:"[0,]"`
	Standby   int     `yaml:"standby" json:"standby,omitempty" range:"[0,]"`
	MinActive int     `yaml:"min_active" json:"min_active,omitempty" range:"[1,]"`
	// Timeout: a manager that has not reported for longer is declared
	// failed and its jobs are dispatched again (default 3 periods).
	Timeout float64 `yaml:"timeout" json:"timeout,omitempty" range:"[1,]"`
	// RedispatchFactor: a job still waiting at its leaf later than its
	// dispatch + factor × (the wait the tables promised it, or one period
	// if more) "runs much worse than expected" (§2.2.1) and is dispatched
	// again, once; 0 = off.
	RedispatchFactor float64 `yaml:"redispatch_factor" json:"redispatch_factor,omitempty" range:"[0,]"`
	// Batch is MinMin's mapping interval (default 30 s).
	Batch float64 `yaml:"batch" json:"batch,omitempty" range:"[1,]"`
	// ACO parameters (dispatcher aco).
	ACO ACOParams `yaml:"aco" json:"aco,omitempty"`
	// Failures of top-level managers (all their nodes become
	// unreachable; running jobs are lost and wait to be dispatched again).
	Failures FailureParams `yaml:"failures" json:"failures,omitempty"`
}

// ACOParams: the pheromone τ_k of leaf k starts at its capacity
// (processors × speed, over the largest); a dispatch picks, with
// probability Q0, the leaf maximising τ^α · η^β (η = 1 / expected
// completion time from the reported state), otherwise draws a leaf with
// probability ∝ τ^α · η^β (Dorigo & Gambardella's ACS rule). Assigning a
// job evaporates τ_k ← (1 − ρ) τ_k; a completion reinforces τ_k ← τ_k +
// ρ · (expected run time / response time). This is the resource-pheromone
// scheme of Chang, Chang & Lin, "An ant algorithm for balanced job
// scheduling in grids" (FGCS 25(1), 2009): pheromone per resource,
// lowered on assignment and raised on completion.
type ACOParams struct {
	Alpha float64 `yaml:"alpha" json:"alpha,omitempty" range:"[0,]"`
	Beta  float64 `yaml:"beta" json:"beta,omitempty" range:"[0,]"`
	Rho   float64 `yaml:"rho" json:"rho,omitempty" range:"(0,1)"`
	Q0    float64 `yaml:"q0" json:"q0,omitempty" range:"[0,1]"`
}

// FailureParams: manager failures at given times, and/or at random with
// mean time between failures MTBF per manager (exponential, until the
// last arrival); a failed manager is repaired after Repair seconds (0 =
// never).
type FailureParams struct {
	At     []ManagerFailure `yaml:"at" json:"at,omitempty"`
	MTBF   float64          `yaml:"mtbf" json:"mtbf,omitempty" range:"[0,]"`
	Repair float64          `yaml:"repair" json:"repair,omitempty" range:"[0,]"`
}

// ManagerFailure is one failure of top-level manager Manager (0-based).
type ManagerFailure struct {
	Time    float64 `yaml:"time" json:"time"`
	Manager int     `yaml:"manager" json:"manager"`
}

// MinPeriod is the shortest report period, timeout, MinMin batch interval
// and manager MTBF (s): shorter ones fire so many events that a run would
// be effectively endless (a period of 10^-6 s did not finish).
const MinPeriod = 1.0

// Defaults fills the parameters left zero with DefaultParams' values.
func (p *Params) Defaults() {
	d := DefaultParams()
	if p.Period == 0 {
		p.Period = d.Period
	}
	if p.Weights == nil {
		p.Weights = d.Weights
	}
	if p.LLow == 0 && p.LHigh == 0 {
		p.LLow, p.LHigh = d.LLow, d.LHigh
	}
	if p.MinActive == 0 {
		p.MinActive = d.MinActive
	}
	if p.Batch == 0 {
		p.Batch = d.Batch
	}
	if p.ACO == (ACOParams{}) {
		p.ACO = d.ACO
	}
}

// DefaultParams: reports every 30 s, the default weights, monitor off
// (L_low 0.05, L_high 0.6 when on), timeout 3 periods, MinMin batches of
// 30 s, ACO α = 1, β = 2, ρ = 0.1, q0 = 0.9.
func DefaultParams() Params {
	return Params{Period: 30, Weights: DefaultWeights(), LLow: 0.05, LHigh: 0.6, MinActive: 1, Batch: 30,
		ACO: ACOParams{Alpha: 1, Beta: 2, Rho: 0.1, Q0: 0.9}}
}

// Dispatchers names the grid-level dispatchers.
var Dispatchers = []string{"stat", "minmin", "aco", "random", "round-robin", "least-loaded"}

// Describe says what a dispatcher does (for 'gridsched policies').
func Describe(d string) string {
	return map[string]string{
		"stat":         "hierarchical grid (seed 001, needs --tree): statistical load balancing down the tree, formulas (1)–(3)",
		"minmin":       "hierarchical grid (needs --tree): MinMin batch mapping by expected completion time",
		"aco":          "hierarchical grid (needs --tree): ant colony, pheromone per leaf domain (ACS rule)",
		"random":       "hierarchical grid (needs --tree): a random eligible leaf domain",
		"round-robin":  "hierarchical grid (needs --tree): eligible leaf domains in turn",
		"least-loaded": "hierarchical grid (needs --tree): the leaf domain of least load, fresh information",
	}[d]
}

// Placement is one dispatch: job, leaf, when, and the migration cost it
// pays before it can be queued there.
type Placement struct {
	Job  *engine.Job
	Leaf int
	At   float64
	Cost float64
	// Eligible records that the leaf's manager was active (not on
	// standby, not declared failed) at the dispatch: the invariant the
	// property test checks.
	Eligible bool
	// Wait is the wait in the leaf's queue the tables predicted (from
	// the dispatch; +Inf if the leaf is too small).
	Wait float64
}

const (
	tickTag  = -1
	batchTag = -2
)

// Policy is the grid: a dispatcher over the tree, local FCFS queues at
// the leaf managers, periodic reports, the load monitor and failures.
type Policy struct {
	t    *Tree
	p    Params
	disp string
	a    [nIndex]float64
	rng  *rand.Rand

	leafQ    [][]*engine.Job
	where    map[int32]int // job → leaf it is queued at, running at or moving to
	moving   map[int32]move
	gridQ    []*engine.Job // no eligible leaf yet
	pending  []*engine.Job // MinMin's batch
	rr       int
	maxSpeed float64

	// Reported state (the dispatcher's tables): the last report plus
	// every job dispatched since (view), and the load indices derived
	// from it (rep), as the leaves would report them.
	rep      []Indices // per node
	view     snapshot
	lastRep  []float64 // per top manager
	lastTick float64
	armed    float64 // time of the armed tick timer (−Inf if none)
	armedB   float64
	dirty    bool

	// Manager state.
	active   []bool // not on standby
	detected []bool // declared failed
	downN    []int  // nodes of the manager that are down (truth)

	tau, tau0 []float64 // ACO

	timers []timerReq

	Log  []Placement   // every dispatch, in order
	jobs []*engine.Job // every submitted job

	forever []bool // managers that failed for good (no repair)

	ends  [][]float64  // snapshotOf's scratch: busy processors' free times per leaf
	queue [][2]float64 // and a leaf's queue (processors, duration)

	// Tables is the grid manager's table per top-level manager (§2.2.1):
	// as of the last report, its running jobs, throughput (jobs
	// completed per second over the last period) and mean response delay
	// of those jobs.
	Tables  []ManagerTable
	doneN   []int             // completions since the last report, per manager
	doneRT  []float64         // their summed response times
	expWait map[int32]float64 // wait the tables promised at dispatch
	dispAt  map[int32]float64 // time of the last dispatch
	redone  map[int32]bool

	unfinished                                                 int
	redispatched, activations, withdrawals, detections, reject int
	lost                                                       int
}

// ManagerTable is one row of the grid manager's tables.
type ManagerTable struct {
	At         float64 // time of the report
	Running    int
	Throughput float64 // jobs per second
	MeanDelay  float64 // mean response time of the jobs completed in the period (NaN: none)
}

// move is a job on its way to a leaf, due at a time (a job dispatched
// again while moving has a new move; the old timer finds it not due).
type move struct {
	job *engine.Job
	due float64
}

type timerReq struct {
	at  float64
	tag int64
}

// New returns a grid policy with dispatcher disp (one of Dispatchers).
func New(t *Tree, disp string, p Params, seed uint64) (*Policy, error) {
	ok := false
	for _, d := range Dispatchers {
		ok = ok || d == disp
	}
	if !ok {
		return nil, fmt.Errorf("dispatcher %q: unknown (known: %v)", disp, Dispatchers)
	}
	a, err := p.Weights.vector()
	if err != nil {
		return nil, err
	}
	if p.Timeout == 0 {
		p.Timeout = 3 * p.Period
	}
	switch {
	case !(p.Period >= MinPeriod):
		return nil, fmt.Errorf("period: must be at least %g s (shorter report periods make a run effectively endless), got %g", MinPeriod, p.Period)
	case !(p.Timeout >= MinPeriod):
		return nil, fmt.Errorf("timeout: must be at least %g s, got %g", MinPeriod, p.Timeout)
	case p.Failures.MTBF != 0 && !(p.Failures.MTBF >= MinPeriod):
		return nil, fmt.Errorf("failures.mtbf: must be 0 (none) or at least %g s, got %g", MinPeriod, p.Failures.MTBF)
	case p.Standby >= len(t.Tops):
		return nil, fmt.Errorf("standby: %d of %d managers would leave none active", p.Standby, len(t.Tops))
	case p.MinActive < 1 || p.MinActive > len(t.Tops):
		return nil, fmt.Errorf("min_active: must be in [1, %d], got %d", len(t.Tops), p.MinActive)
	case p.LLow > p.LHigh:
		return nil, fmt.Errorf("l_low, l_high: need l_low <= l_high, got %g and %g", p.LLow, p.LHigh)
	case !(p.Batch >= MinPeriod):
		return nil, fmt.Errorf("batch: must be at least %g s, got %g", MinPeriod, p.Batch)
	}
	for i, f := range p.Failures.At {
		if f.Manager < 0 || f.Manager >= len(t.Tops) {
			return nil, fmt.Errorf("failures.at[%d].manager: the grid has managers 0..%d, got %d", i, len(t.Tops)-1, f.Manager)
		}
	}
	pol := &Policy{t: t, p: p, disp: disp, a: a, rng: sim.Stream(seed, "hgrid/dispatch"),
		leafQ: make([][]*engine.Job, len(t.Leaves)), where: map[int32]int{}, moving: map[int32]move{},
		rep: make([]Indices, len(t.Platform.Nodes)), view: newSnapshot(len(t.Platform.Nodes), len(t.Leaves)),
		lastRep: make([]float64, len(t.Tops)), lastTick: math.Inf(-1), armed: math.Inf(-1), armedB: math.Inf(-1),
		active: make([]bool, len(t.Tops)), detected: make([]bool, len(t.Tops)), downN: make([]int, len(t.Tops)),
	}
	for i := range pol.active {
		pol.active[i] = i < len(t.Tops)-p.Standby
	}
	pol.Tables = make([]ManagerTable, len(t.Tops))
	pol.doneN = make([]int, len(t.Tops))
	pol.doneRT = make([]float64, len(t.Tops))
	pol.expWait = map[int32]float64{}
	pol.dispAt = map[int32]float64{}
	pol.redone = map[int32]bool{}
	for _, n := range t.Platform.Nodes {
		pol.maxSpeed = max(pol.maxSpeed, n.Speed)
	}
	capMax := 0.0
	for _, l := range t.Leaves {
		capMax = max(capMax, float64(l.PEs)*l.Speed)
	}
	for _, l := range t.Leaves {
		c := float64(l.PEs) * l.Speed / capMax
		pol.tau = append(pol.tau, c)
		pol.tau0 = append(pol.tau0, c)
	}
	for k, l := range t.Leaves {
		for i := l.First; i < l.First+l.Count; i++ {
			pol.rep[i][idxSpeed] = 1 - t.Platform.Nodes[i].Speed/pol.maxSpeed
		}
		pol.view.avail[k] = leafAvail(0, nil, l.PEs, nil)
		for i := l.First; i < l.First+l.Count; i++ {
			pol.view.up[i] = true
		}
	}
	return pol, nil
}

// Attach schedules the manager failures on the engine (horizon: the last
// arrival, for random failures).
func (p *Policy) Attach(e *engine.Engine, horizon float64, seed uint64) {
	type f struct {
		at float64
		m  int
	}
	var fs []f
	for _, x := range p.p.Failures.At {
		fs = append(fs, f{x.Time, x.Manager})
	}
	if p.p.Failures.MTBF > 0 {
		r := sim.Stream(seed, "hgrid/failures")
		for m := range p.t.Tops {
			for at := r.ExpFloat64() * p.p.Failures.MTBF; at < horizon; at += r.ExpFloat64()*p.p.Failures.MTBF + p.p.Failures.Repair {
				fs = append(fs, f{at, m})
				if p.p.Failures.Repair == 0 {
					break
				}
			}
		}
	}
	p.forever = make([]bool, len(p.t.Tops))
	for _, x := range fs {
		if p.p.Failures.Repair == 0 {
			p.forever[x.m] = true
		}
		for _, l := range p.leavesOf(p.t.Tops[x.m]) {
			for n := l.First; n < l.First+l.Count; n++ {
				e.FailNode(x.at, n, true)
				if p.p.Failures.Repair > 0 {
					e.RepairNode(x.at+p.p.Failures.Repair, n)
				}
			}
		}
	}
}

func (p *Policy) leavesOf(d *Domain) []*Domain {
	if d.IsLeaf() {
		return []*Domain{d}
	}
	var out []*Domain
	for _, c := range d.Children {
		out = append(out, p.leavesOf(c)...)
	}
	return out
}

// eligible reports whether leaf k can take job j: big enough, its
// manager active and not declared failed.
func (p *Policy) eligible(k int, j *engine.Job) bool {
	l := p.t.Leaves[k]
	return l.PEs >= j.Procs && p.active[l.Top] && !p.detected[l.Top]
}

// home is a job's submission leaf (its seed-004 site, modulo the leaf
// count), −1 if it has none.
func (p *Policy) home(j *engine.Job) int {
	if j.Site < 0 {
		return -1
	}
	return j.Site % len(p.t.Leaves)
}

// MigrationCost is what job j pays to run on leaf k: 0 at home (or with
// no home or cost), else its pure migration cost over the smaller
// bandwidth of the two leaves.
func (p *Policy) MigrationCost(j *engine.Job, k int) float64 {
	h := p.home(j)
	if h < 0 || h == k || !(j.MigrationCost > 0) {
		return 0
	}
	return j.MigrationCost / min(p.t.Leaves[h].Bandwidth, p.t.Leaves[k].Bandwidth)
}

// Notify implements engine.Policy.
func (p *Policy) Notify(v *engine.View, n engine.Notice) {
	switch n.Kind {
	case engine.NoticeSubmitted:
		p.unfinished++
		p.dirty = true
		p.jobs = append(p.jobs, n.Job)
		p.arrive(v, n.Job)
	case engine.NoticeEnded:
		p.unfinished--
		p.dirty = true
		k, ok := p.where[n.Job.Index]
		delete(p.where, n.Job.Index)
		delete(p.expWait, n.Job.Index)
		delete(p.dispAt, n.Job.Index)
		if ok && n.Job.State == engine.Completed {
			m := p.t.Leaves[k].Top
			p.doneN[m]++
			p.doneRT[m] += n.Job.End - n.Job.Submit
		}
		if ok && p.disp == "aco" && n.Job.State == engine.Completed {
			exp := n.Job.SchedEstimate() / p.t.Leaves[k].Speed
			resp := n.Job.End - n.Job.Submit
			p.tau[k] += p.p.ACO.Rho * min(1, exp/max(resp, 1e-9))
		}
	case engine.NoticeRequeued:
		// Its manager's nodes failed: it waits at its leaf (first in its
		// queue) until the failure is detected and it is dispatched again.
		p.dirty = true
		k := p.where[n.Job.Index]
		p.leafQ[k] = append([]*engine.Job{n.Job}, p.leafQ[k]...)
	case engine.NoticeNodeDown:
		p.downN[p.t.Leaves[p.t.LeafOf[n.Node]].Top]++
	case engine.NoticeNodeUp:
		p.downN[p.t.Leaves[p.t.LeafOf[n.Node]].Top]--
	case engine.NoticeTimer:
		switch {
		case n.Tag == tickTag:
			p.tick(v)
		case n.Tag == batchTag:
			p.mapBatch(v)
		default:
			idx := int32(n.Tag)
			if mv, ok := p.moving[idx]; ok && mv.due == v.Now() {
				delete(p.moving, idx)
				k := p.where[idx]
				p.leafQ[k] = append(p.leafQ[k], mv.job)
			}
		}
	}
}

func (p *Policy) arrive(v *engine.View, j *engine.Job) {
	if j.Procs > p.t.Root.MaxLeaf {
		p.reject++
		p.gridQ = append(p.gridQ, j) // rejected in Schedule
		return
	}
	if p.disp == "minmin" {
		p.pending = append(p.pending, j)
		return
	}
	p.dispatch(v, j)
}

// dispatch chooses a leaf for j now, or parks it in the grid queue when
// no leaf is eligible.
func (p *Policy) dispatch(v *engine.View, j *engine.Job) {
	k := -1
	switch p.disp {
	case "stat":
		k = p.statLeaf(v, j)
	case "least-loaded":
		k = p.leastLoaded(v, j)
	case "random":
		var c []int
		for i := range p.t.Leaves {
			if p.eligible(i, j) {
				c = append(c, i)
			}
		}
		if len(c) > 0 {
			k = c[p.rng.IntN(len(c))]
		}
	case "round-robin":
		for i := range p.t.Leaves {
			c := (p.rr + i) % len(p.t.Leaves)
			if p.eligible(c, j) {
				k = c
				p.rr = c + 1
				break
			}
		}
	case "aco":
		k = p.acoLeaf(v, j)
	case "minmin":
		k = p.fastestLeaf(v, j) // outside a batch (re-dispatch): MinMin of one job
	}
	if k < 0 && p.bringIn(j) {
		p.dispatch(v, j)
		return
	}
	if k < 0 {
		p.gridQ = append(p.gridQ, j)
		return
	}
	p.place(v, j, k)
}

// bringIn activates a standby manager that can take j when no active one
// can (§2.2.3: standby managers are there to be brought in).
func (p *Policy) bringIn(j *engine.Job) bool {
	for m, top := range p.t.Tops {
		if !p.active[m] && !p.detected[m] && top.MaxLeaf >= j.Procs {
			p.active[m] = true
			p.activations++
			return true
		}
	}
	return false
}

// hopeless reports whether no manager able to take j can ever come back:
// every one with a leaf big enough failed for good and was detected.
func (p *Policy) hopeless(j *engine.Job) bool {
	if p.forever == nil {
		return false
	}
	for m, top := range p.t.Tops {
		if top.MaxLeaf >= j.Procs && !(p.forever[m] && p.detected[m]) {
			return false
		}
	}
	return true
}

// place sends j to leaf k (after its migration cost) and books it in the
// dispatcher's own tables: the leaf's free times, and the reported
// state as the leaf will have it — a job that arrives at once at a leaf
// whose queue is empty and which has enough free processors starts there
// now, on its least-loaded nodes (busy processors, memory, backlog);
// otherwise it waits in the leaf's queue (queue and backlog).
func (p *Policy) place(v *engine.View, j *engine.Job, k int) {
	now := v.Now()
	cost := p.MigrationCost(j, k)
	top := p.t.Leaves[k].Top
	p.where[j.Index] = k
	p.dispAt[j.Index] = now
	l := p.t.Leaves[k]
	dur := j.SchedEstimate() / l.Speed
	st := p.view.avail[k].book(j.Procs, now+cost, dur)
	if !math.IsInf(st, 0) {
		p.expWait[j.Index] = st - now
	}
	p.Log = append(p.Log, Placement{Job: j, Leaf: k, At: now, Cost: cost, Eligible: p.active[top] && !p.detected[top], Wait: st - now})
	if !p.view.startNow(p, j, k, cost, dur) {
		p.view.qp[k] += float64(j.Procs)
		p.view.qw[k] += float64(j.Procs) * dur
	}
	p.view.indices(p, k, p.rep)
	if p.disp == "aco" {
		p.tau[k] = max(1e-9, (1-p.p.ACO.Rho)*p.tau[k])
	}
	if cost > 0 {
		p.moving[j.Index] = move{j, now + cost}
		p.timers = append(p.timers, timerReq{now + cost, int64(j.Index)})
		return
	}
	p.leafQ[k] = append(p.leafQ[k], j)
}

// snapshot is the state of the nodes and leaves the load indices derive
// from: per node its busy processors, memory in use, remaining work of
// its running jobs (processor-seconds by the estimates) and whether it is
// up; per leaf the processors and work its queue asks for and its
// expected free times.
type snapshot struct {
	busy, mem, run []float64
	up             []bool
	qp, qw         []float64
	avail          []leafProf
}

func newSnapshot(nodes, leaves int) snapshot {
	return snapshot{busy: make([]float64, nodes), mem: make([]float64, nodes), run: make([]float64, nodes),
		up: make([]bool, nodes), qp: make([]float64, leaves), qw: make([]float64, leaves), avail: make([]leafProf, leaves)}
}

// copyLeaf copies leaf l's part of src into s.
func (s *snapshot) copyLeaf(src *snapshot, l *Domain) {
	a, b := l.First, l.First+l.Count
	copy(s.busy[a:b], src.busy[a:b])
	copy(s.mem[a:b], src.mem[a:b])
	copy(s.run[a:b], src.run[a:b])
	copy(s.up[a:b], src.up[a:b])
	s.qp[l.Leaf], s.qw[l.Leaf] = src.qp[l.Leaf], src.qw[l.Leaf]
	if src.avail[l.Leaf].base != nil {
		s.avail[l.Leaf] = src.avail[l.Leaf]
	}
}

// free is the number of idle processors of node n that are up.
func (s *snapshot) free(p *Policy, n int) int {
	if !s.up[n] {
		return 0
	}
	return p.t.Platform.Nodes[n].PEs - int(math.Round(s.busy[n]))
}

// startNow applies job j's start on leaf k to s if the leaf would start it
// at once (no migration cost, an empty queue, enough free processors), on
// the nodes the leaf manager would choose (Schedule: least load by
// formula (1), the first of equals), and reports whether it did.
func (s *snapshot) startNow(p *Policy, j *engine.Job, k int, cost, dur float64) bool {
	l := p.t.Leaves[k]
	if cost > 0 || s.qp[k] > 0 {
		return false
	}
	var nodes []int
	free := 0
	for n := l.First; n < l.First+l.Count; n++ {
		if f := s.free(p, n); f > 0 {
			nodes = append(nodes, n)
			free += f
		}
	}
	if free < j.Procs {
		return false
	}
	sort.SliceStable(nodes, func(a, b int) bool { return NodeLoad(p.a, p.rep[nodes[a]]) < NodeLoad(p.a, p.rep[nodes[b]]) })
	need := j.Procs
	for _, n := range nodes {
		if need == 0 {
			break
		}
		c := min(need, s.free(p, n))
		s.busy[n] += float64(c)
		s.run[n] += float64(c) * dur
		s.mem[n] += p.memOf(j, n, c)
		need -= c
	}
	return true
}

// memOf is the memory job j uses on node n with c processors: its SWF
// memory per processor when known, else the node's share.
func (p *Policy) memOf(j *engine.Job, n, c int) float64 {
	if j.UsedMem > 0 {
		return float64(c) * j.UsedMem / 1024
	}
	return float64(c) / float64(p.t.Platform.Nodes[n].PEs) * p.t.Memory[n]
}

// indices writes the load indices of leaf k's nodes, derived from s,
// into idx (the one definition of the indices, for the fresh state and
// the dispatcher's view alike).
func (s *snapshot) indices(p *Policy, k int, idx []Indices) {
	l := p.t.Leaves[k]
	nodes := p.t.Platform.Nodes
	q := s.qp[k] / float64(l.PEs)
	for n := l.First; n < l.First+l.Count; n++ {
		spec := &nodes[n]
		x := &idx[n]
		x[idxSpeed] = 1 - spec.Speed/p.maxSpeed
		if !s.up[n] {
			x[idxCPU], x[idxMem], x[idxQueue], x[idxBacklog] = 1, 1, 1, 1
			continue
		}
		x[idxCPU] = s.busy[n] / float64(spec.PEs)
		x[idxMem] = min(1, s.mem[n]/p.t.Memory[n])
		x[idxQueue] = q / (1 + q)
		b := (s.run[n] + s.qw[k]*float64(spec.PEs)/float64(l.PEs)) / float64(spec.PEs) / 3600
		x[idxBacklog] = b / (1 + b)
	}
}

// fresh computes every node's load indices and every leaf's queue and
// processor free times from the true state now.
func (p *Policy) fresh(v *engine.View) ([]Indices, snapshot) {
	return p.freshOf(v, -1, true)
}

// freshOf is fresh for one leaf (or all, leaf < 0), with the free times
// only when withAvail (the reports carry them; the leaf managers' own
// node choice does not need them).
func (p *Policy) freshOf(v *engine.View, leaf int, withAvail bool) ([]Indices, snapshot) {
	s := p.snapshotOf(v, leaf, withAvail)
	idx := make([]Indices, len(p.t.Platform.Nodes))
	for k := range p.t.Leaves {
		if leaf < 0 || k == leaf {
			s.indices(p, k, idx)
		}
	}
	return idx, s
}

// snapshotOf is freshOf without the load indices (a report tick copies
// the snapshot into the dispatcher's view and computes the indices there:
// computing them here too cost a fifth of a hierarchical run). The
// per-processor free times are gathered in scratch slices kept by the
// policy (leafAvail copies them).
func (p *Policy) snapshotOf(v *engine.View, leaf int, withAvail bool) snapshot {
	now := v.Now()
	nodes := p.t.Platform.Nodes
	s := newSnapshot(len(nodes), len(p.t.Leaves))
	if len(p.ends) != len(p.t.Leaves) {
		p.ends = make([][]float64, len(p.t.Leaves))
	}
	ends := p.ends
	for k := range ends {
		ends[k] = ends[k][:0]
	}
	for _, j := range v.Running() {
		k := p.t.LeafOf[j.Alloc[0].First]
		if leaf >= 0 && k != leaf {
			continue
		}
		end := j.Start + j.SchedEstimate()/p.t.Leaves[k].Speed
		for _, sp := range j.Alloc {
			for n := int(sp.First); n < int(sp.First+sp.Count); n++ {
				s.run[n] += float64(sp.PEs) * max(0, end-now)
				s.mem[n] += p.memOf(j, n, int(sp.PEs))
				if withAvail {
					for range sp.PEs {
						ends[k] = append(ends[k], end)
					}
				}
			}
		}
	}
	for k, l := range p.t.Leaves {
		if leaf >= 0 && k != leaf {
			continue
		}
		free := 0
		for n := l.First; n < l.First+l.Count; n++ {
			s.up[n] = v.NodeUp(n)
			s.busy[n] = float64(nodes[n].PEs - v.NodeFree(n))
			if s.up[n] {
				free += v.NodeFree(n)
			}
		}
		queue := p.queue[:0]
		for _, j := range p.leafQ[k] {
			d := j.SchedEstimate() / l.Speed
			if withAvail {
				queue = append(queue, [2]float64{float64(j.Procs), d})
			}
			s.qp[k] += float64(j.Procs)
			s.qw[k] += float64(j.Procs) * d
		}
		p.queue = queue
		if withAvail {
			s.avail[k] = leafAvail(now, ends[k], free, queue)
		}
		if withAvail {
			// Jobs in transit to the leaf: the grid manager sent them
			// (in job order: deterministic).
			var mv []move
			for _, m := range p.moving {
				if p.where[m.job.Index] == k {
					mv = append(mv, m)
				}
			}
			sort.Slice(mv, func(a, b int) bool { return mv[a].job.Index < mv[b].job.Index })
			for _, m := range mv {
				s.avail[k].book(m.job.Procs, m.due, m.job.SchedEstimate()/l.Speed)
			}
		}
	}
	return s
}

// tick is a reporting instant: live managers report, then the monitor
// acts (§2.2.1, §2.2.3).
func (p *Policy) tick(v *engine.View) {
	now := v.Now()
	if now <= p.lastTick {
		return
	}
	p.lastTick = now
	p.dirty = false
	snap := p.snapshotOf(v, -1, true)
	running := make([]int, len(p.t.Tops))
	for _, j := range v.Running() {
		running[p.t.Leaves[p.t.LeafOf[j.Alloc[0].First]].Top]++
	}
	for m, top := range p.t.Tops {
		if p.downN[m] > 0 {
			continue // a failed manager does not report
		}
		tb := ManagerTable{At: now, Running: running[m], MeanDelay: math.NaN()}
		if span := now - p.lastRep[m]; span > 0 {
			tb.Throughput = float64(p.doneN[m]) / span
		}
		if p.doneN[m] > 0 {
			tb.MeanDelay = p.doneRT[m] / float64(p.doneN[m])
		}
		p.Tables[m] = tb
		p.doneN[m], p.doneRT[m] = 0, 0
		p.lastRep[m] = now
		if p.detected[m] {
			p.detected[m] = false // repaired: it reports again
		}
		for _, l := range p.leavesOf(top) {
			p.view.copyLeaf(&snap, l)
			p.view.indices(p, l.Leaf, p.rep)
		}
	}
	p.monitor(v)
	p.slow(v)
	// Jobs parked at the grid manager try again.
	parked := p.gridQ
	p.gridQ = nil
	for _, j := range parked {
		if j.State == engine.Queued {
			p.dispatch(v, j)
		}
	}
}

// monitor is §2.2.3: timeouts, then activation and withdrawal.
func (p *Policy) monitor(v *engine.View) {
	now := v.Now()
	for m := range p.t.Tops {
		if !p.detected[m] && now-p.lastRep[m] > p.p.Timeout {
			p.detected[m] = true
			p.detections++
			p.redispatch(v, m)
		}
	}
	if p.p.Standby == 0 {
		return
	}
	var act []int
	for m := range p.t.Tops {
		if p.active[m] && !p.detected[m] {
			act = append(act, m)
		}
	}
	standby := -1
	for m := range p.t.Tops {
		if !p.active[m] && !p.detected[m] {
			standby = m
			break
		}
	}
	loads := make([]float64, len(act))
	allHigh, allLow := true, true
	for i, m := range act {
		loads[i], _ = p.domainLoad(p.t.Tops[m], p.rep)
		allHigh = allHigh && loads[i] > p.p.LHigh
		allLow = allLow && loads[i] < p.p.LLow
	}
	switch {
	case standby >= 0 && (len(act) < p.p.MinActive || (len(act) > 0 && allHigh)):
		p.active[standby] = true
		p.activations++
	case len(act) > p.p.MinActive && allLow:
		// Withdraw the least loaded (the first of equals): it gets no new
		// jobs and finishes those it has.
		w := 0
		for i := range act {
			if loads[i] < loads[w] {
				w = i
			}
		}
		p.active[act[w]] = false
		p.withdrawals++
	}
}

// slow re-dispatches, once, the jobs waiting at a leaf much longer than
// the tables promised when they were dispatched (§2.2.1, "执行性能比预期
// 要差"): later than dispatch + factor × max(promised wait, period).
func (p *Policy) slow(v *engine.View) {
	f := p.p.RedispatchFactor
	if f <= 0 {
		return
	}
	now := v.Now()
	for k := range p.leafQ {
		kept := p.leafQ[k][:0]
		var out []*engine.Job
		for _, j := range p.leafQ[k] {
			w, ok := p.expWait[j.Index]
			if ok && !p.redone[j.Index] && now > p.dispAt[j.Index]+f*max(w, p.p.Period) {
				out = append(out, j)
				continue
			}
			kept = append(kept, j)
		}
		p.leafQ[k] = kept
		for _, j := range out {
			p.redone[j.Index] = true
			p.again(v, j)
		}
	}
}

// redispatch sends the jobs waiting at, or moving to, manager m's
// leaves back through the dispatcher.
func (p *Policy) redispatch(v *engine.View, m int) {
	var jobs []*engine.Job
	for _, l := range p.leavesOf(p.t.Tops[m]) {
		jobs = append(jobs, p.leafQ[l.Leaf]...)
		p.leafQ[l.Leaf] = nil
	}
	for idx, mv := range p.moving {
		// Jobs moving there (their timer will find them gone).
		if p.t.Leaves[p.where[idx]].Top == m {
			delete(p.moving, idx)
			jobs = append(jobs, mv.job)
		}
	}
	sort.SliceStable(jobs, func(a, b int) bool { return jobs[a].Index < jobs[b].Index })
	for _, j := range jobs {
		p.again(v, j)
	}
}

// again sends a job back through the dispatcher (MinMin: into the next
// batch), counting it as re-dispatched.
func (p *Policy) again(v *engine.View, j *engine.Job) {
	delete(p.where, j.Index)
	p.redispatched++
	if p.disp == "minmin" {
		p.pending = append(p.pending, j)
		return
	}
	p.dispatch(v, j)
}

// Schedule implements engine.Policy: leaf managers start jobs FCFS on
// their least-loaded nodes; timers are armed.
func (p *Policy) Schedule(v *engine.View, plan *engine.Plan) {
	now := v.Now()
	for _, j := range p.gridQ {
		if j.State != engine.Queued {
			continue
		}
		if j.Procs > p.t.Root.MaxLeaf {
			plan.Reject(j)
			p.unfinished--
		} else if p.hopeless(j) {
			// Every manager that could run it failed for good.
			plan.Reject(j)
			p.unfinished--
			p.lost++
		}
	}
	if len(p.gridQ) > 0 {
		kept := p.gridQ[:0]
		for _, j := range p.gridQ {
			if j.State == engine.Queued {
				kept = append(kept, j)
			}
		}
		p.gridQ = kept
	}
	var idx []Indices
	for k, l := range p.t.Leaves {
		if len(p.leafQ[k]) == 0 {
			continue
		}
		for len(p.leafQ[k]) > 0 {
			j := p.leafQ[k][0]
			free := 0
			for n := l.First; n < l.First+l.Count; n++ {
				if v.NodeUp(n) {
					free += v.NodeFree(n)
				}
			}
			if free < j.Procs {
				break
			}
			if idx == nil {
				idx, _ = p.freshOf(v, k, false)
			}
			var nodes []int
			for n := l.First; n < l.First+l.Count; n++ {
				if v.NodeUp(n) && v.NodeFree(n) > 0 {
					nodes = append(nodes, n)
				}
			}
			sort.SliceStable(nodes, func(a, b int) bool { return NodeLoad(p.a, idx[nodes[a]]) < NodeLoad(p.a, idx[nodes[b]]) })
			need := j.Procs
			type take struct{ n, pes int }
			var ts []take
			for _, n := range nodes {
				if need == 0 {
					break
				}
				c := min(need, v.NodeFree(n))
				ts = append(ts, take{n, c})
				need -= c
			}
			sort.Slice(ts, func(a, b int) bool { return ts[a].n < ts[b].n })
			var a engine.Alloc
			for _, t := range ts {
				a = a.Add(t.n, t.pes)
			}
			if err := plan.Start(j, a); err != nil {
				break
			}
			p.leafQ[k] = p.leafQ[k][1:]
			p.dirty = true
			idx = nil // the state changed
		}
	}
	for _, t := range p.timers {
		plan.Timer(t.at, t.tag)
	}
	p.timers = p.timers[:0]
	// Keep reporting while anything is unfinished, and once more after
	// the last change (so the tables see the idle grid).
	if (p.unfinished > 0 || p.dirty) && p.armed <= now {
		next := (math.Floor(now/p.p.Period) + 1) * p.p.Period
		plan.Timer(next, tickTag)
		p.armed = next
	}
	if len(p.pending) > 0 && p.armedB <= now {
		next := (math.Floor(now/p.p.Batch) + 1) * p.p.Batch
		plan.Timer(next, batchTag)
		p.armedB = next
	}
}

// Imbalance is the coefficient of variation (sd / mean) of the leaf
// domains' utilisations: processor-seconds of completed runs over
// processors × (last end − first submit).
func (p *Policy) Imbalance() float64 {
	busy := make([]float64, len(p.t.Leaves))
	first, last := math.Inf(1), math.Inf(-1)
	for _, j := range p.jobs {
		first = min(first, j.Submit)
		if j.State == engine.Completed {
			busy[p.t.LeafOf[j.Alloc[0].First]] += float64(j.Procs) * (j.End - j.Start)
			last = max(last, j.End)
		}
	}
	if !(last > first) {
		return math.NaN()
	}
	u := make([]float64, len(busy))
	for k, b := range busy {
		u[k] = b / (float64(p.t.Leaves[k].PEs) * (last - first))
	}
	m, v := MeanVar(u)
	if m == 0 {
		return math.NaN()
	}
	return math.Sqrt(v) / m
}

// Extra reports the grid's own metrics: imbalance, migrated (jobs that ran away from
// their submission site), redispatched, activations, withdrawals,
// detected manager failures, rejected (wider than every leaf), lost (every
// manager that could run it failed for good).
func (p *Policy) Extra() map[string]float64 {
	mig := 0
	last := map[int32]Placement{}
	for _, pl := range p.Log {
		last[pl.Job.Index] = pl
	}
	for _, pl := range last {
		if pl.Cost > 0 && pl.Job.State == engine.Completed {
			mig++
		}
	}
	return map[string]float64{"imbalance": p.Imbalance(), "migrated": float64(mig), "redispatched": float64(p.redispatched),
		"activations": float64(p.activations), "withdrawals": float64(p.withdrawals),
		"detections": float64(p.detections), "rejected": float64(p.reject), "lost": float64(p.lost)}
}
