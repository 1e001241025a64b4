package cli

import (
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"text/tabwriter"
	"time"

	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/gridsched/gridsched/experiment"
	"github.com/gridsched/gridsched/report"
)

// progressFor returns a progress callback: a bar with ETA on a terminal,
// else a log line at most every 10 seconds (and at the end).
func progressFor(w io.Writer, quiet bool, what string) (func(done, planned int), func()) {
	if quiet {
		return nil, func() {}
	}
	if f, ok := w.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		var bar *progressbar.ProgressBar
		return func(done, planned int) {
				if bar == nil {
					bar = progressbar.NewOptions(planned, progressbar.OptionSetWriter(w), progressbar.OptionSetDescription(what),
						progressbar.OptionShowCount(), progressbar.OptionSetPredictTime(true), progressbar.OptionThrottle(100*time.Millisecond))
				}
				if bar.GetMax() != planned {
					bar.ChangeMax(planned)
				}
				bar.Set(done)
			}, func() {
				if bar != nil {
					bar.Finish()
					fmt.Fprintln(w)
				}
			}
	}
	start := time.Now()
	last := time.Time{}
	return func(done, planned int) {
		if time.Since(last) >= 10*time.Second || done == planned {
			fmt.Fprintf(w, "%s: %d/%d runs done (%.0fs)\n", what, done, planned, time.Since(start).Seconds())
			last = time.Now()
		}
	}, func() {}
}

// planHead is the first line a sweep prints, at once (before its inputs
// are checked and its store opened): its configurations, replications and
// runs, counted without making them.
func planHead(s *experiment.Spec) string {
	n, _ := s.ConfigCount()
	r := s.Replications
	if r.Adaptive() {
		return fmt.Sprintf("%s: %d configurations × %d to %d replications (adaptive) = %d to %d runs", s.Name, n, r.Min, r.Max, n*r.Min, n*r.Max)
	}
	reps := "replications"
	if r.Count == 1 {
		reps = "replication"
	}
	return fmt.Sprintf("%s: %d configurations × %d %s = %d runs", s.Name, n, r.Count, reps, n*r.Count)
}

// planFor returns the sweep's Plan and Estimate callbacks: before the
// first run, the runs already in the store and those to run (planHead
// said the sweep's size); once the sample of runs spread over the sweep
// has finished, the time the rest should take (on stderr, as the
// progress; nothing when quiet).
func planFor(w io.Writer, quiet bool, what string) (func(experiment.Plan), func(experiment.Estimate)) {
	if quiet {
		return nil, nil
	}
	adaptive, maxRuns := false, 0
	plan := func(p experiment.Plan) {
		adaptive = p.Adaptive
		if p.Adaptive {
			maxRuns = p.Configs * p.MaxReplications
		}
		todo := fmt.Sprintf("%d already in the store, %d to run", p.AlreadyDone, p.ToRun)
		if p.Adaptive {
			todo = fmt.Sprintf("%d already in the store, %d to run in the first round", p.AlreadyDone, p.ToRun)
		}
		if p.Shards > 1 {
			todo = fmt.Sprintf("shard %d/%d: %s", p.Shard+1, p.Shards, todo)
		}
		fmt.Fprintf(w, "%s: %s\n", what, todo)
	}
	estimate := func(e experiment.Estimate) {
		tail := ""
		if adaptive {
			tail = fmt.Sprintf(" of the first round (later rounds may add more, up to %d runs in all)", maxRuns)
		}
		fmt.Fprintf(w, "%s: %d sample runs spread over the sweep took %s each (%d at once; %s so far): about %s more for the %d runs left%s\n",
			what, e.Sampled, humanDuration(e.PerRun), e.Workers, humanDuration(e.Elapsed), humanDuration(e.Remaining), e.Left, tail)
	}
	return plan, estimate
}

// reproducePlan counts the configurations and runs of the built-in
// experiments names at a label (adaptive ones at their minimum and
// maximum number of replications).
func reproducePlan(names []string, label string) (string, error) {
	configs, lo, hi := 0, 0, 0
	for _, n := range names {
		s, err := experiment.LoadBuiltin(n, "")
		if err != nil {
			return "", err
		}
		if _, ok := s.Labels[label]; ok {
			if s, err = experiment.LoadBuiltin(n, label); err != nil {
				return "", err
			}
		}
		c, _ := s.ConfigCount()
		configs += c
		if r := s.Replications; r.Adaptive() {
			lo, hi = lo+c*r.Min, hi+c*r.Max
		} else {
			lo, hi = lo+c*r.Count, hi+c*r.Count
		}
	}
	runs := fmt.Sprint(lo)
	if hi != lo {
		runs = fmt.Sprintf("%d to %d", lo, hi)
	}
	return fmt.Sprintf("reproduce (%s): %d experiments, %d configurations, %s runs (each experiment gives its time estimate once a sample of its runs has finished)", label, len(names), configs, runs), nil
}

// humanDuration rounds a duration for people: 0.4s, 25s, 4m10s, 3h05m.
func humanDuration(d time.Duration) string {
	switch {
	case d < 10*time.Second:
		return fmt.Sprintf("%.1fs", d.Seconds())
	case d < time.Hour:
		return d.Round(time.Second).String()
	}
	d = d.Round(time.Minute)
	return fmt.Sprintf("%dh%02dm", int(d.Hours()), int(d.Minutes())%60)
}

// parseShard reads "I/N" (1-based I, as people count) or "env": Slurm's
// SLURM_ARRAY_TASK_ID / SLURM_ARRAY_TASK_MIN / SLURM_ARRAY_TASK_COUNT, or
// Kubernetes' JOB_COMPLETION_INDEX (0-based) with the count from
// GRIDSCHED_SHARDS. It returns the 0-based shard and the count.
func parseShard(s string) (int, int, error) {
	if s == "" {
		return 0, 1, nil
	}
	if s == "env" {
		if id := os.Getenv("SLURM_ARRAY_TASK_ID"); id != "" {
			i, err1 := strconv.Atoi(id)
			n, err2 := strconv.Atoi(os.Getenv("SLURM_ARRAY_TASK_COUNT"))
			lo, _ := strconv.Atoi(os.Getenv("SLURM_ARRAY_TASK_MIN"))
			if err1 != nil || err2 != nil || n < 1 {
				return 0, 0, fmt.Errorf("--shard env: SLURM_ARRAY_TASK_ID=%q, SLURM_ARRAY_TASK_COUNT=%q are not a task of an array", id, os.Getenv("SLURM_ARRAY_TASK_COUNT"))
			}
			return i - lo, n, nil
		}
		if id := os.Getenv("JOB_COMPLETION_INDEX"); id != "" {
			i, err1 := strconv.Atoi(id)
			n, err2 := strconv.Atoi(os.Getenv("GRIDSCHED_SHARDS"))
			if err1 != nil || err2 != nil || n < 1 {
				return 0, 0, fmt.Errorf("--shard env: JOB_COMPLETION_INDEX=%q needs GRIDSCHED_SHARDS (the number of completions)", id)
			}
			return i, n, nil
		}
		return 0, 0, fmt.Errorf("--shard env: neither SLURM_ARRAY_TASK_ID nor JOB_COMPLETION_INDEX is set")
	}
	a, b, ok := strings.Cut(s, "/")
	i, err1 := strconv.Atoi(a)
	n, err2 := strconv.Atoi(b)
	if !ok || err1 != nil || err2 != nil || n < 1 || i < 1 || i > n {
		return 0, 0, fmt.Errorf("--shard %q: want I/N with 1 <= I <= N, or env", s)
	}
	return i - 1, n, nil
}

// defaultOut is results/NAME[-LABEL], the name made safe as one folder
// name (safeName): a spec named ../../x writes under results/ too.
func defaultOut(s *experiment.Spec) string {
	name := s.Name
	if s.Label != "" {
		name += "-" + s.Label
	}
	return filepath.Join("results", safeName(name))
}

// safeName makes a name usable as one file or folder name and as a
// Slurm job name: every character but letters, digits and . _ - + becomes
// _, and leading dots become underscores (never . or .., nor hidden).
func safeName(name string) string {
	out := strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '_' || r == '-' || r == '+' {
			return r
		}
		return '_'
	}, name)
	if out == "" {
		return "_"
	}
	// No leading dot: never . or .., never a hidden folder.
	rest := strings.TrimLeft(out, ".")
	return strings.Repeat("_", len(out)-len(rest)) + rest
}

func newRunCmd() *cobra.Command {
	var o runOptions
	cmd := &cobra.Command{
		Use:   "run SPEC.yaml",
		Short: "Run an experiment: a parameter sweep with replications, on all cores",
		Long: `Run every simulation of an experiment spec on all cores, committing each finished
run to a crash-safe result store (DIR/store.db, SQLite). Kill it at any time and
run again with --resume: no finished run is lost or counted twice. At the end it
writes DIR/runs.csv (one row per run), DIR/aggregate.csv (mean, sd and 95% CI per
configuration and metric), DIR/provenance.json and DIR/report.html with its
figures.

The store records the code identity of this gridsched ('gridsched version') and
the SHA-256 of every file the experiment reads (traces, platform and tree
files). --resume refuses a store whose inputs' contents or code changed, naming
what changed: run into a new folder, or (for a code change) continue with
--allow-code-change, which records the code identity of each run.

With --shard I/N it runs a deterministic 1/N of the runs into
DIR/store-I-of-N.db; combine the shards with 'gridsched merge'. --shard env takes
the shard from a Slurm array task (SLURM_ARRAY_TASK_ID) or a Kubernetes Indexed
Job (JOB_COMPLETION_INDEX, with GRIDSCHED_SHARDS).`,
		Example: `  gridsched run experiment.yaml
  gridsched run experiment.yaml --label quick --out results/try
  gridsched run experiment.yaml --resume
  gridsched run experiment.yaml --shard 2/8`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if cmd.Flags().Changed("workers") && o.workers < 1 {
				return usagef("--workers %d: want at least 1 (the default is every core)", o.workers)
			}
			s, err := experiment.Load(args[0], o.label)
			if err != nil {
				return inputError(err)
			}
			o.shard, o.shards, err = parseShard(o.shardFlag)
			if err != nil {
				return usageError(err)
			}
			if o.out == "" {
				o.out = defaultOut(s)
			}
			o.spec = args[0]
			return runSpec(cmd, s, o)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.label, "label", "", "apply a label of the spec (e.g. quick, paper)")
	f.StringVar(&o.out, "out", "", "output folder (default results/NAME[-LABEL])")
	f.BoolVar(&o.resume, "resume", false, "continue an interrupted run in the same folder")
	f.BoolVar(&o.allowCodeChange, "allow-code-change", false, "with --resume: continue a store made by other code (each run records its code identity)")
	f.StringVar(&o.shardFlag, "shard", "", "run shard I of N (I/N, 1-based), or env (Slurm array, Kubernetes indexed job)")
	f.IntVar(&o.workers, "workers", 0, "simulations at once (default: all cores)")
	f.BoolVar(&o.quiet, "quiet", false, "no progress output")
	return cmd
}

// runOptions are the run command's settings.
type runOptions struct {
	spec, label, out, shardFlag    string
	shard, shards, workers         int
	resume, allowCodeChange, quiet bool
}

// resumeLine is the command that continues this run.
func (o runOptions) resumeLine() string {
	w := []string{"gridsched", "run", o.spec}
	if o.label != "" {
		w = append(w, "--label", o.label)
	}
	w = append(w, "--out", o.out)
	if o.shardFlag != "" {
		w = append(w, "--shard", o.shardFlag)
	}
	w = append(w, "--resume")
	if o.allowCodeChange {
		w = append(w, "--allow-code-change")
	}
	return shellLine(w...)
}

func runSpec(cmd *cobra.Command, s *experiment.Spec, o runOptions) error {
	stderr := cmd.ErrOrStderr()
	if !o.quiet {
		fmt.Fprintln(stderr, planHead(s)) // at once: a large sweep says its size before anything takes time
	}
	// Every file is found and hashed before the store is created: a
	// failed start leaves nothing behind.
	if err := s.CheckFiles(); err != nil {
		return inputError(err)
	}
	inputs, err := s.Inputs()
	if err != nil {
		return inputError(err)
	}
	storePath := filepath.Join(o.out, experiment.StoreFile)
	if o.shards > 1 {
		storePath = filepath.Join(o.out, fmt.Sprintf("store-%d-of-%d.db", o.shard+1, o.shards))
	}
	lock, err := experiment.LockStore(storePath)
	if err != nil {
		return err
	}
	defer lock.Unlock()
	st, err := experiment.OpenStoreWith(storePath, s, experiment.StoreOptions{
		Resume: o.resume, AllowCodeChange: o.allowCodeChange, Inputs: inputs,
		Notice: func(m string) { fmt.Fprintf(stderr, "%s: %s\n", s.Name, m) },
	})
	if err != nil {
		return err
	}
	defer st.Close()
	before, _ := st.Count()
	var now atomic.Int64
	sess := sessionOf(cmd)
	sess.setNote(func() string {
		kept := keptRuns(st, before+int(now.Load()))
		return fmt.Sprintf("%d runs are kept in %s (%d finished now; runs in flight are dropped). Continue with: %s", kept, storePath, kept-before, o.resumeLine())
	})
	defer sess.setNote(nil)
	progress, finish := progressFor(stderr, o.quiet, s.Name)
	count := func(done, planned int) {
		now.Store(int64(done))
		if progress != nil {
			progress(done, planned)
		}
	}
	plan, estimate := planFor(stderr, o.quiet, s.Name)
	sum, err := experiment.Sweep(s, st, experiment.Options{Workers: o.workers, Shard: o.shard, Shards: o.shards, Progress: count, Plan: plan, Estimate: estimate})
	finish()
	fmt.Fprintf(cmd.OutOrStdout(), "%s: %d configurations, %d runs done now, %d already in %s\n", s.Name, sum.Configs, sum.Ran, sum.AlreadyDone, storePath)
	if err != nil {
		return sweepStopped(st, err, o.resumeLine())
	}
	if o.shards > 1 {
		return nil
	}
	path, err := experiment.WriteOutputs(s.Name, []*experiment.Store{st}, o.out)
	if err != nil {
		return err
	}
	fmt.Fprintf(cmd.OutOrStdout(), "report: %s\n", path)
	return nil
}

// sweepStopped explains a sweep that stopped on err and says what
// works next: a run that failed on its configuration or inputs marks the
// store (a plain rerun of the fixed spec then moves it aside and starts
// afresh); any other failure leaves it to --resume.
func sweepStopped(st *experiment.Store, err error, resume string) error {
	kept, _ := st.Count()
	var re *experiment.RunError
	if errors.As(err, &re) {
		st.MarkStopped(re.Error())
		if kept == 0 {
			return inputError(fmt.Errorf("%w. No run finished: fix the cause and run the same command again (the empty store is replaced)", err))
		}
		return inputError(fmt.Errorf("%w. The sweep stopped; its %d finished runs are kept in %s. Fix the cause and run the same command again: a run without --resume moves this store aside (to store-stopped-N.db beside it) and starts afresh; if the cause was outside the spec and its inputs, continue with: %s", err, kept, st.Path, resume))
	}
	return fmt.Errorf("%w (%d finished runs are kept in %s; continue with: %s)", err, kept, st.Path, resume)
}

func newMergeCmd() *cobra.Command {
	var out string
	var allowCodeChange bool
	cmd := &cobra.Command{
		Use:   "merge --out DIR STORE...",
		Short: "Merge shard stores of one experiment and write its exports and report",
		Long: `Merge the result stores of the shards of one experiment into DIR/store.db, then
write DIR/runs.csv, DIR/aggregate.csv, DIR/provenance.json and DIR/report.html.
Stores of different experiments (another spec, label or seed), or whose inputs
had other contents, are refused; so are stores made by different code, unless
--allow-code-change (each run keeps its code identity). The stores are only
read (they may sit on a read-only mount).`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if out == "" {
				return usagef("--out: the folder for the merged store is required")
			}
			path := filepath.Join(out, experiment.StoreFile)
			lock, err := experiment.LockStore(path)
			if err != nil {
				return err
			}
			defer lock.Unlock()
			n, err := experiment.MergeWith(path, args, allowCodeChange)
			if err != nil {
				return err
			}
			st, err := experiment.OpenExisting(path)
			if err != nil {
				return err
			}
			defer st.Close()
			s, err := st.StoredSpec()
			if err != nil {
				return err
			}
			rep, err := experiment.WriteOutputs(s.Name, []*experiment.Store{st}, out)
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "merged %d runs from %d stores into %s\nreport: %s\n", n, len(args), path, rep)
			return nil
		},
	}
	cmd.Flags().StringVar(&out, "out", "", "output folder")
	cmd.Flags().BoolVar(&allowCodeChange, "allow-code-change", false, "merge stores whose runs were made by different code (each run keeps its code identity)")
	return cmd
}

func newReportCmd() *cobra.Command {
	var out, formats string
	var window, ganttFrom, ganttTo float64
	var ganttJobs, ganttNodes, viewJobs int
	var gridModel bool
	cmd := &cobra.Command{
		Use:   "report STORE.db|RUN_DIR|SIMULATE_DIR...",
		Short: "Write an HTML report (with SVG, PNG or PDF figures) of result stores or simulation folders",
		Long: `Write a self-contained HTML report and its figures (FOLDER/figures, in the
formats --format names: svg, png at 300 dpi, pdf with its fonts embedded;
every figure is sized for one column of a two-column paper, 3.5 in wide).

Result stores (store.db, or the folder 'gridsched run' wrote) give the sweep
figures (metric against parameter, one line per series, 95% CI error bars, the
paper's numbers as markers) arranged per seed paper: the verdicts first, then
the paper's figures in the paper's order; every other figure, the claims and
the aggregate tables are folded below.

Simulation folders (from 'gridsched simulate --out') give one section: the
summary as a table; wait, response and bounded-slowdown CDFs (and box plots
when several runs are given) with every run on shared axes; mean wait by job
size class; utilization and queue length over time (each run over its own
span; long series as bucket means with a min-max band); the Gantt chart of a
window (--gantt-from, --gantt-to, --gantt-jobs) and an overview of the whole
run; the workload's sizes, runtimes and inter-arrival times. A single run's
page also has interactive views of its time series and its schedule, zoomed
and panned with the mouse or the keyboard (a small script in the page).`,
		Example: `  gridsched report results/my-sweep
  gridsched report runs/easy runs/conservative --out runs/compare
  gridsched report runs/easy --format pdf,png,svg --gantt-from 86400 --gantt-to 172800`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if cmd.Flags().Changed("window") && !(window > 0 && window < math.Inf(1)) {
				return usagef("--window %v: want a positive number of seconds", window)
			}
			fmts, err := report.ParseFormats(formats)
			if err != nil {
				return err
			}
			if out == "" {
				out = args[0]
				if st, err := os.Stat(out); err == nil && !st.IsDir() {
					out = filepath.Dir(out)
				}
			}
			var runs []*report.Run
			var stores []*experiment.Store
			defer func() {
				for _, st := range stores {
					st.Close()
				}
			}()
			for _, a := range args {
				st, err := os.Stat(a)
				if err != nil {
					return inputError(err)
				}
				storePath := a
				if st.IsDir() {
					// a run folder (store.db) or a simulate folder (jobs.csv)
					storePath = filepath.Join(a, experiment.StoreFile)
					if _, err := os.Stat(storePath); err != nil {
						if _, err := os.Stat(filepath.Join(a, "jobs.csv")); err != nil {
							return inputError(fmt.Errorf("%s: neither a result store (%s, from 'gridsched run') nor a simulation folder (jobs.csv, from 'gridsched simulate --out')", a, experiment.StoreFile))
						}
						r, err := report.LoadRun(a)
						if err != nil {
							return inputError(err)
						}
						runs = append(runs, r)
						continue
					}
				}
				store, err := experiment.OpenExisting(storePath)
				if err != nil {
					return err
				}
				stores = append(stores, store)
			}
			var extra []report.Section
			if gridModel {
				grid, err := report.GridModelSection(1)
				if err != nil {
					return err
				}
				extra = append(extra, grid)
			}
			if len(runs) > 0 {
				// several runs share one section: overlaid CDFs, box plots
				opt := report.RunOptions{Window: window, Interactive: len(runs) == 1,
					Gantt: report.GanttOptions{From: ganttFrom, To: ganttTo, MaxJobs: ganttJobs, MaxNodes: ganttNodes, ViewJobs: viewJobs}}
				sec, err := report.RunsSection(runs, opt)
				if err != nil {
					return err
				}
				extra = append(extra, sec)
			}
			var path string
			if len(stores) > 0 {
				path, err = experiment.WritePage(stores, out, experiment.ReportOptions{Title: "gridsched report", Formats: fmts, Extra: extra})
			} else {
				page := report.Page{Title: "gridsched report", Sections: extra}
				path = filepath.Join(out, experiment.ReportFile)
				if err = report.Render(page.Figures(), report.Output{Dir: filepath.Join(out, experiment.FiguresDir), Formats: fmts}); err == nil {
					err = page.WriteFile(path)
				}
			}
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "report: %s\n", path)
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&out, "out", "", "output folder (default: next to the first argument)")
	f.StringVar(&formats, "format", "svg,png", "figure files to write, comma-separated: svg, png (300 dpi), pdf")
	f.Float64Var(&window, "window", 0, "moving-average window of time series, seconds (default: the mean of each of the figure's time buckets)")
	f.Float64Var(&ganttFrom, "gantt-from", 0, "Gantt chart: start of the time window, seconds")
	f.Float64Var(&ganttTo, "gantt-to", 0, "Gantt chart: end of the time window, seconds (default: the end of the run)")
	f.IntVar(&ganttJobs, "gantt-jobs", report.GanttMaxJobs, "Gantt chart: at most this many jobs (the first to start in the window)")
	f.IntVar(&ganttNodes, "gantt-nodes", report.GanttMaxNodes, "Gantt chart: at most this many nodes (the first)")
	f.BoolVar(&gridModel, "grid-model", false, "also draw seed 004's grid workload model (figures 4–8), as reproduce does")
	f.IntVar(&viewJobs, "view-jobs", report.ViewJobs, "interactive schedule of a single run: at most this many jobs drawn one by one (the first to start in the window)")
	return cmd
}

func newExperimentsCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "experiments", Short: "The built-in experiments"}
	cmd.AddCommand(&cobra.Command{
		Use:   "list",
		Short: "List the built-in experiments",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			tw := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 0, 2, ' ', 0)
			for _, n := range experiment.Builtin() {
				s, err := experiment.LoadBuiltin(n, "")
				if err != nil {
					return err
				}
				labels := make([]string, 0, len(s.Labels))
				for l := range s.Labels {
					labels = append(labels, l)
				}
				sortStrings(labels)
				fmt.Fprintf(tw, "%s\t%d configurations\tlabels: %s\t%s\n", n, configCount(s), strings.Join(labels, ", "), strings.Join(strings.Fields(s.Description), " "))
			}
			return tw.Flush()
		},
	}, &cobra.Command{
		Use:               "show NAME",
		ValidArgsFunction: completeExperiments,
		Short:             "Print the spec of a built-in experiment (a starting point for your own)",
		Args:              cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			b, err := experiment.BuiltinSource(args[0])
			if err != nil {
				return usagef("no built-in experiment %q (built in: %s)", args[0], strings.Join(experiment.Builtin(), ", "))
			}
			_, err = cmd.OutOrStdout().Write(b)
			return err
		},
	})
	return cmd
}

// configCount is the spec's number of configurations (counted, not made).
func configCount(s *experiment.Spec) int {
	n, _ := s.ConfigCount()
	return n
}

// testSpecHook, when set (only the package's tests set it), changes each
// built-in spec reproduce runs, after its label is applied: the tests run
// every experiment's configurations with fewer jobs and replications.
var testSpecHook func(*experiment.Spec)

func newReproduceCmd() *cobra.Command {
	var quick, quiet, allowCodeChange bool
	var out, formats, seed string
	var workers int
	cmd := &cobra.Command{
		Use:               "reproduce [NAME...]",
		ValidArgsFunction: completeExperiments,
		Short:             "Run built-in experiments (all by default) and write one HTML report",
		Long: `Run the built-in experiments (see 'gridsched experiments list'), at paper scale
or with --quick at reduced scale, resuming whatever an earlier call finished,
and write one HTML report with a section per experiment. Traces are read from
GRIDSCHED_TRACES (default ../shared/traces). With --seed NNN it runs the
experiments of one paper (seed 000 to 004); 'gridsched verdicts export DIR'
then writes their compact aggregates and reproduction table into docs/.
Like 'run --resume', it refuses to continue an experiment whose store was
made by other code or from inputs whose contents changed, naming what
changed: use another --out, or, after a code change, --allow-code-change.`,
		Example: `  gridsched reproduce --quick
  gridsched reproduce lublin-load
  gridsched reproduce --seed 002 --out results/s002`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if cmd.Flags().Changed("workers") && workers < 1 {
				return usagef("--workers %d: want at least 1 (the default is every core)", workers)
			}
			var names []string
			for _, b := range experiment.Builtin() {
				if seed != "" {
					s, err := experiment.LoadBuiltin(b, "")
					if err != nil {
						return err
					}
					if experiment.SeedOf(s) != seed {
						continue
					}
				}
				// A name selects an experiment or a family: easy-unstable
				// runs easy-unstable-fig6, -fig7 and -fig89.
				if len(args) == 0 {
					names = append(names, b)
				}
				for _, a := range args {
					if b == a || strings.HasPrefix(b, a+"-") {
						names = append(names, b)
					}
				}
			}
			if len(names) == 0 && seed != "" {
				return usagef("--seed %q: no built-in experiment of that seed matches %v (the seeds are 000 to 004)", seed, args)
			}
			if len(names) == 0 {
				return usagef("no built-in experiment matches %v (built in: %s)", args, strings.Join(experiment.Builtin(), ", "))
			}
			label := "paper"
			if quick {
				label = "quick"
			}
			if out == "" {
				out = filepath.Join("results", "reproduce-"+label)
			}
			var stores []*experiment.Store
			defer func() {
				for _, st := range stores {
					st.Close()
				}
			}()
			if !quiet && len(names) > 1 {
				if line, err := reproducePlan(names, label); err == nil {
					fmt.Fprintln(cmd.ErrOrStderr(), line)
				}
			}
			for _, n := range names {
				s, err := experiment.LoadBuiltin(n, "")
				if err != nil {
					return err
				}
				if _, ok := s.Labels[label]; ok {
					if s, err = experiment.LoadBuiltin(n, label); err != nil {
						return err
					}
				}
				if testSpecHook != nil {
					testSpecHook(s)
				}
				if !quiet {
					fmt.Fprintln(cmd.ErrOrStderr(), planHead(s))
				}
				if err := s.CheckFiles(); err != nil {
					return inputError(fmt.Errorf("%s: %w", n, err))
				}
				inputs, err := s.Inputs()
				if err != nil {
					return inputError(fmt.Errorf("%s: %w", n, err))
				}
				dir := filepath.Join(out, n)
				storePath := filepath.Join(dir, experiment.StoreFile)
				lock, err := experiment.LockStore(storePath)
				if err != nil {
					return err
				}
				defer lock.Unlock()
				st, err := experiment.OpenStoreWith(storePath, s, experiment.StoreOptions{Resume: true, AllowCodeChange: allowCodeChange, Inputs: inputs,
					Notice: func(m string) { fmt.Fprintf(cmd.ErrOrStderr(), "%s: %s\n", n, m) }})
				if err != nil {
					return err
				}
				stores = append(stores, st)
				before, _ := st.Count()
				var now atomic.Int64
				again := []string{"gridsched", "reproduce"}
				if quick {
					again = append(again, "--quick")
				}
				if cmd.Flags().Changed("out") {
					again = append(again, "--out", out)
				}
				if allowCodeChange {
					again = append(again, "--allow-code-change")
				}
				againLine := shellLine(append(again, args...)...)
				sessionOf(cmd).setNote(func() string {
					kept := keptRuns(st, before+int(now.Load()))
					return fmt.Sprintf("%d runs of %s are kept in %s (%d finished now; runs in flight are dropped); what earlier experiments finished is kept too. Continue with the same command: %s", kept, n, storePath, kept-before, againLine)
				})
				progress, finish := progressFor(cmd.ErrOrStderr(), quiet, n)
				count := func(done, planned int) {
					now.Store(int64(done))
					if progress != nil {
						progress(done, planned)
					}
				}
				plan, estimate := planFor(cmd.ErrOrStderr(), quiet, n)
				sum, err := experiment.Sweep(s, st, experiment.Options{Workers: workers, Progress: count, Plan: plan, Estimate: estimate})
				finish()
				sessionOf(cmd).setNote(nil)
				if err != nil {
					return fmt.Errorf("%s: %w", n, sweepStopped(st, err, againLine))
				}
				fmt.Fprintf(cmd.OutOrStdout(), "%s: %d configurations, %d runs done now, %d already done\n", n, sum.Configs, sum.Ran, sum.AlreadyDone)
			}
			// All experiments: report.html with seed 004's model figures;
			// a selection: its own report-NAMES.html, so that it does not
			// replace the full report. index.html lists the reports.
			file, title := experiment.ReportFile, "gridsched: built-in experiments ("+label+" scale)"
			var extra []report.Section
			if len(args) == 0 && seed == "" {
				grid, err := report.GridModelSection(1)
				if err != nil {
					return err
				}
				extra = append(extra, grid)
			} else {
				sel := args
				if seed != "" {
					sel = append([]string{"seed" + seed}, args...)
				}
				file = "report-" + reportSlug(sel) + ".html"
				title = "gridsched: " + strings.Join(sel, ", ") + " (" + label + " scale)"
			}
			fmts, err := report.ParseFormats(formats)
			if err != nil {
				return err
			}
			path, err := experiment.WritePage(stores, out, experiment.ReportOptions{Title: title, File: file, Formats: fmts, Extra: extra, Exports: true})
			if err != nil {
				return err
			}
			if err := writeIndex(out); err != nil {
				return err
			}
			abs, _ := filepath.Abs(path)
			fmt.Fprintf(cmd.OutOrStdout(), "report: %s\n", abs)
			return nil
		},
	}
	f := cmd.Flags()
	f.BoolVar(&quick, "quick", false, "reduced scale (minutes), as CI and demos use")
	f.StringVar(&seed, "seed", "", "run the experiments of one paper: 000 to 004")
	f.BoolVar(&allowCodeChange, "allow-code-change", false, "continue experiments whose stores were made by other code (each run records its code identity)")
	f.StringVar(&out, "out", "", "output folder (default results/reproduce-quick or -paper)")
	f.IntVar(&workers, "workers", 0, "simulations at once (default: all cores)")
	f.BoolVar(&quiet, "quiet", false, "no progress output")
	f.StringVar(&formats, "format", "svg,png", "figure files to write, comma-separated: svg, png (300 dpi), pdf")
	return cmd
}

// reportSlug names the report of a selection of experiments.
func reportSlug(names []string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' {
			return r
		}
		return '_'
	}, strings.Join(names, "+"))
}

// writeIndex writes DIR/index.html linking every report*.html in dir.
func writeIndex(dir string) error {
	files, err := filepath.Glob(filepath.Join(dir, "report*.html"))
	if err != nil {
		return err
	}
	sortStrings(files)
	page := report.Page{Title: "gridsched reports in " + dir}
	for _, f := range files {
		page.Links = append(page.Links, report.Link{Href: filepath.Base(f), Text: filepath.Base(f)})
	}
	return page.WriteFile(filepath.Join(dir, "index.html"))
}

// keptRuns freezes the store (no commit after this) and counts what it
// keeps; the progress counter (which lags the commits) is the fallback
// when the store cannot be read.
func keptRuns(st *experiment.Store, counted int) int {
	if n, err := st.Freeze(); err == nil {
		return n
	}
	return counted
}
