package hgrid

import (
	"fmt"
	"math"
	"sort"
)

// Load indices of a compute node (seed 001 §2.2.2: "CPU utilisation,
// memory in use, …"), each in [0, 1], derived from the simulated state:
//
//   - cpu: busy processors / processors;
//   - mem: memory of the running jobs / memory (a job uses its SWF
//     memory per processor when known, else the node's memory share of
//     the processors it holds — then mem equals cpu);
//   - queue: the run-queue length q/(1+q), q = processors asked by the
//     jobs waiting at the node's leaf manager per processor of the leaf
//     (a node shares its manager's queue);
//   - backlog: b/(1+b), b = work (processor-seconds, by the users'
//     estimates) running on the node and its share of its leaf's queue,
//     divided by its capacity (processors × speed) and by one hour;
//   - speed: 1 − speed / fastest speed of the grid (a static index: the
//     paper's tables keep each node's CPU speed).
var IndexNames = []string{"cpu", "mem", "queue", "backlog", "speed"}

const (
	idxCPU = iota
	idxMem
	idxQueue
	idxBacklog
	idxSpeed
	nIndex
)

// Indices are one node's load indices, in IndexNames order.
type Indices [nIndex]float64

// Weights are the a_j of formula (1), by index name; they must be ≥ 0
// and sum to 1.
type Weights map[string]float64

// DefaultWeights: the dynamic indices share 0.9, the static speed 0.1.
func DefaultWeights() Weights {
	return Weights{"cpu": 0.3, "mem": 0, "queue": 0.3, "backlog": 0.3, "speed": 0.1}
}

// vector checks w and returns it in index order.
func (w Weights) vector() ([nIndex]float64, error) {
	var a [nIndex]float64
	sum := 0.0
	for k, v := range w {
		i := -1
		for j, n := range IndexNames {
			if n == k {
				i = j
			}
		}
		if i < 0 {
			return a, fmt.Errorf("weights.%s: unknown load index (known: %v)", k, IndexNames)
		}
		if !(v >= 0) || math.IsInf(v, 0) {
			return a, fmt.Errorf("weights.%s: must be >= 0, got %g", k, v)
		}
		a[i] = v
		sum += v
	}
	if math.Abs(sum-1) > 1e-9 {
		return a, fmt.Errorf("weights: must sum to 1, got %g", sum)
	}
	return a, nil
}

// NodeLoad is formula (1): L_i = Σ_j a_j · L_ij².
func NodeLoad(a [nIndex]float64, x Indices) float64 {
	l := 0.0
	for j := range x {
		l += a[j] * x[j] * x[j]
	}
	return l
}

// MeanVar is formula (2), the domain load LD_k = (1/m) Σ L_i over its m
// children, and formula (3), var_Dk = E[(L_i − LD_k)²].
func MeanVar(loads []float64) (mean, variance float64) {
	if len(loads) == 0 {
		return math.NaN(), math.NaN()
	}
	for _, l := range loads {
		mean += l
	}
	mean /= float64(len(loads))
	for _, l := range loads {
		variance += (l - mean) * (l - mean)
	}
	return mean, variance / float64(len(loads))
}

// tieEps: loads closer than this are equal (they come from sums of
// squares of ratios).
const tieEps = 1e-12

// Pick is the choice at one level of §2.2.2's algorithm: the candidate of
// least load L_min; if several have L_min, the one of maximum variance
// (formula (3), "找出方差最大的节点"); if still several, the first. It
// returns the index into loads, or −1 if there is none.
func Pick(loads, variances []float64) int {
	i, _ := PickHow(loads, variances)
	return i
}

// Decider says what decided a Pick: the load alone, formula (3)'s
// variance among candidates of equal least load, or the order among
// candidates of equal load and variance.
type Decider int

const (
	ByLoad Decider = iota
	ByVariance
	ByOrder
)

// PickHow is Pick, also saying what decided: ByLoad when one candidate
// has the least load, ByVariance when several do and their variances are
// not all equal, ByOrder when several do with equal variances (then the
// first is taken).
func PickHow(loads, variances []float64) (int, Decider) {
	best := pickIndex(loads, variances)
	if best < 0 {
		return best, ByLoad
	}
	tied := 0
	vmin, vmax := math.Inf(1), math.Inf(-1)
	for i, l := range loads {
		if !math.IsNaN(l) && math.Abs(l-loads[best]) <= tieEps {
			tied++
			vmin, vmax = min(vmin, variances[i]), max(vmax, variances[i])
		}
	}
	switch {
	case tied < 2:
		return best, ByLoad
	case vmax > vmin+tieEps:
		return best, ByVariance
	}
	return best, ByOrder
}

func pickIndex(loads, variances []float64) int {
	best := -1
	for i, l := range loads {
		if math.IsNaN(l) {
			continue
		}
		switch {
		case best < 0 || l < loads[best]-tieEps:
			best = i
		case math.Abs(l-loads[best]) <= tieEps && variances[i] > variances[best]+tieEps:
			best = i
		}
	}
	return best
}

// leafProf is what the dispatcher expects of a leaf's processors: their
// free times at the last report (base, ascending) and the jobs booked
// since, each ready (arrived at the leaf) at a time. A leaf manager starts
// its queue strictly in order of arrival (the head blocks the rest), so
// the expected free times replay the bookings in order of readiness (the
// order of dispatch among equals): a job dispatched later but arriving
// sooner (a smaller migration cost) goes ahead of one still in transit.
// Booked in that order, each job starts at max(ready, n-th earliest free
// time), which is never before the start of a job that arrived earlier
// (the taken processors end later, the others were free later): the
// leaf's FCFS order holds.
type leafProf struct {
	base  []float64
	books []booking
	av    []float64 // base with every booking replayed
}

type booking struct {
	ready, dur float64
	n          int
}

func newLeafProf(base []float64) leafProf {
	return leafProf{base: base, av: append([]float64(nil), base...)}
}

// start is the expected start of a job of n processors arriving at the
// leaf at ready (after the jobs that arrive by then); +Inf if the leaf
// has fewer than n processors.
func (l *leafProf) start(n int, ready float64) float64 {
	if n > len(l.base) || n < 1 {
		return math.Inf(1)
	}
	if len(l.books) == 0 || l.books[len(l.books)-1].ready <= ready {
		return max(ready, l.av[n-1])
	}
	av := append([]float64(nil), l.base...)
	for _, b := range l.books {
		if b.ready > ready {
			break
		}
		placeOn(av, b.n, b.ready, b.dur)
	}
	return max(ready, av[n-1])
}

// book records a job of n processors arriving at ready for dur and
// returns its expected start (+Inf, booking nothing, if the leaf is too
// small).
func (l *leafProf) book(n int, ready, dur float64) float64 {
	s := l.start(n, ready)
	if math.IsInf(s, 1) {
		return s
	}
	i := len(l.books)
	for i > 0 && l.books[i-1].ready > ready {
		i--
	}
	l.books = append(l.books, booking{})
	copy(l.books[i+1:], l.books[i:])
	l.books[i] = booking{ready: ready, dur: dur, n: n}
	if i == len(l.books)-1 {
		placeOn(l.av, n, ready, dur)
		return s
	}
	l.av = append(l.av[:0], l.base...)
	for _, b := range l.books {
		placeOn(l.av, b.n, b.ready, b.dur)
	}
	return s
}

// leafAvail returns a leaf's profile given the expected ends of its
// running jobs (one entry per processor they hold), its free processors
// at now, and its queue (processors, expected duration) in FCFS order.
func leafAvail(now float64, busyEnds []float64, free int, queue [][2]float64) leafProf {
	av := make([]float64, 0, len(busyEnds)+free)
	for range free {
		av = append(av, now)
	}
	for _, e := range busyEnds {
		av = append(av, max(now, e))
	}
	sort.Float64s(av)
	for _, q := range queue {
		placeOn(av, int(q[0]), now, q[1])
	}
	return newLeafProf(av)
}

// placeOn books n processors of av (ascending free times) for dur from
// the n-th earliest free time (a rigid job starts when n processors are
// free) and returns its completion time; av stays sorted. It returns
// +Inf, leaving av alone, if av has fewer than n processors.
func placeOn(av []float64, n int, ready, dur float64) float64 {
	if n > len(av) || n < 1 {
		return math.Inf(1)
	}
	start := max(ready, av[n-1])
	end := start + dur
	// av[n:] stays sorted; the n booked processors, all free at end, go
	// where end belongs among them.
	pos := n + sort.SearchFloat64s(av[n:], end)
	copy(av, av[n:pos])
	for i := pos - n; i < pos; i++ {
		av[i] = end
	}
	return end
}
