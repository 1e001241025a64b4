package experiment

import (
	"fmt"
	"maps"
	"slices"
	"strings"

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
//
// SubjectAt pairs, after the runs, every stored run of Base whose
// configuration has no run of the For policy with the stored run of the
// For policy in the same replication (the same seed) whose parameters are
// the base run's with these values: seed 003's table 1 runs LJFS first-fit
// only (under LJFS best-fit picks the job first-fit picks), and the
// best-fit cells pair AFCFS best-fit with it:
//
//	subject_at: {cloud.migration: first-fit}
//
// The base run then carries the paired metrics (PairedRows). It changes no
// run, so it is not part of the spec's hash.
type Pairing struct {
	Base      string         `yaml:"base" json:"base"`
	For       []string       `yaml:"for" json:"for,omitempty"`
	Relative  []PairedMetric `yaml:"relative" json:"relative"`
	Sums      []PairedSum    `yaml:"sums" json:"sums,omitempty"`
	SubjectAt map[string]any `yaml:"subject_at" json:"subject_at,omitempty"`
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
	if len(p.SubjectAt) > 0 && len(p.For) != 1 {
		bad("pairing.subject_at", "pairs stored runs with the runs of one policy: name it alone in for")
	}
	for _, k := range sortedKeys(p.SubjectAt) {
		vals, ok := s.sweptValues(k)
		switch {
		case k == "policy" || !ok:
			bad("pairing.subject_at."+k, "%q is not a swept parameter of this experiment (swept: %s)", k, strings.Join(s.sweptParams(), ", "))
		case !hasValue(vals, FormatValue(p.SubjectAt[k])):
			bad("pairing.subject_at."+k, "%s is not a value of %s in the sweep (values: %s)", FormatValue(p.SubjectAt[k]), k, strings.Join(vals, ", "))
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

// PairedRows returns the runs with the pairing's metrics added to every
// base run that SubjectAt pairs with a stored run of the For policy (the
// runs are copied, never changed). Without SubjectAt it returns rows.
func (s *Spec) PairedRows(rows []Row) []Row {
	p := s.Pairing
	if p == nil || len(p.SubjectAt) == 0 || len(p.For) != 1 {
		return rows
	}
	key := func(seed string, params map[string]string, over map[string]any) string {
		var b strings.Builder
		b.WriteString(seed)
		for _, k := range sortedKeys(params) {
			if k == "policy" {
				continue
			}
			v := params[k]
			if o, ok := over[k]; ok {
				v = FormatValue(o)
			}
			b.WriteString("|" + k + "=" + v)
		}
		return b.String()
	}
	subjects := map[string]*Row{}
	for i := range rows {
		if rows[i].Params["policy"] == p.For[0] {
			subjects[key(rows[i].Seed, rows[i].Params, nil)] = &rows[i]
		}
	}
	names := p.Names()
	out := make([]Row, len(rows))
	for i, r := range rows {
		out[i] = r
		if r.Params["policy"] != p.Base {
			continue
		}
		if _, has := r.Metrics[names[0]]; has {
			continue
		}
		sub, ok := subjects[key(r.Seed, r.Params, p.SubjectAt)]
		if !ok {
			continue
		}
		m := map[string]float64{}
		for k, v := range sub.Metrics {
			if !slices.Contains(names, k) {
				m[k] = v
			}
		}
		p.add(m, r.Metrics)
		out[i].Metrics = maps.Clone(r.Metrics)
		for _, n := range names {
			if v, ok := m[n]; ok {
				out[i].Metrics[n] = v
			}
		}
	}
	return out
}
