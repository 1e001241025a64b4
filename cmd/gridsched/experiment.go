package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
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

// planFor returns the sweep's Plan and Estimate callbacks: before the
// first run, the number of configurations, replications and runs; once
// the sample of runs spread over the sweep has finished, the time the
// rest should take (on stderr, as the progress; nothing when quiet).
func planFor(w io.Writer, quiet bool, what string) (func(experiment.Plan), func(experiment.Estimate)) {
	if quiet {
		return nil, nil
	}
	adaptive, maxRuns := false, 0
	plan := func(p experiment.Plan) {
		adaptive = p.Adaptive
		reps, runs := fmt.Sprint(p.Replications), fmt.Sprint(p.Configs*p.Replications)
		if p.Adaptive {
			maxRuns = p.Configs * p.MaxReplications
			reps = fmt.Sprintf("%d to %d replications (adaptive)", p.Replications, p.MaxReplications)
			runs = fmt.Sprintf("%d to %d", p.Configs*p.Replications, maxRuns)
		} else if p.Replications == 1 {
			reps += " replication"
		} else {
			reps += " replications"
		}
		todo := fmt.Sprintf("%d already in the store, %d to run", p.AlreadyDone, p.ToRun)
		if p.Adaptive {
			todo = fmt.Sprintf("%d already in the store, %d to run in the first round", p.AlreadyDone, p.ToRun)
		}
		if p.Shards > 1 {
			todo = fmt.Sprintf("shard %d/%d: %s", p.Shard+1, p.Shards, todo)
		}
		fmt.Fprintf(w, "%s: %d configurations × %s = %s runs; %s\n", what, p.Configs, reps, runs, todo)
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

func defaultOut(s *experiment.Spec) string {
	name := s.Name
	if s.Label != "" {
		name += "-" + s.Label
	}
	return filepath.Join("results", name)
}

func newRunCmd() *cobra.Command {
	var label, out, shard string
	var resume, quiet bool
	var workers int
	cmd := &cobra.Command{
		Use:   "run SPEC.yaml",
		Short: "Run an experiment: a parameter sweep with replications, on all cores",
		Long: `Run every simulation of an experiment spec on all cores, committing each finished
run to a crash-safe result store (DIR/store.db, SQLite). Kill it at any time and
run again with --resume: no finished run is lost or counted twice. At the end it
writes DIR/runs.csv (one row per run), DIR/aggregate.csv (mean, sd and 95% CI per
configuration and metric) and DIR/report.html with its figures.

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
			s, err := experiment.Load(args[0], label)
			if err != nil {
				return err
			}
			i, n, err := parseShard(shard)
			if err != nil {
				return err
			}
			if out == "" {
				out = defaultOut(s)
			}
			return runSpec(cmd, s, out, i, n, workers, resume, quiet)
		},
	}
	f := cmd.Flags()
	f.StringVar(&label, "label", "", "apply a label of the spec (e.g. quick, paper)")
	f.StringVar(&out, "out", "", "output folder (default results/NAME[-LABEL])")
	f.BoolVar(&resume, "resume", false, "continue an interrupted run in the same folder")
	f.StringVar(&shard, "shard", "", "run shard I of N (I/N, 1-based), or env (Slurm array, Kubernetes indexed job)")
	f.IntVar(&workers, "workers", 0, "simulations at once (default: all cores)")
	f.BoolVar(&quiet, "quiet", false, "no progress output")
	return cmd
}

func runSpec(cmd *cobra.Command, s *experiment.Spec, out string, shard, shards, workers int, resume, quiet bool) error {
	// Every configuration's files are found before the store is created:
	// a failed start leaves nothing behind.
	if err := s.CheckFiles(); err != nil {
		return err
	}
	storePath := filepath.Join(out, experiment.StoreFile)
	if shards > 1 {
		storePath = filepath.Join(out, fmt.Sprintf("store-%d-of-%d.db", shard+1, shards))
	}
	lock, err := experiment.LockStore(storePath)
	if err != nil {
		return err
	}
	defer lock.Unlock()
	st, err := experiment.OpenStore(storePath, s, resume)
	if err != nil {
		return err
	}
	defer st.Close()
	progress, finish := progressFor(cmd.ErrOrStderr(), quiet, s.Name)
	plan, estimate := planFor(cmd.ErrOrStderr(), quiet, s.Name)
	sum, err := experiment.Sweep(s, st, experiment.Options{Workers: workers, Shard: shard, Shards: shards, Progress: progress, Plan: plan, Estimate: estimate})
	finish()
	fmt.Fprintf(cmd.OutOrStdout(), "%s: %d configurations, %d runs done now, %d already in %s\n", s.Name, sum.Configs, sum.Ran, sum.AlreadyDone, storePath)
	if err != nil {
		return fmt.Errorf("%w (finished runs are kept; continue with --resume)", err)
	}
	if shards > 1 {
		return nil
	}
	path, err := experiment.WriteOutputs(s.Name, []*experiment.Store{st}, out)
	if err != nil {
		return err
	}
	fmt.Fprintf(cmd.OutOrStdout(), "report: %s\n", path)
	return nil
}

func newMergeCmd() *cobra.Command {
	var out string
	cmd := &cobra.Command{
		Use:   "merge --out DIR STORE...",
		Short: "Merge shard stores of one experiment and write its exports and report",
		Long: `Merge the result stores of the shards of one experiment into DIR/store.db, then
write DIR/runs.csv, DIR/aggregate.csv and DIR/report.html. Stores of different
experiments (another spec, label or seed) are refused.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if out == "" {
				return fmt.Errorf("--out: the folder for the merged store is required")
			}
			path := filepath.Join(out, experiment.StoreFile)
			lock, err := experiment.LockStore(path)
			if err != nil {
				return err
			}
			defer lock.Unlock()
			n, err := experiment.Merge(path, args)
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
	return cmd
}

func newReportCmd() *cobra.Command {
	var out string
	var window float64
	cmd := &cobra.Command{
		Use:   "report STORE.db|RUN_DIR|SIMULATE_DIR...",
		Short: "Write an HTML report (with SVG and PNG figures) of result stores or simulation folders",
		Long: `Write a self-contained HTML report. A result store (store.db, or the folder
'gridsched run' wrote) gives the sweep figures (metric against parameter, one
line per policy, 95% CI error bars, the paper's numbers as markers), the claims
with verdicts and the aggregate table. Simulation folders (from 'gridsched
simulate --out') give one section: the summary as a table; wait, response and
bounded-slowdown CDFs (and box plots when several runs are given) with every
run on shared axes; mean wait by job size class; utilization and queue length
over time (moving average); the Gantt chart (a window of the first jobs for
large runs); the workload's sizes, runtimes and inter-arrival times.`,
		Example: `  gridsched report results/my-sweep
  gridsched report runs/easy runs/conservative --out runs/compare`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if out == "" {
				out = args[0]
				if st, err := os.Stat(out); err == nil && !st.IsDir() {
					out = filepath.Dir(out)
				}
			}
			page := report.Page{Title: "gridsched report"}
			figs := filepath.Join(out, experiment.FiguresDir)
			var runs []*report.Run
			for _, a := range args {
				st, err := os.Stat(a)
				if err != nil {
					return err
				}
				storePath := a
				if st.IsDir() {
					// a run folder (store.db) or a simulate folder (jobs.csv)
					storePath = filepath.Join(a, experiment.StoreFile)
					if _, err := os.Stat(storePath); err != nil {
						if _, err := os.Stat(filepath.Join(a, "jobs.csv")); err != nil {
							return fmt.Errorf("%s: neither a result store (%s, from 'gridsched run') nor a simulation folder (jobs.csv, from 'gridsched simulate --out')", a, experiment.StoreFile)
						}
						r, err := report.LoadRun(a)
						if err != nil {
							return err
						}
						runs = append(runs, r)
						continue
					}
				}
				store, err := experiment.OpenExisting(storePath)
				if err != nil {
					return err
				}
				s, err := store.StoredSpec()
				if err == nil {
					var rows []experiment.Row
					if rows, err = store.Rows(); err == nil {
						rows = s.PairedRows(rows)
						var sec report.Section
						sec, err = experiment.Section(s, rows, figs)
						page.Sections = append(page.Sections, sec)
					}
				}
				store.Close()
				if err != nil {
					return err
				}
			}
			if len(runs) > 0 {
				// several runs share one section: overlaid CDFs, box plots
				sec, err := report.RunsSection(runs, figs, window)
				if err != nil {
					return err
				}
				page.Sections = append(page.Sections, sec)
			}
			path := filepath.Join(out, experiment.ReportFile)
			if err := page.WriteFile(path); err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "report: %s\n", path)
			return nil
		},
	}
	cmd.Flags().StringVar(&out, "out", "", "output folder (default: next to the first argument)")
	cmd.Flags().Float64Var(&window, "window", 0, "moving-average window of utilization and queue length, seconds (default 1/50 of the run)")
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
				return fmt.Errorf("no built-in experiment %q (built in: %s)", args[0], strings.Join(experiment.Builtin(), ", "))
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
	var quick, quiet bool
	var out, seed string
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
then writes their compact aggregates and reproduction table into docs/.`,
		Example: `  gridsched reproduce --quick
  gridsched reproduce lublin-load
  gridsched reproduce --seed 002 --out results/s002`,
		RunE: func(cmd *cobra.Command, args []string) error {
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
				return fmt.Errorf("--seed %q: no built-in experiment of that seed matches %v (the seeds are 000 to 004)", seed, args)
			}
			if len(names) == 0 {
				return fmt.Errorf("no built-in experiment matches %v (built in: %s)", args, strings.Join(experiment.Builtin(), ", "))
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
				if err := s.CheckFiles(); err != nil {
					return fmt.Errorf("%s: %w", n, err)
				}
				dir := filepath.Join(out, n)
				lock, err := experiment.LockStore(filepath.Join(dir, experiment.StoreFile))
				if err != nil {
					return err
				}
				defer lock.Unlock()
				st, err := experiment.OpenStore(filepath.Join(dir, experiment.StoreFile), s, true)
				if err != nil {
					return err
				}
				stores = append(stores, st)
				progress, finish := progressFor(cmd.ErrOrStderr(), quiet, n)
				plan, estimate := planFor(cmd.ErrOrStderr(), quiet, n)
				sum, err := experiment.Sweep(s, st, experiment.Options{Workers: workers, Progress: progress, Plan: plan, Estimate: estimate})
				finish()
				if err != nil {
					return fmt.Errorf("%s: %w (finished runs are kept; run again to continue)", n, err)
				}
				fmt.Fprintf(cmd.OutOrStdout(), "%s: %d configurations, %d runs done now, %d already done\n", n, sum.Configs, sum.Ran, sum.AlreadyDone)
			}
			// All experiments: report.html with seed 004's model figures;
			// a selection: its own report-NAMES.html, so that it does not
			// replace the full report. index.html lists the reports.
			file, title := experiment.ReportFile, "gridsched: built-in experiments ("+label+" scale)"
			var extra []report.Section
			if len(args) == 0 && seed == "" {
				grid, err := report.GridModelSection(1, filepath.Join(out, experiment.FiguresDir))
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
			path, err := experiment.WriteReport(title, stores, out, file, extra...)
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
	f.StringVar(&out, "out", "", "output folder (default results/reproduce-quick or -paper)")
	f.IntVar(&workers, "workers", 0, "simulations at once (default: all cores)")
	f.BoolVar(&quiet, "quiet", false, "no progress output")
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
