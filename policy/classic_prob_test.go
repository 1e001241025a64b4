package policy

import (
	"math"
	"slices"
	"testing"

	"github.com/gridsched/gridsched/engine"
	"github.com/gridsched/gridsched/model"
	"pgregory.net/rapid"
)

// stepRef is the recurrence's step as pyss writes it: one loop over the
// columns, each updated in place from the column r below as this step
// left it.
func stepRef(row []float64, r int, q float64, first bool) {
	if first {
		row[0] = 1
	}
	for cc := 1; cc < len(row); cc++ {
		if cc < r {
			row[cc] += float64((1 - row[cc]) * q)
		} else {
			row[cc] += float64((row[cc-r] - row[cc]) * q)
		}
	}
}

// TestPropertyStepEqualsRef: the split step gives pyss's loop's values
// bit for bit, for any row, processor count (0, 1, below, at and beyond
// the row's length) and Q, applied step after step.
func TestPropertyStepEqualsRef(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(1, 40).Draw(t, "len")
		a := make([]float64, n)
		b := make([]float64, n)
		for s, steps := 0, rapid.IntRange(1, 12).Draw(t, "steps"); s < steps; s++ {
			r := rapid.IntRange(0, n+2).Draw(t, "procs")
			q := rapid.Float64Range(0, 1).Draw(t, "q")
			if rapid.IntRange(0, 4).Draw(t, "q01") == 0 {
				q = float64(rapid.IntRange(0, 1).Draw(t, "q01v"))
			}
			stepRef(a, r, q, s == 0)
			step(b, r, q, s == 0)
			for i := range a {
				if math.Float64bits(a[i]) != math.Float64bits(b[i]) {
					t.Fatalf("step %d (r=%d, q=%v): column %d = %v, pyss's loop %v", s, r, q, i, b[i], a[i])
				}
			}
		}
	})
}

// TestPropertyStepGEqualsStep: stepG, G steps interleaved, gives the rows
// of G calls of step one after the other bit for bit, the rows after
// each step but the last included, for any row, processor counts (below
// 1, 1, below, at and beyond the row's length) and Q (0 and 1 included),
// with its buffers reused across calls of other lengths.
func TestPropertyStepGEqualsStep(t *testing.T) {
	ps := &probState{}
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(2, 40).Draw(t, "len")
		G := rapid.IntRange(2, probG).Draw(t, "G")
		row := make([]float64, n)
		row[0] = 1
		for i := 1; i < n; i++ {
			row[i] = rapid.Float64Range(0, 1).Draw(t, "x")
		}
		r := make([]int, G)
		q := make([]float64, G)
		for k := range r {
			r[k] = rapid.IntRange(-1, n+2).Draw(t, "procs")
			q[k] = rapid.Float64Range(0, 1).Draw(t, "q")
			if rapid.IntRange(0, 4).Draw(t, "q01") == 0 {
				q[k] = float64(rapid.IntRange(0, 1).Draw(t, "q01v"))
			}
		}
		want := append([]float64(nil), row...)
		var mids [][]float64
		for k := range r {
			step(want, r[k], q[k], false)
			mids = append(mids, append([]float64(nil), want...))
		}
		got := append([]float64(nil), row...)
		mid := ps.stepG(got, append([]int(nil), r...), append([]float64(nil), q...), &ps.wbuf)
		mid = append(mid, got)
		for k := range mids {
			for i := range mids[k] {
				if math.Float64bits(mid[k][i]) != math.Float64bits(mids[k][i]) {
					t.Fatalf("after step %d of %d (r=%v, q=%v): column %d = %v, step after step %v", k, G, r, q, i, mid[k][i], mids[k][i])
				}
			}
		}
	})
}

// tailOf is P(S >= c) for c = 0..K, S = Σ r_n·G_n with G_n independent
// geometric counts (P(G_n >= g) = q_n^g), from S's distribution by
// convolution: what pyss's recurrence computes in exact arithmetic
// (coarseBounds).
func tailOf(r []int, q []float64, K int) []float64 {
	pmf := make([]float64, K+1) // of S, truncated to 0..K
	pmf[0] = 1
	for n := range r {
		next := make([]float64, K+1)
		for s, p := range pmf {
			w := (1 - q[n]) // P(G = 0)
			for g := 0; s+g*r[n] <= K; g++ {
				next[s+g*r[n]] += p * w
				w *= q[n]
				if r[n] == 0 {
					break
				}
			}
		}
		pmf = next
	}
	tail := make([]float64, K+1)
	below := 0.0
	for c := range tail {
		tail[c] = 1 - below
		below += pmf[c]
	}
	return tail
}

// TestPropertyRowIsTailProbability: in exact arithmetic pyss's row is
// P(S >= c), S = Σ r_n·G_n, whatever the order of the steps; the rows
// over units of u processors, r rounded down and up, bound it from below
// and above at ⌈c/u⌉ (coarseBounds' claims), within rounding.
func TestPropertyRowIsTailProbability(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		K := rapid.IntRange(1, 48).Draw(t, "K")
		R := rapid.IntRange(1, 6).Draw(t, "jobs")
		r := make([]int, R)
		q := make([]float64, R)
		for n := range r {
			r[n] = rapid.IntRange(1, K+2).Draw(t, "procs")
			q[n] = rapid.Float64Range(0, 0.9).Draw(t, "q")
		}
		row := make([]float64, K+1)
		for n := range r {
			step(row, r[n], q[n], n == 0)
		}
		tail := tailOf(r, q, K)
		for c := 1; c <= K; c++ {
			if math.Abs(row[c]-tail[c]) > 1e-12 {
				t.Fatalf("r=%v q=%v: column %d = %v, P(S >= %d) = %v", r, q, c, row[c], c, tail[c])
			}
		}
		u := rapid.IntRange(2, 5).Draw(t, "u")
		kc := (K + u - 1) / u
		lo, hi := make([]float64, kc+1), make([]float64, kc+1)
		lo[0], hi[0] = 1, 1
		for n := range r {
			step(lo, r[n]/u, q[n], false)
			step(hi, (r[n]+u-1)/u, q[n], false)
		}
		m := probMargin(R, K) + probMargin(R, kc)
		for c := 1; c <= K; c++ {
			if cc := (c + u - 1) / u; row[c] < lo[cc]-m || row[c] > hi[cc]+m {
				t.Fatalf("r=%v q=%v u=%d: column %d = %v, outside [%v, %v]", r, q, u, c, row[c], lo[cc], hi[cc])
			}
		}
	})
}

// TestPropertyChangeLogKeepsQ: where the histogram's change log says no
// count in a running job's (elapsed, remaining] range changed (same),
// its Q is the same bit for bit in every bin — the claim that lets
// validate keep the job's rows without recomputing its Q. The log also
// has to say so often enough to matter, and never across more changes
// than it keeps.
func TestPropertyChangeLogKeepsQ(t *testing.T) {
	kept := 0
	rapid.Check(t, func(t *rapid.T) {
		s, err := ParseSpec("easy-probabilistic")
		if err != nil {
			t.Fatal(err)
		}
		s.Window = rapid.IntRange(1, 40).Draw(t, "window")
		c := NewClassic(s, FirstFit{})
		ps := c.prob
		job := func(i int32, est float64) *engine.Job {
			mj := model.NewJob(int64(i+1), 0, est, 1)
			mj.Own()
			return &engine.Job{Job: &mj, Index: i}
		}
		// A history of runs of one user, then a running job of it.
		for i := range rapid.IntRange(0, 60).Draw(t, "runs") {
			ps.ended(job(int32(i), 1), math.Ldexp(1, rapid.IntRange(0, 14).Draw(t, "run")))
		}
		w := job(1000, 1)
		d := c.d(w)
		d.est = math.Ldexp(1, rapid.IntRange(0, 15).Draw(t, "estexp")) * rapid.Float64Range(0.5, 1).Draw(t, "estfrac")
		d.pstart = 0
		now := math.Ldexp(rapid.Float64Range(0, 1).Draw(t, "elapsedfrac"), rapid.IntRange(0, 14).Draw(t, "elapsed"))
		ps.submitted(c, w)
		dist := ps.dist(w)
		qs := func() []float64 {
			var q []float64
			for i := range 18 {
				q = append(q, ps.q(c, now, w, pow2(i)))
			}
			return q
		}
		v0, before := dist.ver, qs()
		for i := range rapid.IntRange(1, 20).Draw(t, "changes") {
			ps.ended(job(int32(2000+i), 1), math.Ldexp(1, rapid.IntRange(0, 16).Draw(t, "newrun")))
		}
		rd := down(now - d.pstart)
		ru := up(d.est - rd)
		same := dist.same(v0, dist.ver, rd, ru)
		if dist.ver-v0 > len(dist.log) && same {
			t.Fatalf("the log keeps %d changes, but says nothing changed over %d", len(dist.log), dist.ver-v0)
		}
		if !same {
			return
		}
		if ru > 2*math.Max(rd, 1) {
			kept++ // a range of two keys or more: Q depends on its counts
		}
		for i, q := range qs() {
			if math.Float64bits(q) != math.Float64bits(before[i]) {
				t.Fatalf("bin %d: Q %v, was %v, and the log says no count in its range changed", i, q, before[i])
			}
		}
	})
	if kept == 0 {
		t.Fatal("the log never kept a Q")
	}
	t.Logf("%d Q kept", kept)
}

// TestPlanSplitsBySteps: plan covers every step once, in groups of
// probMinG to probG steps or alone; it groups runs of one-processor steps
// (each a chain through the row) and leaves wide ones alone (cheap one by
// one), as its cost estimates say, and never groups on rows of one
// column.
func TestPlanSplitsBySteps(t *testing.T) {
	ps := &probState{}
	for _, c := range []struct {
		rs   []int
		n    int
		want []int
	}{
		{[]int{1, 1, 1, 1, 1, 1, 1, 1, 1, 1}, 1025, []int{8, 1, 1}}, // two chains alone cost less than a group
		{[]int{64, 128, 256, 32}, 1025, []int{1, 1, 1, 1}},
		{[]int{1, 1, 1, 256, 256}, 1025, []int{5}}, // a group costs the same whatever its steps
		{[]int{1, 1}, 1025, []int{1, 1}},
		{[]int{1, 1, 1, 1}, 1, []int{1, 1, 1, 1}},
		{nil, 1025, nil},
	} {
		got := ps.plan(c.rs, c.n)
		if !slices.Equal(got, c.want) {
			t.Errorf("plan(%v, %d) = %v, want %v", c.rs, c.n, got, c.want)
		}
	}
	rapid.Check(t, func(t *rapid.T) {
		rs := rapid.SliceOf(rapid.IntRange(0, 300)).Draw(t, "rs")
		n := rapid.IntRange(1, 2000).Draw(t, "n")
		sum := 0
		for _, g := range ps.plan(rs, n) {
			if g != 1 && (g < probMinG || g > probG || n < 2) {
				t.Fatalf("plan(%v, %d): a group of %d", rs, n, g)
			}
			sum += g
		}
		if sum != len(rs) {
			t.Fatalf("plan(%v, %d) covers %d steps", rs, n, sum)
		}
	})
}
