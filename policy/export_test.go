package policy

// NewClassicListed is NewClassic keeping its waiting jobs in a list
// sorted at every pass, never in an index (for tests: the index must make
// the same decisions).
func NewClassicListed(s Spec, sel NodeSelector) *Classic {
	c := NewClassic(s, sel)
	c.idx, c.kt, c.capx = nil, nil, nil
	return c
}

// NewClassicPlain is NewClassic whose depth=all placements search the
// profile plainly, without bounds (for tests: the bounds must change no
// decision).
func NewClassicPlain(s Spec, sel NodeSelector) *Classic {
	c := NewClassic(s, sel)
	c.all.plain = true
	return c
}

// VerifyClassicFit hands every depth=all placement's answer, with the
// plain search's, to f (nil: stop).
func VerifyClassicFit(f func(now, dur float64, procs int, bounded, plain float64)) {
	classicVerifyFit = f
}

// VerifyProbRows makes probabilistic backfilling hand every bottleneck
// row it reads, with the row computed afresh, to f (nil: stop).
func VerifyProbRows(f func(row, fresh []float64)) { probVerify = f }

// SetProbMemo turns probabilistic backfilling's memo of refused
// candidates on or off.
func SetProbMemo(on bool) { probNoMemo = !on }

// SetProbBounds turns probabilistic backfilling's bounds on the
// bottlenecks on or off (off: every bin's row computed in turn).
func SetProbBounds(on bool) { probNoBounds = !on }

// SetProbCoarse sets the columns of probabilistic backfilling's coarse
// rows (0: off) and whether they are taken wherever a row is wanted,
// cheaper or not; it returns a function that restores the defaults.
func SetProbCoarse(cols int, always bool) func() {
	probNoCoarse, probCoarseAlways = cols == 0, always
	if cols > 0 {
		probCoarse = cols
	}
	return func() { probNoCoarse, probCoarseAlways, probCoarse = false, false, 64 }
}

// VerifyProbBound hands every pair of bounds probabilistic backfilling
// takes (kind: "coarse" from its coarse rows, "earlier" from earlier
// candidates', "left" every bin's after a decision), with the bottleneck
// from the row afresh, to f (nil: stop).
func VerifyProbBound(f func(kind string, lo, hi, fresh float64)) { probVerifyBound = f }

// VerifyProbChance hands every decision probabilistic backfilling makes
// from bounds, with the decision of pyss's sum, to f (nil: stop).
func VerifyProbChance(f func(bounded, sum bool)) { probVerifyChance = f }

// FitClass is fitClass.
func FitClass(procs int, dur float64) (k, P int, D float64, ok bool) { return fitClass(procs, dur) }

// FitDC is fitDC.
const FitDC = fitDC

// PendLen is the number of jobs c's consult=pyss decisions started that
// wait for processors still held in the engine (tests).
func PendLen(c *Classic) int { return len(c.pend) }

// SetProbCopyFloats sets the values a row's stored copies stay under (so
// that the steps between copies grow on the tests' small platforms); it
// returns a function that restores the default.
func SetProbCopyFloats(n int) func() {
	probCPFloats = n
	return func() { probCPFloats = 1 << 16 }
}
