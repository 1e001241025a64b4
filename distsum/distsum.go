// Package distsum summarises a sample: minimum, mean, median, 95th
// percentile and maximum, with gonum's empirical quantiles. Both the run
// metrics and the workload statistics use it, so a "median" means the same
// everywhere.
package distsum

import (
	"math"
	"slices"
	"unsafe"

	"gonum.org/v1/gonum/stat"
)

// Summary of a sample. All zero for an empty sample.
type Summary struct {
	Min    float64 `json:"min"`
	Mean   float64 `json:"mean"`
	Median float64 `json:"median"`
	P95    float64 `json:"p95"`
	Max    float64 `json:"max"`
}

// Of summarises x, sorting it in place. Quantiles are empirical: the
// smallest sample value with at least that fraction of the sample at or
// below it.
//
// The mean is summed over the sorted sample (gonum's sum is
// order-dependent in the last bits), so quantiles found by selection
// would change the mean's printed digits; a large sample is sorted by
// radix instead (issue 30: O(n), a third of the comparison sort's time on
// a run's 10⁵–10⁶ waits), into the same order.
func Of(x []float64) Summary {
	var s Scratch
	return s.Of(x)
}

// Scratch is the radix sort's buffer, kept from one sort to the next
// (Summarize sorts three samples of a run's size in turn: one buffer, not
// three, at the end of a run that the collector has not yet had a chance
// to reclaim). The zero value is ready; not safe for concurrent use.
type Scratch struct{ buf []uint64 }

// Of is the package's Of sorting with s's buffer.
func (s *Scratch) Of(x []float64) Summary {
	if len(x) == 0 {
		return Summary{}
	}
	s.Sort(x)
	return Summary{
		Min: x[0], Max: x[len(x)-1], Mean: stat.Mean(x, nil),
		Median: stat.Quantile(0.5, stat.Empirical, x, nil),
		P95:    stat.Quantile(0.95, stat.Empirical, x, nil),
	}
}

// radixMin is the sample size from which Sort sorts by radix.
const radixMin = 2048

// Sort sorts x in increasing order, as slices.Sort does: a sample of
// radixMin values or more without NaN by an LSD radix sort over the
// float's bits (eight passes of a byte, a pass skipped where every value
// has the same byte), the rest by slices.Sort. Values that compare equal
// have the same bits except −0 and +0, which the radix sort puts in that
// order.
func Sort(x []float64) {
	var s Scratch
	s.Sort(x)
}

// Sort is the package's Sort with s's buffer.
func (s *Scratch) Sort(x []float64) {
	if len(x) < radixMin {
		slices.Sort(x)
		return
	}
	// The keys live in x itself: the float's bits, the sign flipped for
	// positive values and every bit for negative ones, order as unsigned
	// integers as the floats do.
	for _, v := range x {
		if v != v {
			slices.Sort(x) // NaN: slices.Sort's order (first)
			return
		}
	}
	keys := unsafe.Slice((*uint64)(unsafe.Pointer(&x[0])), len(x))
	for i, v := range x {
		b := math.Float64bits(v)
		if b>>63 == 1 {
			b = ^b
		} else {
			b |= 1 << 63
		}
		keys[i] = b
	}
	if cap(s.buf) < len(x) {
		s.buf = make([]uint64, len(x))
	}
	src, dst := keys, s.buf[:len(x)]
	for shift := 0; shift < 64; shift += 8 {
		var count [256]int
		for _, k := range src {
			count[byte(k>>shift)]++
		}
		if count[byte(src[0]>>shift)] == len(src) {
			continue
		}
		pos := 0
		for i, c := range count {
			count[i] = pos
			pos += c
		}
		for _, k := range src {
			b := byte(k >> shift)
			dst[count[b]] = k
			count[b]++
		}
		src, dst = dst, src
	}
	for i, k := range src {
		if k>>63 == 1 {
			k &^= 1 << 63
		} else {
			k = ^k
		}
		keys[i] = k // src may be keys itself: each element is read before written
	}
}
