package reservation

import (
	"fmt"
	"math"
	"slices"

	"github.com/gridsched/gridsched/engine"
	"github.com/gridsched/gridsched/rrg"
	"github.com/gridsched/gridsched/sim"
	"github.com/gridsched/gridsched/system"
)

// FailureParams make one random node fail for good (seed 000, figure 13)
// at σ times the reservation horizon (the latest end lt of any
// reservation request: an upper bound on the last reservation's
// completion, which the paper uses but which cannot be known in advance).
// The node is drawn per replication (stream "failure/node"). Replan is
// DRRM's rule for the reservations the failed resource could serve
// (rrg.ReplanNames: "literal", the default, or "own-degree").
type FailureParams struct {
	Sigma  float64 `yaml:"sigma" json:"sigma" range:"(0,1]"`
	Replan string  `yaml:"replan" json:"replan,omitempty"`
}

// preparedFailure is a checked failure section.
type preparedFailure struct {
	sigma  float64
	replan rrg.Replan
}

// ModelParams are readings of seed 000's model that the paper leaves
// open, for every reservation policy (the section "reservation"; an empty
// value keeps the policy's own):
//
//   - Predictor: m_schedule's preemption-cost predictor (PredictorNames:
//     queue, running, queue-length, running-slack); SRRM_m policies only.
//   - Placement: where SRRM books a request in its window: "gap" (the
//     earliest gap) or "start" (only at the window start); SRRM only.
//   - Requeue: where a preempted task goes: "front" of its resource's
//     queue (it restarts next) or "back". §2: "非预留任务被打断后,可以在
//     合适的时间从断点处继续执行或者从头开始重新运行……本文只考虑了后一种
//     处理方式" (an interrupted non-reserved task can continue from where
//     it stopped or restart from the beginning "at a suitable time"; the
//     paper considers only the latter) — when is not said.
type ModelParams struct {
	Predictor string `yaml:"predictor" json:"predictor,omitempty"`
	Placement string `yaml:"placement" json:"placement,omitempty"`
	Requeue   string `yaml:"requeue" json:"requeue,omitempty"`
}

// preparedModel is a checked reservation section.
type preparedModel struct {
	pred              Predictor
	setPred           bool
	atStart, setPlace bool
	back              bool
}

func prepareModel(m ModelParams) (*preparedModel, error) {
	var p preparedModel
	if m.Predictor != "" {
		i := slices.Index(PredictorNames, m.Predictor)
		if i < 0 {
			return nil, fmt.Errorf("predictor: want one of %v, got %q", PredictorNames, m.Predictor)
		}
		p.pred, p.setPred = Predictor(i), true
	}
	switch m.Placement {
	case "":
	case "gap", "start":
		p.atStart, p.setPlace = m.Placement == "start", true
	default:
		return nil, fmt.Errorf("placement: want gap or start, got %q", m.Placement)
	}
	switch m.Requeue {
	case "", "front":
	case "back":
		p.back = true
	default:
		return nil, fmt.Errorf("requeue: want front or back, got %q", m.Requeue)
	}
	return &p, nil
}

// apply sets the section's readings on a reservation policy.
func (m *preparedModel) apply(p *Policy) {
	if m.setPred {
		p.pred = m.pred
	}
	if m.setPlace {
		p.atStart = m.atStart
	}
	p.requeueBack = m.back
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
		ParamLabels: map[string]string{"sigma": "failure time ratio σ (share of the horizon)", "replan": "DRRM's re-planning rule after a failure"},
		NewParams:   func() any { return &FailureParams{} },
		Prepare: func(v any, _ func(string) string) (any, error) {
			p := *v.(*FailureParams)
			if !(p.Sigma > 0 && p.Sigma <= 1) {
				return nil, fmt.Errorf("sigma: want a fraction in (0, 1], got %g", p.Sigma)
			}
			f := &preparedFailure{sigma: p.Sigma}
			if p.Replan != "" {
				r, err := rrg.ParseReplan(p.Replan)
				if err != nil {
					return nil, fmt.Errorf("replan: %w", err)
				}
				f.replan = r
			}
			return f, nil
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
			{Key: "bind_failed", Name: "reservations kept after a failure that no resource could take", Unit: "count", LowerIsBetter: true, Min: 0, Max: nan},
			{Key: "admitted", Name: "admitted reservations", Unit: "count", Min: 0, Max: nan},
			{Key: "preempted_tasks", Name: "tasks preempted at least once", Unit: "count", Min: 0, Max: nan},
			{Key: "preempt_heavy_share", Name: "preemptions on tasks preempted 10 times or more", Unit: "fraction of preemptions", Min: 0, Max: 1},
			{Key: "tpc_heavy_share", Name: "TPC on tasks preempted 10 times or more", Unit: "fraction of TPC", Min: 0, Max: 1},
			{Key: "victim_runtime", Name: "expected runtime of a preempted task", Unit: "time units", Min: 0, Max: nan},
		},
		Attach: attachFailure,
	})
	system.Register(&system.System{
		Name:        "reservation-model",
		Description: "readings of seed 000's model for every reservation policy: m_schedule's predictor, SRRM's placement, where a preempted task restarts",
		Order:       11,
		Section:     "reservation",
		ParamLabels: map[string]string{"requeue": "where a preempted task restarts", "predictor": "m_schedule's cost predictor", "placement": "where SRRM books in the window"},
		NewParams:   func() any { return &ModelParams{} },
		Prepare: func(v any, _ func(string) string) (any, error) {
			return prepareModel(*v.(*ModelParams))
		},
		Attach: func(r *system.Run, prepared any) error {
			if prepared == nil {
				return nil
			}
			m := prepared.(*preparedModel)
			r.Hooks = append(r.Hooks, func(_ *engine.Engine, pol engine.Policy) error {
				if p, ok := pol.(*Policy); ok {
					m.apply(p)
				}
				return nil
			})
			return nil
		},
	})
}

// attachFailure injects the failure of a failure section: one node drawn
// by the replication's seed fails for good at σ × the latest window end.
func attachFailure(r *system.Run, prepared any) error {
	if prepared == nil {
		return nil
	}
	p := prepared.(*preparedFailure)
	horizon := 0.0
	for _, j := range r.Jobs {
		if !math.IsNaN(j.WindowEnd) {
			horizon = max(horizon, j.WindowEnd)
		}
	}
	node := sim.Stream(r.Seed, "failure/node").IntN(len(r.Platform.Nodes))
	at := p.sigma * horizon
	r.Hooks = append(r.Hooks, func(e *engine.Engine, pol engine.Policy) error {
		if rp, ok := pol.(*Policy); ok {
			rp.replan = p.replan
		}
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
