package policy

// resProfile is the availability profile of conservative backfilling
// (issue 30): a flatProfile while it is small, a treeProfile once it
// grows past treeAbove points, a flatProfile again below flatBelow. Both
// hold the same step function and answer every query alike
// (TestPropertyTreeProfileEqualsFlat, TestPropertyResProfileSwitches), so
// the schedule does not depend on which one holds it at a given moment.
//
// Why both: a walk in the flat array is a step through contiguous memory
// and an update moves the points after it, so it is the faster of the two
// while the profile holds up to a few hundred points — every shared trace,
// and the overloaded workloads up to about 10⁵ jobs (BENCHMARKS.md,
// "Issue 30"). Past that the flat array's O(points) insertions and walks
// grow with the queue, and the tree's O(chunk + log n) take over.
type resProfile struct {
	Base int
	flat *flatProfile // nil while tree holds the profile
	tree *treeProfile

	treeAbove, flatBelow int // switch points (tests set smaller ones)
	chunk                int // chunk size of the tree
}

// Switch points: the tree from 1,024 points on, the flat array again
// under 256 (apart, so a profile near one of them does not switch back
// and forth).
const (
	resTreeAbove = 1024
	resFlatBelow = 256
)

func newResProfile() *resProfile {
	return &resProfile{flat: newFlatProfile(), treeAbove: resTreeAbove, flatBelow: resFlatBelow, chunk: chunkMax}
}

// Len is the number of time points.
func (p *resProfile) Len() int {
	if p.flat != nil {
		return p.flat.Len()
	}
	return p.tree.Len()
}

// fit moves the points to the other structure when the profile has
// crossed a switch point.
func (p *resProfile) fit() {
	if f := p.flat; f != nil {
		if len(f.p) <= p.treeAbove {
			return
		}
		t := newTreeProfile(p.chunk)
		h := max(p.chunk/2, 1)
		for k := 0; k < len(f.p); k += h {
			base := 0
			if k > 0 {
				base = f.p[k-1].s
			}
			ch := pchunk{p: make([]fpoint, 0, p.chunk)}
			for _, q := range f.p[k:min(k+h, len(f.p))] {
				ch.p = append(ch.p, fpoint{t: q.t, s: q.s - base})
			}
			ch.bounds()
			t.ch = append(t.ch, ch)
		}
		t.n = len(f.p)
		t.rebuild()
		p.flat, p.tree = nil, t
		return
	}
	if t := p.tree; t.n < p.flatBelow {
		f := newFlatProfile()
		f.p = make([]fpoint, 0, t.n)
		acc := 0
		for c := range t.ch {
			for _, q := range t.ch[c].p {
				f.p = append(f.p, fpoint{t: q.t, s: acc + q.s})
			}
			acc += t.ch[c].sum()
		}
		p.flat, p.tree = f, nil
	}
}

// Add adds d to the delta at time x.
func (p *resProfile) Add(x float64, d int) {
	if p.flat != nil {
		p.flat.Add(x, d)
	} else {
		p.tree.Add(x, d)
	}
	p.fit()
}

// Reserve subtracts procs over [start, end).
func (p *resProfile) Reserve(start, end float64, procs int) {
	if p.flat != nil {
		p.flat.Reserve(start, end, procs)
	} else {
		p.tree.Reserve(start, end, procs)
	}
	p.fit()
}

// Unreserve undoes Reserve(start, end, procs).
func (p *resProfile) Unreserve(start, end float64, procs int) {
	if p.flat != nil {
		p.flat.Unreserve(start, end, procs)
	} else {
		p.tree.Unreserve(start, end, procs)
	}
	p.fit()
}

// Value is free(x).
func (p *resProfile) Value(x float64) int {
	if p.flat != nil {
		p.flat.Base = p.Base
		return p.flat.Value(x)
	}
	p.tree.Base = p.Base
	return p.tree.Value(x)
}

// MaxOver is the largest value of free(t) for t in [from, to).
func (p *resProfile) MaxOver(from, to float64) int {
	if p.flat != nil {
		p.flat.Base = p.Base
		return p.flat.MaxOver(from, to)
	}
	p.tree.Base = p.Base
	return p.tree.MaxOver(from, to)
}

// EarliestFit is Profile.EarliestFit.
func (p *resProfile) EarliestFit(from, dur float64, need int) float64 {
	if p.flat != nil {
		p.flat.Base = p.Base
		return p.flat.EarliestFit(from, dur, need)
	}
	p.tree.Base = p.Base
	return p.tree.EarliestFit(from, dur, need)
}

// EarliestFitBefore is Profile.EarliestFitBefore.
func (p *resProfile) EarliestFitBefore(from, dur float64, need int, limit float64) float64 {
	return p.EarliestFitIn(from, limit, dur, need, limit)
}

// EarliestFitIn is Profile.EarliestFitIn.
func (p *resProfile) EarliestFitIn(from, to, dur float64, need int, limit float64) float64 {
	if p.flat != nil {
		p.flat.Base = p.Base
		return p.flat.EarliestFitIn(from, to, dur, need, limit)
	}
	p.tree.Base = p.Base
	return p.tree.EarliestFitIn(from, to, dur, need, limit)
}
