package reservation

import (
	"fmt"
	"math"

	"github.com/gridsched/gridsched/engine"
	"github.com/gridsched/gridsched/sim"
	"github.com/gridsched/gridsched/system"
)

// FailureParams make one random node fail for good (seed 000, figure 13)
// at σ times the reservation horizon (the latest end lt of any
// reservation request: an upper bound on the last reservation's
// completion, which the paper uses but which cannot be known in advance).
// The node is drawn per replication (stream "failure/node").
type FailureParams struct {
	Sigma float64 `yaml:"sigma" json:"sigma" range:"(0,1]"`
}

// The advance-reservation system of seed 000: the policies drrm, srrm-r,
// srrm-m and srrm-m-running (registered in package policy by this
// package), the section "failure" (a resource failure) and §3.1's
// metrics.
func init() {
	nan := math.NaN()
	system.Register(&system.System{
		Name:        "reservation",
		Description: "advance reservations on the resource–reservation graph, DRRM against SRRM (seed 000)",
		Order:       10,
		Section:     "failure",
		ParamLabels: map[string]string{"sigma": "failure time ratio σ (share of the horizon)"},
		NewParams:   func() any { return &FailureParams{} },
		Prepare: func(v any, _ func(string) string) (any, error) {
			p := *v.(*FailureParams)
			if !(p.Sigma > 0 && p.Sigma <= 1) {
				return nil, fmt.Errorf("sigma: want a fraction in (0, 1], got %g", p.Sigma)
			}
			return &p, nil
		},
		Policies: policies(),
		Metrics: []system.Metric{
			{Key: "ap", Name: "admission rate AP", Unit: "fraction of requests", Min: 0, Max: 1},
			{Key: "pp", Name: "preemption rate PP", Unit: "fraction of admitted", LowerIsBetter: true, Min: 0, Max: 1},
			{Key: "pp_zero", Name: "preemptions of a task that ran 0 s", Unit: "fraction of admitted", LowerIsBetter: true, Min: 0, Max: 1},
			{Key: "tpc", Name: "preemption cost TPC", Unit: "cost units", LowerIsBetter: true, Min: 0, Max: nan},
			{Key: "eta", Name: "failure rate η", Unit: "fraction of admitted", LowerIsBetter: true, Min: 0, Max: 1},
			{Key: "idle_start", Name: "reservations starting on an idle resource", Unit: "fraction of admitted", Min: 0, Max: 1},
			{Key: "start_waited", Name: "reservations that waited for a task instead of preempting", Unit: "fraction of admitted", Min: 0, Max: 1},
			{Key: "start_free", Name: "reservations starting where a reservation kept the resource free", Unit: "fraction of admitted", Min: 0, Max: 1},
			{Key: "task_busy", Name: "resources busy with tasks at a request", Unit: "fraction", Min: 0, Max: 1},
			{Key: "failed", Name: "failed reservations", Unit: "count", LowerIsBetter: true, Min: 0, Max: nan},
			{Key: "pending_at_failure", Name: "reservations pending at the failure", Unit: "count", Min: 0, Max: nan},
			{Key: "pending_on_failed", Name: "reservations pending on the failed resource", Unit: "count", Min: 0, Max: nan},
			{Key: "failure_time", Name: "failure time", Unit: "time units", Min: 0, Max: nan},
			{Key: "admitted", Name: "admitted reservations", Unit: "count", Min: 0, Max: nan},
		},
		Attach: attachFailure,
	})
}

// attachFailure injects the failure of a failure section: one node drawn
// by the replication's seed fails for good at σ × the latest window end.
func attachFailure(r *system.Run, prepared any) error {
	if prepared == nil {
		return nil
	}
	p := prepared.(*FailureParams)
	horizon := 0.0
	for _, j := range r.Jobs {
		if !math.IsNaN(j.WindowEnd) {
			horizon = max(horizon, j.WindowEnd)
		}
	}
	node := sim.Stream(r.Seed, "failure/node").IntN(len(r.Platform.Nodes))
	at := p.Sigma * horizon
	r.Hooks = append(r.Hooks, func(e *engine.Engine, _ engine.Policy) error {
		e.FailNode(at, node, true)
		return nil
	})
	return nil
}

// policies names the registered variants for the system registry.
func policies() []system.Policy {
	out := make([]system.Policy, len(variants))
	for i, v := range variants {
		out[i] = system.Policy{Name: v.name}
	}
	return out
}
