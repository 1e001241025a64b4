// Package unstable models unstable computing resources and the
// stability-aware node selection of seed 002 (Wang & Xiao, "Research on
// modified EASY-backfill algorithm for grid with unstable resource").
//
// A node has a stability p (with probability 1 − p it is unstable and
// slows the jobs on it), a delay d (an affected job runs (1 + d) times its
// expected length) and an observed performance coefficient u, the mean
// QoS ratio QR = EL/AL of the jobs it delayed (starting at 1). The
// instability is a model process (an engine.Hook); the scheduling policy
// is the foundation's EASY with another node selection (selectors here).
//
// Choices where the paper contradicts itself (each documented in
// docs/unstable.md): QR = EL/AL (table 1; the pseudo-code's AL/EL would
// make "sort by u descending" prefer the worst nodes); AL = AFT − AST
// (the pseudo-code's AST + AFT is a typo); the delay test compares
// lengths, DL > AL (the pseudo-code compares DL with AFT, a time); EL is
// the job's actual runtime on a stable node; u is updated on the machines
// that delayed the job (the pseudo-code's delayMachineList).
package unstable

import (
	"fmt"
	"math"

	"github.com/gridsched/gridsched/engine"
)

// Params choose the instability model.
type Params struct {
	// Model: "published" (§3.2: at each submission every running job may
	// be delayed, once) or "periods" (each unstable node alternates stable
	// and unstable periods; jobs slow down while any of their nodes is
	// unstable).
	Model string `yaml:"model" json:"model"`
	// Cycle is the mean length (s) of one stable + unstable cycle of the
	// periods model; a node is unstable a fraction 1 − p of the time.
	Cycle float64 `yaml:"cycle" json:"cycle,omitempty" range:"[60,]"`
	// UUpdate: "delaying" (the machines that delayed the job, as the
	// pseudo-code) or "all" (every machine the job ran on).
	UUpdate string `yaml:"u_update" json:"u_update,omitempty"`
}

// MinCycle is the shortest mean cycle (s) of the periods model: a cycle
// of 10^-9 s did not finish.
const MinCycle = 60.0

// Validate names a bad parameter.
func (p *Params) Validate() error {
	switch p.Model {
	case "published", "periods":
	default:
		return fmt.Errorf("model: want published or periods, got %q", p.Model)
	}
	if p.Model == "periods" && !(p.Cycle > 0) {
		return fmt.Errorf("cycle: the periods model needs a positive mean cycle length, got %g", p.Cycle)
	}
	if p.Cycle != 0 && !(p.Cycle >= MinCycle) {
		return fmt.Errorf("cycle: must be at least %g s (shorter cycles flip nodes so often that a run would be effectively endless), got %g", MinCycle, p.Cycle)
	}
	switch p.UUpdate {
	case "", "delaying", "all":
	default:
		return fmt.Errorf("u_update: want delaying or all, got %q", p.UUpdate)
	}
	return nil
}

// State is what the model knows about nodes and jobs: u per node, which
// machines delayed which job, and the QoS ratios of finished jobs.
type State struct {
	U      []float64 // observed performance coefficient per node
	count  []int     // jobs that updated u per node
	delay  map[int32][]int32
	qrSum  float64
	alSum  float64 // Σ AL/EL (the pseudo-code's QR)
	qrN    int
	params Params
	seed   uint64
	sc     scratch // the node selections' buffers
	// tracking: an instability process tells the state of every node
	// that may have become idle (track), so the u and expected
	// selections keep the nodes in an index.
	tracking bool
	idx      nodeIndex
}

// NewState makes the state for a platform of n nodes.
func NewState(n int, p Params, seed uint64) *State {
	s := &State{U: make([]float64, n), count: make([]int, n), delay: map[int32][]int32{}, params: p, seed: seed}
	for i := range s.U {
		s.U[i] = 1
	}
	return s
}

func (s *State) grow(n int) {
	for len(s.U) < n {
		s.U = append(s.U, 1)
		s.count = append(s.count, 0)
	}
}

// MeanQoS is the mean QoS ratio EL/AL over finished jobs (1: no job was
// slowed down).
func (s *State) MeanQoS() float64 {
	if s.qrN == 0 {
		return math.NaN()
	}
	return s.qrSum / float64(s.qrN)
}

// MeanQoSALEL is the mean of AL/EL over finished jobs, the QR that §2.4's
// pseudo-code computes ("Job.QR = AL/EL"): 1 when no job was slowed
// down, larger the more they were. Figure 7's "QoSRate falls as p rises"
// fits this reading, not table 1's EL/AL (docs/unstable.md).
func (s *State) MeanQoSALEL() float64 {
	if s.qrN == 0 {
		return math.NaN()
	}
	return s.alSum / float64(s.qrN)
}

// finish records a finished job's QR = EL/AL and updates u (§2.4,
// Job.onFinish): u = (u·count + QR) / (count + 1).
func (s *State) finish(j *engine.Job) {
	al := j.End - j.Start
	qr, alel := 1.0, 1.0
	if al > 0 {
		qr = min(1, j.Runtime/al)
	}
	if j.Runtime > 0 {
		alel = max(1, al/j.Runtime)
	}
	s.qrSum += qr
	s.alSum += alel
	s.qrN++
	var nodes []int32
	if s.params.UUpdate == "all" {
		for _, sp := range j.Alloc {
			for n := sp.First; n < sp.First+sp.Count; n++ {
				nodes = append(nodes, n)
			}
		}
	} else {
		nodes = s.delay[j.Index]
	}
	s.grow(maxNode(j.Alloc) + 1)
	for _, n := range nodes {
		s.U[n] = (s.U[n]*float64(s.count[n]) + qr) / float64(s.count[n]+1)
		s.count[n]++
		s.idx.mark(int(n)) // its keys changed
	}
	delete(s.delay, j.Index)
}

func maxNode(a engine.Alloc) int {
	m := -1
	for _, s := range a {
		m = max(m, int(s.First+s.Count-1))
	}
	return m
}

// draw is a uniform number in [0, 1) that depends only on the seed and
// the keys: the same (submission, job, node) gets the same draw in every
// run of a replication, whatever the schedule (common random numbers).
func draw(seed uint64, keys ...uint64) float64 {
	x := seed ^ 0x6a09e667f3bcc909
	for _, k := range keys {
		x = mix(x ^ mix(k+0x9e3779b97f4a7c15))
	}
	return float64(x>>11) / (1 << 53)
}

// drawPrefix and drawNext split draw: draw(seed, k1, …, kn, last) =
// drawNext(drawPrefix(seed, k1, …, kn), mix(last + γ)), so a draw per node
// for one job costs one mix once the prefix and the nodes' mixed indices
// are known.
func drawPrefix(seed uint64, keys ...uint64) uint64 {
	x := seed ^ 0x6a09e667f3bcc909
	for _, k := range keys {
		x = mix(x ^ mix(k+0x9e3779b97f4a7c15))
	}
	return x
}

func drawNext(prefix, mixedLast uint64) float64 {
	return float64(mix(prefix^mixedLast)>>11) / (1 << 53)
}

func mix(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	return x ^ (x >> 31)
}

// Draw records one instability draw (for tests and traces).
type Draw struct {
	Submission, Job int64
	Node            int
	U               float64
	Delays          bool
}

// Published is the delay process of §3.2 as published: whenever a job is
// submitted, every running job not yet delayed is examined on every
// machine it uses; with probability 1 − p the machine would delay it to
// DL = EL·(1 + d); the longest DL wins (if it exceeds the job's current
// length); each job is delayed at most once (§3.1, restriction 4).
type Published struct {
	*State
	// OnDraw, if set, sees every draw.
	OnDraw func(Draw)
}

var _ engine.Hook = Published{}

// Before applies the model to an event.
func (h Published) Before(e *engine.Engine, n engine.Notice) {
	h.track(e, n)
	v := e.View()
	switch n.Kind {
	case engine.NoticeSubmitted:
		for _, j := range v.Running() {
			if _, done := h.delay[j.Index]; done {
				continue
			}
			el := j.Runtime
			best := el
			var who []int32
			for _, sp := range j.Alloc {
				for node := sp.First; node < sp.First+sp.Count; node++ {
					spec := v.Node(int(node))
					if spec.Stability >= 1 {
						continue
					}
					u := draw(h.seed, uint64(n.Job.ID), uint64(j.ID), uint64(node))
					if h.OnDraw != nil {
						h.OnDraw(Draw{Submission: n.Job.ID, Job: j.ID, Node: int(node), U: u, Delays: u < 1-spec.Stability})
					}
					if u < 1-spec.Stability {
						who = append(who, node)
						best = max(best, el*(1+spec.Delay))
					}
				}
			}
			if len(who) == 0 {
				continue
			}
			h.delay[j.Index] = who
			if best > el {
				e.StretchTo(j, j.Start+best)
			}
		}
	case engine.NoticeEnded:
		if n.Job.State == engine.Completed || n.Job.State == engine.Killed {
			h.finish(n.Job)
		}
	}
}

// Periods is the time-based alternative: each node with p < 1 alternates
// stable periods (exponential, mean p·cycle) and unstable ones
// (exponential, mean (1 − p)·cycle), independently of the workload;
// while any of a job's nodes is unstable the job progresses at 1/(1 + d)
// of its speed (the largest d among its unstable nodes).
type Periods struct {
	*State
	unstable []bool
	rate     map[int32]float64       // current progress rate of running jobs
	on       map[int32][]*engine.Job // running jobs by node, so a node's change touches only its jobs
	started  bool
}

// NewPeriods makes the periods model.
func NewPeriods(s *State) *Periods {
	return &Periods{State: s, rate: map[int32]float64{}, on: map[int32][]*engine.Job{}}
}

const periodsTag = -0x5eed0002 // timer tags: periodsTag − node

// Before applies the model to an event.
func (h *Periods) Before(e *engine.Engine, n engine.Notice) {
	h.track(e, n)
	v := e.View()
	if !h.started {
		h.started = true
		h.unstable = make([]bool, v.NumNodes())
		for node := 0; node < v.NumNodes(); node++ {
			if v.Node(node).Stability < 1 {
				h.schedule(e, node, v.Now())
			}
		}
	}
	switch n.Kind {
	case engine.NoticeTimer:
		if n.Tag > periodsTag || n.Tag <= periodsTag-int64(len(h.unstable)) {
			return
		}
		node := int(periodsTag - n.Tag)
		h.unstable[node] = !h.unstable[node]
		h.schedule(e, node, v.Now())
		for _, j := range h.on[int32(node)] {
			h.retime(e, j)
		}
	case engine.NoticeEnded:
		if n.Job.State == engine.Completed || n.Job.State == engine.Killed {
			h.finish(n.Job)
		}
		h.forget(n.Job)
	case engine.NoticeRequeued:
		h.forget(n.Job)
	}
}

// schedule draws the length of node's current period and sets a timer
// at its end. Each node's timeline comes from its own stream, so it is
// the same whatever the schedule.
func (h *Periods) schedule(e *engine.Engine, node int, now float64) {
	p := e.View().Node(node).Stability
	mean := p * h.params.Cycle
	if h.unstable[node] {
		mean = (1 - p) * h.params.Cycle
	}
	if mean <= 0 {
		if !h.unstable[node] {
			// p = 0: never stable; switch at once.
			e.Background(now, periodsTag-int64(node))
		}
		return
	}
	u := draw(h.seed, 0x9e71, uint64(node), math.Float64bits(now))
	e.Background(now-mean*math.Log(1-u), periodsTag-int64(node))
}

// Started slows a job that starts on a node in an unstable period.
func (h *Periods) Started(e *engine.Engine, j *engine.Job) {
	h.rate[j.Index] = 1
	for _, sp := range j.Alloc {
		for node := sp.First; node < sp.First+sp.Count; node++ {
			h.on[node] = append(h.on[node], j)
		}
	}
	h.retime(e, j)
}

// forget drops a job that left its nodes.
func (h *Periods) forget(j *engine.Job) {
	delete(h.rate, j.Index)
	for _, sp := range j.Alloc {
		for node := sp.First; node < sp.First+sp.Count; node++ {
			list := h.on[node]
			for i, x := range list {
				if x == j {
					list[i] = list[len(list)-1]
					h.on[node] = list[:len(list)-1]
					break
				}
			}
		}
	}
}

// retime recomputes a running job's progress rate and stretches its
// remaining time by old rate / new rate.
func (h *Periods) retime(e *engine.Engine, j *engine.Job) {
	v := e.View()
	rate := 1.0
	var slow []int32
	for _, sp := range j.Alloc {
		for node := sp.First; node < sp.First+sp.Count; node++ {
			if int(node) < len(h.unstable) && h.unstable[node] {
				rate = min(rate, 1/(1+v.Node(int(node)).Delay))
				slow = append(slow, node)
			}
		}
	}
	old, ok := h.rate[j.Index]
	if !ok {
		old = 1
	}
	if len(slow) > 0 {
		h.delay[j.Index] = appendNew(h.delay[j.Index], slow)
	}
	if rate != old {
		h.rate[j.Index] = rate
		rem := j.NaturalEnd() - v.Now()
		e.StretchTo(j, v.Now()+rem*old/rate)
	}
}

func appendNew(a, b []int32) []int32 {
	for _, x := range b {
		found := false
		for _, y := range a {
			found = found || x == y
		}
		if !found {
			a = append(a, x)
		}
	}
	return a
}
