package hgrid

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"strings"

	"github.com/spf13/pflag"

	"github.com/gridsched/gridsched/engine"
	"github.com/gridsched/gridsched/model"
	"github.com/gridsched/gridsched/policy"
	"github.com/gridsched/gridsched/system"
)

// Section is the hierarchy section of a spec or model-config file: the
// tree — "paper109" (our reading of the paper's 109-node platform, node
// speeds spread by heterogeneity, default 0.5), "paper109-single" or a
// tree YAML file — and the grid's parameters (zero values take the
// defaults). Policies are then grid dispatchers: grid-stat, grid-minmin,
// grid-aco, grid-random, grid-round-robin, grid-least-loaded.
type Section struct {
	Tree          string   `yaml:"tree" json:"tree,omitempty"`
	Heterogeneity *float64 `yaml:"heterogeneity" json:"heterogeneity,omitempty" range:"[0,1)"`
	Params        `yaml:",inline" json:",inline"`
}

// Setup is a prepared hierarchy: the tree (its platform) and the checked
// parameters with defaults. Runs only read it.
type Setup struct {
	Tree   *Tree
	Params Params
}

// Prepare builds the tree of a section (a file name resolved by resolve)
// and checks the parameters.
func (s *Section) Prepare(resolve func(string) string) (*Setup, error) {
	tree := s.Tree
	if tree != "" && tree != "paper109" && tree != "paper109-single" && resolve != nil {
		tree = resolve(tree)
	}
	t, err := Open(tree, s.Heterogeneity)
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return nil, fmt.Errorf("tree: %w", err) // a file that cannot be read: at the tree's key
	}
	if err != nil {
		return nil, err
	}
	p := s.Params
	p.Weights = cloneWeights(p.Weights)
	p.Defaults()
	// Check the parameters once, as a policy would.
	if _, err := New(t, "stat", p, 0); err != nil {
		return nil, err
	}
	return &Setup{Tree: t, Params: p}, nil
}

func cloneWeights(w Weights) Weights {
	if w == nil {
		return nil
	}
	c := make(Weights, len(w))
	for k, v := range w {
		c[k] = v
	}
	return c
}

// The hierarchical grid of seed 001: the section "hierarchy", the grid-*
// dispatchers (which need it), the grid's metrics.
func init() {
	nan := math.NaN()
	var pols []system.Policy
	for _, d := range Dispatchers {
		pols = append(pols, system.Policy{Name: "grid-" + d, Description: Describe(d)})
	}
	system.Register(&system.System{
		Name:         "hierarchy",
		Description:  "hierarchical grid with statistical load balancing, MinMin and ant colony (seed 001)",
		Order:        20,
		Section:      "hierarchy",
		NewParams:    func() any { return &Section{} },
		Prepare:      func(v any, resolve func(string) string) (any, error) { return v.(*Section).Prepare(resolve) },
		Platform:     func(v any) *model.Platform { return v.(*Setup).Tree.Platform },
		Policies:     pols,
		OwnsPolicy:   func(name string) bool { return strings.HasPrefix(name, "grid-") },
		NeedsSection: true,
		Flags: func(fs *pflag.FlagSet) func(func(string) bool) (any, error) {
			tree := fs.String("tree", "", "hierarchical grid of seed 001: paper109, paper109-single (109 one-CPU nodes) or a tree YAML file (policies grid-*)")
			het := fs.Float64("heterogeneity", 0.5, "paper109 tree: node speeds spread 1 ± h")
			return func(changed func(string) bool) (any, error) {
				if changed("heterogeneity") && !(*het >= 0 && *het < 1) {
					return nil, errors.New("--heterogeneity: out of range (want 0 <= h < 1)")
				}
				if *tree == "" {
					if changed("heterogeneity") {
						return nil, errors.New("--heterogeneity: needs --tree paper109 or paper109-single")
					}
					return nil, nil
				}
				s := &Section{Tree: *tree}
				if *tree == "paper109" || *tree == "paper109-single" {
					h := *het
					s.Heterogeneity = &h
				}
				return s, nil
			}
		},
		ParamLabels: map[string]string{"failures.mtbf": "manager MTBF (s; 0 = none)", "heterogeneity": "heterogeneity h", "period": "report period (s)",
			"weights": "load-index weights a_j", "standby": "standby managers (0 = no monitor)", "redispatch_factor": "redispatch factor (0 = off)"},
		Metrics: []system.Metric{
			{Key: "imbalance", Name: "load imbalance", Unit: "CV of utilization", LowerIsBetter: true, Min: 0, Max: nan},
			{Key: "migrated", Name: "migrated jobs", Unit: "count", LowerIsBetter: true, Min: 0, Max: nan},
			{Key: "redispatched", Name: "re-dispatched jobs", Unit: "count", LowerIsBetter: true, Min: 0, Max: nan},
			{Key: "activations", Name: "activations", Unit: "count", LowerIsBetter: true, Min: 0, Max: nan},
			{Key: "withdrawals", Name: "withdrawals", Unit: "count", LowerIsBetter: true, Min: 0, Max: nan},
			{Key: "detections", Name: "failure detections", Unit: "count", LowerIsBetter: true, Min: 0, Max: nan},
		},
		Attach: attach,
	})
}

// attach builds a grid dispatcher for a grid-* policy and schedules the
// managers' failures once the engine exists.
func attach(r *system.Run, prepared any) error {
	disp, ok := strings.CutPrefix(r.Policy, "grid-")
	if !ok {
		return nil
	}
	if prepared == nil {
		return errors.New("a grid dispatcher needs a hierarchical platform (--tree, or a hierarchy section)")
	}
	s := prepared.(*Setup)
	horizon := 0.0
	for _, j := range r.Jobs {
		horizon = max(horizon, j.Submit)
	}
	r.NewPolicy = func(policy.NodeSelector) (engine.Policy, error) {
		return New(s.Tree, disp, s.Params, r.Seed)
	}
	r.Hooks = append(r.Hooks, func(e *engine.Engine, pol engine.Policy) error {
		pol.(*Policy).Attach(e, horizon, r.Seed)
		return nil
	})
	return nil
}
