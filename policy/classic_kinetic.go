package policy

import (
	"math"

	"github.com/gridsched/gridsched/engine"
)

// ktour is a kinetic tournament over the waiting jobs of a linear dynamic
// order (wfp3, unicep, slowdown): it answers "which job is the queue head
// now" without sorting the queue. Each job's key is −(now − submit) ×
// slope (dynSlope): one rounding of a linear function of time, so two
// jobs' order flips at most once while they wait, around the time their
// lines cross. Every match of the tournament tree (a complete binary tree
// over slots) keeps its winner at the time it was played and a
// certificate: a time before which that result cannot change. A query at
// now replays only the matches whose certificate has passed, bottom up,
// with the exact comparison the sorted list uses (key, then enqueue
// order), so the head is exactly the list's first job. Certificates are
// conservative: a match is replayed at every later query while its two
// keys are within a relative 1e-12 of each other (a float tie, or a
// crossing too close to tell), and otherwise before the time at which
// they could come that close; jobs with the same submit time and slope tie
// forever (enqueue order) and are never replayed. With n waiting jobs a
// query, an insertion and a removal cost O(log n) plus O(log n) per
// replayed match; over a run a pair of jobs is replayed about once per
// crossing.
type ktour struct {
	c    *Classic
	cap  int
	job  []*engine.Job // per slot (leaves cap..2cap-1 are slots 0..cap-1)
	sub  []float64     // per slot: submit time
	a    []float64     // per slot: slope
	seq  []int64
	win  []int32   // per tree node: winning slot, -1 none (leaves: their slot or -1)
	cert []float64 // per internal node: the match's certificate
	minC []float64 // per tree node: smallest certificate in its subtree
	slot []int32   // per job index: slot+1, 0 if not queued
	free []int32
	n    int
	at   float64 // time the tree is valid at
}

const kappa = 1e-12

func newKtour(c *Classic) *ktour {
	t := &ktour{c: c, at: math.Inf(-1)}
	t.grow(64)
	return t
}

func (t *ktour) grow(capacity int) {
	old := t
	nt := ktour{c: t.c, cap: capacity, at: t.at, slot: t.slot}
	nt.job = make([]*engine.Job, capacity)
	nt.sub = make([]float64, capacity)
	nt.a = make([]float64, capacity)
	nt.seq = make([]int64, capacity)
	nt.win = make([]int32, 2*capacity)
	nt.cert = make([]float64, capacity)
	nt.minC = make([]float64, 2*capacity)
	for i := range nt.win {
		nt.win[i] = -1
		nt.minC[i] = math.Inf(1)
	}
	for i := capacity - 1; i >= old.cap; i-- {
		nt.free = append(nt.free, int32(i))
	}
	for i := 0; i < old.cap; i++ {
		if j := old.job[i]; j != nil {
			nt.job[i], nt.sub[i], nt.a[i], nt.seq[i] = j, old.sub[i], old.a[i], old.seq[i]
			nt.win[capacity+i] = int32(i)
		}
	}
	nt.free = append(nt.free, old.free...)
	nt.n = old.n
	*t = nt
	for k := capacity - 1; k >= 1; k-- {
		t.play(k)
	}
}

// key is slot s's order key at the tree's time.
func (t *ktour) key(s int32) float64 { return -(t.at - t.sub[s]) * t.a[s] }

// beats: slot x comes before slot y at the tree's time.
func (t *ktour) beats(x, y int32) bool {
	kx, ky := t.key(x), t.key(y)
	return kx < ky || (kx == ky && t.seq[x] < t.seq[y])
}

// play replays match k at the tree's time.
func (t *ktour) play(k int) {
	l, r := t.win[2*k], t.win[2*k+1]
	c := math.Inf(1)
	switch {
	case l < 0:
		t.win[k] = r
	case r < 0:
		t.win[k] = l
	default:
		w, o := l, r
		if t.beats(r, l) {
			w, o = r, l
		}
		t.win[k] = w
		c = t.certify(w, o)
	}
	t.cert[k] = c
	t.minC[k] = min(c, t.minC[2*k], t.minC[2*k+1])
}

// certify returns a time before which winner w stays ahead of o. In
// priority terms (p = wait × slope, larger first) w is safe while
// p_w − p_o > κ (p_w + p_o), a linear function of time.
func (t *ktour) certify(w, o int32) float64 {
	if t.sub[w] == t.sub[o] && t.a[w] == t.a[o] {
		return math.Inf(1) // identical keys for ever: enqueue order
	}
	now := t.at
	s0 := (now-t.sub[w])*t.a[w]*(1-kappa) - (now-t.sub[o])*t.a[o]*(1+kappa)
	if !(s0 > 0) {
		return now // too close to call: replay at any later query
	}
	s1 := t.a[w]*(1-kappa) - t.a[o]*(1+kappa)
	if s1 >= 0 {
		return math.Inf(1)
	}
	d := 0.999 * (s0 / -s1)
	c := now + d
	// Rounded down: at a clock whose spacing is near d (2^52 s: 1 s) the
	// sum can round up past the crossing, and a match not replayed
	// there keeps a stale winner. c − now is exact (c is within a
	// factor 2 of now, or now is 0).
	for c > now && c-now > d {
		c = math.Nextafter(c, math.Inf(-1))
	}
	return max(c, now)
}

// advance brings every match to time now.
func (t *ktour) advance(now float64) {
	if now == t.at {
		return
	}
	t.at = now
	if t.minC[1] < now {
		t.refresh(1)
	}
}

func (t *ktour) refresh(k int) {
	if k >= t.cap || t.minC[k] >= t.at {
		return
	}
	t.refresh(2 * k)
	t.refresh(2*k + 1)
	t.play(k)
}

func (t *ktour) fix(s int32) {
	for k := (t.cap + int(s)) / 2; k >= 1; k /= 2 {
		t.play(k)
	}
}

// insert queues j at now.
func (t *ktour) insert(j *engine.Job, now float64, seq int64, slope float64) {
	t.advance(now)
	if len(t.free) == 0 {
		t.grow(2 * t.cap)
	}
	s := t.free[len(t.free)-1]
	t.free = t.free[:len(t.free)-1]
	t.job[s], t.sub[s], t.a[s], t.seq[s] = j, j.Submit, slope, seq
	t.win[t.cap+int(s)] = s
	if int(j.Index) >= len(t.slot) {
		t.slot = growTo(t.slot, int(j.Index)+1, 0)
	}
	t.slot[j.Index] = s + 1
	t.n++
	t.fix(s)
}

// remove drops j (if queued) at now.
func (t *ktour) remove(j *engine.Job, now float64) {
	if int(j.Index) >= len(t.slot) || t.slot[j.Index] == 0 {
		return
	}
	t.advance(now)
	s := t.slot[j.Index] - 1
	t.slot[j.Index] = 0
	t.job[s] = nil
	t.win[t.cap+int(s)] = -1
	t.free = append(t.free, s)
	t.n--
	t.fix(s)
}

// head is the first job in queue order at now (nil if none).
func (t *ktour) head(now float64) *engine.Job {
	t.advance(now)
	if w := t.win[1]; w >= 0 {
		return t.job[w]
	}
	return nil
}
