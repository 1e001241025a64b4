package policy

import (
	"cmp"
	"math"
	"slices"

	"github.com/gridsched/gridsched/engine"
)

// initialPred is a job's prediction when it arrives.
func (c *Classic) initialPred(j *engine.Job, est float64) float64 {
	switch c.s.Estimate {
	case "exact":
		return exactRun(j, est)
	case "double":
		return c.s.Factor * est
	case "perfect-double":
		return c.s.Factor * exactRun(j, est)
	case "shrink":
		if est > 1 {
			return max(1, math.Floor(est/2))
		}
		return 1
	}
	return est
}

// exactRun is the time j will run: its run time capped by its request
// (it is killed there), at least 1 s.
func exactRun(j *engine.Job, est float64) float64 {
	r := j.Runtime
	if est > 0 && r > est {
		r = est
	}
	return max(r, 1)
}

// sortQueue puts the waiting list in the spec's queue order: by key, ties
// in enqueue order (arrival order; a requeued job counts from its
// requeue). pyss's Maui sorts its list in place, so its ties keep the
// previous pass's order; that is enqueue order whenever two jobs tie at
// every pass, as with its default weights (ties only for jobs submitted
// together), and differs only for weights under which two jobs' order
// flips and later ties exactly.
func (c *Classic) sortQueue(now float64) {
	if c.s.Order == "fcfs" || len(c.wait) < 2 {
		return
	}
	type kj struct {
		k float64
		j *engine.Job
	}
	ks := make([]kj, len(c.wait))
	for i, j := range c.wait {
		ks[i] = kj{c.orderKey(j, now), j}
	}
	slices.SortFunc(ks, func(a, b kj) int {
		if r := cmpF(a.k, b.k); r != 0 {
			return r
		}
		return cmp.Compare(c.d(a.j).seq, c.d(b.j).seq)
	})
	for i := range ks {
		c.wait[i] = ks[i].j
	}
}

// orderKey is j's queue-order key at now (smallest first).
func (c *Classic) orderKey(j *engine.Job, now float64) float64 {
	d := c.d(j)
	est := d.est
	wait := now - j.Submit
	n := float64(j.Procs)
	lg := func(x float64) float64 {
		if x <= 0 {
			x = 0.1
		}
		return math.Log10(x)
	}
	switch c.s.Order {
	case "fcfs":
		return float64(j.Index)
	case "lcfs":
		return -float64(j.Index)
	case "sjf":
		return est
	case "ljf":
		return -est
	case "smallest":
		return n
	case "largest":
		return -n
	case "area":
		return n * est
	case "wfp3", "unicep", "slowdown":
		return -wait * dynSlope(c.s.Order, j, est)
	case "f1":
		return lg(est)*n + 870*lg(j.Submit)
	case "f2":
		return math.Sqrt(est)*n + 25600*lg(j.Submit)
	case "f3":
		return est*n + 6860000*lg(j.Submit)
	case "f4":
		return est*math.Sqrt(n) + 530000*lg(j.Submit)
	case "maui":
		return -(c.s.WWait*wait + c.s.WSld*(wait+est)/est + c.s.WBypass*float64(d.bypass) + c.s.WSize*n)
	case "edf":
		if math.IsNaN(j.Deadline) {
			return math.Inf(1)
		}
		return j.Deadline
	}
	return 0
}

// dynSlope is the growth rate of a linear dynamic priority, largest
// first: wait × dynSlope. WFP3's (wait/est)³ × procs orders jobs as its
// cube root wait × procs^(1/3) / est does, UNICEP is wait / (log2(procs)
// × est) and the expected slowdown (wait + est) / est = 1 + wait / est
// orders them as wait / est. Written as wait × slope, with the slope
// fixed per job, a key is one rounding of a linear function of time and
// two jobs' order changes at most once while they wait, which is what lets
// the kinetic tournament (ktour) find the head without sorting.
func dynSlope(order string, j *engine.Job, est float64) float64 {
	n := float64(j.Procs)
	if !(est > 0) {
		est = 1 // a zero estimate counts as one second
	}
	switch order {
	case "wfp3":
		return math.Cbrt(n) / est
	case "unicep":
		return 1 / (math.Log2(max(n, 2)) * est)
	}
	return 1 / est
}

// staticOrder: the order key never changes while a job waits.
func staticOrder(o string) bool {
	switch o {
	case "wfp3", "unicep", "slowdown", "maui":
		return false
	}
	return true
}

// history keeps the run times the history predictors need, per user or
// for the whole system (common).
type history struct {
	kind   string
	common bool
	window int
	users  map[int]*userHist
	wait   map[int][]*engine.Job // per user (or 0 with common): jobs queued since its last re-prediction
}

type userHist struct {
	n          int
	last, prev float64
	sumRatio   float64   // alpha: Σ run/request over every job, in termination order
	ring       []float64 // average: run times; walltime-pct: run/request ratios (last window)
}

func (h *history) init(s Spec) {
	switch s.Estimate {
	case "epp", "alpha", "last", "average", "walltime-pct":
		h.kind = s.Estimate
	default:
		return
	}
	h.common = s.Common
	h.window = s.Window
	if h.window == 0 {
		h.window = 5
	}
	h.users = map[int]*userHist{}
	h.wait = map[int][]*engine.Job{}
}

func (h *history) key(j *engine.Job) int {
	if h.common {
		return 0
	}
	return j.User
}

func (h *history) submitted(c *Classic, j *engine.Job) {
	if c.prob != nil {
		c.prob.submitted(c, j)
	}
}

// ended records a job's run time when it leaves its processors (before
// the pass that follows).
func (h *history) ended(c *Classic, j *engine.Job, run float64) {
	if c.prob != nil && j.State.Terminal() {
		c.prob.ended(j, run)
	}
	if h.kind == "" || !j.State.Terminal() {
		return
	}
	u := h.users[h.key(j)]
	if u == nil {
		u = &userHist{}
		h.users[h.key(j)] = u
	}
	u.n++
	u.prev, u.last = u.last, run
	est := c.d(j).est
	switch h.kind {
	case "alpha":
		u.sumRatio += run / est
	case "average":
		u.push(run, h.window)
	case "walltime-pct":
		u.push(run/est, h.window)
	}
	if c.capx == nil {
		h.repredict(c, h.key(j), u) // with the capped index, waiting jobs' predictions follow the cap when asked
	}
}

func (u *userHist) push(x float64, w int) {
	if len(u.ring) == w {
		copy(u.ring, u.ring[1:])
		u.ring = u.ring[:w-1]
	}
	u.ring = append(u.ring, x)
}

// predict sets a waiting job's prediction from its user's history (or
// the system's, with common): EASY++'s prediction follows the history
// until the job starts. Predictions are whole seconds, rounded down, as
// pyss's are (a plan then never puts a start between two seconds). A job whose user has too little history keeps the
// prediction it had (its initial one).
func (h *history) predict(c *Classic, j *engine.Job, u *userHist) {
	d := c.d(j)
	est := d.est
	switch h.kind {
	case "epp":
		if u.n >= 2 {
			d.pred = min(est, math.Floor((u.last+u.prev)/2))
		}
	case "alpha":
		if u.n >= 1 {
			d.pred = max(1, math.Floor(u.sumRatio/float64(u.n)*est))
		}
	case "last":
		if u.n >= 1 {
			d.pred = max(1, min(est, u.last))
		}
	case "average":
		if len(u.ring) > 0 {
			d.pred = max(1, min(est, math.Floor(u.mean())))
		}
	case "walltime-pct":
		if len(u.ring) > 0 {
			d.pred = max(1, min(est, math.Floor(u.mean()*est)))
		}
	}
}

func (u *userHist) mean() float64 {
	s := 0.0
	for _, x := range u.ring {
		s += x
	}
	return s / float64(len(u.ring))
}

// enqueued predicts a job joining the queue and files it under its user,
// so that a change of that user's history re-predicts only that user's
// waiting jobs (in O(their number)), not the whole queue at every pass.
// At depth=all a job is reserved with its prediction at arrival, which
// its reservation keeps (compression moves it, never resizes it).
func (h *history) enqueued(c *Classic, j *engine.Job) {
	if h.kind == "" {
		return
	}
	k := h.key(j)
	if u := h.users[k]; u != nil {
		h.predict(c, j, u)
	}
	if c.s.Depth != DepthAll && c.capx == nil {
		h.wait[k] = append(h.wait[k], j)
	}
}

// repredict re-predicts the waiting jobs of user key (dropping the ones
// that left the queue from its list).
func (h *history) repredict(c *Classic, key int, u *userHist) {
	ws := h.wait[key]
	n := 0
	for _, j := range ws {
		if !c.d(j).queued || j.State != engine.Queued {
			continue
		}
		ws[n] = j
		n++
		h.predict(c, j, u)
		c.predChanged(j)
	}
	clear(ws[n:])
	h.wait[key] = ws[:n]
}

// greedyKeys are pyss's five candidate orders, tried in this order; the
// first with the most jobs started wins.
var greedyKeys = []func(c *Classic, j *engine.Job) float64{
	func(_ *Classic, j *engine.Job) float64 { return -j.Submit },
	func(_ *Classic, j *engine.Job) float64 { return j.Submit },
	func(_ *Classic, j *engine.Job) float64 { return float64(j.Procs) },
	func(c *Classic, j *engine.Job) float64 { return c.testPred(j) },
	func(c *Classic, j *engine.Job) float64 { return float64(j.Procs) * c.testPred(j) },
}

// greedy: the head is reserved no earlier than now + delay × its
// prediction; of five orders of the other jobs, the first that starts the
// most jobs is used.
func (c *Classic) greedy(v *engine.View, p *engine.Plan, head *engine.Job, tail []*engine.Job) {
	now := v.Now()
	shadow, extra0 := c.shadow(now, head, now+c.s.Delay*c.d(head).pred)
	free0 := c.free(now)
	if free0 == 0 {
		return
	}
	fit := c.candidates(tail, free0) // the others start in no order
	best := -1
	var bestOrd []*engine.Job
	type kj struct {
		k float64
		j *engine.Job
	}
	ks := make([]kj, len(fit))
	for _, key := range greedyKeys {
		for i, j := range fit {
			ks[i] = kj{key(c, j), j}
		}
		slices.SortStableFunc(ks, func(a, b kj) int { return cmpF(a.k, b.k) })
		ord := c.scratch2[:0]
		for _, x := range ks {
			ord = append(ord, x.j)
		}
		c.scratch2 = ord
		free, extra, n := free0, extra0, 0
		for _, j := range ord {
			pred := c.testPred(j)
			if j.Procs > free {
				continue
			}
			if slotEnd(now, pred) <= shadow {
				free -= j.Procs
				n++
			} else if j.Procs <= extra {
				free -= j.Procs
				extra -= j.Procs
				n++
			}
		}
		if n > best {
			best = n
			bestOrd = append(bestOrd[:0], ord...)
		}
	}
	extra := extra0
	for _, j := range bestOrd {
		pred := c.testPred(j)
		c.easyStart(v, p, j, pred, shadow, &extra)
	}
}

// lookahead: of the waiting jobs (the first window of them, or all), the
// set that can start now around the head's reservation with the largest
// total processors × prediction (score=procs: processors), by pyss's
// dynamic programme over (job, free processors); ties favour taking the
// later job.
func (c *Classic) lookahead(v *engine.View, p *engine.Plan, head *engine.Job, tail []*engine.Job) {
	now := v.Now()
	F := c.free(now)
	if F <= 0 {
		return
	}
	shadow, extra0 := c.shadow(now, head, now)
	c.tellShadow(head, shadow)
	q := tail
	if c.s.Window > 0 && len(q) > c.s.Window-1 {
		q = q[:max(c.s.Window-1, 0)]
	}
	// Only jobs that can start now in some cell change a row.
	rel := c.scratch2[:0]
	for _, j := range q {
		pred := c.testPred(j)
		if j.Procs <= F && (slotEnd(now, pred) <= shadow || j.Procs <= extra0) {
			rel = append(rel, j)
		}
	}
	c.scratch2 = rel
	if len(rel) == 0 {
		return
	}
	w := F + 1
	c.dp = growTo(c.dp[:0], w, 0)
	c.dpLong = growTo(c.dpLong[:0], w, 0)
	if need := len(rel) * w; cap(c.dpTake) < need {
		c.dpTake = make([]bool, need)
	} else {
		c.dpTake = c.dpTake[:need]
		clear(c.dpTake)
	}
	util, long, take := c.dp, c.dpLong, c.dpTake
	for i := range util {
		util[i], long[i] = 0, 0
	}
	for r, j := range rel {
		pred := c.testPred(j)
		isLong := slotEnd(now, pred) > shadow
		u := float64(j.Procs) * pred
		if c.s.Score == "procs" {
			u = float64(j.Procs)
		}
		for k := F; k >= j.Procs; k-- {
			pl := long[k-j.Procs]
			if isLong && j.Procs > extra0-int(pl) {
				continue
			}
			if u2 := util[k-j.Procs] + u; util[k] <= u2 {
				util[k] = u2
				long[k] = pl
				if isLong {
					long[k] += int32(j.Procs)
				}
				take[r*w+k] = true
			}
		}
	}
	sel := make([]bool, len(rel))
	k := F
	for r := len(rel) - 1; r >= 0; r-- {
		if take[r*w+k] {
			sel[r] = true
			k -= rel[r].Procs
		}
	}
	for r, j := range rel {
		if sel[r] {
			c.launch(v, p, j, c.testPred(j))
		}
	}
}
