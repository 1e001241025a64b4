package system

import "math"

var nan = math.NaN()

// The core metrics: every engine run reports them (package metrics'
// Summary). Systems register their own with Register.
func init() {
	for _, m := range []Metric{
		{Key: "mean_wait", Name: "mean wait", Unit: "s", LowerIsBetter: true, Min: 0, Max: nan, PerJob: true},
		{Key: "median_wait", Name: "median wait", Unit: "s", LowerIsBetter: true, Min: 0, Max: nan, PerJob: true},
		{Key: "p95_wait", Name: "95th-percentile wait", Unit: "s", LowerIsBetter: true, Min: 0, Max: nan, PerJob: true},
		{Key: "max_wait", Name: "maximum wait", Unit: "s", LowerIsBetter: true, Min: 0, Max: nan, PerJob: true},
		{Key: "mean_response", Name: "mean response time", Unit: "s", LowerIsBetter: true, Min: 0, Max: nan, PerJob: true},
		{Key: "median_response", Name: "median response time", Unit: "s", LowerIsBetter: true, Min: 0, Max: nan, PerJob: true},
		{Key: "mean_bsld", Name: "mean bounded slowdown", Unit: "ratio", LowerIsBetter: true, Min: 1, Max: nan, PerJob: true},
		{Key: "median_bsld", Name: "median bounded slowdown", Unit: "ratio", LowerIsBetter: true, Min: 1, Max: nan, PerJob: true},
		{Key: "p95_bsld", Name: "95th-percentile bounded slowdown", Unit: "ratio", LowerIsBetter: true, Min: 1, Max: nan, PerJob: true},
		{Key: "max_bsld", Name: "maximum bounded slowdown", Unit: "ratio", LowerIsBetter: true, Min: 1, Max: nan, PerJob: true},
		{Key: "utilization", Name: "utilization", Unit: "fraction of processors", Min: 0, Max: 1, PerJob: true},
		{Key: "makespan", Name: "makespan", Unit: "s", LowerIsBetter: true, Min: 0, Max: nan, PerJob: true},
		{Key: "throughput", Name: "throughput", Unit: "jobs/hour", Min: 0, Max: nan, PerJob: true},
		{Key: "jobs", Name: "jobs", Unit: "count", Min: 0, Max: nan},
		{Key: "killed", Name: "killed jobs", Unit: "count", LowerIsBetter: true, Min: 0, Max: nan},
	} {
		registerMetric(m)
	}
}
