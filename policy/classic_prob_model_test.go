package policy

import (
	"math"
	"slices"
	"testing"

	"pgregory.net/rapid"

	"github.com/gridsched/gridsched/engine"
	"github.com/gridsched/gridsched/model"
)

// probModel drives a probState directly, with every running job's Q per
// bin chosen by the test (written into qAt's cache under the job's
// signature) instead of drawn from histograms: Q of 0, 1, subnormal, one
// ulp below 1, anywhere, at any position in the start order and in any
// bin, which workloads reach rarely or never. The jobs it starts, ends
// and changes, the passes (validate, setK, a copy every cp steps) and the
// starts within a pass (appended) are those of probabilistic's
// bookkeeping; the rows it reads are compared with pyss's loop (stepRef)
// over the running jobs with the same Q.
type probModel struct {
	c    *Classic
	ps   *probState
	now  float64
	P    int
	bins int
	q    map[*engine.Job][]float64 // per job: Q per bin
	next int32                     // next job index
	mono bool                      // every job's Q never falls with t (as pyss's)
	sure int                       // one job in sure (0: none) ends surely from some bin on
}

func newProbModel(bins int) *probModel {
	s, err := ParseSpec("easy-probabilistic")
	if err != nil {
		panic(err)
	}
	c := NewClassic(s, FirstFit{})
	m := &probModel{c: c, ps: c.prob, bins: bins, q: map[*engine.Job][]float64{}}
	// validate recomputes a job's Q when its signature changes, to
	// find the bins it changed in: the model's, as inject gives them.
	m.ps.qTest = func(w *engine.Job, e *probQ, upto int) {
		e.ru = math.Inf(1)
		e.q = append(e.q[:0], m.q[w]...)
	}
	return m
}

// drawQ draws one Q below 1: the values at the edges of stepG's and the
// margins' claims as often as any.
func drawQ(t *rapid.T) float64 {
	switch rapid.IntRange(0, 6).Draw(t, "qkind") {
	case 0:
		return 0
	case 1:
		return math.SmallestNonzeroFloat64 * float64(rapid.IntRange(1, 1<<20).Draw(t, "qsub"))
	case 2:
		return 1 - math.Ldexp(1, -53)*float64(rapid.IntRange(1, 8).Draw(t, "qulps"))
	case 3:
		return 1 - math.Ldexp(rapid.Float64Range(0x1p-10, 1).Draw(t, "qnear"), -rapid.IntRange(1, 50).Draw(t, "qexp"))
	default:
		return rapid.Float64Range(0, 1).Draw(t, "q")
	}
}

// drawQs draws a job's Q per bin, 1 (it ends surely within t: certain's
// all-ones rows) from some bin on for one job in m.sure; monotone
// (as Q is in t, which chanceBounded's bounds rely on) if asked.
func (m *probModel) drawQs(t *rapid.T, monotone bool) []float64 {
	q := make([]float64, m.bins)
	for i := range q {
		q[i] = drawQ(t)
	}
	if monotone {
		slices.Sort(q)
	}
	if m.sure > 0 && rapid.IntRange(1, m.sure).Draw(t, "sure") == 1 {
		for i := rapid.IntRange(0, m.bins-1).Draw(t, "surefrom"); i < m.bins; i++ {
			q[i] = 1
		}
	}
	return q
}

// start adds a running job of procs processors (the last in start order).
func (m *probModel) start(t *rapid.T, procs int) *engine.Job {
	mj := model.NewJob(int64(m.next+1), 0, 1, procs)
	mj.Own()
	mj.User = int(m.next) // a histogram of its own: its version is its Q's
	w := &engine.Job{Job: &mj, Index: m.next}
	m.next++
	d := m.c.d(w)
	d.est, d.pstart, d.running = 1, m.now, true
	m.q[w] = m.drawQs(t, m.mono)
	m.c.run = append(m.c.run, w)
	return w
}

// inject writes every running job's Q into qAt's cache under its current
// signature (after validate or appended).
func (m *probModel) inject() {
	ps := m.ps
	for n, w := range m.c.run {
		for len(ps.qc) <= n {
			ps.qc = append(ps.qc, probQ{})
		}
		ps.qc[n] = probQ{job: w, sig: ps.sig[n], ru: math.Inf(1), q: slices.Clone(m.q[w])}
	}
}

// pass is the start of a pass: validate (P may have changed), setK as
// probabilistic does when k changes, cp as drawn.
func (m *probModel) pass(P, k, cp int) {
	m.P = P
	m.ps.validate(m.c, m.now, P)
	if k != m.ps.k {
		m.ps.setK(k)
		m.ps.cp = cp // setK cut every row back to 0: any cp is consistent
	}
	m.inject()
}

// ref is bin i's row as pyss computes it, afresh.
func (m *probModel) ref(i int) []float64 {
	row := make([]float64, m.ps.k+1)
	for n, w := range m.c.run {
		stepRef(row, w.Procs, m.q[w][i], n == 0)
	}
	return row
}

// TestPropertyProbRowsModel: whatever the order of starts (in a pass or
// before it), ends, changes of Q, changes of P, of the rows' length k and
// of the steps between copies (cp, up to 4: the paper-scale platforms'
// values, which the workload tests' small platforms never reach), every
// row probabilistic backfilling reads equals pyss's loop afresh bit for
// bit, Q = 1 (certain's all-ones rows) and groups of stepG included; and
// every pair of coarse bounds holds the bottleneck of that row.
func TestPropertyProbRowsModel(t *testing.T) {
	defer func(c int) { probCoarse = c }(probCoarse)
	reads, ones, bounds, decisions := 0, 0, 0, 0
	strided := 0 // coarse bounds taken from rows with a copy every 2 jobs or more
	rapid.Check(t, func(t *rapid.T) {
		m := newProbModel(rapid.IntRange(1, 3).Draw(t, "bins"))
		m.mono = rapid.Bool().Draw(t, "monotone")
		// The most running jobs seen, as if a long run had had them:
		// the coarse rows then keep a copy only every few jobs (ccp >
		// 1), which the small cases here never reach otherwise.
		m.ps.hwm = rapid.SampledFrom([]int{0, 0, 20000, 70000}).Draw(t, "hwm")
		m.sure = rapid.SampledFrom([]int{0, 3, 20}).Draw(t, "sure")
		defer func(a bool) { probCoarseAlways = a }(probCoarseAlways)
		probCoarseAlways = rapid.Bool().Draw(t, "always")
		probCoarse = rapid.SampledFrom([]int{2, 3, 4, 8}).Draw(t, "coarse")
		ks := []int{0, 1, 2, 7, 8, 9, 16, 31, 40}
		k := rapid.SampledFrom(ks).Draw(t, "k")
		P := k + rapid.IntRange(0, 3).Draw(t, "spare")
		m.pass(P, k, rapid.IntRange(1, 4).Draw(t, "cp"))
		needPass := false
		for range rapid.IntRange(1, 400).Draw(t, "ops") {
			switch rapid.SampledFrom([]int{0, 0, 1, 2, 2, 2, 3, 3, 4, 5, 5, 5, 5, 5, 5, 6, 6}).Draw(t, "op") {
			case 0: // a start before the pass (the head's): seen by validate
				m.start(t, rapid.IntRange(0, m.ps.k+3).Draw(t, "procs"))
				needPass = true
			case 1: // a start within the pass (a backfilled candidate)
				if !needPass {
					m.start(t, rapid.IntRange(0, m.ps.k+3).Draw(t, "procs"))
					m.ps.appended(m.c, m.now, m.c.run[len(m.c.run)-1])
					m.inject()
				}
			case 2: // an end
				if len(m.c.run) > 0 {
					i := rapid.IntRange(0, len(m.c.run)-1).Draw(t, "end")
					m.c.run = slices.Delete(m.c.run, i, i+1)
					m.ps.removed(i)
					needPass = true
				}
			case 3: // a job's Q changes (its histogram or elapsed-time bin)
				if len(m.c.run) > 0 {
					w := m.c.run[rapid.IntRange(0, len(m.c.run)-1).Draw(t, "change")]
					m.ps.dist(w).ver++
					m.q[w] = m.drawQs(t, m.mono)
					needPass = true
				}
			case 4: // a new pass, perhaps with another P or k
				k := m.ps.k
				if rapid.Bool().Draw(t, "newk") {
					k = rapid.SampledFrom(ks).Draw(t, "k")
				}
				P := m.P
				if rapid.Bool().Draw(t, "newP") || P < k {
					P = k + rapid.IntRange(0, 3).Draw(t, "spare")
				}
				m.pass(P, k, rapid.IntRange(1, 4).Draw(t, "cp"))
				needPass = false
			case 6: // a candidate's decision, from bounds, against pyss's sum
				if needPass {
					m.pass(m.P, m.ps.k, m.ps.cp)
					needPass = false
				}
				if !m.mono || m.ps.k < 1 {
					continue
				}
				decisions++
				m.decide(t)
			default: // read a row, or bound a bin from coarse rows
				if needPass {
					m.pass(m.P, m.ps.k, m.ps.cp)
					needPass = false
				}
				i := rapid.IntRange(0, m.bins-1).Draw(t, "bin")
				want := m.ref(i)
				if rapid.Bool().Draw(t, "coarse?") && m.ps.k >= 1 {
					head := rapid.IntRange(1, m.ps.k).Draw(t, "head")
					jp := rapid.IntRange(0, m.ps.k-head).Draw(t, "cand")
					if rapid.Bool().Draw(t, "wide") {
						jp = m.P - head + rapid.IntRange(1, 3).Draw(t, "over") // C > P
					}
					hj := &engine.Job{Job: &model.Job{Procs: head}}
					jj := &engine.Job{Job: &model.Job{Procs: jp}}
					l, h, _, ok := m.ps.coarseBounds(m.c, m.now, m.P, hj, jj, i)
					if ok {
						bounds++
						if m.ps.coarse[i].ccp > 1 {
							strided++
						}
						if b := m.ps.bottleneckOf(want, m.P, hj, jj); b < l || b > h {
							t.Fatalf("bin %d, k %d, head %d, candidate %d: coarse bounds [%v, %v] miss pyss's bottleneck %v", i, m.ps.k, head, jp, l, h, b)
						}
					}
					continue
				}
				got := m.ps.row(m.c, m.now, i)
				reads++
				all1 := len(m.c.run) > 0 && len(want) > 1
				for c := range want {
					if math.Float64bits(got[c]) != math.Float64bits(want[c]) {
						t.Fatalf("bin %d, k %d, cp %d, %d running: column %d = %v, pyss's loop %v", i, m.ps.k, m.ps.cp, len(m.c.run), c, got[c], want[c])
					}
					all1 = all1 && got[c] == 1
				}
				if all1 {
					ones++
				}
			}
		}
	})
	if ones == 0 || bounds == 0 || decisions == 0 || strided == 0 {
		t.Fatalf("%d rows read, %d all ones, %d coarse bounds (%d strided), %d decisions: a claim went unchecked", reads, ones, bounds, strided, decisions)
	}
	t.Logf("%d rows read (%d all ones), %d coarse bounds (%d with copies every 2 jobs or more), %d decisions", reads, ones, bounds, strided, decisions)
}

// decide draws a head and a candidate (its histogram, request and the
// threshold) and checks that chanceBounded, which reads rows, coarse
// bounds and upper bounds, decides as pyss's sum over the rows afresh.
func (m *probModel) decide(t *rapid.T) {
	ps := m.ps
	head := rapid.IntRange(1, ps.k).Draw(t, "head")
	jp := rapid.IntRange(0, ps.k-head).Draw(t, "cand")
	if rapid.Bool().Draw(t, "wide") {
		jp = m.P - head + rapid.IntRange(1, 3).Draw(t, "over") // C > P
	}
	hj := &engine.Job{Job: &model.Job{Procs: head}}
	mj := model.NewJob(0, 0, 1, jp)
	mj.Own()
	mj.User = -1 - int(m.next)
	j := &engine.Job{Job: &mj, Index: m.next}
	m.next++
	nb := rapid.IntRange(1, m.bins).Draw(t, "candbins")
	m.c.d(j).est = pow2(nb - 1) // bins t < 2·est: the first nb
	d := ps.dist(j)
	d.bins, d.n = d.bins[:0], 0
	for range nb + rapid.IntRange(0, 2).Draw(t, "morebins") {
		v := float64(rapid.IntRange(0, 20).Draw(t, "count"))
		d.bins = append(d.bins, v)
		d.n += v
	}
	ps.threshold = rapid.SampledFrom([]float64{0, 0.01, 0.05, 0.2, 0.5, 0.9, 1}).Draw(t, "threshold")
	want := ps.chanceSum(m.c, m.now, m.P, hj, j, d, func(i int) float64 {
		return ps.bottleneckOf(m.ref(i), m.P, hj, j)
	})
	if got := ps.chanceBounded(m.c, m.now, m.P, hj, j, d, nbins(m.c.d(j).est)); got != want {
		t.Fatalf("head %d, candidate %d, threshold %v: chance from bounds %v, pyss's sum %v", head, jp, ps.threshold, got, want)
	}
}

// TestCoarseBoundsLongRows: on long rows (k up to 100,000 processors, u
// up to 1,562), with many running jobs of every size (none, one
// processor, beyond the row) and Q anywhere, near 1 included, the rows
// equal pyss's loop's bit for bit and the coarse bounds hold pyss's
// bottleneck afresh. The bounds need their margin (without it they can
// miss by a rounding, rarely) but far less than all of it: the largest
// miss without it, in units of it, is logged (1.1e-5 the largest seen).
func TestCoarseBoundsLongRows(t *testing.T) {
	worst := math.Inf(-1)
	rapid.Check(t, func(t *rapid.T) {
		m := newProbModel(1)
		k := rapid.SampledFrom([]int{127, 1000, 4095, 100000}).Draw(t, "k")
		for range rapid.IntRange(1, max(2, 500_000/k)).Draw(t, "jobs") {
			r := rapid.SampledFrom([]int{0, 1, 2, 63, 64, 65, 500, k - 1, k, k + 7}).Draw(t, "size")
			if rapid.Bool().Draw(t, "anysize") {
				r = rapid.IntRange(0, k+8).Draw(t, "procs")
			}
			w := m.start(t, r)
			m.q[w] = []float64{drawQ(t)}
		}
		m.pass(k, k, 1)
		ps := m.ps
		want := m.ref(0)
		if rapid.Bool().Draw(t, "fine") {
			// The row itself, in groups of stepG (or all ones).
			got := ps.row(m.c, m.now, 0)
			for c := range want {
				if math.Float64bits(got[c]) != math.Float64bits(want[c]) {
					t.Fatalf("k %d, %d running: column %d = %v, pyss's loop %v", k, len(m.c.run), c, got[c], want[c])
				}
			}
		}
		for range 20 {
			head := rapid.IntRange(1, k).Draw(t, "head")
			jp := rapid.IntRange(0, k-head).Draw(t, "cand")
			hj := &engine.Job{Job: &model.Job{Procs: head}}
			jj := &engine.Job{Job: &model.Job{Procs: jp}}
			l, h, _, ok := ps.coarseBounds(m.c, m.now, m.P, hj, jj, 0)
			if !ok {
				t.Fatalf("k %d: no coarse bounds", k)
			}
			b := ps.bottleneckOf(want, m.P, hj, jj)
			if b < l || b > h {
				t.Fatalf("k %d, %d running, head %d, candidate %d: coarse bounds [%v, %v] miss pyss's bottleneck %v", k, len(m.c.run), head, jp, l, h, b)
			}
			// The same bounds without the margin.
			u := (k + 1) / probCoarse
			kc := (k + u - 1) / u
			mg := 2 * (probMargin(len(m.c.run), k) + probMargin(len(m.c.run), kc))
			cr := ps.coarse[0]
			lo0 := cr.lo[(head+u-1)/u] - cr.hi[(head+jp+u-1)/u]
			hi0 := cr.hi[(head+u-1)/u] - cr.lo[(head+jp+u-1)/u]
			worst = max(worst, (lo0-b)/mg, (b-hi0)/mg)
		}
	})
	t.Logf("largest miss of the bounds without margin: %.3g margins", max(worst, 0))
	if worst > 1 {
		t.Fatalf("a miss of %v margins", worst)
	}
}

// TestPropertyStepsEqualStepRef: steps (groups of stepG while three or
// more steps are left, then step) gives pyss's loop's rows bit for bit on
// rows longer than TestPropertyStepGEqualsStep's (up to 300 columns: the
// interleaved loop's long middle), starting from values anywhere in
// [0, 1], subnormal ones included, with Q of 0, 1, subnormal and within
// ulps of 1, processor counts of none, one, one below and at the row's
// length and beyond (pyss's loop reads ahead for negative ones: none
// run), and its buffer reused across lengths.
func TestPropertyStepsEqualStepRef(t *testing.T) {
	ps := &probState{}
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(2, 300).Draw(t, "len")
		row := make([]float64, n)
		row[0] = 1
		for i := 1; i < n; i++ {
			switch rapid.IntRange(0, 3).Draw(t, "xkind") {
			case 0:
				row[i] = math.SmallestNonzeroFloat64 * float64(rapid.IntRange(0, 1<<20).Draw(t, "xsub"))
			case 1:
				row[i] = 1 - math.Ldexp(1, -53)*float64(rapid.IntRange(0, 4).Draw(t, "xulps"))
			default:
				row[i] = rapid.Float64Range(0, 1).Draw(t, "x")
			}
		}
		R := rapid.IntRange(0, 30).Draw(t, "steps")
		r, q := make([]int, R), make([]float64, R)
		for k := range r {
			r[k] = rapid.SampledFrom([]int{0, 1, 2, n - 1, n, n + 3, -2}).Draw(t, "procs")
			if r[k] == -2 {
				r[k] = rapid.IntRange(1, n).Draw(t, "anyprocs")
			}
			q[k] = drawQ(t)
			if rapid.IntRange(0, 9).Draw(t, "one") == 0 {
				q[k] = 1
			}
		}
		want := slices.Clone(row)
		for k := range r {
			stepRef(want, r[k], q[k], false)
		}
		got := slices.Clone(row)
		ps.steps(got, slices.Clone(r), slices.Clone(q), &ps.wbuf)
		for i := range want {
			if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
				t.Fatalf("%d steps (r=%v, q=%v): column %d = %v, pyss's loop %v", R, r, q, i, got[i], want[i])
			}
		}
	})
}

// TestPropertyCopiesStrideGrows: when more running jobs than ever make the
// steps between a row's stored copies grow (fitCopies), the rows are cut
// back (their copies were stored at the old stride), so a row recomputed
// from a copy after a later change is still pyss's loop's afresh.
func TestPropertyCopiesStrideGrows(t *testing.T) {
	defer func(f int) { probCPFloats = f }(probCPFloats)
	rapid.Check(t, func(t *rapid.T) {
		probCPFloats = 1 << 16
		m := newProbModel(1)
		k := rapid.IntRange(4, 24).Draw(t, "k")
		m.pass(k, k, 1)
		for range rapid.IntRange(4, 12).Draw(t, "running") {
			m.start(t, rapid.IntRange(1, 3).Draw(t, "procs"))
		}
		m.pass(k, k, 1)
		m.ps.row(m.c, m.now, 0) // computed with a copy after every step
		// A stride of 2 to 4 from now on.
		R := len(m.c.run)
		probCPFloats = (R + 1) * (k + 1) / rapid.IntRange(2, 4).Draw(t, "stride")
		m.ps.fitCopies(R)
		if m.ps.cp < 2 {
			t.Fatalf("cp %d: the stride did not grow", m.ps.cp)
		}
		w := m.c.run[rapid.IntRange(2, R-1).Draw(t, "changed")]
		m.ps.dist(w).ver++
		m.q[w] = m.drawQs(t, false)
		m.pass(k, k, m.ps.cp)
		got, want := m.ps.row(m.c, m.now, 0), m.ref(0)
		for c := range want {
			if math.Float64bits(got[c]) != math.Float64bits(want[c]) {
				t.Fatalf("cp %d, %d running: column %d = %v, pyss's loop %v", m.ps.cp, R, c, got[c], want[c])
			}
		}
	})
}

// TestPropertyUpperPerHead: upper's bounds depend on the head's
// processors (Markov's and Cantelli's), so a bound kept for one head is
// never handed to another while the rows stay the same: after a first
// head's, a second head's bounds are those computed afresh.
func TestPropertyUpperPerHead(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		m := newProbModel(3)
		k := rapid.IntRange(4, 40).Draw(t, "k")
		m.pass(k, k, 1)
		for range rapid.IntRange(1, 8).Draw(t, "running") {
			m.start(t, rapid.IntRange(1, k).Draw(t, "procs"))
		}
		m.pass(k, k, 1)
		hA := &engine.Job{Job: &model.Job{Procs: rapid.IntRange(1, k).Draw(t, "headA")}}
		hB := &engine.Job{Job: &model.Job{Procs: rapid.IntRange(1, k).Draw(t, "headB")}}
		for i := range 3 {
			m.ps.upper(m.c, m.now, hA, i, 3)
		}
		var got [3]float64
		for i := range 3 {
			got[i], _ = m.ps.upper(m.c, m.now, hB, i, 3)
		}
		m.ps.ub = nil
		for i := range 3 {
			if want, _ := m.ps.upper(m.c, m.now, hB, i, 3); math.Float64bits(got[i]) != math.Float64bits(want) {
				t.Fatalf("bin %d, head %d after head %d: bound %v, afresh %v", i, hB.Procs, hA.Procs, got[i], want)
			}
		}
	})
}
