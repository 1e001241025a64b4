package unstable

import (
	"errors"
	"fmt"
	"math"

	"github.com/spf13/pflag"

	"github.com/gridsched/gridsched/engine"
	"github.com/gridsched/gridsched/system"
)

// The unstable-resource system of seed 002: its section "instability"
// (Params), the node selections random, u and expected, the policies
// easy-single and easy-first (registered in package policy below, so
// that any node selection can drive them) and the QoS metrics.
func init() {
	nan := math.NaN()
	system.Register(&system.System{
		Name:        "unstable",
		Description: "unstable resources and stability-aware EASY (seed 002)",
		Order:       30,
		Section:     "instability",
		NewParams:   func() any { return &Params{} },
		Prepare: func(v any, _ func(string) string) (any, error) {
			p := *v.(*Params)
			if err := p.Validate(); err != nil {
				return nil, err
			}
			return &p, nil
		},
		Flags: func(fs *pflag.FlagSet) func(func(string) bool) (any, error) {
			model := fs.String("instability", "", "unstable nodes (their stability and delay come from --platform): published or periods")
			cycle := fs.Float64("cycle", 7200, "mean stable+unstable cycle (s) of --instability periods")
			return func(changed func(string) bool) (any, error) {
				if *model == "" {
					if changed("cycle") {
						return nil, errors.New("--cycle: needs --instability periods")
					}
					return nil, nil
				}
				if changed("cycle") && !(*cycle >= MinCycle && !math.IsInf(*cycle, 0)) {
					return nil, fmt.Errorf("--cycle: out of range (at least %g seconds)", MinCycle)
				}
				return &Params{Model: *model, Cycle: *cycle}, nil
			}
		},
		Policies: []system.Policy{{Name: "easy-single"}, {Name: "easy-first"}},
		NodeSelections: []system.Policy{
			{Name: "random", Description: "unbiased random choice of idle nodes (seed 002 §2.1)"},
			{Name: "u", Description: "nodes by observed performance u, best first (seed 002 §2.4; needs an instability model)", NeedsSection: true},
			{Name: "expected", Description: "nodes by the model's expected delay (1 − p)·d, then u (needs an instability model)", NeedsSection: true},
		},
		ParamLabels: map[string]string{"model": "instability model", "u_update": "machines whose u a finished job updates"},
		Metrics: []system.Metric{
			{Key: "mean_qos", Name: "mean QoS rate", Unit: "ratio", Min: 0, Max: nan},
			{Key: "mean_qos_alel", Name: "mean QoS rate AL/EL", Unit: "ratio", LowerIsBetter: true, Min: 0, Max: nan, PerJob: true},
			{Key: "sum_completion", Name: "sum of completion times", Unit: "s", LowerIsBetter: true, Min: 0, Max: nan, PerJob: true},
		},
		Attach: attach,
	})
}

// attach gives the run its node selection and, with an instability
// section, the instability process and the QoS metrics.
func attach(r *system.Run, prepared any) error {
	var state *State
	var p *Params
	if prepared != nil {
		p = prepared.(*Params)
		state = NewState(len(r.Platform.Nodes), *p, r.Seed)
	}
	switch r.NodeSelect {
	case "random", "u", "expected":
		sel, err := Selector(r.NodeSelect, state, r.Seed)
		if err != nil {
			return err
		}
		r.Selector = sel
	}
	if state == nil {
		return nil
	}
	r.Hooks = append(r.Hooks, func(e *engine.Engine, _ engine.Policy) error {
		if p.Model == "periods" {
			e.AddHook(NewPeriods(state))
		} else {
			e.AddHook(Published{State: state})
		}
		return nil
	})
	r.Extras = append(r.Extras, func() map[string]float64 {
		return map[string]float64{"mean_qos": state.MeanQoS(), "mean_qos_alel": state.MeanQoSALEL(), "sum_completion": state.SumCompletion()}
	})
	return nil
}
