// Package distsum summarises a sample: minimum, mean, median, 95th
// percentile and maximum, with gonum's empirical quantiles. Both the run
// metrics and the workload statistics use it, so a "median" means the same
// everywhere.
package distsum

import (
	"slices"

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
func Of(x []float64) Summary {
	if len(x) == 0 {
		return Summary{}
	}
	slices.Sort(x)
	return Summary{
		Min: x[0], Max: x[len(x)-1], Mean: stat.Mean(x, nil),
		Median: stat.Quantile(0.5, stat.Empirical, x, nil),
		P95:    stat.Quantile(0.95, stat.Empirical, x, nil),
	}
}
