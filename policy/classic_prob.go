package policy

import (
	"math"

	"github.com/gridsched/gridsched/engine"
)

// probState is probabilistic backfilling (Nissimov & Feitelson 2007) as
// pyss's OrigProbabilisticEasyScheduler defines it: per user (or, with
// common, for the whole system) a histogram of run times in power-of-two
// bins with pseudo-counts; a candidate starts if it fits now and its
// predicted chance of delaying the queue head is at most threshold.
type probState struct {
	threshold float64
	window    int
	common    bool
	users     map[int]*pdist
	maxUp     float64 // largest up(request) of the jobs submitted so far

	// per pass caches
	row   map[float64][]float64
	qs    map[float64][]float64
	stamp int
	now   float64
}

// pdist is one histogram: bins[i] counts runs in the bin of key 2^i;
// keys 1, 2, 4, ... up to the largest are always all present.
type pdist struct {
	bins []float64
	n    float64 // sum of the counts
	hist []int   // bin index of the last window runs, oldest first
}

func newProbState(s Spec) *probState {
	w := s.Window
	if w == 0 {
		w = 150
	}
	return &probState{threshold: s.Threshold, window: w, common: s.Common, users: map[int]*pdist{}}
}

// up is the smallest power of two >= x (1 for x <= 1).
func up(x float64) float64 {
	if x <= 1 {
		return 1
	}
	f, e := math.Frexp(x)
	if f == 0.5 {
		return x
	}
	return math.Ldexp(1, e)
}

// down is the largest power of two <= x (0 for x < 1).
func down(x float64) float64 {
	if x < 1 {
		return 0
	}
	_, e := math.Frexp(x)
	return math.Ldexp(1, e-1)
}

func log2i(pow2 float64) int {
	_, e := math.Frexp(pow2)
	return e - 1
}

func (p *probState) key(j *engine.Job) int {
	if p.common {
		return 0
	}
	return j.User
}

func (p *probState) dist(j *engine.Job) *pdist {
	d := p.users[p.key(j)]
	if d == nil {
		d = &pdist{bins: []float64{1}, n: 1}
		p.users[p.key(j)] = d
	}
	return d
}

// touch creates the bins from the largest present up to key r (a power
// of two), each with a pseudo-count of 1.
func (d *pdist) touch(r float64) {
	for i := log2i(r); len(d.bins) <= i; {
		d.bins = append(d.bins, 1)
		d.n++
	}
}

func (p *probState) submitted(c *Classic, j *engine.Job) {
	p.maxUp = max(p.maxUp, up(c.d(j).est))
	r := 2 * p.maxUp
	p.dist(j).touch(r)
	for _, w := range c.run {
		p.dist(w).touch(r)
	}
	p.stamp++
}

func (p *probState) ended(j *engine.Job, run float64) {
	d := p.dist(j)
	k := up(run)
	d.touch(k)
	i := log2i(k)
	d.bins[i]++
	d.n++
	d.hist = append(d.hist, i)
	if len(d.hist) > p.window {
		d.bins[d.hist[0]]--
		d.n--
		d.hist = d.hist[1:]
	}
	p.stamp++
}

// probabilistic is the backfill step: no reservation for the head;
// candidates in queue order.
func (c *Classic) probabilistic(v *engine.View, p *engine.Plan, head *engine.Job, tail []*engine.Job) {
	now := v.Now()
	ps := c.prob
	ps.now = now
	ps.row, ps.qs = map[float64][]float64{}, map[float64][]float64{}
	P := v.AvailPEs()
	for _, j := range tail {
		if c.free(now) < j.Procs {
			continue
		}
		if ps.predict(c, now, P, head, j) <= ps.threshold {
			if c.launch(v, p, j, c.d(j).pred) {
				ps.row, ps.qs = map[float64][]float64{}, map[float64][]float64{} // the running set changed
			}
		}
	}
}

// predict is the chance that running j now delays head: Σ over t = 1, 2,
// 4, ... < 2·request of P(j ends in bin t) × the largest bottleneck
// B(t') for t' <= t.
func (ps *probState) predict(c *Classic, now float64, P int, head, j *engine.Job) float64 {
	est := c.d(j).est
	d := ps.dist(j)
	norm := 0.0
	for i, b := range d.bins {
		if math.Ldexp(1, i) < 2*est {
			norm += b
		}
	}
	norm += 0.1
	pred, maxB := 0.0, 0.0
	for i := 0; math.Ldexp(1, i) < 2*est; i++ {
		t := math.Ldexp(1, i)
		b := ps.bottleneck(c, now, P, head, j, t)
		maxB = max(maxB, b)
		var pt float64
		if i < len(d.bins) {
			pt = d.bins[i] / norm
		}
		pred += pt * maxB
	}
	return pred
}

// bottleneck is pyss's B(t): from M[n][c], computed over the running jobs
// in start order (as pyss writes it: the recurrence reads the same row at
// c − procs).
func (ps *probState) bottleneck(c *Classic, now float64, P int, head, j *engine.Job, t float64) float64 {
	C := head.Procs + j.Procs
	K := min(P, C)
	row := ps.row[t]
	if len(row) < K+1 {
		row = ps.computeRow(c, now, t, K)
		ps.row[t] = row
	}
	var b float64
	if C <= P {
		b = row[head.Procs] - row[C]
	} else {
		b = row[head.Procs]
	}
	return max(b, 0)
}

func (ps *probState) computeRow(c *Classic, now, t float64, K int) []float64 {
	row := make([]float64, K+1)
	qs := ps.qs[t]
	if qs == nil {
		qs = make([]float64, len(c.run))
		for n, w := range c.run {
			qs[n] = ps.q(c, now, w, t)
		}
		ps.qs[t] = qs
	}
	for n, w := range c.run {
		r := w.Procs
		q := qs[n]
		if n == 0 {
			row[0] = 1
		}
		for cc := 1; cc <= K; cc++ {
			if cc < r {
				row[cc] += (1 - row[cc]) * q
			} else {
				row[cc] += (row[cc-r] - row[cc]) * q
			}
		}
	}
	return row
}

// q is Q_W(t): the chance that running job w ends within t from now,
// from its user's histogram given it has run e = now − start.
func (ps *probState) q(c *Classic, now float64, w *engine.Job, t float64) float64 {
	start := c.d(w).pstart
	e := now - start
	rd := down(e)
	ru := up(c.d(w).est - rd)
	if t >= ru {
		return 1
	}
	d := ps.dist(w)
	var first, last, middle float64
	for i, cnt := range d.bins {
		key := math.Ldexp(1, i)
		half := math.Floor(key / 2)
		switch {
		case key > ru:
			last += cnt
		case key <= rd:
			first += cnt
		case key <= t+rd:
			middle += cnt
		case t+rd > half:
			middle += cnt * (t + rd - half) / half
		}
	}
	return middle / (d.n - first - last + 0.1)
}
