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

	// The bottleneck rows, one per bin t = 2^i: pyss's recurrence over
	// the running jobs in start order (one step per job), up to k
	// processors. A job's step depends only on its processors, t and its
	// Q(t), and Q only on its user's histogram and its elapsed-time bin
	// down(now − start): sig. A row keeps the steps it applied (n) and a
	// copy of itself every cp steps; each pass finds the first running
	// job whose step changed (an end removes one, a histogram or an
	// elapsed-time bin changes) and a row is recomputed, when next read,
	// from the last copy before it: a job started late in the start order
	// costs a few steps, not the whole recurrence. Every row value is the
	// same arithmetic, in the same order, as computing it afresh.
	bins  []probBin
	sig   []probSig // per running job (start order): what its steps were computed with
	cut   int       // first running job whose steps changed since the last pass
	k     int
	cp    int // steps between two stored copies of a row
	avail int

	// A refused candidate is refused again while nothing its chance
	// depends on changed: the rows (ver counts the changes of the running
	// jobs' steps), the head, the candidate's own histogram and P.
	ver    uint64
	gone   bool       // a running job ended since the last pass
	refuse []probMemo // per job index

	ub         []probUB  // per bin: upper bound of the bottleneck (upper)
	qc         []probQ   // per running job (start order): its Q per bin
	qin        []int     // qFill's scratch
	qpre       []float64 // qFill's scratch
	pt, lo, hi []float64 // chance's scratch, per bin
	crs        []bool    // chance's scratch: bins bounded by coarseBounds
	coarse     []probCoarseRows
	wbuf       stepBuf // stepG's, for the bins' rows
	cbuf       stepBuf // for the coarse rows
	cr         []int   // coarseBounds' scratch
	cqf        []float64
}

type probMemo struct {
	ver  uint64 // ver+1 when refused (0: none)
	head *engine.Job
	dv   int
	P    int
}

// probCPFloats bounds the stored copies of one row (values): the steps
// between two copies (cp) are the fewest that keep (P/cp + 1) copies of
// k+1 values under it.
const probCPFloats = 1 << 16

type probBin struct {
	row   []float64   // after n steps (unless stale)
	n     int         // steps still valid
	stale bool        // row holds steps beyond n
	cps   [][]float64 // cps[m]: the row after m·cp steps (valid for m <= n/cp)
}

// cut keeps the first n steps of the row valid.
func (b *probBin) cut(n int) {
	if n < b.n {
		b.n, b.stale = n, true
	}
}

type probSig struct {
	rd  float64
	ver int
}

// pdist is one histogram: bins[i] counts runs in the bin of key 2^i;
// keys 1, 2, 4, ... up to the largest are always all present.
type pdist struct {
	bins []float64
	n    float64 // sum of the counts
	hist []int   // bin index of the last window runs, oldest first
	ver  int     // changes
}

func newProbState(s Spec) *probState {
	w := s.Window
	if w == 0 {
		w = 150
	}
	return &probState{threshold: s.Threshold, window: w, common: s.Common, users: map[int]*pdist{}, cp: 1}
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
// of two), each with a pseudo-count of 1, and reports whether it did.
func (d *pdist) touch(r float64) bool {
	grew := false
	for i := log2i(r); len(d.bins) <= i; {
		d.bins = append(d.bins, 1)
		d.n++
		grew = true
	}
	if grew {
		d.ver++
	}
	return grew
}

func (p *probState) submitted(c *Classic, j *engine.Job) {
	p.maxUp = max(p.maxUp, up(c.d(j).est))
	r := 2 * p.maxUp
	p.dist(j).touch(r)
	for _, w := range c.run {
		p.dist(w).touch(r)
	}
}

func (p *probState) ended(j *engine.Job, run float64) {
	d := p.dist(j)
	k := up(run)
	d.touch(k)
	i := log2i(k)
	d.bins[i]++
	d.n++
	d.ver++
	d.hist = append(d.hist, i)
	if len(d.hist) > p.window {
		d.bins[d.hist[0]]--
		d.n--
		d.hist = d.hist[1:]
	}
}

// probabilistic is the backfill step: no reservation for the head;
// candidates in queue order.
func (c *Classic) probabilistic(v *engine.View, p *engine.Plan, head *engine.Job, tail []*engine.Job) {
	now := v.Now()
	ps := c.prob
	P := v.AvailPEs()
	ps.validate(c, now, P)
	// A candidate reads each row up to head + its processors, at most
	// head + the processors free now. Rows reaching further serve as well
	// (a row's first k+1 values do not depend on how far it goes), but
	// each step costs its length: rows much longer than this pass needs
	// are recomputed shorter.
	if k := min(P, head.Procs+c.free(now)); k > ps.k {
		ps.setK(min(P, max(k, 2*ps.k)))
	} else if 8*k < ps.k {
		ps.setK(2 * k)
	}
	for _, j := range tail {
		if c.free(now) < j.Procs {
			continue
		}
		if ps.fits(c, now, P, head, j) && c.launch(v, p, j, c.d(j).pred) {
			ps.appended(c, now, j)
		}
	}
}

// validate finds the first running job whose steps changed since the
// last pass and cuts every row back to it.
func (ps *probState) validate(c *Classic, now float64, P int) {
	cut := ps.cut
	if P != ps.avail {
		ps.avail, cut = P, 0
	}
	for n := 0; n < min(cut, len(c.run)); n++ {
		if ps.sig[n] != ps.sigOf(c, now, c.run[n]) {
			cut = n
		}
	}
	for n := cut; n < len(c.run); n++ {
		if n < len(ps.sig) {
			ps.sig[n] = ps.sigOf(c, now, c.run[n])
		} else {
			ps.sig = append(ps.sig, ps.sigOf(c, now, c.run[n]))
		}
	}
	ps.sig = ps.sig[:len(c.run)]
	if cut < len(c.run) || ps.gone {
		ps.ver++
		ps.gone = false
	}
	for i := range ps.bins {
		ps.bins[i].cut(cut)
	}
	for i := range ps.coarse {
		if cut < ps.coarse[i].n {
			ps.coarse[i].n = 0 // no copies to go back to
		}
	}
	ps.cut = len(c.run)
}

func (ps *probState) sigOf(c *Classic, now float64, w *engine.Job) probSig {
	return probSig{rd: down(now - c.d(w).pstart), ver: ps.dist(w).ver}
}

// removed is told that the running job at start-order position i ended.
func (ps *probState) removed(i int) {
	ps.cut = min(ps.cut, i)
	ps.gone = true
	if i < len(ps.sig) {
		ps.sig = append(ps.sig[:i], ps.sig[i+1:]...)
	}
	if i < len(ps.qc) {
		e := ps.qc[i]
		ps.qc = append(ps.qc[:i], ps.qc[i+1:]...)
		ps.qc = append(ps.qc, probQ{q: e.q[:0]}) // keeps its buffer
	}
}

// probQ holds a running job's Q per bin, computed with sig.
type probQ struct {
	job *engine.Job
	sig probSig
	ru  float64   // the job's remaining request rounded up: Q(t) = 1 for t >= ru
	q   []float64 // q[i]: Q(2^i)
}

// qAt is q for the running job at start-order position n and t = 2^i,
// kept while the job's signature (its elapsed-time bin and its
// histogram's version, all Q depends on but t) stays ps.sig[n], which
// the pass has brought up to date.
func (ps *probState) qAt(c *Classic, now float64, n int, t float64) float64 {
	w := c.run[n]
	for len(ps.qc) <= n {
		ps.qc = append(ps.qc, probQ{})
	}
	e := &ps.qc[n]
	if e.job != w || e.sig != ps.sig[n] {
		e.job, e.sig, e.q = w, ps.sig[n], e.q[:0]
	}
	i := log2i(t)
	if i >= len(e.q) {
		if len(e.q) > 0 && pow2(len(e.q)-1) >= e.ru {
			for len(e.q) <= i {
				e.q = append(e.q, 1) // t >= ru from here on
			}
		} else {
			ps.qFill(c, now, w, e, i)
		}
	}
	return e.q[i]
}

// qFill appends to e.q running job w's Q for t = 2^k, k from len(e.q)
// to upto: q's sums, in q's order, for every t from one pass over the
// histogram. The counts below the elapsed-time bin (first) and above
// the remaining request (last) do not depend on t; the others are added
// in increasing key order, whole up to t + rd (a prefix: prefix sums
// taken in that order are q's partial sums), then the next key's share.
func (ps *probState) qFill(c *Classic, now float64, w *engine.Job, e *probQ, upto int) {
	rd := down(now - c.d(w).pstart)
	ru := up(c.d(w).est - rd)
	e.ru = ru
	upto = max(upto, log2i(ru)) // and no further: Q is 1 from t = ru on
	d := ps.dist(w)
	var first, last float64
	in, pre := ps.qin[:0], ps.qpre[:0] // keys (rd, ru], in order; pre[m]: the sum of their first m counts
	pre = append(pre, 0)
	for i, cnt := range d.bins {
		key := pow2(i)
		switch {
		case key > ru:
			last += cnt
		case key <= rd:
			first += cnt
		default:
			in = append(in, i)
			pre = append(pre, pre[len(pre)-1]+cnt)
		}
	}
	ps.qin, ps.qpre = in, pre
	den := d.n - first - last + 0.1
	m := 0 // keys of in at most t + rd
	for k := len(e.q); k <= upto; k++ {
		t := pow2(k)
		if t >= ru {
			e.q = append(e.q, 1)
			continue
		}
		for m < len(in) && pow2(in[m]) <= t+rd {
			m++
		}
		middle := pre[m]
		if m < len(in) {
			key := pow2(in[m])
			if half := math.Floor(key / 2); t+rd > half {
				middle += d.bins[in[m]] * (t + rd - half) / half
			}
		}
		e.q = append(e.q, middle/den)
	}
}

// setK makes every row reach k processors (recomputed when next read).
func (ps *probState) setK(k int) {
	ps.k = k
	ps.cp = max(1, (ps.avail+1)*(k+1)/probCPFloats)
	for i := range ps.bins {
		ps.bins[i].cut(0)
	}
}

// appended is told that j just started (last in start order). The rows
// get its step when next read (row), not now: most are recomputed
// before that.
func (ps *probState) appended(c *Classic, now float64, j *engine.Job) {
	n := len(c.run) - 1
	ps.ver++
	ps.sig = append(ps.sig[:n], ps.sigOf(c, now, j))
	ps.cut = len(c.run)
}

// apply adds running job n's step to the row (which has n steps).
func (b *probBin) apply(c *Classic, ps *probState, now float64, n int, t float64) {
	w := c.run[n]
	step(b.row, w.Procs, ps.qAt(c, now, n, t), n == 0)
	b.n = n + 1
	b.store(ps, b.row)
}

// applyFrom adds the steps of the running jobs from position from on to
// the row (which has from steps), up to probG at a time (stepG) and the
// last one or two alone, keeping copies as apply does.
func (b *probBin) applyFrom(c *Classic, ps *probState, now float64, from int, t float64) {
	n := from
	var r [probG]int
	var q [probG]float64
	for len(b.row) > 1 && len(c.run)-n >= probMinG {
		G := probGroup(len(c.run) - n)
		for k := range G {
			r[k], q[k] = c.run[n+k].Procs, ps.qAt(c, now, n+k, t)
		}
		if n == 0 {
			b.row[0] = 1
		}
		mid := ps.stepG(b.row, r[:G], q[:G], &ps.wbuf)
		for k, row := range mid {
			b.n = n + k + 1
			b.store(ps, row)
		}
		n += G
		b.n = n
		b.store(ps, b.row)
	}
	for ; n < len(c.run); n++ {
		b.apply(c, ps, now, n, t)
	}
}

// stepG applies G = len(r) steps (processors r[k], Q q[k]; G at most
// probG) to row, in place, as G calls of step would, value for value the
// same operands in the same order, so the same bits; but interleaved:
// step k + 1's column c is computed right after step k's column c + 1,
// so the chains of dependent operations (a step's column c reads its own
// column c − r) run side by side instead of one after the other. There
// are always probG of them: the steps beyond G change no column (r = 1,
// Q = 0: x + (y − x)·0 = x). Step k writes its own row (b[k+1], the last
// back into b[0], which holds row), padded below column 0 with ones, the
// value a step's columns c < r read (x + (1 − x)·q): no branch in the
// loop. It returns the rows after each step but the last (valid until
// the next call). row[0] must be set already (the first job's 1).
func (ps *probState) stepG(row []float64, rs []int, qs []float64, wb *stepBuf) [][]float64 {
	n, G := len(row), len(rs)
	w := 2 * n
	if len(wb.buf) != probG*w {
		wb.buf = growTo(wb.buf[:0], probG*w, 0)
		for k := range probG {
			pad := wb.buf[k*w : k*w+n]
			for i := range pad {
				pad[i] = 1
			}
		}
	}
	var r [probG]int
	var q [probG]float64
	for k := range r {
		r[k] = 1 // and q[k] = 0: no column changes
		if k < G && rs[k] > 0 {
			r[k], q[k] = min(rs[k], n), qs[k] // every column below r reads a padding one
		}
	}
	var b [probG][]float64
	for k := range b {
		b[k] = wb.buf[k*w : (k+1)*w]
	}
	copy(b[0][n:], row)
	for k := 1; k < probG; k++ {
		b[k][n] = row[0]
	}
	// edge computes, at step x, every step k's column x − k that exists.
	edge := func(x int) {
		for k := range probG {
			if c := x - k; c >= 1 && c < n {
				out := b[(k+1)%probG]
				v := b[k][n+c]
				out[n+c] = v + float64((out[n+c-r[k]]-v)*q[k])
			}
		}
	}
	x := 1
	for ; x < min(probG, n+probG-1); x++ {
		edge(x)
	}
	if m := n - x; m > 0 {
		// x from probG to n − 1: every step's column exists. Step k
		// (column x − k, from b[k] into b[k+1], the last into b[0]) as
		// slices of one length, so that the compiler drops the bounds
		// checks.
		d0, s0, i0 := b[1][n+x : 2*n][:m], b[1][n+x-r[0]:][:m], b[0][n+x : 2*n][:m]
		d1, s1, i1 := b[2][n+x-1 : 2*n-1][:m], b[2][n+x-1-r[1]:][:m], b[1][n+x-1 : 2*n-1][:m]
		d2, s2, i2 := b[3][n+x-2 : 2*n-2][:m], b[3][n+x-2-r[2]:][:m], b[2][n+x-2 : 2*n-2][:m]
		d3, s3, i3 := b[4][n+x-3 : 2*n-3][:m], b[4][n+x-3-r[3]:][:m], b[3][n+x-3 : 2*n-3][:m]
		d4, s4, i4 := b[5][n+x-4 : 2*n-4][:m], b[5][n+x-4-r[4]:][:m], b[4][n+x-4 : 2*n-4][:m]
		d5, s5, i5 := b[6][n+x-5 : 2*n-5][:m], b[6][n+x-5-r[5]:][:m], b[5][n+x-5 : 2*n-5][:m]
		d6, s6, i6 := b[7][n+x-6 : 2*n-6][:m], b[7][n+x-6-r[6]:][:m], b[6][n+x-6 : 2*n-6][:m]
		d7, s7, i7 := b[0][n+x-7 : 2*n-7][:m], b[0][n+x-7-r[7]:][:m], b[7][n+x-7 : 2*n-7][:m]
		for i := range m {
			v0 := i0[i]
			d0[i] = v0 + float64((s0[i]-v0)*q[0])
			v1 := i1[i]
			d1[i] = v1 + float64((s1[i]-v1)*q[1])
			v2 := i2[i]
			d2[i] = v2 + float64((s2[i]-v2)*q[2])
			v3 := i3[i]
			d3[i] = v3 + float64((s3[i]-v3)*q[3])
			v4 := i4[i]
			d4[i] = v4 + float64((s4[i]-v4)*q[4])
			v5 := i5[i]
			d5[i] = v5 + float64((s5[i]-v5)*q[5])
			v6 := i6[i]
			d6[i] = v6 + float64((s6[i]-v6)*q[6])
			v7 := i7[i]
			d7[i] = v7 + float64((s7[i]-v7)*q[7])
		}
		x = n
	}
	for ; x < n+probG-1; x++ {
		edge(x)
	}
	copy(row, b[0][n:])
	mid := wb.mid[:0]
	for k := 1; k < G; k++ {
		mid = append(mid, b[k][n:])
	}
	wb.mid = mid
	return mid
}

// stepBuf is stepG's memory: its rows, padded, and the views it returns.
type stepBuf struct {
	buf []float64
	mid [][]float64
}

// steps applies to row the steps (r[k], q[k]), in groups (stepG) while
// three or more are left, then one by one.
func (ps *probState) steps(row []float64, r []int, q []float64, wb *stepBuf) {
	for len(r) >= probMinG && len(row) > 1 {
		G := probGroup(len(r))
		ps.stepG(row, r[:G], q[:G], wb)
		r, q = r[G:], q[G:]
	}
	for k := range r {
		step(row, r[k], q[k], false)
	}
}

// probG is the number of steps stepG interleaves, probMinG the fewest
// worth a call: a group of fewer steps costs what probG cost
// (BenchmarkProbRow), and two steps one after the other less.
const probG, probMinG = 8, 3

// probGroup is how many of the left steps (at least probMinG) the next
// group takes.
func probGroup(left int) int {
	return min(probG, left)
}

// store keeps row, the row after b.n steps, as a copy if b.n is a
// multiple of cp. Every copy below len(b.cps) is valid: a copy is stored
// only next to those before it (a row made all ones by certain keeps
// only the copies before its job, and stores none after them).
func (b *probBin) store(ps *probState, row []float64) {
	if m := b.n / ps.cp; b.n%ps.cp == 0 && m <= len(b.cps) {
		if m == len(b.cps) {
			if len(b.cps) < cap(b.cps) {
				b.cps = b.cps[:len(b.cps)+1] // the buffer a longer row left there
			} else {
				b.cps = append(b.cps, nil)
			}
		}
		b.cps[m] = append(b.cps[m][:0], row...)
	}
}

// fits reports whether the chance that running j now delays head is at
// most the threshold. That chance is Σ over t = 1, 2, 4, ... < 2·request
// of P(j ends in bin t) × the largest bottleneck B(t') for t' <= t; its
// terms are never negative, so the sum is refused as soon as it exceeds
// the threshold, and accepted as soon as the mass of the bins left (each
// B at most 1) cannot carry it there (with a margin far above rounding):
// bins whose rows the answer does not need are never computed.
func (ps *probState) fits(c *Classic, now float64, P int, head, j *engine.Job) bool {
	d := ps.dist(j)
	if int(j.Index) >= len(ps.refuse) {
		ps.refuse = growTo(ps.refuse, int(j.Index)+1, probMemo{})
	}
	m := &ps.refuse[j.Index]
	if head.Procs > P {
		// The head is wider than the processors up (a node is down):
		// it cannot start before the platform changes, whatever j
		// does, so every bottleneck is 0 and the chance is 0 (as
		// EASY's shadow time is then +Inf). The rows, at most P + 1
		// long, have no column for it.
		return true
	}
	if m.ver == ps.ver+1 && m.head == head && m.dv == d.ver && m.P == P && !probNoMemo {
		return false
	}
	if ps.chance(c, now, P, head, j, d) {
		return true
	}
	*m = probMemo{ver: ps.ver + 1, head: head, dv: d.ver, P: P}
	return false
}

// chance is fits computed: pyss's sum, decided from bounds on the
// bottlenecks where they settle it (chanceRef is the sum itself).
//
// decide, the sum's loop with its two early exits, never answers true for
// larger bottlenecks where it answers false for smaller ones: every term
// is a product and sum of non-negative values, and rounding is monotone.
// So if it refuses with lower bounds, it refuses with the bottlenecks
// themselves, and if it accepts with upper bounds, it accepts with them.
// A bin's lower bound is 0 and its upper bound probUpper's until its row
// is computed (then both are its bottleneck); while the two disagree, the
// row of the bin whose gap can move the sum most is computed. Rows
// already current cost nothing and are read at once. When every row is
// computed the bounds are the bottlenecks and decide is the sum.
func (ps *probState) chance(c *Classic, now float64, P int, head, j *engine.Job, d *pdist) bool {
	if probNoBounds {
		return ps.chanceRef(c, now, P, head, j, d)
	}
	if probVerifyChance != nil {
		got := ps.chanceBounded(c, now, P, head, j, d)
		// The sum from rows computed afresh: no row is kept, so what
		// the bounds see next is what they would see unverified.
		probVerifyChance(got, ps.chanceSum(c, now, P, head, j, d, func(i int) float64 {
			return ps.bottleneckOf(ps.fresh(c, now, i), P, head, j)
		}))
		return got
	}
	return ps.chanceBounded(c, now, P, head, j, d)
}

// chanceBounded is chance from bounds (see chance).
func (ps *probState) chanceBounded(c *Classic, now float64, P int, head, j *engine.Job, d *pdist) bool {
	est := c.d(j).est
	norm, left := binMass(d, est)
	pt, lo, hi := ps.pt[:0], ps.lo[:0], ps.hi[:0]
	for i := 0; pow2(i) < 2*est; i++ {
		var p float64
		if i < len(d.bins) {
			p = d.bins[i] / norm
		}
		pt = append(pt, p)
		lo, hi = append(lo, 0), append(hi, 1)
	}
	ps.pt, ps.lo, ps.hi = pt, lo, hi
	// M[n][head] never falls as t grows (in exact arithmetic: Q never
	// falls with t, and each step's mix never falls with Q or with the
	// values it mixes), so a computed bin's M[n][head] bounds every
	// lower bin's bottleneck, with the margin of upper.
	margin := probMargin(len(c.run), ps.k)
	known := func(i int) {
		row := ps.row(c, now, i)
		lo[i] = ps.bottleneckOf(row, P, head, j)
		hi[i] = lo[i]
		for k := i - 1; k >= 0 && hi[k] != lo[k]; k-- {
			hi[k] = min(hi[k], row[head.Procs]+margin)
		}
	}
	crs := ps.crs[:0]
	for i := range pt {
		crs = append(crs, false)
		if ps.current(c, i) {
			known(i)
		} else if hi[i] != lo[i] {
			hi[i] = min(hi[i], ps.upper(c, now, head, i))
		}
	}
	ps.crs = crs
	for {
		if !ps.decide(pt, left, lo) {
			return false
		}
		if ps.decide(pt, left, hi) {
			return true
		}
		// The bin whose gap, times the mass it can weigh on (its own
		// and, through the running maximum, every later bin's), is
		// largest, favouring high upper bounds (a refusal is proved by
		// the large bottlenecks).
		best, bw, tail := -1, -1.0, 0.0
		for i := len(pt) - 1; i >= 0; i-- {
			tail += pt[i]
			if w := (hi[i] - lo[i]) * hi[i] * hi[i] * tail; hi[i] != lo[i] && w > bw {
				best, bw = i, w
			}
		}
		if best < 0 {
			return ps.decide(pt, left, lo) // unreachable: equal bounds decide alike
		}
		if !crs[best] && !probNoCoarse && ps.coarseCheaper(c, best) {
			crs[best] = true
			if l, h, ok := ps.coarseBounds(c, now, P, head, j, best); ok {
				if probVerifyBound != nil {
					probVerifyBound(l, h, ps.bottleneckOf(ps.fresh(c, now, best), P, head, j))
				}
				lo[best], hi[best] = max(lo[best], l), min(hi[best], h)
				continue
			}
		}
		known(best)
	}
}

// coarseBounds bounds bin i's bottleneck for candidate j from two rows
// over units of u processors, u times shorter than its row. In exact
// arithmetic pyss's recurrence is a probability: with M[c] = 1 for c <=
// 0, a step is M'[c] = (1 − q)·M[c] + q·M'[c − r], which is what P(S + r·G
// >= c) satisfies for G geometric (P(G >= g) = q^g) independent of S; so
// after every running job, column c >= 1 is P(S >= c), S = Σ r_n·G_n.
// With every r_n rounded down to a multiple of u, S can only fall (the
// same G_n): P(S >= c) >= P(Σ ⌊r_n/u⌋·G_n >= ⌈c/u⌉), the row lo of
// ⌊r_n/u⌋ at column ⌈c/u⌉; rounded up, it can only rise: P(S >= c) <=
// the row hi of ⌈r_n/u⌉ at ⌈c/u⌉. A bottleneck is P(S >= head) −
// P(S >= head + j), so it lies between lo[⌈head/u⌉] − hi[⌈C/u⌉] and
// hi[⌈head/u⌉] − lo[⌈C/u⌉] (or the first column alone if C > P), with the
// margins of both rows' rounding (probMargin). The rows are kept from
// pass to pass and get the steps of jobs started since; when the bins'
// rows are cut back (validate), they are recomputed from the start.
func (ps *probState) coarseBounds(c *Classic, now float64, P int, head, j *engine.Job, i int) (lo, hi float64, ok bool) {
	u := (ps.k + 1) / probCoarse
	if u < 2 || head.Procs < 1 || len(c.run) == 0 {
		return 0, 0, false
	}
	for len(ps.coarse) <= i {
		ps.coarse = append(ps.coarse, probCoarseRows{})
	}
	cr := &ps.coarse[i]
	kc := (ps.k + u - 1) / u
	if cr.k != ps.k || len(cr.lo) != kc+1 {
		cr.n, cr.k = 0, ps.k
	}
	if cr.n == 0 {
		cr.lo = growTo(cr.lo[:0], kc+1, 0)
		cr.hi = growTo(cr.hi[:0], kc+1, 0)
		clear(cr.lo)
		clear(cr.hi)
		cr.lo[0], cr.hi[0] = 1, 1
	}
	t := pow2(i)
	rs, qs := ps.cr[:0], ps.cqf[:0]
	for n := cr.n; n < len(c.run); n++ {
		if r := c.run[n].Procs; r >= u {
			rs, qs = append(rs, r/u), append(qs, ps.qAt(c, now, n, t))
		}
	}
	ps.steps(cr.lo, rs, qs, &ps.cbuf)
	rs, qs = rs[:0], qs[:0]
	for n := cr.n; n < len(c.run); n++ {
		if r := c.run[n].Procs; r >= 1 {
			rs, qs = append(rs, (r+u-1)/u), append(qs, ps.qAt(c, now, n, t))
		}
	}
	ps.steps(cr.hi, rs, qs, &ps.cbuf)
	ps.cr, ps.cqf = rs, qs
	cr.n = len(c.run)
	m := 2 * (probMargin(len(c.run), ps.k) + probMargin(len(c.run), kc))
	h := (head.Procs + u - 1) / u
	C := head.Procs + j.Procs
	if C > P {
		return max(cr.lo[h]-m, 0), min(cr.hi[h]+m, 1), true
	}
	cc := (C + u - 1) / u
	return max(cr.lo[h]-cr.hi[cc]-m, 0), max(min(cr.hi[h]-cr.lo[cc]+m, 1), 0), true
}

// coarseCheaper: bin i's coarse rows cost less than a quarter of its row, in
// steps times columns (a row is brought up to date from its last valid
// copy; coarse rows from their last step, or from the start if cut).
func (ps *probState) coarseCheaper(c *Classic, i int) bool {
	if probCoarseAlways {
		return true
	}
	R := len(c.run)
	fine := R
	if i < len(ps.bins) {
		b := &ps.bins[i]
		if len(b.row) == ps.k+1 {
			if !b.stale {
				fine = R - b.n
			} else if m := min(b.n/ps.cp, len(b.cps)-1); m > 0 {
				fine = R - m*ps.cp
			}
		}
	}
	coarse := R
	if i < len(ps.coarse) && ps.coarse[i].k == ps.k {
		coarse = R - ps.coarse[i].n
	}
	u := max(1, (ps.k+1)/probCoarse)
	return 4*coarse*2*((ps.k+u-1)/u+1) < fine*(ps.k+1)
}

// probCoarse is about the number of columns of coarseBounds's rows (a
// variable for the tests, whose platforms are small).
var probCoarse = 64

type probCoarseRows struct {
	n      int // steps still valid (cut as the bins' rows are)
	k      int // for rows of k+1 columns
	lo, hi []float64
}

// probMargin bounds how far a row computed over n running jobs, k+1
// columns, can be from the recurrence in exact arithmetic (upper).
func probMargin(n, k int) float64 {
	return 2e-15 * float64(n+2) * float64(k+2)
}

// binMass is the normaliser of the bins a job of request est may end in
// (t < 2·est; pyss's pseudo-count 0.1 added) and their probability mass,
// which the sum's early acceptance starts from.
func binMass(d *pdist, est float64) (norm, left float64) {
	for i, b := range d.bins {
		if pow2(i) < 2*est {
			norm += b
		}
	}
	norm += 0.1
	for i := 0; pow2(i) < 2*est && i < len(d.bins); i++ {
		left += d.bins[i] / norm
	}
	return norm, left
}

// decide is pyss's sum over the bins, with bottlenecks B: Σ P(j ends in
// bin t) × the largest B(t') for t' <= t, refused as soon as it exceeds
// the threshold and accepted as soon as the mass of the bins left (each
// B at most 1) cannot carry it there (with a margin far above rounding).
func (ps *probState) decide(pt []float64, left float64, B []float64) bool {
	pred, maxB := 0.0, 0.0
	for i, p := range pt {
		if pred+float64(left*(1+1e-9))+1e-12 <= ps.threshold {
			return true
		}
		left -= p
		maxB = max(maxB, B[i])
		pred += float64(p * maxB)
		if pred > ps.threshold {
			return false
		}
	}
	return pred <= ps.threshold
}

// chanceRef is the sum computed with every bin's bottleneck in turn, as
// pyss computes it (with the same early exits).
func (ps *probState) chanceRef(c *Classic, now float64, P int, head, j *engine.Job, d *pdist) bool {
	return ps.chanceSum(c, now, P, head, j, d, func(i int) float64 {
		return ps.bottleneck(c, now, P, head, j, i)
	})
}

// chanceSum is chanceRef with bin i's bottleneck given by B.
func (ps *probState) chanceSum(c *Classic, now float64, P int, head, j *engine.Job, d *pdist, B func(i int) float64) bool {
	est := c.d(j).est
	norm, left := binMass(d, est)
	pred, maxB := 0.0, 0.0
	for i := 0; pow2(i) < 2*est; i++ {
		var pt float64
		if i < len(d.bins) {
			pt = d.bins[i] / norm
		}
		if pred+float64(left*(1+1e-9))+1e-12 <= ps.threshold {
			return true
		}
		left -= pt
		maxB = max(maxB, B(i))
		pred += float64(pt * maxB)
		if pred > ps.threshold {
			return false
		}
	}
	return pred <= ps.threshold
}

// current: bin i's row is up to date (reading it computes nothing).
func (ps *probState) current(c *Classic, i int) bool {
	if i >= len(ps.bins) {
		return false
	}
	b := &ps.bins[i]
	return b.n == len(c.run) && !b.stale && len(b.row) == ps.k+1
}

// upper bounds bin i's bottleneck, for any candidate, without its row.
// In exact arithmetic every row value M[n][c] with c >= 1 is at most
// 1 − Π(1 − Q) over the running jobs (each step is a mix, weights 1 − Q
// and Q, of the old value and one at most 1), and B(t) <= M[n][head] as
// M is never negative. The computed row differs from the exact one by
// at most 3.01 ulp(1) per step along its longest chain of dependent
// updates (a step mixes two values, so it never enlarges an error), at
// most N·(k+1) updates for N running jobs; the product's own rounding is
// below (N+2) ulp(1). The margin added covers both twice over. Computed
// values never leave [0, 1], so 1 bounds B too. Cached until the rows
// change (ps.ver).
func (ps *probState) upper(c *Classic, now float64, head *engine.Job, i int) float64 {
	if head.Procs < 1 {
		return 1
	}
	for len(ps.ub) <= i {
		ps.ub = append(ps.ub, probUB{})
	}
	u := &ps.ub[i]
	if u.ver == ps.ver+1 && u.k == ps.k {
		return u.v
	}
	t := pow2(i)
	prod := 1.0
	for n := range c.run {
		q := ps.qAt(c, now, n, t)
		if !(q >= 0 && q <= 1) {
			prod = 0 // no bound below 1
			break
		}
		prod *= 1 - q
	}
	*u = probUB{ver: ps.ver + 1, k: ps.k, v: min(1, 1-prod+probMargin(len(c.run), ps.k))}
	return u.v
}

type probUB struct {
	ver uint64 // ps.ver+1 when computed
	k   int    // the rows' length then
	v   float64
}

// pow2 is 2^i.
func pow2(i int) float64 {
	if i < len(pow2s) {
		return pow2s[i]
	}
	return math.Ldexp(1, i)
}

var pow2s = func() (p [64]float64) {
	for i := range p {
		p[i] = math.Ldexp(1, i)
	}
	return
}()

// bottleneck is pyss's B(t) for t = 2^i: from M[n][c], computed over the
// running jobs in start order (as pyss writes it: the recurrence reads
// the same row at c − procs).
func (ps *probState) bottleneck(c *Classic, now float64, P int, head, j *engine.Job, i int) float64 {
	return ps.bottleneckOf(ps.row(c, now, i), P, head, j)
}

// bottleneckOf is B(t) read from t's row.
func (ps *probState) bottleneckOf(row []float64, P int, head, j *engine.Job) float64 {
	C := head.Procs + j.Procs
	var b float64
	if C <= P {
		b = row[head.Procs] - row[C]
	} else {
		b = row[head.Procs]
	}
	return max(b, 0)
}

// row returns the bottleneck row of bin i, bringing it up to date from
// its last stored copy at or before its valid steps.
func (ps *probState) row(c *Classic, now float64, i int) []float64 {
	for len(ps.bins) <= i {
		ps.bins = append(ps.bins, probBin{})
	}
	b := &ps.bins[i]
	if b.n == len(c.run) && !b.stale && len(b.row) == ps.k+1 {
		if probVerify != nil {
			probVerify(b.row, ps.fresh(c, now, i))
		}
		return b.row
	}
	t := pow2(i)
	if f := ps.certain(c, now, t); f >= 0 {
		// A running job ends within t for sure (Q = 1): its step
		// makes every column 1, exactly (x + (1 − x)·1 rounds to 1 for
		// x in [0, 1], and so does x + (1 − x)·1 from the column r
		// below once it is 1), and every later step keeps 1 (x + (1 −
		// 1)·q), so the row is all ones whatever the other jobs. The
		// stored copies before that job stay valid.
		keep := min(len(b.cps), b.n/ps.cp+1, f/ps.cp+1)
		if len(b.row) != ps.k+1 {
			keep = 0
		}
		b.cps = b.cps[:keep]
		b.row = growTo(b.row[:0], ps.k+1, 0)
		for c := range b.row {
			b.row[c] = 1
		}
		b.n, b.stale = len(c.run), false
		if probVerify != nil {
			probVerify(b.row, ps.fresh(c, now, i))
		}
		return b.row
	}
	if !b.stale && len(b.row) == ps.k+1 && b.n < len(c.run) {
		// The row holds its b.n valid steps: only the jobs started
		// since are missing.
		b.cps = b.cps[:min(len(b.cps), b.n/ps.cp+1)]
		b.applyFrom(c, ps, now, b.n, t)
		if probVerify != nil {
			probVerify(b.row, ps.fresh(c, now, i))
		}
		return b.row
	}
	m := min(b.n/ps.cp, len(b.cps)-1)
	if len(b.row) != ps.k+1 || m < 0 {
		m = 0
		b.cps = b.cps[:0]
	}
	if m == 0 {
		b.row = growTo(b.row[:0], ps.k+1, 0)
		clear(b.row)
		if len(b.cps) == 0 {
			b.cps = append(b.cps, nil)
		}
		b.cps[0] = append(b.cps[0][:0], b.row...)
	} else {
		b.row = append(b.row[:0], b.cps[m]...)
	}
	b.cps = b.cps[:m+1]
	b.applyFrom(c, ps, now, m*ps.cp, t)
	b.n, b.stale = len(c.run), false
	if probVerify != nil {
		probVerify(b.row, ps.fresh(c, now, i))
	}
	return b.row
}

// certain is the start-order position of the first running job (of one
// processor or more) whose Q(t) is 1, or −1.
func (ps *probState) certain(c *Classic, now float64, t float64) int {
	for n, w := range c.run {
		if w.Procs >= 1 && ps.qAt(c, now, n, t) == 1 {
			return n
		}
	}
	return -1
}

// probNoCoarse (tests) turns coarseBounds off; probCoarseAlways takes
// them wherever a row is wanted, cheaper or not.
var probNoCoarse, probCoarseAlways bool

// probVerifyBound, if set (tests), is given every pair of bounds
// coarseBounds gives with the bottleneck from the row afresh.
var probVerifyBound func(lo, hi, fresh float64)

// probNoMemo (tests) turns the memo of refused candidates off.
var probNoMemo bool

// probNoBounds (tests) makes chance compute every bin's bottleneck in
// turn, as pyss does.
var probNoBounds bool

// probVerifyChance, if set (tests), is given every decision made from
// bounds with the decision of pyss's sum.
var probVerifyChance func(bounded, sum bool)

// probVerify, if set (tests), is given every row read with the row
// computed afresh.
var probVerify func(row, fresh []float64)

// fresh computes bin i's row from scratch.
func (ps *probState) fresh(c *Classic, now float64, i int) []float64 {
	row := make([]float64, ps.k+1)
	for n, w := range c.run {
		step(row, w.Procs, ps.q(c, now, w, math.Ldexp(1, i)), n == 0)
	}
	return row
}

// step applies one running job (r processors, Q = q) to a row, in place
// and in increasing c as pyss does; the first job also sets M[0] = 1.
// Every value is pyss's arithmetic, in pyss's order (stepRef, in the
// tests, is the loop as pyss writes it): the columns below r, then those
// from r on, each reading the column r below it as this step left it. A
// single processor's step is a chain through the row; the value it
// reads is kept in a register rather than re-read from the row. The
// explicit float64 conversions round each product before the sum, as
// CPython does: without them Go may fuse x + y·q into one multiply-add
// (it does on arm64, ppc64le, s390x and riscv64, not on amd64), and
// the rows would differ from pyss's in the last bits (the same in
// stepG, stepRef and the sum's terms).
func step(row []float64, r int, q float64, first bool) {
	if first && len(row) > 0 {
		row[0] = 1
	}
	if r <= 0 {
		return // x + (x − x)·q = x: no column changes
	}
	n := len(row)
	if n < 2 {
		return
	}
	lo := row[1:min(r, n)]
	for i, x := range lo {
		lo[i] = x + float64((1-x)*q)
	}
	if r >= n {
		return
	}
	if r == 1 {
		prev := row[0]
		hi := row[1:]
		for i, x := range hi {
			x += float64((prev - x) * q)
			hi[i] = x
			prev = x
		}
		return
	}
	src, dst := row[:n-r], row[r:]
	for i := range dst {
		x := dst[i]
		dst[i] = x + float64((src[i]-x)*q)
	}
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
		key := pow2(i)
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
