package simulate

import (
	"math"

	"github.com/gridsched/gridsched/metrics"
	"github.com/gridsched/gridsched/system"
)

// core reads the core metrics (package system registers their names and
// units) from an engine run's summary.
var core = map[string]func(*metrics.Summary) float64{
	"mean_wait":       func(s *metrics.Summary) float64 { return s.Wait.Mean },
	"median_wait":     func(s *metrics.Summary) float64 { return s.Wait.Median },
	"p95_wait":        func(s *metrics.Summary) float64 { return s.Wait.P95 },
	"max_wait":        func(s *metrics.Summary) float64 { return s.Wait.Max },
	"mean_response":   func(s *metrics.Summary) float64 { return s.Response.Mean },
	"median_response": func(s *metrics.Summary) float64 { return s.Response.Median },
	"mean_bsld":       func(s *metrics.Summary) float64 { return s.BSLD.Mean },
	"median_bsld":     func(s *metrics.Summary) float64 { return s.BSLD.Median },
	"p95_bsld":        func(s *metrics.Summary) float64 { return s.BSLD.P95 },
	"max_bsld":        func(s *metrics.Summary) float64 { return s.BSLD.Max },
	"utilization":     func(s *metrics.Summary) float64 { return s.Utilization },
	"makespan":        func(s *metrics.Summary) float64 { return s.Makespan },
	"throughput":      func(s *metrics.Summary) float64 { return s.Throughput },
	"jobs":            func(s *metrics.Summary) float64 { return float64(s.Jobs) },
	"killed":          func(s *metrics.Summary) float64 { return float64(s.Killed) },
}

// MetricValues extracts every registered metric from an engine run's
// summary: the core ones from its fields, the systems' from its Extra. A
// metric the run does not have is absent, and so is every per-job metric
// when no job ran to an end (no wait, no slowdown: not 0).
func MetricValues(s *metrics.Summary) map[string]float64 {
	keys := system.MetricKeys()
	m := make(map[string]float64, len(keys))
	ended := s.Completed+s.Killed > 0
	for _, k := range keys {
		info, _ := system.MetricInfo(k)
		if !ended && info.PerJob {
			continue
		}
		v := math.NaN()
		if get, ok := core[k]; ok {
			v = get(s)
		} else if x, ok := s.Extra[k]; ok {
			v = x
		}
		if !math.IsNaN(v) {
			m[k] = v
		}
	}
	return m
}
