package experiment

import (
	"fmt"
	"slices"

	"github.com/gridsched/gridsched/system"
)

// Pairing declares metrics that compare a run with a run of another
// policy on the same jobs and random numbers (the same configuration and
// replication seed, only the policy differs): for every run of a policy
// in For (default: every policy but Base), Base is simulated too, and
//
//	relative name = (base's metric − the run's metric) / base's metric
//
// with Base as the base (positive: the run's policy has the smaller
// value), and a sum adds relative metrics in the listed order. Seed 003's
// cost–performance efficiency is one (catalogue cloud-gang-*):
//
//	pairing:
//	  base: cloud-afcfs
//	  for: [cloud-ljfs]
//	  relative: [{name: cpe_lt, metric: lease_time}, {name: cpe_rt, metric: mean_response}]
//	  sums: [{name: cpe, of: [cpe_lt, cpe_rt]}]
type Pairing struct {
	Base     string         `yaml:"base" json:"base"`
	For      []string       `yaml:"for" json:"for,omitempty"`
	Relative []PairedMetric `yaml:"relative" json:"relative"`
	Sums     []PairedSum    `yaml:"sums" json:"sums,omitempty"`
}

// PairedMetric is one relative difference.
type PairedMetric struct {
	Name   string `yaml:"name" json:"name"`
	Metric string `yaml:"metric" json:"metric"`
}

// PairedSum adds relative differences.
type PairedSum struct {
	Name string   `yaml:"name" json:"name"`
	Of   []string `yaml:"of" json:"of"`
}

// applies reports whether runs of policy get the paired metrics.
func (p *Pairing) applies(policy string) bool {
	if policy == p.Base {
		return false
	}
	return len(p.For) == 0 || slices.Contains(p.For, policy)
}

// Names lists the metrics the pairing adds.
func (p *Pairing) Names() []string {
	var out []string
	for _, r := range p.Relative {
		out = append(out, r.Name)
	}
	for _, s := range p.Sums {
		out = append(out, s.Name)
	}
	return out
}

// add computes the paired metrics of run m against base into m. A metric
// either run lacks, or a base value of 0, leaves the paired metric (and
// every sum using it) absent.
func (p *Pairing) add(m, base map[string]float64) {
	for _, r := range p.Relative {
		b, ok1 := base[r.Metric]
		v, ok2 := m[r.Metric]
		if ok1 && ok2 && b != 0 {
			m[r.Name] = (b - v) / b
		}
	}
	for _, s := range p.Sums {
		sum, ok := 0.0, true
		for _, k := range s.Of {
			v, has := m[k]
			ok = ok && has
			sum += v
		}
		if ok {
			m[s.Name] = sum
		}
	}
}

// validate checks the pairing against the spec.
func (p *Pairing) validate(s *Spec, bad func(path, format string, args ...any)) {
	has := func(key string) bool { _, ok := s.Sections[key]; return ok }
	if p.Base == "" {
		bad("pairing.base", "name the base policy")
	} else if err := system.CheckPolicy(p.Base, has); err != nil {
		bad("pairing.base", "%v", err)
	}
	for i, f := range p.For {
		if err := system.CheckPolicy(f, has); err != nil {
			bad(fmt.Sprintf("pairing.for[%d]", i), "%v", err)
		}
	}
	if len(p.Relative) == 0 {
		bad("pairing.relative", "name at least one relative metric: {name, metric}")
	}
	seen := map[string]bool{}
	for i, r := range p.Relative {
		if r.Name == "" || seen[r.Name] {
			bad(fmt.Sprintf("pairing.relative[%d].name", i), "a new, non-empty name, got %q", r.Name)
		}
		seen[r.Name] = true
		if !IsMetric(r.Metric) {
			bad(fmt.Sprintf("pairing.relative[%d].metric", i), "unknown metric %q", r.Metric)
		}
	}
	for i, sm := range p.Sums {
		if sm.Name == "" || seen[sm.Name] {
			bad(fmt.Sprintf("pairing.sums[%d].name", i), "a new, non-empty name, got %q", sm.Name)
		}
		for j, k := range sm.Of {
			if !seen[k] {
				bad(fmt.Sprintf("pairing.sums[%d].of[%d]", i, j), "%q is not a relative metric named before", k)
			}
		}
		seen[sm.Name] = true
	}
}

// isMetric: a registered metric or one the spec's pairing adds.
func (s *Spec) isMetric(name string) bool {
	return IsMetric(name) || s.Pairing != nil && slices.Contains(s.Pairing.Names(), name)
}

// policies lists every policy the spec runs (its list, and the grid or
// zip values of policy).
func (s *Spec) policies() []string {
	out := slices.Clone(s.Policies)
	for _, part := range []map[string][]any{s.Grid, s.Zip} {
		for _, v := range part["policy"] {
			if p, ok := v.(string); ok && !slices.Contains(out, p) {
				out = append(out, p)
			}
		}
	}
	return out
}

// system is the system that owns every policy of the spec (nil: classic
// policies, or several systems).
func (s *Spec) system() *system.System {
	var owner *system.System
	for i, p := range s.policies() {
		o, _ := system.Owner(p)
		if i > 0 && o != owner {
			return nil
		}
		owner = o
	}
	return owner
}

// metricInfo describes metric m in the spec's runs: a time metric of a
// system with its own time unit (the elastic cloud's hours) says so.
func (s *Spec) metricInfo(m string) system.Metric { return system.MetricIn(m, s.system()) }
