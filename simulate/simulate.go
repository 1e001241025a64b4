// Package simulate runs one simulation from a configuration: it loads the
// workload, decides the platform, runs the engine under the named policy
// and computes the metrics. The command line and the tests share it.
package simulate

import (
	"io"

	"github.com/gridsched/gridsched/internal/atomicfile"

	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/gridsched/gridsched/engine"
	"github.com/gridsched/gridsched/metrics"
	"github.com/gridsched/gridsched/model"
	"github.com/gridsched/gridsched/output"
	"github.com/gridsched/gridsched/policy"
	"github.com/gridsched/gridsched/system"
	"github.com/gridsched/gridsched/workload"
)

// Config describes one simulation.
type Config struct {
	WorkloadPath string  // SWF trace (plain or gzip); "" = the built-in workload
	BuiltinJobs  int     // built-in workload size (default 2000)
	BuiltinLoad  float64 // built-in workload offered load (default 0.8)

	Policy string // registered policy name (default "easy")

	// Platform: Platform if set, else PlatformPath (YAML), else Nodes
	// single-processor nodes, else the trace header's MaxProcs (MaxNodes
	// if absent) single-processor nodes, else the built-in platform.
	Platform     *model.Platform
	PlatformPath string
	Nodes        int

	Overrun engine.Overrun
	// NodeSelect names the node selection: first-fit (default) or one a
	// system provides (system.NodeSelectionNames).
	NodeSelect string
	// WholeNodes rounds every job up to whole nodes (all nodes must have
	// the same processor count): the job gets its nodes to itself, as
	// seed 002's Job.start allocates whole machines.
	WholeNodes bool
	// Sections are the systems' parameters by section key (package
	// system), as decoded; Run prepares them. Prepared, if set, are
	// sections already prepared (a sweep prepares once per
	// configuration) and Sections are then ignored.
	Sections  map[string]any
	Prepared  system.Prepared
	Rules     workload.Rules
	Transform workload.Transform
	Seed      uint64
	Series    bool // record the utilization / queue-length time series

	// Progress, if set, is called now and then with the number of jobs
	// that have finished and the number of jobs.
	Progress func(done, total int)
}

// Result is a finished simulation.
type Result struct {
	Config Config
	// Workload is the loaded workload; after Run its Jobs are nil (the
	// engine's jobs, Engine.Jobs(), hold them).
	Workload *workload.Workload
	Platform *model.Platform
	Engine   *engine.Engine
	Policy   engine.Policy
	Summary  metrics.Summary
	Series   *metrics.Series
	// Outcome is the run of a loop system (package system; Engine and
	// Series are then nil), System the system.
	Outcome *system.Outcome
	System  *system.System
}

// prepare prepares cfg's sections once.
func (cfg *Config) prepare() error {
	if cfg.Prepared != nil {
		return nil
	}
	p, err := system.Prepare(cfg.Sections, nil)
	if err != nil {
		return err
	}
	cfg.Prepared = p
	return nil
}

// Load reads the workload and decides the platform of cfg, applying the
// too-wide rule.
func Load(cfg *Config) (*workload.Workload, *model.Platform, error) {
	if err := cfg.prepare(); err != nil {
		return nil, nil, err
	}
	var w *workload.Workload
	if cfg.WorkloadPath == "" {
		n, load := cfg.BuiltinJobs, cfg.BuiltinLoad
		if n == 0 {
			n = 2000
		}
		if load == 0 {
			load = 0.8
		}
		pes := model.DefaultPlatform().TotalPEs()
		if cfg.Nodes > 0 {
			pes = cfg.Nodes
		}
		jobs, err := workload.Builtin(cfg.Seed, n, pes, load)
		if err != nil {
			return nil, nil, err
		}
		w = &workload.Workload{Name: fmt.Sprintf("builtin(jobs=%d,load=%g,seed=%d)", n, load, cfg.Seed), Jobs: jobs, Records: n, Skipped: map[string]int{}}
	} else {
		var err error
		w, err = workload.Load(cfg.WorkloadPath, cfg.Rules, cfg.Transform)
		if err != nil {
			return nil, nil, err
		}
	}
	if _, loop := system.Loop(cfg.Policy); loop {
		return w, nil, nil // a loop system has its own resources
	}
	p, err := PlatformFor(cfg, w)
	if err != nil {
		return nil, nil, err
	}
	if err := Prepare(cfg, w, p); err != nil {
		return nil, nil, err
	}
	return w, p, nil
}

// Prepare fits a loaded workload to its platform: whole-node rounding
// (cfg.WholeNodes), then the too-wide rule.
func Prepare(cfg *Config, w *workload.Workload, p *model.Platform) error {
	if cfg.WholeNodes {
		pes := 0
		for i, n := range p.Nodes {
			if i > 0 && n.PEs != pes {
				return fmt.Errorf("whole-node allocation needs nodes of one size; %s has %d and %d processors", p.Name, pes, n.PEs)
			}
			pes = n.PEs
		}
		for i := range w.Jobs {
			if r := w.Jobs[i].Procs % pes; r != 0 {
				w.Jobs[i].Procs += pes - r
			}
		}
	}
	w.FitPlatform(p.TotalPEs(), cfg.Rules)
	return nil
}

// PlatformFor decides the platform of cfg for workload w: cfg.Platform,
// else the platform a system's section defines (a hierarchical grid's
// tree), else cfg.PlatformPath, else cfg.Nodes single-processor nodes,
// else the built-in platform for the built-in workload, else the
// workload header's MaxProcs (MaxNodes) single-processor nodes.
func PlatformFor(cfg *Config, w *workload.Workload) (*model.Platform, error) {
	if err := cfg.prepare(); err != nil {
		return nil, err
	}
	switch {
	case cfg.Platform != nil:
		return cfg.Platform, nil
	case cfg.Prepared.Platform() != nil:
		return cfg.Prepared.Platform(), nil
	case cfg.PlatformPath != "":
		data, err := os.ReadFile(cfg.PlatformPath)
		if err != nil {
			return nil, err
		}
		return model.ParsePlatform(cfg.PlatformPath, data)
	case cfg.Nodes > 0:
		if err := model.CheckNodes("--nodes", cfg.Nodes); err != nil {
			return nil, err
		}
		return model.Uniform(fmt.Sprintf("%d single-processor nodes", cfg.Nodes), cfg.Nodes, 1), nil
	case cfg.WorkloadPath == "" && w.Header == nil:
		return model.DefaultPlatform(), nil
	}
	n := w.MaxProcs()
	for _, k := range []string{"MaxProcs", "MaxNodes"} {
		if v, ok := w.Header.Get(k); ok && n <= 0 {
			return nil, fmt.Errorf("%s: the header's %s is %q, not a positive number of processors; say the platform with --nodes or --platform", w.Name, k, v)
		}
	}
	if n <= 0 {
		return nil, fmt.Errorf("%s: the workload gives no MaxProcs or MaxNodes; say the platform with --nodes or --platform", w.Name)
	}
	if err := model.CheckNodes(w.Name+": the header's MaxProcs", n); err != nil {
		return nil, err
	}
	return model.Uniform(fmt.Sprintf("trace MaxProcs: %d single-processor nodes", n), n, 1), nil
}

// Run simulates cfg.
func Run(cfg Config) (*Result, error) {
	w, p, err := Load(&cfg)
	if err != nil {
		return nil, err
	}
	return runLoaded(cfg, w, p, true)
}

// RunLoaded simulates an already loaded workload on p. The workload's
// jobs are not modified, so one load can serve several policies.
func RunLoaded(cfg Config, w *workload.Workload, p *model.Platform) (*Result, error) {
	return runLoaded(cfg, w, p, false)
}

// runLoaded simulates; with release the workload's job list is dropped
// from the Result once the engine is built (Run owns the workload). The
// engine's jobs point at the loaded entries (no copy), which must not
// change while it runs; RunLoaded's callers share one load read-only.
func runLoaded(cfg Config, w *workload.Workload, p *model.Platform, release bool) (*Result, error) {
	if cfg.Policy == "" {
		cfg.Policy = "easy"
	}
	if err := cfg.prepare(); err != nil {
		return nil, err
	}
	if sys, ok := system.Loop(cfg.Policy); ok {
		return runLoop(cfg, sys, w)
	}
	run := &system.Run{Policy: cfg.Policy, Seed: cfg.Seed, NodeSelect: cfg.NodeSelect, Platform: p, Jobs: w.Jobs, Workload: w.Name, Overrun: cfg.Overrun}
	for _, sys := range system.All() {
		if sys.Attach == nil {
			continue
		}
		var prep any
		if sys.Section != "" {
			prep = cfg.Prepared[sys.Section]
		}
		if err := sys.Attach(run, prep); err != nil {
			return nil, fmt.Errorf("policy %s: %w", cfg.Policy, err)
		}
	}
	sel := run.Selector
	if sel == nil {
		if err := system.CheckNodeSelection(cfg.NodeSelect); err != nil {
			return nil, fmt.Errorf("node selection: %w", err)
		}
		if cfg.NodeSelect != "" && cfg.NodeSelect != "first-fit" {
			return nil, fmt.Errorf("node selection %s: not available in this run", cfg.NodeSelect)
		}
		sel = policy.FirstFit{}
	}
	var pol engine.Policy
	var err error
	if run.NewPolicy != nil {
		pol, err = run.NewPolicy(sel)
	} else if owner, ok := system.Owner(cfg.Policy); ok && owner.NeedsSection {
		err = fmt.Errorf("needs a %s section", owner.Section)
	} else {
		pol, err = policy.New(cfg.Policy, sel)
	}
	if err != nil {
		return nil, fmt.Errorf("policy %s: %w", cfg.Policy, err)
	}
	if sp, ok := pol.(interface{ SetSeed(uint64) }); ok {
		sp.SetSeed(cfg.Seed)
	}
	e := engine.New(p, w.Jobs, pol, engine.Options{Overrun: cfg.Overrun})
	for _, h := range run.Hooks {
		if err := h(e, pol); err != nil {
			return nil, fmt.Errorf("policy %s: %w", cfg.Policy, err)
		}
	}
	for _, o := range run.Observers {
		e.Observe(o)
	}
	njobs := len(w.Jobs)
	if release {
		w.Jobs = nil
	}
	r := &Result{Config: cfg, Workload: w, Platform: p, Engine: e, Policy: pol}
	if cfg.Series {
		r.Series = &metrics.Series{}
		e.Observe(r.Series)
	}
	if cfg.Progress != nil {
		e.Observe(&progress{total: njobs, step: max(1, njobs/200), f: cfg.Progress})
	}
	err = e.Run()
	if f, ok := pol.(engine.FinishingPolicy); ok {
		err = f.Finish(e.View(), err)
	}
	if err != nil {
		return nil, fmt.Errorf("policy %s on %s: %w", cfg.Policy, w.Name, err)
	}
	r.Summary = metrics.Summarize(e.Jobs(), p.TotalPEs(), r.Series)
	for _, x := range run.Extras {
		if r.Summary.Extra == nil {
			r.Summary.Extra = map[string]float64{}
		}
		for k, v := range x() {
			r.Summary.Extra[k] = v
		}
	}
	if ex, ok := pol.(interface{ Extra() map[string]float64 }); ok {
		if r.Summary.Extra == nil {
			r.Summary.Extra = map[string]float64{}
		}
		for k, v := range ex.Extra() {
			r.Summary.Extra[k] = v
		}
	}
	r.Summary.Policy = cfg.Policy
	r.Summary.Workload = w.Name
	r.Summary.Platform = p.Name
	for k, v := range w.Skipped {
		if v > 0 {
			r.Summary.Skipped[k] = v
		}
	}
	return r, nil
}

// runLoop runs a loop system (its own simulation of the jobs).
func runLoop(cfg Config, sys *system.System, w *workload.Workload) (*Result, error) {
	var prep any
	if sys.Section != "" {
		prep = cfg.Prepared[sys.Section]
	}
	out, err := sys.Simulate(system.LoopInput{Policy: cfg.Policy, Seed: cfg.Seed, Workload: w.Name, Jobs: w.Jobs, Series: cfg.Series}, prep)
	if err != nil {
		return nil, fmt.Errorf("policy %s on %s: %w", cfg.Policy, w.Name, err)
	}
	r := &Result{Config: cfg, Workload: w, Outcome: out, System: sys, Summary: out.Summary}
	if r.Summary.Skipped == nil {
		r.Summary.Skipped = map[string]int{}
	}
	for k, v := range w.Skipped {
		if v > 0 {
			r.Summary.Skipped[k] = v
		}
	}
	return r, nil
}

// Metrics are the run's metric values by key (package system's
// registry): what a sweep stores.
func (r *Result) Metrics() map[string]float64 {
	if r.Outcome != nil {
		return r.Outcome.Metrics
	}
	return MetricValues(&r.Summary)
}

type progress struct {
	done, total, step int
	f                 func(int, int)
}

func (p *progress) JobSubmitted(float64, *engine.Job) {}
func (p *progress) JobStarted(float64, *engine.Job)   {}
func (p *progress) JobStopped(_ float64, j *engine.Job) {
	if !j.State.Terminal() {
		return
	}
	p.done++
	if p.done%p.step == 0 || p.done == p.total {
		p.f(p.done, p.total)
	}
}
func (p *progress) Sample(float64, int, int, int) {}

// Files written by WriteDir.
const (
	JobsFile     = "jobs.csv"
	SummaryFile  = "summary.json"
	ScheduleFile = "schedule.swf"
	SeriesFile   = "series.csv"
)

// WriteDir writes jobs.csv, summary.json, schedule.swf and (with a
// series) series.csv into dir, creating it. Each file is written whole to
// a temporary name and renamed, so a failure never leaves a truncated
// file; a failure on one file does not stop the others.
func (r *Result) WriteDir(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	write := func(name string, f func(io.Writer) error) error {
		return atomicfile.Write(filepath.Join(dir, name), 0o644, f)
	}
	if r.Outcome != nil {
		errs := []error{write(SummaryFile, func(f io.Writer) error { return output.WriteSummaryJSON(f, &r.Summary) })}
		for _, of := range r.Outcome.Files {
			errs = append(errs, write(of.Name, of.Write))
		}
		return errors.Join(errs...)
	}
	errs := []error{
		write(JobsFile, func(f io.Writer) error { return output.WriteJobsOf(f, r.Engine.Jobs(), r.Summary.Workload) }),
		write(SummaryFile, func(f io.Writer) error { return output.WriteSummaryJSON(f, &r.Summary) }),
		write(ScheduleFile, func(f io.Writer) error {
			note := fmt.Sprintf("schedule simulated by gridsched, policy %s, platform %s (%d processors)", r.Config.Policy, r.Platform.Name, r.Platform.TotalPEs())
			return output.WriteScheduleSWF(f, r.Engine.Jobs(), r.Workload.Header, note, r.Platform.TotalPEs())
		}),
	}
	if r.Series != nil {
		errs = append(errs, write(SeriesFile, func(f io.Writer) error { return output.WriteSeries(f, r.Series) }))
	}
	return errors.Join(errs...)
}
