package cloud

import (
	"slices"
)

// index is what the indexed scheduler keeps so that a scheduling instant
// does not scan every waiting job:
//
//   - the normal scan (§2.2) looks only at jobs dispatched since the last
//     normal scan and at jobs queued on VMs that became idle since then
//     (a job can start only when all its VMs are idle, and a VM becomes
//     idle only when a task ends or it finishes booting; after a normal
//     scan no waiting job can start), in the policy's order;
//   - migration (§2.3) counts and picks the jobs that fit the idle VMs
//     from per-size queues (sizes are bounded by the largest job);
//   - demand control (§2.4) picks starving jobs from per-size queues in
//     the order they began to starve.
//
// Its decisions are those of the reference scheduler, which scans every
// waiting job (Sim.naive; TestIndexedEqualsNaive compares them run by
// run).
type index struct {
	maxSize   int
	bySize    [][]*Job // queued jobs of each size, arrival order (lazy)
	head      []int
	nq        []int    // queued jobs of each size
	starvBy   [][]*Job // starving queued jobs of each size, starvation order (lazy)
	starvHead []int
	// starving: starving jobs queued or in the dispatcher;
	// starvingQueued: those queued.
	starving, starvingQueued int
	nextStarv                int
	fresh                    []*Job // dispatched since the last normal scan
	dirty                    []*VM  // became idle since the last normal scan
	cand                     []*Job
	epoch                    int
}

func (x *index) init(maxSize int) {
	x.maxSize = maxSize
	x.bySize = make([][]*Job, maxSize+1)
	x.head = make([]int, maxSize+1)
	x.nq = make([]int, maxSize+1)
	x.starvBy = make([][]*Job, maxSize+1)
	x.starvHead = make([]int, maxSize+1)
}

// queued: j was dispatched to the VM queues.
func (x *index) queued(j *Job) {
	x.nq[j.Size]++
	x.bySize[j.Size] = append(x.bySize[j.Size], j)
	j.ixq = true
	x.fresh = append(x.fresh, j)
	if j.ixs == 1 {
		// It began to starve in the dispatcher: into its size's starving
		// queue, in starvation order.
		j.ixs = 2
		x.starvingQueued++
		q := x.starvBy[j.Size]
		h := x.starvHead[j.Size]
		i, _ := slices.BinarySearchFunc(q[h:], j.starvSeq, func(a *Job, seq int) int { return a.starvSeq - seq })
		x.starvBy[j.Size] = slices.Insert(q, h+i, j)
	}
}

// starve: j (queued or in the dispatcher) entered demand control.
func (x *index) starve(j *Job) {
	j.starvSeq = x.nextStarv
	x.nextStarv++
	x.starving++
	if j.state == jQueued {
		j.ixs = 2
		x.starvingQueued++
		x.starvBy[j.Size] = append(x.starvBy[j.Size], j)
	} else {
		j.ixs = 1
	}
}

// leave: j left the queues (it starts or migrates).
func (x *index) leave(j *Job) {
	if j.ixq {
		j.ixq = false
		x.nq[j.Size]--
	}
	if j.ixs == 2 {
		j.ixs = 0
		x.starvingQueued--
		x.starving--
	}
}

// first returns the first live job of q from h on (nil if none), moving
// h past dead entries and compacting q when most of it is dead.
func first(q *[]*Job, h *int, live func(*Job) bool) *Job {
	for *h < len(*q) && !live((*q)[*h]) {
		(*q)[*h] = nil
		*h++
	}
	if *h > 64 && 2**h > len(*q) {
		n := copy(*q, (*q)[*h:])
		clear((*q)[n:])
		*q = (*q)[:n]
		*h = 0
	}
	if *h < len(*q) {
		return (*q)[*h]
	}
	return nil
}

func isQueued(j *Job) bool   { return j.ixq }
func isStarving(j *Job) bool { return j.ixs == 2 }

// head of the queued jobs of size k (the earliest arrival), or nil.
func (x *index) headOf(k int) *Job { return first(&x.bySize[k], &x.head[k], isQueued) }

// firstStarving is the starving queued job that began to starve first
// among those of at most idle tasks, or nil.
func (x *index) firstStarving(idle int) *Job {
	var best *Job
	for k := 1; k <= min(idle, x.maxSize); k++ {
		if j := first(&x.starvBy[k], &x.starvHead[k], isStarving); j != nil && (best == nil || j.starvSeq < best.starvSeq) {
			best = j
		}
	}
	return best
}

// enqueue puts a task of j in v's queue.
func enqueue(v *VM, j *Job) {
	v.queue = append(v.queue, j)
	v.nq++
}

// dequeue takes j's task out of v's queue: at once when it is the last
// entry, else lazily (its entry stays until the queue is compacted; a
// job's entry is live while the job is queued, and only j is leaving).
func dequeue(v *VM, j *Job) {
	v.nq--
	if n := len(v.queue); n > 0 && v.queue[n-1] == j {
		v.queue[n-1] = nil
		v.queue = v.queue[:n-1]
		return
	}
	if len(v.queue) > 2*v.nq+16 {
		kept := v.queue[:0]
		for _, x := range v.queue {
			if x != j && x.state == jQueued {
				kept = append(kept, x)
			}
		}
		clear(v.queue[len(kept):])
		v.queue = kept
	}
}

func (s *Sim) markDirty(v *VM) {
	if !v.dirty {
		v.dirty = true
		s.ix.dirty = append(s.ix.dirty, v)
	}
}

// scheduleIndexed is schedule with the index: same decisions, without a
// scan of every waiting job.
func (s *Sim) scheduleIndexed() {
	s.dispatch()
	x := &s.ix
	if x.starving > 0 {
		if x.starvingQueued == 0 {
			s.PausedByDispatcher++
		}
		// §2.4: starving jobs in the order they began to starve; one with
		// more tasks than idle VMs can neither start nor migrate, and the
		// idle VMs only get fewer during the pass.
		idle := s.idleCount()
		if s.p.Migration != "none" {
			for {
				j := x.firstStarving(idle)
				if j == nil {
					break
				}
				if s.canStart(j) {
					s.start(j)
				} else {
					s.migrate(j)
				}
				idle -= j.Size
			}
		} else {
			c := x.cand[:0]
			for k := 1; k <= min(idle, x.maxSize); k++ {
				for _, j := range x.starvBy[k][x.starvHead[k]:] {
					if isStarving(j) {
						c = append(c, j)
					}
				}
			}
			slices.SortFunc(c, func(a, b *Job) int { return a.starvSeq - b.starvSeq })
			for _, j := range c {
				if j.Size <= idle && s.canStart(j) {
					s.start(j)
					idle -= j.Size
				}
			}
			clear(c)
			x.cand = c[:0]
		}
	} else {
		// The candidates: fresh jobs and jobs on VMs that became idle.
		x.epoch++
		c := x.cand[:0]
		add := func(j *Job) {
			if j.state == jQueued && j.mark != x.epoch {
				j.mark = x.epoch
				c = append(c, j)
			}
		}
		for _, j := range x.fresh {
			add(j)
		}
		for _, v := range x.dirty {
			v.dirty = false
			if v.idle(s.now) {
				for _, j := range v.queue {
					add(j)
				}
			}
		}
		clear(x.fresh)
		x.fresh = x.fresh[:0]
		clear(x.dirty)
		x.dirty = x.dirty[:0]
		s.sortPolicy(c)
		started := 0
		for _, j := range c {
			if s.canStart(j) {
				s.start(j)
				started++
			}
		}
		clear(c)
		x.cand = c[:0]
		if started == 0 && s.p.Migration != "none" {
			s.migrationsIndexed()
		}
	}
	s.releaseIdle()
}

// sortPolicy sorts jobs in the policy's scan order: arrival (AFCFS), or
// largest first, then arrival (LJFS).
func (s *Sim) sortPolicy(c []*Job) {
	if s.p.Policy == "ljfs" {
		slices.SortFunc(c, func(a, b *Job) int {
			if a.Size != b.Size {
				return b.Size - a.Size
			}
			return a.seq - b.seq
		})
		return
	}
	slices.SortFunc(c, func(a, b *Job) int { return a.seq - b.seq })
}

// better: a is preferred to b (nil) by the migration rule: first-fit
// under AFCFS takes the earliest; LJFS and best-fit the largest, then the
// earliest.
func (s *Sim) better(a, b *Job) bool {
	if b == nil {
		return true
	}
	if s.p.Policy == "ljfs" || s.p.Migration == "best-fit" {
		if a.Size != b.Size {
			return a.Size > b.Size
		}
	}
	return a.seq < b.seq
}

// pickTasksReading is the job the rule picks among those that fit the
// idle VMs and have fewer than MonitorLimit tasks to move. A job of fewer
// tasks than the limit always qualifies (the per-size queues' heads); a
// larger one needs some of its VMs idle, so it is queued on an idle VM.
func (s *Sim) pickTasksReading(idle int) *Job {
	x := &s.ix
	lim := s.p.MonitorLimit
	var pick *Job
	for k := 1; k <= min(idle, lim-1); k++ {
		if j := x.headOf(k); j != nil && s.better(j, pick) {
			pick = j
		}
	}
	if idle < lim {
		return pick
	}
	for _, v := range s.pool {
		if !v.idle(s.now) {
			continue
		}
		for _, j := range v.queue {
			if j.state == jQueued && j.Size >= lim && j.Size <= idle && s.better(j, pick) && s.toMove(j) < lim {
				pick = j
			}
		}
	}
	return pick
}

// migrationsIndexed is migrations (§2.3) on the per-size queues.
func (s *Sim) migrationsIndexed() {
	x := &s.ix
	for {
		idle := min(s.idleCount(), x.maxSize)
		var pick *Job
		if s.p.Monitor == "tasks" && s.p.MonitorLimit > 0 {
			pick = s.pickTasksReading(idle)
		} else {
			n := 0
			for k := 1; k <= idle; k++ {
				n += x.nq[k]
			}
			if n == 0 || (s.p.MonitorLimit > 0 && n >= s.p.MonitorLimit) {
				return
			}
			if s.p.Policy == "ljfs" || s.p.Migration == "best-fit" {
				// The largest that fits, earliest first.
				for k := idle; k >= 1 && pick == nil; k-- {
					if x.nq[k] > 0 {
						pick = x.headOf(k)
					}
				}
			} else {
				// AFCFS first-fit: the earliest that fits.
				for k := 1; k <= idle; k++ {
					if j := x.headOf(k); j != nil && (pick == nil || j.seq < pick.seq) {
						pick = j
					}
				}
			}
		}
		if pick == nil {
			return
		}
		s.migrate(pick)
	}
}
