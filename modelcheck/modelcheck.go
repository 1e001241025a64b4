// Package modelcheck is the system that checks a workload generator
// against its own model (seed 004): its one policy, check-grid-model,
// simulates nothing; it measures the jobs the experiment generated with
// the grid model (workload.model: grid) against the distributions of
// that model's parameters — Kolmogorov statistics of the runtimes,
// inter-arrival times, estimate and deadline factors and migration costs
// — and figure 7's window statistics, as metrics a sweep stores and the
// verdict engine bounds (claims with at_most).
package modelcheck

import (
	"fmt"
	"math"

	"github.com/gridsched/gridsched/gen"
	"github.com/gridsched/gridsched/metrics"
	"github.com/gridsched/gridsched/system"
)

// Policy is the system's one policy.
const Policy = "check-grid-model"

func init() {
	nan := math.NaN()
	ks := func(key, what string) system.Metric {
		return system.Metric{Key: key, Name: "Kolmogorov statistic √n·D of the " + what, Unit: "ratio", LowerIsBetter: true, Min: 0, Max: nan}
	}
	system.Register(&system.System{
		Name:        "model-check",
		Description: "seed 004: the generated jobs measured against the grid model of their parameters (no simulation)",
		Order:       90,
		Policies:    []system.Policy{{Name: Policy, Description: "measure a grid-model workload against its model: Kolmogorov statistics and figure 7's windows (no simulation)"}},
		Metrics: []system.Metric{
			ks("ks_runtime", "runtimes against the model's hyper-gamma (randomized PIT)"),
			ks("ks_interarrival", "inter-arrival times against Γ(arr_shape, arr_scale) × s"),
			ks("ks_estimate", "estimate factors against U[e1, e2]"),
			ks("ks_deadline", "deadline factors against U[deadline_b1, deadline_b2]"),
			ks("ks_migration", "pure migration costs against U[d1, d2]"),
			{Key: "fig7_runtime_cv", Name: "median runtime CV of 10 consecutive jobs", Unit: "ratio", Min: 0, Max: nan},
			{Key: "fig7_span_cv", Name: "median deadline-span CV of 10 consecutive jobs (e = 1)", Unit: "ratio", Min: 0, Max: nan},
			{Key: "fig7_runtime_range", Name: "median runtime range of 10 consecutive jobs", Unit: "s", Min: 0, Max: nan},
			{Key: "fig7_span_range", Name: "median deadline-span range of 10 consecutive jobs (e = 1)", Unit: "s", Min: 0, Max: nan},
			{Key: "fig7_close", Name: "windows of 10 consecutive jobs with runtime CV < 0.5", Unit: "fraction", Min: 0, Max: 1},
		},
		Simulate: simulate,
	})
}

// simulate measures the run's jobs against the grid model that made them.
func simulate(in system.LoopInput, _ any) (*system.Outcome, error) {
	p, ok := in.Model.(*gen.GridParams)
	if !ok || p == nil {
		return nil, fmt.Errorf("%s measures jobs of the grid model: use it in an experiment with workload.model: grid", Policy)
	}
	c := gen.CheckGrid(*p, in.Jobs, in.Seed)
	m := map[string]float64{
		"ks_runtime": c.Runtime, "ks_interarrival": c.InterArrival, "ks_estimate": c.Estimate,
		"ks_deadline": c.Deadline, "ks_migration": c.Migration,
		"fig7_runtime_cv": c.Fig7.RuntimeCV, "fig7_span_cv": c.Fig7.SpanCV,
		"fig7_runtime_range": c.Fig7.RuntimeRange, "fig7_span_range": c.Fig7.SpanRange,
	}
	if c.Fig7.Windows > 0 {
		m["fig7_close"] = float64(c.Fig7.Close) / float64(c.Fig7.Windows)
	}
	for k, v := range m {
		if math.IsNaN(v) {
			delete(m, k) // not measured (a point distribution, too few jobs): absent, not 0
		}
	}
	sum := metrics.Summary{Policy: in.Policy, Workload: in.Workload, Platform: "none (the jobs are measured, not simulated)", Jobs: len(in.Jobs), Skipped: map[string]int{}, Extra: m}
	return &system.Outcome{Summary: sum, Metrics: m}, nil
}
