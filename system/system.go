// Package system is the registry of the simulator's systems: the plug-in
// interface through which a seed system (unstable resources, advance
// reservations, hierarchical grids, the elastic cloud, …) joins the one run
// pipeline, and the metric registry shared by sweeps and reports.
//
// A system is one package that calls Register from its init function. It
// declares its name, its parameter section (the spec key and the
// --model-config key under which its parameters are decoded strictly, with
// positions in errors), its command-line flags, its policies, its metrics
// (name, unit, direction), the files its runs write and the time series the
// report draws from them. The run pipeline (packages simulate and
// experiment), the command line and the report consult the registry and
// hold no code of any particular system.
//
// There are two kinds of system:
//
//   - engine systems change a run on the shared engine: Attach may replace
//     the node selection or the policy, add engine hooks, inject events and
//     contribute metrics (unstable nodes, reservations and failures, the
//     hierarchical grid);
//   - loop systems run their own simulation (Simulate) on the run's jobs and
//     return an Outcome (the elastic cloud, whose VM pool is not a fixed
//     platform).
//
// The classic policies (FCFS, EASY, conservative backfilling) are the
// default: a policy no system claims is built by package policy's registry.
// docs/architecture.md has a worked example of adding a system.
package system

import (
	"errors"
	"fmt"
	"io"
	"math"
	"reflect"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/spf13/pflag"

	"github.com/gridsched/gridsched/engine"
	"github.com/gridsched/gridsched/internal/quote"
	"github.com/gridsched/gridsched/metrics"
	"github.com/gridsched/gridsched/model"
	"github.com/gridsched/gridsched/policy"
)

// ErrRunFailed marks a run that failed for a reason of its own, which
// does not concern the other runs of a sweep: an external scheduler that
// crashed, broke the protocol, proposed an invalid action, timed out or
// deadlocked. A sweep records such a run as failed, with the reason, and
// goes on; resuming the sweep retries it. Any other error stops a sweep.
var ErrRunFailed = errors.New("run failed")

// Policy is one policy a system provides.
type Policy struct {
	Name        string
	Description string
	// NeedsSection: (a node selection) it needs its system's section.
	NeedsSection bool
}

// Metric describes a metric for sweeps, axes and verdicts.
type Metric struct {
	Key           string
	Name          string // human name
	Unit          string // always given; "ratio", "fraction", "count" for pure numbers
	LowerIsBetter bool
	Min, Max      float64 // physical range (NaN: unbounded)
	// PerJob: a statistic over the jobs that ran to an end, absent (not
	// 0) from a run in which none did.
	PerJob bool
}

// Label is the axis label: name (unit).
func (m Metric) Label() string {
	if m.Unit == "" {
		return m.Name
	}
	return m.Name + " (" + m.Unit + ")"
}

// File is a file a system's runs write besides the common ones
// (jobs.csv, summary.json, series.csv).
type File struct {
	Name        string
	Description string
	// Series, if set, makes the file a time series the report draws.
	Series *Series
}

// Series describes a time-series CSV file: its time column and the
// figures drawn from it, each a set of step lines on one axis.
type Series struct {
	Time    string
	Figures []SeriesFigure
}

// SeriesFigure is one figure of a series file.
type SeriesFigure struct {
	Title  string
	YLabel string
	// Columns drawn as step lines (their names are the legend).
	Columns []string
}

// Run is one engine run being set up: Attach of every system is called
// with it before the engine is built, in registration order.
type Run struct {
	Policy     string
	Seed       uint64
	NodeSelect string
	Platform   *model.Platform
	// Jobs is the workload (read only), Workload its name.
	Jobs     []model.Job
	Workload string
	Overrun  engine.Overrun

	// Selector, if set by a system, selects nodes (else first-fit, or the
	// selection a system registered under NodeSelect).
	Selector policy.NodeSelector
	// NewPolicy, if set by a system, builds the policy (a system that owns
	// Policy sets it).
	NewPolicy func(sel policy.NodeSelector) (engine.Policy, error)
	// Hooks run on the built engine, before it runs, in the order added.
	Hooks []func(e *engine.Engine, pol engine.Policy) error
	// Extras add metrics to the summary after the run.
	Extras []func() map[string]float64
	// Observers are added to the engine with the run's own.
	Observers []engine.Observer
}

// LoopInput is what a loop system simulates.
type LoopInput struct {
	Policy   string
	Seed     uint64
	Workload string // the workload's name
	// Jobs in SWF units (seconds), read only.
	Jobs []model.Job
	// Series: record the time series (the command line's --out).
	Series bool
	// Model is the generator's parameters when the jobs come from a
	// workload model of an experiment (for example *gen.GridParams), nil
	// for a trace: a system that checks a generator against its model
	// reads them.
	Model any
}

// Outcome is a finished loop-system run.
type Outcome struct {
	// Summary is what simulate prints and writes as summary.json.
	Summary metrics.Summary
	// Metrics are the run's metric values, by metric key (what a sweep
	// stores).
	Metrics map[string]float64
	// Files are written by simulate --out, each atomically.
	Files []OutFile
}

// OutFile is one output file of a loop run.
type OutFile struct {
	Name  string
	Write func(w io.Writer) error
}

// System is one plug-in.
type System struct {
	Name        string
	Description string
	// Order decides the order of Attach (and of engine hooks) among
	// systems: lower first.
	Order int
	// TimeUnit is the unit of the times the system reports ("" = seconds,
	// "h" = hours): the metrics registered in seconds are in this unit in
	// its runs.
	TimeUnit string

	// Section is the key of the system's parameters in a spec and in a
	// --model-config file ("" if it has none); NewParams returns a
	// pointer to a zero value of their type (a struct with yaml tags and
	// range tags, decoded strictly).
	Section   string
	NewParams func() any
	// Prepare turns decoded parameters into the value runs use (defaults
	// applied, checked, expensive parts built once per configuration;
	// read only afterwards). resolve finds a file named in the parameters
	// (relative to the spec). Nil: the parameters as decoded.
	Prepare func(params any, resolve func(string) string) (any, error)
	// MaybeFiles: Prepare asks resolve about words that may name no file
	// (a command line's words): only those found are the experiment's
	// input files, hashed and checked (the others are no error).
	MaybeFiles bool
	// Platform, if set, gives the platform a prepared section defines
	// (nil: none).
	Platform func(prepared any) *model.Platform
	// Flags adds the system's command-line flags to fs and returns the
	// function that builds its parameters from them after parsing (nil,
	// nil when none of its flags was given).
	Flags func(fs *pflag.FlagSet) func(changed func(string) bool) (any, error)

	// Policies are the policies the system provides; a policy named here
	// belongs to it (OwnsPolicy may claim more, e.g. a prefix).
	Policies   []Policy
	OwnsPolicy func(name string) bool
	// NeedsSection: the system's own policies need its section.
	NeedsSection bool
	// NodeSelections are the node selections it provides (names).
	NodeSelections []Policy

	Metrics []Metric
	// ParamLabels name some of its section's parameters for axes, by the
	// key inside the section ("xfactor" for cloud.xfactor).
	ParamLabels map[string]string
	Files       []File

	// Attach prepares an engine run (prepared: the section's prepared
	// value, nil when the run has none).
	Attach func(r *Run, prepared any) error
	// Simulate runs a loop system's own simulation.
	Simulate func(in LoopInput, prepared any) (*Outcome, error)
}

var (
	mu       sync.RWMutex
	systems  []*System
	byName   = map[string]*System{}
	metricBy = map[string]Metric{}
	metricOr []string
)

// Register adds a system. It panics on a duplicate name, section, policy
// or metric: a programming error that any test finds.
func Register(s *System) {
	mu.Lock()
	defer mu.Unlock()
	if s.Name == "" || byName[s.Name] != nil {
		panic("system: duplicate or empty name " + s.Name)
	}
	for _, o := range systems {
		if s.Section != "" && o.Section == s.Section {
			panic("system: duplicate section " + s.Section)
		}
		for _, p := range s.Policies {
			if o.owns(p.Name) {
				panic("system: policy " + p.Name + " claimed by " + o.Name + " and " + s.Name)
			}
		}
	}
	if s.Section != "" && s.NewParams == nil {
		panic("system " + s.Name + ": a section needs NewParams")
	}
	for _, m := range s.Metrics {
		registerMetric(m)
	}
	byName[s.Name] = s
	systems = append(systems, s)
	sort.SliceStable(systems, func(a, b int) bool { return systems[a].Order < systems[b].Order })
}

func registerMetric(m Metric) {
	if _, dup := metricBy[m.Key]; dup {
		panic("system: duplicate metric " + m.Key)
	}
	metricBy[m.Key] = m
	metricOr = append(metricOr, m.Key)
}

func (s *System) owns(name string) bool {
	for _, p := range s.Policies {
		if p.Name == name {
			return true
		}
	}
	return s.OwnsPolicy != nil && s.OwnsPolicy(name)
}

// All lists the registered systems in attach order.
func All() []*System {
	mu.RLock()
	defer mu.RUnlock()
	return slices.Clone(systems)
}

// Lookup returns the system named name.
func Lookup(name string) (*System, bool) {
	mu.RLock()
	defer mu.RUnlock()
	s, ok := byName[name]
	return s, ok
}

// BySection returns the system whose parameters live under key.
func BySection(key string) (*System, bool) {
	for _, s := range All() {
		if s.Section != "" && s.Section == key {
			return s, true
		}
	}
	return nil, false
}

// Sections lists the section keys of the registered systems.
func Sections() []string {
	var out []string
	for _, s := range All() {
		if s.Section != "" {
			out = append(out, s.Section)
		}
	}
	return out
}

// Owner returns the system that provides policy name (false: a classic
// policy, or unknown).
func Owner(name string) (*System, bool) {
	for _, s := range All() {
		if s.owns(name) {
			return s, true
		}
	}
	return nil, false
}

// CheckPolicy says whether policy name can run with the given sections
// present: known (to a system or package policy) and, for a system that
// needs its section, with it.
func CheckPolicy(name string, hasSection func(key string) bool) error {
	if s, ok := Owner(name); ok {
		known := false
		var names []string
		for _, p := range s.Policies {
			known = known || p.Name == name
			names = append(names, p.Name)
		}
		if !known {
			return fmt.Errorf("unknown %s policy %q (known: %s)", s.Name, name, strings.Join(names, ", "))
		}
		if s.NeedsSection && !hasSection(s.Section) {
			article := "a"
			if strings.ContainsRune("aeiou", rune(s.Section[0])) {
				article = "an"
			}
			return fmt.Errorf("%s needs %s %s section (%s)", name, article, s.Section, s.Description)
		}
		return nil
	}
	if _, err := policy.New(name, nil); err != nil {
		if strings.Contains(name, ":") {
			// A catalogue point (BASE:key=value,...): the policy
			// package's message names the column and the allowed values.
			return err
		}
		return fmt.Errorf("unknown policy %s (known: %s)", quote.Clip(name), strings.Join(PolicyNames(), ", "))
	}
	return nil
}

// PolicyNames lists every policy: package policy's registry and every
// system's, sorted.
func PolicyNames() []string {
	seen := map[string]bool{}
	var out []string
	for _, n := range policy.Names() {
		seen[n] = true
		out = append(out, n)
	}
	for _, s := range All() {
		for _, p := range s.Policies {
			if !seen[p.Name] {
				seen[p.Name] = true
				out = append(out, p.Name)
			}
		}
	}
	sort.Strings(out)
	return out
}

// PolicyGroup is the policies of one system, for listings.
type PolicyGroup struct {
	System, Description string
	Policies            []Policy
}

// PolicyGroups lists every policy with its description, grouped by
// system: the classic ones (package policy's, claimed by no system)
// first.
func PolicyGroups() []PolicyGroup {
	classic := PolicyGroup{System: "classic", Description: "the foundation's batch policies"}
	for _, n := range policy.Names() {
		if _, ok := Owner(n); !ok {
			classic.Policies = append(classic.Policies, Policy{Name: n, Description: policy.Describe(n)})
		}
	}
	out := []PolicyGroup{classic}
	for _, s := range All() {
		if len(s.Policies) == 0 {
			continue
		}
		g := PolicyGroup{System: s.Name, Description: s.Description}
		for _, p := range s.Policies {
			if p.Description == "" {
				p.Description = policy.Describe(p.Name)
			}
			g.Policies = append(g.Policies, p)
		}
		out = append(out, g)
	}
	return out
}

// NodeSelectionNames lists the node selections: first-fit and every
// system's.
func NodeSelectionNames() []string {
	out := []string{"first-fit"}
	for _, s := range All() {
		for _, p := range s.NodeSelections {
			out = append(out, p.Name)
		}
	}
	return out
}

// CheckNodeSelection says whether name is a known node selection.
func CheckNodeSelection(name string) error {
	if name == "" || slices.Contains(NodeSelectionNames(), name) {
		return nil
	}
	return fmt.Errorf("unknown node selection %q (known: %s)", name, strings.Join(NodeSelectionNames(), ", "))
}

// CheckNodeSelectionWith is CheckNodeSelection, and also refuses a node
// selection that needs its system's section when hasSection says the
// run has none (u without an instability model), before anything runs.
func CheckNodeSelectionWith(name string, hasSection func(key string) bool) error {
	if err := CheckNodeSelection(name); err != nil {
		return err
	}
	for _, s := range All() {
		for _, p := range s.NodeSelections {
			if p.Name == name && p.NeedsSection && !hasSection(s.Section) {
				return fmt.Errorf("node selection %s needs the %s section (%s)", name, s.Section, s.Description)
			}
		}
	}
	return nil
}

// MetricInfo describes a metric; an unknown one gets its key as name,
// "value" as unit and no bounds.
func MetricInfo(key string) (Metric, bool) {
	mu.RLock()
	defer mu.RUnlock()
	m, ok := metricBy[key]
	if !ok {
		return Metric{Key: key, Name: strings.ReplaceAll(key, "_", " "), Unit: "value", Min: math.NaN(), Max: math.NaN()}, false
	}
	return m, true
}

// ParamLabel is the human name a system gives a parameter of its
// section (key "section.field…").
func ParamLabel(key string) (string, bool) {
	head, rest, ok := strings.Cut(key, ".")
	if !ok {
		return "", false
	}
	s, found := BySection(head)
	if !found {
		return "", false
	}
	l, ok := s.ParamLabels[rest]
	return l, ok
}

// MetricIn is MetricInfo for the runs of system s (nil: an engine run):
// a time metric takes the system's time unit.
func MetricIn(key string, s *System) Metric {
	m, _ := MetricInfo(key)
	if s != nil && s.TimeUnit != "" && m.Unit == "s" {
		m.Unit = s.TimeUnit
	}
	return m
}

// MetricKeys lists every metric key in registration order: the core
// metrics, then each system's.
func MetricKeys() []string {
	mu.RLock()
	defer mu.RUnlock()
	return slices.Clone(metricOr)
}

// Prepared maps section keys to prepared values.
type Prepared map[string]any

// Prepare prepares every section of sections (key → decoded params).
func Prepare(sections map[string]any, resolve func(string) string) (Prepared, error) {
	if resolve == nil {
		resolve = func(s string) string { return s }
	}
	out := Prepared{}
	for _, k := range sortedKeys(sections) {
		s, ok := BySection(k)
		if !ok {
			return nil, fmt.Errorf("%s: no system has this section (known: %s)", k, strings.Join(Sections(), ", "))
		}
		v := sections[k]
		if s.Prepare != nil {
			p, err := s.Prepare(v, resolve)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", k, err)
			}
			v = p
		}
		out[k] = v
	}
	return out, nil
}

// Platform returns the platform a prepared section defines, if any.
func (p Prepared) Platform() *model.Platform {
	for _, s := range All() {
		if v, ok := p[s.Section]; ok && s.Section != "" && s.Platform != nil {
			if pl := s.Platform(v); pl != nil {
				return pl
			}
		}
	}
	return nil
}

// Loop returns the loop system that runs policy name, if any.
func Loop(name string) (*System, bool) {
	s, ok := Owner(name)
	if ok && s.Simulate != nil {
		return s, true
	}
	return nil, false
}

// CloneParams copies a decoded section value (a pointer to a struct):
// sweeps change parameters per configuration on a copy. Maps inside are
// copied one level deep.
func CloneParams(v any) any {
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Pointer || rv.IsNil() {
		return v
	}
	c := reflect.New(rv.Elem().Type())
	c.Elem().Set(rv.Elem())
	cloneMaps(c.Elem())
	return c.Interface()
}

func cloneMaps(v reflect.Value) {
	if v.Kind() != reflect.Struct {
		return
	}
	for i := 0; i < v.NumField(); i++ {
		f := v.Field(i)
		if !f.CanSet() {
			continue
		}
		switch f.Kind() {
		case reflect.Map:
			if !f.IsNil() {
				m := reflect.MakeMapWithSize(f.Type(), f.Len())
				it := f.MapRange()
				for it.Next() {
					m.SetMapIndex(it.Key(), it.Value())
				}
				f.Set(m)
			}
		case reflect.Struct:
			cloneMaps(f)
		}
	}
}

func sortedKeys[V any](m map[string]V) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}
