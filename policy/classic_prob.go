package policy

import (
	"math"
	"slices"

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
	hwm   int // the most running jobs seen (fitCopies)
	avail int

	// A refused candidate is refused again while nothing its chance
	// depends on changed: the rows (ver counts the changes of the running
	// jobs' steps), the head, the candidate's own histogram and P.
	ver    uint64
	gone   bool       // a running job ended since the last pass
	refuse []probMemo // per job index

	// The lower bounds of the bottlenecks this pass's candidates left,
	// per width (sorted), while lbKey holds (see probLB).
	lbKey probLBKey
	lbs   []probLB

	ub     []probUB  // per bin: upper bound of the bottleneck (upper)
	qc     []probQ   // per running job (start order): its Q per bin
	qwas   []float64 // validate's scratch
	uprod  []float64 // upper's scratch
	umean  []float64
	uvar   []float64
	ubad   []bool
	usure  []bool
	bcut   []int     // validate's scratch: each bin's cut
	qin    []int     // qFill's scratch
	qpre   []float64 // qFill's scratch
	lo, hi []float64 // chance's scratch, per bin
	crs    []bool    // chance's scratch: bins bounded by coarseBounds
	coarse []probCoarseRows
	wbuf   stepBuf   // stepG's, for the bins' rows
	cbuf   stepBuf   // for the coarse rows
	cr     []int     // coarseBounds' scratch
	cidx   []int     // advance's scratch
	cw     []int     // advance's scratch
	pw     []int     // applyFrom's scratch
	pf     []float64 // plan's scratch
	pg, pp []int

	qTest func(w *engine.Job, e *probQ, upto int) // tests: Q from elsewhere than the histograms
	cqf   []float64
}

type probMemo struct {
	ver  uint64 // ver+1 when refused (0: none)
	head *engine.Job
	dv   int
	P    int
	job  *engine.Job // the job at this index, whose histogram is d
	d    *pdist
	est  float64 // the request nb was computed for
	nb   int     // nbins(est), −1 if not yet
}

// probCPFloats bounds the stored copies of one row (values): the steps
// between two copies (cp) keep (R/cp + 1) copies of k+1 values about
// under it for the most running jobs seen, R (fitCopies). A variable for
// the tests, whose platforms are small.
var probCPFloats = 1 << 16

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
	n    float64     // sum of the counts
	hist []int       // bin index of the last window runs, oldest first
	ver  int         // changes
	log  [16]probChg // the last changes (note)

	probs []probPT // binProbs's, per number of bins
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
	if int(j.Index) < len(p.refuse) && p.refuse[j.Index].job == j {
		return p.refuse[j.Index].d // kept with the job's memo
	}
	d := p.users[p.key(j)]
	if d == nil {
		d = &pdist{bins: []float64{1}, n: 1}
		p.users[p.key(j)] = d
	}
	if int(j.Index) >= len(p.refuse) {
		p.refuse = growTo(p.refuse, int(j.Index)+1, probMemo{})
	}
	p.refuse[j.Index] = probMemo{job: j, d: d, nb: -1}
	return d
}

// nbins is the number of bins a job of request est may end in: those of
// t = 2^i < 2·est.
func nbins(est float64) int {
	nb := 0
	for pow2(nb) < 2*est {
		nb++
	}
	return nb
}

// touch creates the bins from the largest present up to key r (a power
// of two), each with a pseudo-count of 1, and reports whether it did.
func (d *pdist) touch(r float64) bool {
	grew := false
	var m uint64
	for i := log2i(r); len(d.bins) <= i; {
		m |= bit(len(d.bins))
		d.bins = append(d.bins, 1)
		d.n++
		grew = true
	}
	if grew {
		d.note(m)
	}
	return grew
}

// note counts a change of the histogram (ver) and logs the bins it
// changed (m).
func (d *pdist) note(m uint64) {
	d.ver++
	d.log[d.ver%len(d.log)] = probChg{ver: d.ver, bins: m}
}

// bit is bin i's bit in a probChg (none from 64 on).
func bit(i int) uint64 {
	if i >= 64 {
		return 0
	}
	return 1 << i
}

// probChg is a change of a histogram: its version after, and the bins
// (below 64) whose counts it changed.
type probChg struct {
	ver  int
	bins uint64
}

// same reports whether, from version v0 to v1, no count changed in a
// bin of key in (rd, ru], all Q depends on for a running job of elapsed
// bin rd and remaining request ru (rounded up) but t: the counts below
// (first) and above (last) cancel in its denominator, n − first − last,
// all sums of whole counts, so exact. False where the log does not reach
// back to v0 (or the range passes bin 63).
func (d *pdist) same(v0, v1 int, rd, ru float64) bool {
	if v1 < v0 || v1-v0 > len(d.log) || !(ru >= 1 && ru < pow2(63)) {
		return false
	}
	var m uint64
	for v := v0 + 1; v <= v1; v++ {
		e := d.log[v%len(d.log)]
		if e.ver != v {
			return false
		}
		m |= e.bins
	}
	lo := 0 // the first bin of key above rd (rd is 0 or a power of two)
	if rd >= 1 {
		lo = log2i(rd) + 1
	}
	hi := log2i(ru)
	if lo > hi {
		return true
	}
	return m&(bit(hi+1)-1)&^(bit(lo)-1) == 0
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
	m := bit(i)
	d.hist = append(d.hist, i)
	if len(d.hist) > p.window {
		d.bins[d.hist[0]]--
		d.n--
		m |= bit(d.hist[0])
		d.hist = d.hist[1:]
	}
	d.note(m)
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
	ps.fitCopies(len(c.run))
	free := c.free(now) // changed only by a start
	for _, j := range tail {
		if free < j.Procs {
			continue
		}
		if ps.fits(c, now, P, head, j) {
			if c.launch(v, p, j, c.d(j).pred) {
				ps.appended(c, now, j)
			}
			free = c.free(now)
		}
	}
}

// validate finds, for each bin, the first running job whose step in it
// changed since the last pass and cuts the bin's rows back to it. A job
// removed or P changed cuts every bin there. A job whose signature
// changed (its elapsed-time bin or its histogram) has its Q recomputed
// for the bins it was read in: only the bins where a value differs are
// cut (a histogram change outside the job's (elapsed, remaining] range
// changes no Q). A bin it was not read in has no row or bound that holds
// its step (every step and bound reads Q through qAt, which keeps it).
// ver counts the changes of any row.
func (ps *probState) validate(c *Classic, now float64, P int) {
	R := len(c.run)
	cut := ps.cut // the first running job removed since the last pass
	if P != ps.avail {
		ps.avail, cut = P, 0
	}
	cut = min(cut, R)
	nb := max(len(ps.bins), len(ps.coarse))
	bc := growTo(ps.bcut[:0], nb, cut)
	changed := cut < R || ps.gone
	for n := range cut {
		s := ps.sigOf(c, now, c.run[n])
		if ps.sig[n] == s {
			continue
		}
		old := ps.sig[n]
		ps.sig[n] = s
		if n >= len(ps.qc) || ps.qc[n].job != c.run[n] || ps.qc[n].sig != old {
			// Its Q was never read with this signature: nothing holds it.
			continue
		}
		e := &ps.qc[n]
		if old.rd == s.rd && ps.dist(c.run[n]).same(old.ver, s.ver, s.rd, e.ru) {
			e.sig = s // the same Q, bit for bit
			continue
		}
		was := append(ps.qwas[:0], e.q...)
		ps.qwas = was
		e.sig, e.q = s, e.q[:0]
		if len(was) > 0 {
			ps.qFill(c, now, c.run[n], e, len(was)-1)
		}
		for i, q := range was {
			if math.Float64bits(e.q[i]) != math.Float64bits(q) {
				changed = true
				if i < nb {
					bc[i] = min(bc[i], n)
				}
			}
		}
	}
	for n := cut; n < R; n++ {
		if n < len(ps.sig) {
			ps.sig[n] = ps.sigOf(c, now, c.run[n])
		} else {
			ps.sig = append(ps.sig, ps.sigOf(c, now, c.run[n]))
		}
	}
	ps.sig = ps.sig[:R]
	ps.bcut = bc
	if changed {
		ps.ver++
		ps.gone = false
	}
	for i := range ps.bins {
		ps.bins[i].cut(bc[i])
	}
	for i := range ps.coarse {
		ps.coarse[i].n = min(ps.coarse[i].n, bc[i])
	}
	ps.cut = R
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
func (ps *probState) qAt(c *Classic, now float64, n, i int) float64 {
	w := c.run[n]
	for len(ps.qc) <= n {
		ps.qc = append(ps.qc, probQ{})
	}
	e := &ps.qc[n]
	if e.job != w || e.sig != ps.sig[n] {
		e.job, e.sig, e.q = w, ps.sig[n], e.q[:0]
	}
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
	if ps.qTest != nil {
		ps.qTest(w, e, upto)
		return
	}
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
	ps.cp = max(1, (ps.hwm+1)*(k+1)/probCPFloats)
	for i := range ps.bins {
		ps.bins[i].cut(0)
	}
}

// fitCopies keeps the steps between two stored copies (cp) such that a
// row's copies stay about under probCPFloats values for the most running
// jobs seen (hwm): cp only grows, and a new cp cuts every row back to 0
// (its copies were at multiples of the old one).
func (ps *probState) fitCopies(R int) {
	if R <= ps.hwm {
		return
	}
	ps.hwm = R
	if need := max(1, (R+1)*(ps.k+1)/probCPFloats); need > ps.cp {
		ps.cp = max(need, 2*ps.cp)
		for i := range ps.bins {
			ps.bins[i].cut(0)
		}
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
func (b *probBin) apply(c *Classic, ps *probState, now float64, n, i int) {
	w := c.run[n]
	step(b.row, w.Procs, ps.qAt(c, now, n, i), n == 0)
	b.n = n + 1
	b.store(ps, b.row)
}

// applyFrom adds the steps of the running jobs from position from on to
// the row (which has from steps), in groups (stepG) and one by one as
// plan says, keeping copies as apply does.
func (b *probBin) applyFrom(c *Classic, ps *probState, now float64, from, i int) {
	n := from
	var r [probG]int
	var q [probG]float64
	ws := ps.pw[:0]
	for _, w := range c.run[from:] {
		ws = append(ws, w.Procs)
	}
	ps.pw = ws
	for _, G := range ps.plan(ws, len(b.row)) {
		if G == 1 {
			b.apply(c, ps, now, n, i)
			n++
			continue
		}
		for k := range G {
			r[k], q[k] = c.run[n+k].Procs, ps.qAt(c, now, n+k, i)
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

// steps applies to row the steps (r[k], q[k]), in groups (stepG) and one
// by one as plan says.
func (ps *probState) steps(row []float64, r []int, q []float64, wb *stepBuf) {
	for _, G := range ps.plan(r, len(row)) {
		if G == 1 {
			step(row, r[0], q[0], false)
		} else {
			ps.stepG(row, r[:G], q[:G], wb)
		}
		r, q = r[G:], q[G:]
	}
}

// plan splits steps of processors rs over a row of n columns into groups
// (stepG, probMinG to probG steps) and single steps (1) at the least cost
// by stepCost and groupCost: a group's cost hardly depends on its steps,
// a single step's on its processors (one processor: each column waits
// for the one before it; many: the columns are independent). The rows
// are the same whatever the plan (stepG is step, value for value).
func (ps *probState) plan(rs []int, n int) []int {
	f := growTo(ps.pf[:0], len(rs)+1, 0.0)
	from := growTo(ps.pg[:0], len(rs)+1, 0)
	g := groupCost(n)
	for i := 1; i <= len(rs); i++ {
		f[i], from[i] = f[i-1]+stepCost(rs[i-1], n), 1
		if n > 1 {
			for G := probMinG; G <= min(probG, i); G++ {
				if c := f[i-G] + g; c < f[i] {
					f[i], from[i] = c, G
				}
			}
		}
	}
	out := ps.pp[:0]
	for i := len(rs); i > 0; i -= from[i] {
		out = append(out, from[i])
	}
	slices.Reverse(out)
	ps.pf, ps.pg, ps.pp = f, from, out
	return out
}

// stepCost is about the time of a step of r processors over n columns,
// in nanoseconds, and groupCost that of a group, as BenchmarkProbStepCost
// measured them (BENCHMARKS.md): only their ratios matter.
func stepCost(r, n int) float64 {
	per := 0.4
	switch {
	case r <= 2:
		per = 2.4
	case r <= 3:
		per = 1.7
	case r <= 4:
		per = 1.3
	case r <= 7:
		per = 1.0
	case r <= 15:
		per = 0.65
	}
	lo := float64(min(max(r, 0), n))
	return 20 + 0.4*lo + per*(float64(n)-lo)
}

func groupCost(n int) float64 { return 120 + 6.5*float64(n) }

// probG is the number of steps stepG interleaves, probMinG the fewest
// plan groups: a group of fewer steps costs what probG cost
// (BenchmarkProbRow), and two steps one after the other less.
const probG, probMinG = 8, 3

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
	if int(j.Index) >= len(ps.refuse) {
		ps.refuse = growTo(ps.refuse, int(j.Index)+1, probMemo{})
	}
	m := &ps.refuse[j.Index]
	if m.job != j {
		ps.dist(j) // sets the memo
	}
	d := m.d
	if est := c.d(j).est; m.nb < 0 || m.est != est {
		m.nb, m.est = nbins(est), est
	}
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
	if ps.chance(c, now, P, head, j, d, m.nb) {
		return true
	}
	m.ver, m.head, m.dv, m.P = ps.ver+1, head, d.ver, P
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
func (ps *probState) chance(c *Classic, now float64, P int, head, j *engine.Job, d *pdist, nb int) bool {
	if probNoBounds {
		return ps.chanceRef(c, now, P, head, j, d)
	}
	if probVerifyChance != nil {
		got := ps.chanceBounded(c, now, P, head, j, d, nb)
		// The sum from rows computed afresh: no row is kept, so what
		// the bounds see next is what they would see unverified.
		probVerifyChance(got, ps.chanceSum(c, now, P, head, j, d, func(i int) float64 {
			return ps.bottleneckOf(ps.fresh(c, now, i), P, head, j)
		}))
		return got
	}
	return ps.chanceBounded(c, now, P, head, j, d, nb)
}

// chanceBounded is chance from bounds (see chance). It starts from the
// bounds earlier candidates of this pass left (probLB) and leaves its own.
func (ps *probState) chanceBounded(c *Classic, now float64, P int, head, j *engine.Job, d *pdist, nb int) bool {
	pe := d.binProbs(nb, c.d(j).est)
	pt, left := pe.pt, pe.left
	margin := probMargin(len(c.run), ps.k)
	w := j.Procs
	if head.Procs+w > P {
		w = P - head.Procs + 1 // B = M[head] for every such width
	}
	e, n, x := ps.boundsOf(P, head, w)
	if pe.refKey == ps.lbKey && pe.refW == w && !probNoMemo {
		// A candidate of this histogram, bins and width was refused
		// in this pass: its sum is this one's.
		return false
	}
	if probVerifyBound != nil {
		ps.verifySeeds(c, now, P, head, j, e, n, x, margin, len(pt))
	}
	ok := false
	if e == nil && n == nil || !ps.refuses(pt, e, n, margin) {
		lo, hi := growTo(ps.lo[:0], len(pt), 0), growTo(ps.hi[:0], len(pt), 1)
		ps.lo, ps.hi = lo, hi
		ps.seed(lo, hi, e, n, x, margin)
		ok = ps.bounded(c, now, P, head, j, pt, left, lo, hi, margin)
		if probVerifyBound != nil {
			// Every bound the decision left (the upper bounds, the
			// all-ones bins, the rows' maxima carried to lower bins),
			// which the later candidates start from.
			for i := range lo {
				if lo[i] > 0 || hi[i] < 1 {
					probVerifyBound("left", lo[i], hi[i], ps.bottleneckOf(ps.fresh(c, now, i), P, head, j))
				}
			}
		}
		ps.keepBounds(w, lo, hi)
	}
	if !ok {
		pe.refKey, pe.refW = ps.lbKey, w
	}
	return ok
}

// bounded decides from the bounds lo and hi (see chance), narrowing
// them; lo may start above 0 (earlier).
func (ps *probState) bounded(c *Classic, now float64, P int, head, j *engine.Job, pt []float64, left float64, lo, hi []float64, margin float64) bool {
	// M[n][head] never falls as t grows (in exact arithmetic: Q never
	// falls with t, and each step's mix never falls with Q or with the
	// values it mixes), so a computed bin's M[n][head] bounds every
	// lower bin's bottleneck, with the margin of upper.
	known := func(i int) {
		row := ps.row(c, now, i)
		lo[i] = ps.bottleneckOf(row, P, head, j)
		hi[i] = lo[i]
		for k := i - 1; k >= 0 && hi[k] != lo[k]; k-- {
			hi[k] = min(hi[k], row[head.Procs]+margin)
		}
	}
	// coarse takes bin i's bounds from its coarse rows (mh bounds M[head]
	// in the bin, so in every lower one, as known's row does).
	coarse := func(i int) bool {
		l, h, mh, ok := ps.coarseBounds(c, now, P, head, j, i)
		if !ok {
			return false
		}
		if probVerifyBound != nil {
			probVerifyBound("coarse", l, h, ps.bottleneckOf(ps.fresh(c, now, i), P, head, j))
		}
		lo[i], hi[i] = max(lo[i], l), min(hi[i], h)
		for k := i - 1; k >= 0 && hi[k] != lo[k]; k-- {
			hi[k] = min(hi[k], mh)
		}
		return true
	}
	// A bin whose row is all ones (certain) has the bottleneck of such a
	// row: 0, or 1 if head + j > P.
	ones := 0.0
	if head.Procs+j.Procs > P {
		ones = 1
	}
	crs := ps.crs[:0]
	for i := range pt {
		crs = append(crs, false)
		if ps.current(c, i) {
			known(i)
			continue
		}
		if hi[i] == lo[i] {
			continue
		}
		u, sure := ps.upper(c, now, head, i, len(pt))
		if sure {
			lo[i], hi[i] = ones, ones
			continue
		}
		hi[i] = min(hi[i], u)
		if !probNoCoarse && ps.coarseCurrent(c, i) {
			crs[i] = true // the bounds cost nothing: an earlier candidate brought the rows up to date
			coarse(i)
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
			if coarse(best) {
				continue
			}
		}
		known(best)
	}
}

// A candidate's bottleneck in bin i depends on it only through its
// width w: B = M[head] − M[head + w] (M[head] if head + w > P: every
// such width is one, P − head + 1), from the rows, which a pass changes
// only by starting a job. So the bounds one candidate's decision left
// hold for every candidate of its width until then, whatever its
// histogram: most candidates are refused by them, without a row. For
// another width they hold with a slack: in exact arithmetic M is P(S >=
// c), which never rises with c, so M[head + w'] <= M[head + w] for w' >=
// w, and each computed value is within probMargin of the exact one
// (upper); so B(w') >= B(w) − 2·margin, and B(w) <= B(w') + 2·margin.
// (M >= 0 gives the case head + w' > P.)
type probLB struct {
	w      int
	lo, hi []float64 // bounds of bin i's bottleneck (hi: 1 beyond its length)
	pm     []float64 // pm[i]: the largest of lo[:i+1]
}

type probLBKey struct {
	ver  uint64
	head *engine.Job
	P, k int
}

// boundsOf is the bounds this pass's candidates left for width w (e),
// for the widest narrower one (n) and for the narrowest wider one (x),
// each nil if none.
func (ps *probState) boundsOf(P int, head *engine.Job, w int) (e, n, x *probLB) {
	if key := (probLBKey{ps.ver, head, P, ps.k}); ps.lbKey != key {
		ps.lbKey, ps.lbs = key, ps.lbs[:0]
		return nil, nil, nil
	}
	for i := range ps.lbs {
		switch b := &ps.lbs[i]; {
		case b.w == w:
			e = b
		case b.w < w:
			n = b
		case x == nil:
			x = b
		}
	}
	return e, n, x
}

// refuses reports whether the lower bounds e and n (less 2·margin) refuse
// a candidate whose bins have probabilities pt: whether Σ pt[i] × the
// running maximum of the bounds exceeds the threshold by more than 1e-9.
// That sum is decide's with the bounds (in any order, each term rounded
// once: the two differ by far less than 1e-9), and where it exceeds the
// threshold by that much decide can take neither early exit that accepts
// (the mass left never falls below what the later terms add, less
// rounding), so decide refuses with the bounds, and so with the
// bottlenecks (see chance). The running maxima are kept with the bounds
// (pm): the maximum of two running maxima is that of the larger bounds.
func (ps *probState) refuses(pt []float64, e, n *probLB, margin float64) bool {
	var sum float64
	for i, p := range pt {
		b := 0.0
		if e != nil && len(e.pm) > 0 {
			b = e.pm[min(i, len(e.pm)-1)]
		}
		if n != nil && len(n.pm) > 0 {
			b = max(b, n.pm[min(i, len(n.pm)-1)]-2*margin)
		}
		sum += float64(p * b)
	}
	return sum > ps.threshold+1e-9
}

// seed narrows lo and hi to the bounds e holds, n's lower ones less
// 2·margin and x's upper ones plus 2·margin.
func (ps *probState) seed(lo, hi []float64, e, n, x *probLB, margin float64) {
	if e != nil {
		for k := range min(len(lo), len(e.lo)) {
			lo[k], hi[k] = max(lo[k], e.lo[k]), min(hi[k], e.hi[k])
		}
	}
	if n != nil {
		for k, l := range n.lo[:min(len(lo), len(n.lo))] {
			lo[k] = max(lo[k], l-2*margin)
		}
	}
	if x != nil {
		for k, h := range x.hi[:min(len(hi), len(x.hi))] {
			hi[k] = min(hi[k], h+2*margin)
		}
	}
}

// verifySeeds (tests) hands every bound seed gives for j's bins to
// probVerifyBound with the bottleneck from the row afresh.
func (ps *probState) verifySeeds(c *Classic, now float64, P int, head, j *engine.Job, e, n, x *probLB, margin float64, nb int) {
	lo, hi := make([]float64, nb), make([]float64, nb)
	for i := range hi {
		hi[i] = 1
	}
	ps.seed(lo, hi, e, n, x, margin)
	for i := range lo {
		if lo[i] > 0 || hi[i] < 1 {
			probVerifyBound("earlier", lo[i], hi[i], ps.bottleneckOf(ps.fresh(c, now, i), P, head, j))
		}
	}
}

// keepBounds keeps lo and hi, bounds of the bottlenecks for width w, for
// the candidates after (boundsOf has set the key).
func (ps *probState) keepBounds(w int, lo, hi []float64) {
	i := 0
	for i < len(ps.lbs) && ps.lbs[i].w < w {
		i++
	}
	if i == len(ps.lbs) || ps.lbs[i].w != w {
		var b probLB
		if n := len(ps.lbs); n < cap(ps.lbs) {
			b = ps.lbs[:n+1][n] // the buffers an earlier pass left there
		}
		ps.lbs = slices.Insert(ps.lbs, i, probLB{w: w, lo: b.lo[:0], hi: b.hi[:0], pm: b.pm[:0]})
	}
	e := &ps.lbs[i]
	for k := range lo {
		if k < len(e.lo) {
			e.lo[k], e.hi[k] = max(e.lo[k], lo[k]), min(e.hi[k], hi[k])
		} else {
			e.lo, e.hi = append(e.lo, lo[k]), append(e.hi, hi[k])
		}
	}
	e.pm = e.pm[:0]
	m := 0.0
	for _, l := range e.lo {
		m = max(m, l)
		e.pm = append(e.pm, m)
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
func (ps *probState) coarseBounds(c *Classic, now float64, P int, head, j *engine.Job, i int) (lo, hi, mh float64, ok bool) {
	u := ps.unit()
	if u < 2 || head.Procs < 1 || len(c.run) == 0 {
		return 0, 0, 0, false
	}
	for len(ps.coarse) <= i {
		ps.coarse = append(ps.coarse, probCoarseRows{})
	}
	cr := &ps.coarse[i]
	kc := (ps.k + u - 1) / u
	ps.coarseUpdate(c, now, cr, i, u, kc)
	m := 2 * (probMargin(len(c.run), ps.k) + probMargin(len(c.run), kc))
	h := (head.Procs + u - 1) / u
	C := head.Procs + j.Procs
	mh = min(cr.hi[h]+m, 1)
	if C > P {
		return max(cr.lo[h]-m, 0), mh, mh, true
	}
	cc := (C + u - 1) / u
	return max(cr.lo[h]-cr.hi[cc]-m, 0), max(min(cr.hi[h]-cr.lo[cc]+m, 1), 0), mh, true
}

// coarseCheaper: bin i's coarse rows cost less than half its row, in
// steps times columns (a row is brought up to date from its last valid
// copy; coarse rows from their last valid copy too).
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
	u := max(1, ps.unit())
	return 2*coarse*2*((ps.k+u-1)/u+1) < fine*(ps.k+1)
}

// coarseCurrent: bin i's coarse rows hold every running job's step
// (coarseBounds computes nothing).
func (ps *probState) coarseCurrent(c *Classic, i int) bool {
	if i >= len(ps.coarse) {
		return false
	}
	cr := &ps.coarse[i]
	u := ps.unit()
	if u < 2 {
		return false
	}
	W := (ps.k+u-1)/u + 1
	return cr.k == ps.k && len(cr.lo) == W && ps.coarseStride(W) <= cr.ccp && cr.n == len(c.run) && cr.at == cr.n
}

// unit is the coarse rows' unit of processors: about probCoarse columns.
func (ps *probState) unit() int { return (ps.k + 1) / probCoarse }

// coarseStride is the fewest jobs between two stored copies of a coarse
// row pair of W columns each that keep them about under probCPFloats
// values for the most running jobs seen (as fitCopies).
func (ps *probState) coarseStride(W int) int { return max(1, (ps.hwm+1)*2*W/probCPFloats) }

// probCoarse is about the number of columns of coarseBounds's rows (a
// variable for the tests, whose platforms are small).
var probCoarse = 64

type probCoarseRows struct {
	n      int // steps still valid (cut as the bins' rows are)
	at     int // steps the rows hold (n or more)
	k      int // for rows of k+1 columns
	lo, hi []float64
	// Copies of lo and hi after every ccp steps (copy m: m·ccp steps);
	// the first ncp are valid.
	locp, hicp []float64
	ccp, ncp   int
}

// coarseUpdate brings bin i's coarse rows, units of u processors and
// kc+1 columns, up to every running job: from their last valid copy at
// or before their valid steps, if they hold steps beyond those.
func (ps *probState) coarseUpdate(c *Classic, now float64, cr *probCoarseRows, i, u, kc int) {
	R, W := len(c.run), kc+1
	if cr.k != ps.k || len(cr.lo) != W {
		cr.n, cr.at, cr.k, cr.ncp = 0, -1, ps.k, 0
	}
	// The copies of both rows stay about under probCPFloats values for
	// the most running jobs seen (as fitCopies; the rows computed afresh
	// when the stride grows).
	if need := ps.coarseStride(W); need > cr.ccp {
		cr.ccp, cr.n, cr.at, cr.ncp = max(need, 2*cr.ccp), 0, -1, 0
	}
	if cr.at != cr.n {
		m := min(cr.n/cr.ccp, cr.ncp-1)
		if m <= 0 {
			cr.lo, cr.hi = growTo(cr.lo[:0], W, 0), growTo(cr.hi[:0], W, 0)
			clear(cr.lo)
			clear(cr.hi)
			cr.lo[0], cr.hi[0] = 1, 1
			cr.locp, cr.hicp = growTo(cr.locp[:0], W, 0), growTo(cr.hicp[:0], W, 0)
			copy(cr.locp, cr.lo)
			copy(cr.hicp, cr.hi)
			m = 0
		} else {
			copy(cr.lo, cr.locp[m*W:(m+1)*W])
			copy(cr.hi, cr.hicp[m*W:(m+1)*W])
		}
		cr.n, cr.at, cr.ncp = m*cr.ccp, m*cr.ccp, m+1
	}
	if cr.n == R {
		return
	}
	ws, qs := ps.cr[:0], ps.cqf[:0]
	for n := cr.n; n < R; n++ {
		ws, qs = append(ws, c.run[n].Procs/u), append(qs, ps.qAt(c, now, n, i))
	}
	ps.advance(cr.lo, &cr.locp, cr.ccp, cr.n, ws, qs, &ps.cbuf)
	for k, n := 0, cr.n; n < R; k, n = k+1, n+1 {
		ws[k] = (c.run[n].Procs + u - 1) / u
	}
	ps.advance(cr.hi, &cr.hicp, cr.ccp, cr.n, ws, qs, &ps.cbuf)
	ps.cr, ps.cqf = ws, qs
	cr.n, cr.at, cr.ncp = R, R, R/cr.ccp+1
}

// advance applies to row, the row after the first from running jobs, the
// steps of the jobs after them: job from+x has processors ws[x] (no step
// if 0) and Q qs[x]; in groups (stepG) and one by one as plan says. The row after every multiple of
// ccp jobs is kept in cps (copy m at m·len(row)).
func (ps *probState) advance(row []float64, cps *[]float64, ccp, from int, ws []int, qs []float64, wb *stepBuf) {
	W := len(row)
	p := from // the copies are stored up to p jobs
	flush := func(upto int, r []float64) {
		for p < upto {
			if p++; p%ccp == 0 {
				m := p / ccp
				*cps = growTo(*cps, (m+1)*W, 0)
				copy((*cps)[m*W:(m+1)*W], r)
			}
		}
	}
	idx := ps.cidx[:0]
	for x, w := range ws {
		if w > 0 {
			idx = append(idx, x)
		}
	}
	ps.cidx = idx
	var r [probG]int
	var q [probG]float64
	rs := ps.cw[:0]
	for _, x := range idx {
		rs = append(rs, ws[x])
	}
	ps.cw = rs
	g := 0
	for _, G := range ps.plan(rs, W) {
		flush(from+idx[g], row)
		if G == 1 {
			step(row, ws[idx[g]], qs[idx[g]], false)
		} else {
			for k := range G {
				r[k], q[k] = ws[idx[g+k]], qs[idx[g+k]]
			}
			mid := ps.stepG(row, r[:G], q[:G], wb)
			for k := range G - 1 {
				flush(from+idx[g+k+1], mid[k])
			}
		}
		g += G
		flush(from+idx[g-1]+1, row)
	}
	flush(from+len(ws), row)
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

// binProbs is, for a job of request est (nb = nbins(est)), P(it ends in
// bin i) for every bin it may end in (t = 2^i < 2·est), as chanceSum
// computes them, and binMass's mass; kept per histogram version and
// number of bins (binMass depends on est only through nb).
func (d *pdist) binProbs(nb int, est float64) *probPT {
	if nb >= len(d.probs) {
		d.probs = growTo(d.probs, nb+1, probPT{})
	}
	e := &d.probs[nb]
	if e.ver != d.ver+1 {
		norm, left := binMass(d, est)
		e.pt = e.pt[:0]
		for i := range nb {
			var p float64
			if i < len(d.bins) {
				p = d.bins[i] / norm
			}
			e.pt = append(e.pt, p)
		}
		e.ver, e.left, e.refKey = d.ver+1, left, probLBKey{}
	}
	return e
}

type probPT struct {
	ver  int // the histogram's ver + 1 when computed
	pt   []float64
	left float64
	// A candidate of width refW was refused with these bins while the
	// pass's bounds had key refKey.
	refKey probLBKey
	refW   int
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

// upper bounds bin i's bottleneck, for any candidate (of this head),
// without its row.
// In exact arithmetic every row value M[n][c] with c >= 1 is at most
// 1 − Π(1 − Q) over the running jobs (each step is a mix, weights 1 − Q
// and Q, of the old value and one at most 1), and B(t) <= M[n][head] as
// M is never negative. The computed row differs from the exact one by
// at most 3.01 ulp(1) per step along its longest chain of dependent
// updates (a step mixes two values, so it never enlarges an error), at
// most N·(k+1) updates for N running jobs; the product's own rounding is
// below (N+2) ulp(1). The margin added covers both twice over. Computed
// values never leave [0, 1], so 1 bounds B too. In exact arithmetic
// M[n][head] is P(S >= head), S = Σ r·G with G geometric (coarseBounds),
// whose mean Σ r·Q/(1 − Q) and variance Σ r²·Q/(1 − Q)² bound it too, by
// Markov's inequality and Cantelli's (P(S − μ >= d) <= σ²/(σ² + d²)),
// each computed to round up. It also reports whether
// the bin's row is all ones (certain: a running job of a processor or
// more ends within t surely). Computed for bins i to nb − 1 at once (one
// pass over the running jobs) and cached until the rows change (ps.ver).
func (ps *probState) upper(c *Classic, now float64, head *engine.Job, i, nb int) (v float64, sure bool) {
	if head.Procs < 1 {
		return 1, false
	}
	if len(ps.ub) < nb {
		ps.ub = growTo(ps.ub, nb, probUB{})
	}
	u := &ps.ub[i]
	if u.ver == ps.ver+1 && u.k == ps.k && u.h == head.Procs {
		return u.v, u.sure
	}
	// Every bin from i to nb − 1 at once: one pass over the running jobs.
	L := nb - i
	prod, mean, vari := growTo(ps.uprod[:0], L, 1), growTo(ps.umean[:0], L, 0), growTo(ps.uvar[:0], L, 0)
	bad, sures := growTo(ps.ubad[:0], L, false), growTo(ps.usure[:0], L, false)
	// From the bin of the smallest remaining request (rounded up) of a job
	// of a processor or more on, that job's Q is 1: those bins are sure.
	top := nb
	for n, w := range c.run {
		ps.qAt(c, now, n, nb-1) // fills Q up to bin nb − 1
		if ru := ps.qc[n].ru; w.Procs >= 1 && ru >= 1 && ru < pow2(62) {
			top = max(i, min(top, log2i(ru)))
		}
	}
	for b := top - i; b < L; b++ {
		sures[b] = true
	}
	for n, w := range c.run {
		r := float64(w.Procs)
		for b, q := range ps.qc[n].q[i:top] {
			sures[b] = sures[b] || (q == 1 && w.Procs >= 1)
			if !(q >= 0 && q < 1) {
				bad[b] = true // no bound below 1
				continue
			}
			prod[b] *= 1 - q
			g := q / (1 - q) // G's mean; its variance is g·(1 + g) = q/(1 − q)²
			mean[b] += r * g
			vari[b] += r * r * g * (1 + g)
		}
	}
	m := probMargin(len(c.run), ps.k)
	h := float64(head.Procs)
	for b := range L {
		v := 1.0
		if !bad[b] && !sures[b] {
			v = 1 - prod[b]
			// Markov and Cantelli for P(S >= head): the mean and the
			// variance taken a little large, so each bound rounds up.
			// (A comparison, not min: an overflow gives NaN, no bound.)
			mu, s2 := mean[b]*(1+1e-9), vari[b]*(1+1e-9)
			if x := mu / h * (1 + 1e-9); x < v {
				v = x
			}
			if d := h - mu; d > 0 {
				if x := s2 / (s2 + d*d*(1-1e-9)) * (1 + 1e-9); x < v {
					v = x
				}
			}
		}
		ps.ub[i+b] = probUB{ver: ps.ver + 1, k: ps.k, h: head.Procs, v: min(1, v+m), sure: sures[b]}
	}
	ps.uprod, ps.umean, ps.uvar, ps.ubad, ps.usure = prod, mean, vari, bad, sures
	return u.v, u.sure
}

type probUB struct {
	ver  uint64 // ps.ver+1 when computed
	k    int    // the rows' length then
	h    int    // the head's processors then
	v    float64
	sure bool // a running job of a processor or more ends within t surely: the row is all ones (certain)
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
	if f := ps.certain(c, now, i); f >= 0 {
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
		b.applyFrom(c, ps, now, b.n, i)
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

	b.applyFrom(c, ps, now, m*ps.cp, i)
	b.n, b.stale = len(c.run), false
	if probVerify != nil {
		probVerify(b.row, ps.fresh(c, now, i))
	}
	return b.row
}

// certain is the start-order position of the first running job (of one
// processor or more) whose Q(t) is 1, or −1.
func (ps *probState) certain(c *Classic, now float64, i int) int {
	for n, w := range c.run {
		if w.Procs >= 1 && ps.qAt(c, now, n, i) == 1 {
			return n
		}
	}
	return -1
}

// probNoCoarse (tests) turns coarseBounds off; probCoarseAlways takes
// them wherever a row is wanted, cheaper or not.
var probNoCoarse, probCoarseAlways bool

// probVerifyBound, if set (tests), is given every pair of bounds the
// decisions take, with the bottleneck from the row afresh: kind "coarse"
// from coarseBounds, "earlier" from the bounds earlier candidates left,
// "left" every bin's after a decision from bounds.
var probVerifyBound func(kind string, lo, hi, fresh float64)

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
