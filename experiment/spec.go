// Package experiment runs parameter sweeps: a YAML spec expands into
// configurations × replications, each run simulates once (in parallel,
// one simulation per goroutine), finished runs are committed to a
// crash-safe SQLite store, and the store exports per-run rows and
// per-configuration aggregates with 95% confidence intervals.
package experiment

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/gridsched/gridsched/gen"
	"github.com/gridsched/gridsched/internal/yamlx"
	"github.com/gridsched/gridsched/model"
	"github.com/gridsched/gridsched/system"
)

// Spec is an experiment: what to simulate, which parameters to vary, how
// many replications, which metrics to aggregate.
type Spec struct {
	Name         string            `yaml:"name" json:"name"`
	Description  string            `yaml:"description" json:"description,omitempty"`
	Workload     WorkloadSpec      `yaml:"workload" json:"workload"`
	Platform     PlatformSpec      `yaml:"platform" json:"platform"`
	Policies     []string          `yaml:"policies" json:"policies"`
	Overrun      string            `yaml:"overrun" json:"overrun,omitempty"`
	NodeSelect   string            `yaml:"node_select" json:"node_select,omitempty"`
	WholeNodes   bool              `yaml:"whole_nodes" json:"whole_nodes,omitempty"`
	Pairing      *Pairing          `yaml:"pairing" json:"pairing,omitempty"`
	Claims       []Claim           `yaml:"claims" json:"claims,omitempty"`
	Readings     []Reading         `yaml:"readings" json:"readings,omitempty"`
	References   []Reference       `yaml:"references" json:"references,omitempty"`
	Grid         map[string][]any  `yaml:"grid" json:"grid,omitempty"`
	Zip          map[string][]any  `yaml:"zip" json:"zip,omitempty"`
	Replications Replications      `yaml:"replications" json:"replications"`
	Seed         uint64            `yaml:"seed" json:"seed"`
	Metrics      []string          `yaml:"metrics" json:"metrics"`
	Plot         PlotSpec          `yaml:"plot" json:"plot"`
	Labels       map[string]Labels `yaml:"labels" json:"-"`
	// Label is the label applied, if any (not part of the file).
	Label string `yaml:"-" json:"label,omitempty"`
	// Dir is the spec file's folder: relative paths are resolved from it.
	Dir string `yaml:"-" json:"-"`
	// Sections are the systems' parameter sections (instability,
	// hierarchy, failure, cloud, …: package system's registry), by key,
	// each a pointer to the system's parameter type. In a spec file they
	// are top-level keys (sections.go).
	Sections map[string]any `yaml:"-" json:"-"`
	// schema holds the positions of the spec's values (for CheckFiles).
	schema *yamlx.Schema
	// unlabelled is the spec's own sweep when a label replaced it: a
	// claim may name a value swept only there ("not run at this scale").
	unlabelled *Labels
}

// Labels override parts of a spec for a reduced or full scale: "quick"
// for CI and demos, "paper" for the published scale. Each set field
// replaces the spec's.
type Labels struct {
	Workload     *WorkloadSpec    `yaml:"workload"`
	Platform     *PlatformSpec    `yaml:"platform"`
	Grid         map[string][]any `yaml:"grid"`
	Zip          map[string][]any `yaml:"zip"`
	Replications *Replications    `yaml:"replications"`
	Policies     []string         `yaml:"policies"`
}

// WorkloadSpec is a trace (with transforms) or a generator (with
// parameters).
type WorkloadSpec struct {
	Trace        string         `yaml:"trace" json:"trace,omitempty"`
	Model        string         `yaml:"model" json:"model,omitempty"`
	Params       map[string]any `yaml:"params" json:"params,omitempty"`
	Jobs         int            `yaml:"jobs" json:"jobs,omitempty" range:"[1,]"`
	Skip         int            `yaml:"skip" json:"skip,omitempty" range:"[0,]"`
	First        int            `yaml:"first" json:"first,omitempty" range:"[0,]"`
	ArrivalScale float64        `yaml:"arrival_scale" json:"arrival_scale,omitempty" range:"(0,]"`
	MaxProcs     int            `yaml:"max_procs" json:"max_procs,omitempty" range:"[0,]"`
	// Estimates: requested (default: the trace's requested times), exact
	// (each job's estimate is its run time) or gridsim (GridSim's reader:
	// a job runs for its requested time, else its run time, and that is
	// its estimate).
	Estimates string `yaml:"estimates" json:"estimates,omitempty"`
	// AdmittedByBoth keeps, of a reservation workload, only the requests
	// that SRRM (r_schedule) and DRRM both admit when the workload is
	// generated with flexibility AdmittedAt (seed 000, experiment 3).
	AdmittedByBoth bool    `yaml:"admitted_by_both" json:"admitted_by_both,omitempty"`
	AdmittedAt     float64 `yaml:"admitted_at" json:"admitted_at,omitempty" range:"[0,1)"`
	KeepCancelled  bool    `yaml:"keep_cancelled" json:"keep_cancelled,omitempty"`
	ClampWide      bool    `yaml:"clamp_wide" json:"clamp_wide,omitempty"`
}

// PlatformSpec: nodes single-processor nodes, or a platform file; neither
// means the trace header's MaxProcs (or, for a model, its system size).
type PlatformSpec struct {
	Nodes int    `yaml:"nodes" json:"nodes,omitempty" range:"[1,]"`
	File  string `yaml:"file" json:"file,omitempty"`
	// Nodes of PEs processors each (default 1), MIPS rating.
	PEs  int     `yaml:"pes" json:"pes,omitempty" range:"[1,]"`
	MIPS float64 `yaml:"mips" json:"mips,omitempty" range:"[0,]"`
	// Two classes of nodes (seed 002): Unstable nodes (or a fraction of
	// all, rounded) with stability p_unstable and delay d_unstable, the
	// others with p_stable (default 1) and d_stable. Which nodes are
	// unstable is drawn per replication (the same for every policy).
	Unstable         int      `yaml:"unstable" json:"unstable,omitempty" range:"[0,]"`
	UnstableFraction float64  `yaml:"unstable_fraction" json:"unstable_fraction,omitempty" range:"[0,1]"`
	PUnstable        float64  `yaml:"p_unstable" json:"p_unstable,omitempty" range:"[0,1]"`
	DUnstable        float64  `yaml:"d_unstable" json:"d_unstable,omitempty" range:"[0,]"`
	PStable          *float64 `yaml:"p_stable" json:"p_stable,omitempty" range:"[0,1]"`
	DStable          float64  `yaml:"d_stable" json:"d_stable,omitempty" range:"[0,]"`
	// Levels draws each node's capability level uniformly on 1..Levels
	// per replication (seed 000).
	Levels int `yaml:"levels" json:"levels,omitempty" range:"[1,]"`
}

// Replications: a fixed count, or adaptive: at least Min, then more until
// the 95% CI half-width of Metric is below RelHalfWidth × its mean, at
// most Max.
type Replications struct {
	Count        int     `yaml:"count" json:"count,omitempty" range:"[1,]"`
	Min          int     `yaml:"min" json:"min,omitempty" range:"[2,]"`
	Max          int     `yaml:"max" json:"max,omitempty" range:"[2,]"`
	Metric       string  `yaml:"metric" json:"metric,omitempty"`
	RelHalfWidth float64 `yaml:"rel_halfwidth" json:"rel_halfwidth,omitempty" range:"(0,1)"`
}

// Adaptive reports whether replications stop on a precision target.
func (r Replications) Adaptive() bool { return r.Count == 0 }

// PlotSpec lays out the sweep figures as the paper's: X is the x axis, a
// grid or zip parameter (default: the first grid parameter); a zip
// parameter brings its zip partners onto the same axis (one figure, not
// one per tuple). Series are the parameters whose values make the lines
// (default: the policy and every parameter a claim compares); every other
// parameter that varies makes separate panels (in Panels' order, then the
// rest).
type PlotSpec struct {
	X      string   `yaml:"x" json:"x,omitempty"`
	Title  string   `yaml:"title" json:"title,omitempty"`
	Series []string `yaml:"series" json:"series,omitempty"`
	Panels []string `yaml:"panels" json:"panels,omitempty"`
}

// Load reads, checks and validates a spec file, applying label (may be
// empty). Every structural problem (unknown key, wrong type) and every
// semantic one (out of range, unknown policy) is reported, each with its
// file, line and column.
func Load(path, label string) (*Spec, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return Parse(path, data, label)
}

// Parse is Load on bytes; name is used in messages and to resolve
// relative paths.
func Parse(name string, data []byte, label string) (*Spec, error) {
	shapes()
	schema := yamlx.Check(name, data, newShape(specShape).Interface())
	if len(schema.Issues) > 0 {
		return nil, errors.Join(append(schema.Issues, semanticToo(name, schema)...)...)
	}
	shape := newShape(specShape)
	if err := yamlx.DecodeStrict(name, data, shape.Interface()); err != nil {
		return nil, err
	}
	var s Spec
	s.Sections = fromShape(shape, &s)
	s.Dir = filepath.Dir(name)
	if label != "" {
		l, ok := s.Labels[label]
		if !ok {
			known := make([]string, 0, len(s.Labels))
			for k := range s.Labels {
				known = append(known, k)
			}
			sort.Strings(known)
			return nil, fmt.Errorf("%s: no label %q (labels: %s)", name, label, strings.Join(known, ", "))
		}
		s.unlabelled = &Labels{Grid: s.Grid, Zip: s.Zip, Policies: s.Policies}
		s.apply(l)
		s.Label = label
	}
	if errs := s.validate(schema); len(errs) > 0 {
		return nil, errors.Join(append(errs, s.fileErrors(schema)...)...)
	}
	s.schema = schema
	return &s, nil
}

// semanticToo: when the schema check found problems, the semantic
// checks and the file checks still run on the document as decoded
// without its unknown keys and with every value of the wrong type read as
// a neutral value (yamlx.Schema.DecodeLenient): a typo, a count: "x", an
// unknown policy and a missing trace are reported together. Errors at a
// path the schema check already reported (or under a replaced value)
// are left out: they would repeat it; so are errors about a key the spec
// lacks beside an unknown key (policys: … makes policies missing).
func semanticToo(name string, schema *yamlx.Schema) []error {
	reported := map[string]bool{}
	typoIn := map[string]bool{} // mappings with an unknown key
	for _, e := range schema.Issues {
		var is *yamlx.Issue
		if !errors.As(e, &is) {
			return nil // the document did not parse or was refused
		}
		reported[is.Path] = true
		if is.Kind == yamlx.UnknownKey {
			typoIn[parentPath(is.Path)] = true
		}
	}
	shape := newShape(specShape)
	if schema.DecodeLenient(shape.Interface()) != nil {
		return nil
	}
	var s Spec
	s.Sections = fromShape(shape, &s)
	s.Dir = filepath.Dir(name)
	var out []error
	for _, e := range s.validate(schema) {
		var is *yamlx.Issue
		if errors.As(e, &is) && (reported[is.Path] || schema.Replaced(is.Path) || is.Pos.Line == 0 && typoIn[parentPath(is.Path)]) {
			continue
		}
		if followsFrom(schema, e) {
			continue
		}
		out = append(out, e)
	}
	return append(out, s.fileErrors(schema)...)
}

// followsFrom reports whether e is a consequence of a whole section the
// schema check found of the wrong type (read as empty): grid: "x" makes
// plot.x "not a grid parameter"; pairing: 5 makes its metrics unknown to
// claims; workload: [a] or platform: [1] make configurations fail to
// build. The section's own error is the report.
func followsFrom(schema *yamlx.Schema, e error) bool {
	var is *yamlx.Issue
	if !errors.As(e, &is) {
		is = nil
	}
	for _, r := range schema.Issues {
		var w *yamlx.Issue
		if !errors.As(r, &w) || w.Kind != yamlx.WrongType {
			continue
		}
		switch w.Path {
		case "grid", "zip":
			// What names grid or zip parameters, and the policy list
			// that a grid's policy values may stand for.
			if is != nil && (strings.HasPrefix(is.Path, "plot.") || is.Path == "plot" ||
				strings.HasPrefix(is.Path, "references[") || is.Path == "policies") {
				return true
			}
		case "pairing":
			// The paired metrics' names.
			if is != nil && strings.Contains(is.Msg, "unknown metric") {
				return true
			}
		case "workload", "platform":
			// Configurations built from an empty section.
			if is == nil {
				return true
			}
		}
	}
	return false
}

// parentPath is the dotted path of the mapping that holds path's key.
func parentPath(path string) string {
	if i := strings.LastIndex(path, "."); i >= 0 {
		return path[:i]
	}
	return ""
}

func (s *Spec) apply(l Labels) {
	if l.Workload != nil {
		s.Workload = *l.Workload
	}
	if l.Platform != nil {
		s.Platform = *l.Platform
	}
	if l.Grid != nil {
		s.Grid = l.Grid
	}
	if l.Zip != nil {
		s.Zip = l.Zip
	}
	if l.Replications != nil {
		s.Replications = *l.Replications
	}
	if l.Policies != nil {
		s.Policies = l.Policies
	}
}

// validate checks ranges and names; errors point at the offending value.
func (s *Spec) validate(sc *yamlx.Schema) []error {
	var errs []error
	bad := func(path, format string, args ...any) { errs = append(errs, sc.At(path, format, args...)) }
	if s.Name == "" {
		bad("name", "every experiment needs a name")
	}
	w := s.Workload
	switch {
	case w.Trace == "" && w.Model == "":
		bad("workload", "give a trace or a model")
	case w.Trace != "" && w.Model != "":
		bad("workload", "give a trace or a model, not both")
	case w.Model != "":
		if _, err := gen.Lookup(w.Model); err != nil {
			bad("workload.model", "%v", err)
		} else if w.Jobs <= 0 && w.Model != "trace-reservations" {
			bad("workload.jobs", "a generated workload needs jobs > 0, got %d", w.Jobs)
		}
	}
	if w.Estimates != "" && w.Estimates != "requested" && w.Estimates != "exact" && w.Estimates != "gridsim" {
		bad("workload.estimates", "want requested, exact or gridsim, got %q", w.Estimates)
	}
	if w.ArrivalScale < 0 {
		bad("workload.arrival_scale", "must be positive, got %g", w.ArrivalScale)
	}
	for _, k := range []struct {
		path string
		v    int
	}{{"workload.skip", w.Skip}, {"workload.first", w.First}, {"workload.max_procs", w.MaxProcs}, {"platform.nodes", s.Platform.Nodes}} {
		if k.v < 0 {
			bad(k.path, "must be >= 0, got %d", k.v)
		}
	}
	if len(s.Policies) == 0 && s.Grid["policy"] == nil && s.Zip["policy"] == nil {
		bad("policies", "name at least one policy (known: %s)", strings.Join(system.PolicyNames(), ", "))
	}
	has := func(key string) bool { _, ok := s.Sections[key]; return ok }
	for i, p := range s.Policies {
		if err := system.CheckPolicy(p, has); err != nil {
			bad(fmt.Sprintf("policies[%d]", i), "%v", err)
		}
	}
	switch s.Overrun {
	case "", "kill", "extend":
	default:
		bad("overrun", "want kill or extend, got %q", s.Overrun)
	}
	for _, k := range sortedKeys(s.Sections) {
		if _, err := system.Prepare(map[string]any{k: system.CloneParams(s.Sections[k])}, func(f string) string { return s.resolvePath(f, false) }); err != nil {
			// At the offending key's line and column when the message
			// names it ("fixed_vms: …"), else at the section's.
			errs = append(errs, sc.Locate(k, errors.New(strings.TrimPrefix(err.Error(), k+": "))))
		}
	}
	// A node selection that needs a section (u, expected: an
	// instability model) is refused here, not at the first run. A
	// section is present in every configuration when the spec has it or
	// a grid or zip parameter sets one of its values.
	hasIn := func(key string) bool {
		if has(key) {
			return true
		}
		for _, part := range []map[string][]any{s.Grid, s.Zip} {
			for k := range part {
				if strings.HasPrefix(k, key+".") {
					return true
				}
			}
		}
		return false
	}
	if err := system.CheckNodeSelectionWith(s.NodeSelect, hasIn); err != nil {
		bad("node_select", "%v", err)
	}
	for _, part := range []struct {
		name string
		m    map[string][]any
	}{{"grid", s.Grid}, {"zip", s.Zip}} {
		for i, v := range part.m["node_select"] {
			if name, ok := v.(string); ok {
				if err := system.CheckNodeSelectionWith(name, hasIn); err != nil {
					bad(fmt.Sprintf("%s.node_select[%d]", part.name, i), "%v", err)
				}
			}
		}
	}
	if s.Pairing != nil {
		s.Pairing.validate(s, bad)
	}
	s.validateReadings(bad)
	for i := range s.Claims {
		s.Claims[i].validate(s, fmt.Sprintf("claims[%d]", i), bad)
	}
	for i, r := range s.References {
		if err := r.validate(s); err != nil {
			bad(fmt.Sprintf("references[%d]", i), "%v", err)
		}
	}
	r := s.Replications
	switch {
	case r.Count < 0:
		bad("replications.count", "must be >= 1, got %d", r.Count)
	case r.Count > 0 && (r.Min != 0 || r.Max != 0 || r.Metric != ""):
		bad("replications", "give count, or min/max/metric/rel_halfwidth, not both")
	case r.Count == 0:
		if r.Min < 2 {
			bad("replications.min", "adaptive replications need min >= 2 (or give count), got %d", r.Min)
		}
		if r.Max < r.Min {
			bad("replications.max", "must be >= min (%d), got %d", r.Min, r.Max)
		}
		if !(r.RelHalfWidth > 0 && r.RelHalfWidth < 1) {
			bad("replications.rel_halfwidth", "must be in (0, 1), got %g", r.RelHalfWidth)
		}
		if !s.isMetric(r.Metric) {
			bad("replications.metric", "unknown metric %q (known: %s)", r.Metric, strings.Join(MetricNames(), ", "))
		}
	}
	if len(s.Metrics) == 0 {
		bad("metrics", "name at least one metric (known: %s)", strings.Join(MetricNames(), ", "))
	}
	for i, m := range s.Metrics {
		if !s.isMetric(m) {
			bad(fmt.Sprintf("metrics[%d]", i), "unknown metric %q (known: %s)", m, strings.Join(MetricNames(), ", "))
		}
	}
	n := -1
	for _, k := range sortedKeys(s.Zip) {
		if n >= 0 && len(s.Zip[k]) != n {
			bad("zip."+k, "zipped lists must have the same length: %d here, %d before", len(s.Zip[k]), n)
		}
		n = len(s.Zip[k])
	}
	for _, k := range sortedKeys(s.Zip) {
		if _, ok := s.Grid[k]; ok {
			// Swept twice, every configuration would carry two values of
			// it and one of them would silently win.
			bad("zip."+k, "%q is both a grid and a zip parameter: vary it in one of them", k)
		}
	}
	for _, part := range []struct {
		name string
		m    map[string][]any
	}{{"grid", s.Grid}, {"zip", s.Zip}} {
		for _, k := range sortedKeys(part.m) {
			if len(part.m[k]) == 0 {
				bad(part.name+"."+k, "an empty list of values")
			}
			if !knownParam(k) {
				bad(part.name+"."+k, "unknown parameter %q (vary policy, overrun, node_select, whole_nodes, workload.*, workload.params.*, platform.*, or a system's %s.*)", k, strings.Join(system.Sections(), ".*, "))
			}
		}
	}
	s.duplicates(sc, bad)
	for i, k := range s.Plot.Series {
		if k != "policy" && s.Grid[k] == nil && s.Zip[k] == nil {
			bad(fmt.Sprintf("plot.series[%d]", i), "%q is not policy or a grid or zip parameter", k)
		}
		if k == s.Plot.X {
			bad(fmt.Sprintf("plot.series[%d]", i), "%q is already the x axis", k)
		}
	}
	for i, k := range s.Plot.Panels {
		if k != "policy" && s.Grid[k] == nil && s.Zip[k] == nil {
			bad(fmt.Sprintf("plot.panels[%d]", i), "%q is not policy or a grid or zip parameter", k)
		}
		if k == s.Plot.X || slices.Contains(s.Plot.Series, k) {
			bad(fmt.Sprintf("plot.panels[%d]", i), "%q is already the x axis or a series", k)
		}
	}
	if s.Plot.X != "" && s.Grid[s.Plot.X] == nil && s.Zip[s.Plot.X] == nil {
		bad("plot.x", "%q is not a grid or zip parameter", s.Plot.X)
	}
	// Sizes: refused before anything is built (a billion jobs, nodes or
	// configurations would exhaust memory).
	if w.Jobs > MaxJobs {
		bad("workload.jobs", "%d jobs is over the limit of %d (raise it with --max-jobs)", w.Jobs, MaxJobs)
	}
	if err := model.CheckNodes("", s.Platform.Nodes); err != nil {
		bad("platform.nodes", "%d nodes is over the limit of %d (raise it with --max-nodes)", s.Platform.Nodes, model.MaxNodes)
	}
	if r.Count > MaxReplications {
		bad("replications.count", "%d replications is over the limit of %d (raise it with --max-runs)", r.Count, MaxReplications)
	}
	if r.Max > MaxReplications {
		bad("replications.max", "%d replications is over the limit of %d (raise it with --max-runs)", r.Max, MaxReplications)
	}
	// Every value of a grid or zip list is checked alone against the
	// schema of what it sets: the error points at the value in the spec.
	for _, part := range []struct {
		name string
		m    map[string][]any
	}{{"grid", s.Grid}, {"zip", s.Zip}} {
		for _, k := range sortedKeys(part.m) {
			if k == "policy" || strings.HasPrefix(k, "workload.params.") || !knownParam(k) {
				continue
			}
			for i, v := range part.m[k] {
				path := fmt.Sprintf("%s.%s[%d]", part.name, k, i)
				if err := checkValue(k, v); err != nil {
					bad(path, "%v", err)
				}
			}
		}
	}
	n, ok := s.ConfigCount()
	if !ok || n > MaxConfigs {
		what := fmt.Sprintf("%d", n)
		if !ok {
			what = "more than 2^62"
		}
		bad("grid", "the sweep has %s configurations, over the limit of %d (raise it with --max-runs)", what, MaxConfigs)
	} else if r.Count > 0 && n*r.Count > MaxRuns || r.Max > 0 && n*r.Max > MaxRuns {
		bad("replications", "%d configurations × %d replications is over the limit of %d runs (raise it with --max-runs)", n, max(r.Count, r.Max), MaxRuns)
	}
	if len(errs) == 0 {
		// Every configuration must build: catches model parameter errors.
		// At most a few failing configurations are named. Plain workload
		// and platform values were checked alone above, so configurations
		// that differ only in them resolve alike: one configuration of
		// each combination of the other axes' values is resolved
		// (resolveSample), without visiting the configurations in between.
		const most = 5
		failed := 0
		dims := s.dimensions()
		for _, i := range s.resolveSample() {
			c := configAt(dims, i)
			rc, err := c.Resolve(s)
			if err == nil {
				err = rc.checkRanges()
			}
			if err != nil {
				failed++
				if failed <= most {
					errs = append(errs, s.locate(sc, &c, err))
				}
			}
		}
		if failed > most {
			errs = append(errs, fmt.Errorf("%s: %d more configurations fail", sc.Source, failed-most))
		}
	}
	return errs
}

// locate places the error of configuration c at the value it is about
// when it is a workload model's parameter ("MODEL: key: …"): the value in
// the spec's workload.params, or in the grid or zip list that varies it;
// else it names the spec and the configuration.
func (s *Spec) locate(sc *yamlx.Schema, c *Config, err error) error {
	fallback := fmt.Errorf("%s: configuration %s: %w", sc.Source, c.ID, err)
	rc := RunConfig{Workload: s.Workload}
	for _, p := range c.Params {
		if p.Key == "workload.model" {
			rc.Workload.Model, _ = p.Value.(string)
		}
	}
	rest, ok := strings.CutPrefix(err.Error(), rc.Workload.Model+": ")
	if rc.Workload.Model == "" || !ok {
		return fallback
	}
	key, msg, ok := strings.Cut(rest, ": ")
	if !ok || strings.ContainsAny(key, " ") {
		return fallback
	}
	root := key
	if i := strings.IndexAny(root, ".["); i >= 0 {
		root = root[:i]
	}
	path := s.writtenAt("workload") + ".params." + key
	for _, part := range []struct {
		name string
		m    map[string][]any
	}{{s.writtenAt("grid"), s.Grid}, {s.writtenAt("zip"), s.Zip}} {
		vals, varied := part.m["workload.params."+root]
		if !varied {
			continue
		}
		for i, v := range vals {
			if CanonicalValue(v) == CanonicalValue(paramValue(c, "workload.params."+root)) {
				path = fmt.Sprintf("%s.workload.params.%s[%d]", part.name, root, i)
				msg = "configuration " + c.ID + ": " + key + ": " + msg
				break
			}
		}
	}
	if p, ok := sc.Positions[path]; ok && p.Line > 0 {
		return &yamlx.Issue{Source: sc.Source, Path: path, Pos: p, Msg: msg}
	}
	return fallback
}

// paramValue is the value c gives key (nil if none).
func paramValue(c *Config, key string) any {
	for _, p := range c.Params {
		if p.Key == key {
			return p.Value
		}
	}
	return nil
}

// writtenAt is where the spec file writes one of its parts (workload,
// platform, grid, zip, policies, replications): under labels.LABEL when
// the label applied replaced it, for positions in messages.
func (s *Spec) writtenAt(part string) string {
	if s.Label == "" {
		return part
	}
	l := s.Labels[s.Label]
	replaced := map[string]bool{"workload": l.Workload != nil, "platform": l.Platform != nil, "grid": l.Grid != nil,
		"zip": l.Zip != nil, "policies": l.Policies != nil, "replications": l.Replications != nil}
	if replaced[part] {
		return "labels." + s.Label + "." + part
	}
	return part
}

// FullResolveLimit is the most combinations of non-plain values (model
// parameters, sections, policies, traces) validation resolves one by one;
// beyond it, each value is resolved once, varied alone from the first
// configuration, and a configuration that fails only in combination is
// found by its run (the sweep then stops, and a plain rerun of the fixed
// spec starts afresh).
const FullResolveLimit = 4096

// resolveSample lists the configurations validation resolves: one per
// combination of the values of the axes that hold a non-plain parameter
// (the others at their first value) while there are at most
// FullResolveLimit combinations, else the first configuration and each
// non-plain value varied alone.
func (s *Spec) resolveSample() []int {
	dims := s.dimensions()
	stride := make([]int, len(dims))
	st := 1
	for d := len(dims) - 1; d >= 0; d-- {
		stride[d] = st
		st *= len(dims[d].values)
	}
	var np []int
	groups := 1
	for d, dim := range dims {
		for _, k := range dim.keys {
			if !plainParam(k) {
				np = append(np, d)
				if groups <= FullResolveLimit {
					groups *= len(dim.values)
				}
				break
			}
		}
	}
	out := []int{0}
	if groups <= FullResolveLimit {
		out = out[:0]
		for g := 0; g < groups; g++ {
			idx, r := 0, g
			for j := len(np) - 1; j >= 0; j-- {
				n := len(dims[np[j]].values)
				idx += (r % n) * stride[np[j]]
				r /= n
			}
			out = append(out, idx)
		}
		return out
	}
	for _, d := range np {
		for v := 1; v < len(dims[d].values); v++ {
			out = append(out, v*stride[d])
		}
	}
	return out
}

// duplicates reports every value given twice in a grid list, a zip
// tuple given twice and a policy listed twice: each configuration with it
// would run twice and be stored once (the store keys a run by its
// canonical configuration), so the sweep would say it ran more runs than
// it stored. Errors point at the second occurrence and name the first.
func (s *Spec) duplicates(sc *yamlx.Schema, bad func(path, format string, args ...any)) {
	where := func(path string) string {
		if p, ok := sc.Positions[path]; ok && p.Line > 0 {
			return fmt.Sprintf("%s, line %d column %d", path, p.Line, p.Column)
		}
		return path
	}
	check := func(values []string, path func(i int) string, what func(i int) string) {
		seen := map[string]int{}
		for i, v := range values {
			if j, ok := seen[v]; ok {
				bad(path(i), "%s is given twice (first at %s): each configuration with it would run twice and be stored once; give each value once", what(i), where(path(j)))
				continue
			}
			seen[v] = i
		}
	}
	grid := s.writtenAt("grid")
	for _, k := range sortedKeys(s.Grid) {
		vals := make([]string, len(s.Grid[k]))
		for i, v := range s.Grid[k] {
			vals[i] = CanonicalValue(v)
		}
		check(vals, func(i int) string { return fmt.Sprintf("%s.%s[%d]", grid, k, i) }, func(i int) string { return FormatValue(s.Grid[k][i]) })
	}
	if keys := sortedKeys(s.Zip); len(keys) > 0 {
		zip := s.writtenAt("zip")
		n := len(s.Zip[keys[0]])
		tuples := make([]string, n)
		for i := range n {
			var parts []string
			for _, k := range keys {
				if i < len(s.Zip[k]) {
					parts = append(parts, k+"="+CanonicalValue(s.Zip[k][i]))
				}
			}
			tuples[i] = strings.Join(parts, ",")
		}
		check(tuples, func(i int) string { return fmt.Sprintf("%s.%s[%d]", zip, keys[0], i) }, func(i int) string { return "the zip tuple " + tuples[i] })
	}
	pol := s.writtenAt("policies")
	check(s.Policies, func(i int) string { return fmt.Sprintf("%s[%d]", pol, i) }, func(i int) string { return "policy " + s.Policies[i] })
}

// Limits on the size of an experiment, refused by validation with the
// flag that raises them (the command line's --max-jobs, --max-runs).
var (
	// MaxJobs bounds workload.jobs of a generated workload.
	MaxJobs = DefaultMaxJobs
	// MaxConfigs bounds the number of configurations of a sweep.
	MaxConfigs = defaultMaxConfigs
	// MaxReplications bounds replications.count and replications.max.
	MaxReplications = defaultMaxReps
	// MaxRuns bounds configurations × replications.
	MaxRuns = DefaultMaxRuns
)

// Default limits (the command line's --max-jobs and --max-runs).
const (
	DefaultMaxJobs    = 10_000_000
	DefaultMaxRuns    = 1_000_000
	defaultMaxConfigs = 100_000
	defaultMaxReps    = 100_000
)

// SetLimits sets the size limits: jobs of a generated workload, and runs
// of a sweep (which also raises the caps on configurations and
// replications when it is above them).
func SetLimits(jobs, runs int) {
	MaxJobs, MaxRuns = jobs, runs
	gen.MaxJobs = jobs
	MaxConfigs = max(defaultMaxConfigs, runs)
	MaxReplications = max(defaultMaxReps, runs)
}

func isSectionKey(k string) bool {
	_, _, ok := section(k)
	return ok
}

// plainParam: a workload or platform value that changes no model or
// system parameter (checked alone by checkValue).
func plainParam(k string) bool {
	if strings.HasPrefix(k, "workload.params.") || k == "workload.model" || k == "workload.trace" {
		return false
	}
	return strings.HasPrefix(k, "workload.") || strings.HasPrefix(k, "platform.")
}

// checkValue checks one grid or zip value of key against the schema of
// a configuration (type, range, finite), without a position of its own.
func checkValue(key string, v any) error {
	text, err := yamlx.Flow(v)
	if err != nil {
		return err
	}
	shapes()
	sc := yamlx.Check("", yamlx.PathDoc(key, text), newShape(rcShape).Interface())
	var msgs []string
	for _, e := range sc.Issues {
		var is *yamlx.Issue
		if errors.As(e, &is) {
			msgs = append(msgs, is.Msg)
		} else {
			msgs = append(msgs, e.Error())
		}
	}
	if len(msgs) > 0 {
		return errors.New(strings.Join(msgs, "; "))
	}
	shape := newShape(rcShape)
	if yamlx.DecodeStrict("", yamlx.PathDoc(key, text), shape.Interface()) == nil {
		var rc RunConfig
		fromShape(shape, &rc)
		return rc.checkRanges()
	}
	return nil
}

// checkRanges checks a resolved configuration's sizes against the
// limits (grid values were checked alone for type and range).
func (rc *RunConfig) checkRanges() error {
	if rc.Workload.Jobs > MaxJobs {
		return fmt.Errorf("workload.jobs: %d jobs is over the limit of %d (raise it with --max-jobs)", rc.Workload.Jobs, MaxJobs)
	}
	return model.CheckNodes("platform.nodes", rc.Platform.Nodes)
}

// ConfigCount is the number of configurations Configs would make,
// counted without making them; false if it overflows.
func (s *Spec) ConfigCount() (int, bool) {
	const limit = 1 << 62
	n := 1
	mul := func(k int) bool {
		if k == 0 {
			n = 0
			return true
		}
		if n > limit/k {
			return false
		}
		n *= k
		return true
	}
	for _, k := range sortedKeys(s.Grid) {
		if !mul(len(s.Grid[k])) {
			return 0, false
		}
	}
	if len(s.Zip) > 0 {
		keys := sortedKeys(s.Zip)
		if !mul(len(s.Zip[keys[0]])) {
			return 0, false
		}
	}
	if len(s.Policies) > 0 && s.Grid["policy"] == nil && s.Zip["policy"] == nil {
		if !mul(len(s.Policies)) {
			return 0, false
		}
	}
	return n, true
}

func knownParam(k string) bool {
	switch {
	case k == "policy", k == "overrun", k == "node_select", k == "whole_nodes":
		return true
	case isSectionKey(k):
		return true
	case strings.HasPrefix(k, "workload.params."):
		return true
	case strings.HasPrefix(k, "workload."), strings.HasPrefix(k, "platform."):
		var r RunConfig
		return yamlx.DecodeStrict("", yamlx.PathDoc(k, "0"), &r) == nil ||
			yamlx.DecodeStrict("", yamlx.PathDoc(k, "x"), &r) == nil ||
			yamlx.DecodeStrict("", yamlx.PathDoc(k, "true"), &r) == nil
	}
	return false
}

func sortedKeys[V any](m map[string]V) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// Hash identifies the expanded experiment: two stores with the same hash
// hold runs of the same experiment and can be merged. It covers what the
// runs depend on; the description, the plot, the claims and references (commentary)
// can change without invalidating a store.
func (s *Spec) Hash() string {
	c := *s
	c.Description, c.Plot, c.Claims, c.References, c.Readings = "", PlotSpec{}, nil, nil, nil
	if c.Pairing != nil && c.Pairing.SubjectAt != nil {
		p := *c.Pairing
		p.SubjectAt = nil // pairs stored runs after the fact: no run depends on it
		c.Pairing = &p
	}
	b, _ := json.Marshal(&c)
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:12])
}

// Canonical is the spec as stored in the result store (JSON).
func (s *Spec) Canonical() string {
	b, _ := json.MarshalIndent(s, "", "  ")
	return string(b)
}
