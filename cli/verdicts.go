package cli

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/spf13/cobra"

	"github.com/gridsched/gridsched/experiment"
	"github.com/gridsched/gridsched/internal/atomicfile"
)

func newVerdictsCmd() *cobra.Command {
	var docs string
	var check bool
	cmd := &cobra.Command{
		Use:   "verdicts",
		Short: "Regenerate the reproduction tables and the seed docs' verdict summaries from the committed aggregates",
		Long: `Regenerate, from the compact aggregates committed under
DOCS/reproduction/quick/data and DOCS/reproduction/paper/data (one CSV per
experiment, written by 'gridsched verdicts export'), every reproduction table
(DOCS/reproduction/SCALE/reproduction-seedNNN.md) and the verdict summary at
the top of each seed doc (DOCS/reservations.md, hierarchical.md, unstable.md,
cloud.md, workloads.md: from the paper-scale table, else the quick one). No
run is repeated and no store is read: the tables are a function of the
committed aggregates and the built-in specs' claims. The rules are in
DOCS/reproduction/README.md.

With --check nothing is written: every file that would change is listed and
the command fails (the test suite runs the same check).`,
		Example: `  gridsched verdicts
  gridsched verdicts --check`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return regenerate(cmd, docs, check)
		},
	}
	cmd.Flags().StringVar(&docs, "docs", "docs", "the docs folder")
	cmd.Flags().BoolVar(&check, "check", false, "write nothing; fail if a file differs from what the aggregates give")
	cmd.AddCommand(newVerdictsExportCmd(), newVerdictsVerifyCmd(), newVerdictsListCmd(), newVerdictsCompareCmd())
	return cmd
}

// openRuns opens one store (a file or a folder holding store.db) and
// returns its spec and runs (with the spec's pairing of stored runs).
func openRuns(arg string) (*experiment.Spec, []experiment.Row, error) {
	paths, err := findStores([]string{arg})
	if err != nil {
		return nil, nil, err
	}
	if len(paths) != 1 {
		return nil, nil, fmt.Errorf("%s holds %d stores: name one", arg, len(paths))
	}
	st, err := experiment.OpenExisting(paths[0])
	if err != nil {
		return nil, nil, err
	}
	defer st.Close()
	s, err := st.StoredSpec()
	if err != nil {
		return nil, nil, err
	}
	rows, err := st.Rows()
	if err != nil {
		return nil, nil, err
	}
	return s, s.PairedRows(rows), nil
}

func newVerdictsListCmd() *cobra.Command {
	var metrics []string
	var regime bool
	cmd := &cobra.Command{
		Use:   "list STORE --metrics M1,M2",
		Short: "Print every configuration's means and 95% CIs as a Markdown table",
		Long: `Print, for every configuration of a result store, the parameters that vary, each
metric's mean ± 95% CI half-width and the number of replications, as a Markdown
table. With --regime a column says whether resources are scarce (mean wait at
least the mean run time, response − wait), ample (mean wait at most 5% of it) or
between.`,
		Example: `  gridsched verdicts list results/fig89 --metrics makespan,mean_qos --regime`,
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			s, rows, err := openRuns(args[0])
			if err != nil {
				return err
			}
			if len(metrics) == 0 {
				metrics = s.Metrics
			}
			_, err = fmt.Fprint(cmd.OutOrStdout(), experiment.ListMarkdown(rows, metrics, regime))
			return err
		},
	}
	cmd.Flags().StringSliceVar(&metrics, "metrics", nil, "metrics to list (default: the spec's)")
	cmd.Flags().BoolVar(&regime, "regime", false, "add the resource regime (scarce, between, ample) from mean_wait and mean_response")
	return cmd
}

func newVerdictsCompareCmd() *cobra.Command {
	var c experiment.Claim
	var metrics []string
	var floor, absFloor, change, atMost float64
	var at, from, to string
	cmd := &cobra.Command{
		Use:   "compare STORE --metric M (--param P --better V --worse W | --trend T)",
		Short: "Apply the verdict rules to a comparison or trend of your own and print the points",
		Long: `Evaluate a claim given on the command line on a result store with the rules of
the reproduction tables (docs/reproduction/README.md): paired per replication
where the runs share seeds, Welch otherwise; the 1% negligible floor; the size
rule. A comparison (--param, --better, --worse, --expect) or a trend (--trend,
--series), optionally per value of --by. Prints the verdict, the relative
effects (subject − base)/|base| and every point as Markdown.`,
		Example: `  gridsched verdicts compare results/fig89 --metric makespan --param node_select --better u --worse random --lower-is-better --expect better-when-ample --by workload.trace
  gridsched verdicts compare results/exp3 --metric pp --trend decreasing --series drrm --change -0.667`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			s, rows, err := openRuns(args[0])
			if err != nil {
				return err
			}
			c.Claim, c.Source = "(command line)", "–"
			switch len(metrics) {
			case 0:
				return fmt.Errorf("--metric: name the metric")
			case 1:
				c.Metric = metrics[0]
			default:
				ms := make([]any, len(metrics))
				for i, m := range metrics {
					ms[i] = m
				}
				c.Metric = ms
			}
			f := cmd.Flags()
			if f.Changed("floor") {
				c.Floor = &floor
			}
			if f.Changed("change") {
				c.Change = &change
			}
			if f.Changed("at-most") {
				c.AtMost = &atMost
			}
			if f.Changed("abs-floor") {
				c.AbsFloor = &absFloor
			}
			if from != "" {
				c.From = from
			}
			if to != "" {
				c.To = to
			}
			if at != "" {
				c.At = at
			}
			if c.Param != "" && c.Expect == "" {
				c.Expect = "better"
			}
			if err := experiment.CheckClaim(s, &c); err != nil {
				return err
			}
			_, err = fmt.Fprint(cmd.OutOrStdout(), experiment.ClaimMarkdown(s, &c, experiment.NewRowsData(rows)))
			return err
		},
	}
	fl := cmd.Flags()
	fl.StringSliceVar(&metrics, "metric", nil, "the metric (several: metric readings, the paper's first)")
	fl.StringVar(&c.Param, "param", "", "comparison: the parameter whose values are compared")
	fl.StringVar(&c.Better, "better", "", "comparison: the subject (the value the claim says is better)")
	fl.StringVar(&c.Worse, "worse", "", "comparison: the base")
	fl.StringVar(&c.Expect, "expect", "", "comparison: better (default), better-when-ample or same")
	fl.BoolVar(&c.LowerIsBetter, "lower-is-better", false, "comparison: lower values win")
	fl.Float64Var(&c.Ratio, "ratio", 0, "comparison: the paper's subject/base ratio (the size rule)")
	fl.StringVar(&at, "at", "", "comparison: the x value the ratio is given at")
	fl.StringVar(&c.Trend, "trend", "", "trend along the x axis: increasing, decreasing or flat")
	fl.StringSliceVar(&c.Series, "series", nil, "trend: the series judged (policies or param=value)")
	fl.Float64Var(&change, "change", 0, "trend: the paper's relative change from the first to the last x")
	fl.Float64Var(&atMost, "at-most", 0, "bound: the metric is at most this at every configuration")
	fl.Float64Var(&floor, "floor", experiment.DefaultFloor, "relative effects below this are negligible")
	fl.Float64Var(&absFloor, "abs-floor", 0, "differences below this (in the metric's unit) are negligible")
	fl.StringVar(&from, "from", "", "trend: the x value the claim's range starts at (default the axis' first)")
	fl.StringVar(&to, "to", "", "trend: the x value the claim's range ends at (default the axis' last)")
	fl.StringVar(&c.By, "by", "", "evaluate per value of this parameter and give the distribution")
	return cmd
}

// regenerate writes (or with check, compares) every generated file.
func regenerate(cmd *cobra.Command, docs string, check bool) error {
	files, err := experiment.Regenerate(docs)
	if err != nil {
		return err
	}
	paths := make([]string, 0, len(files))
	for p := range files {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	var stale []string
	for _, p := range paths {
		have, err := os.ReadFile(p)
		if err == nil && bytes.Equal(have, files[p]) {
			continue
		}
		if check {
			stale = append(stale, p)
			continue
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := atomicfile.WriteFile(p, files[p], 0o644); err != nil {
			return err
		}
		fmt.Fprintf(cmd.OutOrStdout(), "wrote %s\n", p)
	}
	left, err := experiment.Leftovers(docs, files)
	if err != nil {
		return err
	}
	for _, p := range left {
		if check {
			stale = append(stale, p+" (no aggregates give it)")
			continue
		}
		if err := os.Remove(p); err != nil {
			return err
		}
		fmt.Fprintf(cmd.OutOrStdout(), "removed %s (no aggregates give it)\n", p)
	}
	if len(stale) > 0 {
		return fmt.Errorf("%d generated files differ from what the committed aggregates give (run 'gridsched verdicts'): %v", len(stale), stale)
	}
	if check {
		fmt.Fprintf(cmd.OutOrStdout(), "%d generated files match the committed aggregates\n", len(paths))
	}
	return nil
}

func newVerdictsExportCmd() *cobra.Command {
	var docs, out string
	cmd := &cobra.Command{
		Use:   "export STORE|RUN_DIR|REPRODUCE_DIR...",
		Short: "Write experiments' compact aggregates from their result stores, then regenerate the tables",
		Long: `Write the compact aggregates of result stores: what the verdict rules of each
built-in experiment's claims and paper numbers read of its runs (per
configuration n, mean and sd; per compared pair of configurations the
statistics of their per-replication differences), dated today, with the
store's label, spec hash, run count and code identity. Each goes to
DOCS/reproduction/LABEL/data/NAME.csv (LABEL the store's: quick or paper),
or with --out to DIR/data/NAME.csv. Then every table and seed-doc summary is
regenerated as 'gridsched verdicts' does.

An argument is a store (store.db), a run folder holding one, or a
'gridsched reproduce' folder holding one per experiment. The claims are the
built-in catalogue's (they may be newer than the store's copy of the spec:
notes and claims can change without re-running).`,
		Example: `  gridsched reproduce --seed 002 --out results/s002
  gridsched verdicts export results/s002`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := forEachStore(args, func(path string) error { return exportOne(cmd, path, docs, out) }); err != nil {
				return err
			}
			if out != "" {
				return nil
			}
			return regenerate(cmd, docs, false)
		},
	}
	cmd.Flags().StringVar(&docs, "docs", "docs", "the docs folder")
	cmd.Flags().StringVar(&out, "out", "", "write DIR/data/NAME.csv instead (and regenerate nothing)")
	return cmd
}

// findStores resolves the arguments to store files: a store, a folder
// with store.db, or a folder of such folders.
func findStores(args []string) ([]string, error) {
	var out []string
	for _, a := range args {
		st, err := os.Stat(a)
		if err != nil {
			return nil, err
		}
		if !st.IsDir() {
			out = append(out, a)
			continue
		}
		if p := filepath.Join(a, experiment.StoreFile); isFile(p) {
			out = append(out, p)
			continue
		}
		found, err := filepath.Glob(filepath.Join(a, "*", experiment.StoreFile))
		if err != nil {
			return nil, err
		}
		if len(found) == 0 {
			return nil, fmt.Errorf("%s: no %s in it nor in its folders", a, experiment.StoreFile)
		}
		sort.Strings(found)
		out = append(out, found...)
	}
	return out, nil
}

func isFile(p string) bool {
	st, err := os.Stat(p)
	return err == nil && !st.IsDir()
}

// exportOne writes one store's aggregates.
func exportOne(cmd *cobra.Command, path, docs, out string) error {
	st, spec, scale, err := openBuiltinStore(path, "export")
	if err != nil {
		return err
	}
	defer st.Close()
	if !experiment.InDocTable(spec.Name) && (experiment.SeedOf(spec) == "" || len(spec.Claims) == 0 && len(spec.References) == 0) {
		fmt.Fprintf(cmd.OutOrStdout(), "skipped %s: no claims or paper numbers of a seed\n", spec.Name)
		return nil
	}
	dir := out
	if dir == "" {
		if scale != "quick" && scale != "paper" {
			return fmt.Errorf("%s: label %q: the committed tables are at the quick or paper label (give --out for others)", path, st.Label)
		}
		dir = filepath.Join(docs, "reproduction", scale)
	}
	if h := spec.Hash(); h != st.Hash {
		fmt.Fprintf(cmd.ErrOrStderr(), "%s: the built-in %s has changed since these runs (spec hash %s, the store's %s): its table will say so; re-run it\n", path, spec.Name, h, st.Hash)
	}
	p, err := experiment.ExportAggregates(st, spec, dir)
	if err != nil {
		return err
	}
	b, err := os.ReadFile(p)
	if err != nil {
		return err
	}
	if _, err := experiment.ReadAggFile(p, b); err != nil {
		return errors.Join(fmt.Errorf("%s: the file just written does not read back", p), err)
	}
	fmt.Fprintf(cmd.OutOrStdout(), "wrote %s (%d bytes)\n", p, len(b))
	return nil
}

func newVerdictsVerifyCmd() *cobra.Command {
	var docs string
	cmd := &cobra.Command{
		Use:   "verify STORE|RUN_DIR|REPRODUCE_DIR...",
		Short: "Check that committed aggregates are what the given result stores give",
		Long: `Recompute, from each result store, the compact aggregates that 'gridsched
verdicts export' would write, and compare them with the committed file
(DOCS/reproduction/SCALE/data/NAME.csv), all but its date line: a match
shows that the committed numbers (and so the tables and seed summaries made
from them) come from these runs. The store's digest (the first 128 bits of a SHA-256 of its runs'
keys, metrics and code identities) is printed; files exported since it was
recorded carry it in their header ("# store: ..."). Nothing is written; the
command fails on the first store whose aggregates differ or are missing.`,
		Example: `  gridsched reproduce --seed 002 --out results/s002
  gridsched verdicts verify results/s002`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return forEachStore(args, func(path string) error { return verifyOne(cmd, path, docs) })
		},
	}
	cmd.Flags().StringVar(&docs, "docs", "docs", "the docs folder")
	return cmd
}

// openBuiltinStore opens a store of a built-in experiment with the
// catalogue's spec at the store's scale (ScaleLabel: the default scale of
// an experiment without a paper label is its paper scale); what names the
// command in errors.
func openBuiltinStore(path, what string) (*experiment.Store, *experiment.Spec, string, error) {
	st, err := experiment.OpenExisting(path)
	if err != nil {
		return nil, nil, "", err
	}
	stored, err := st.StoredSpec()
	if err != nil {
		st.Close()
		return nil, nil, "", err
	}
	scale := experiment.ScaleLabel(stored.Name, st.Label)
	spec, err := experiment.LoadBuiltinScale(stored.Name, scale)
	if err != nil {
		st.Close()
		return nil, nil, "", fmt.Errorf("%s: %w (verdicts %s reads the built-in experiments' claims)", path, err, what)
	}
	return st, spec, scale, nil
}

// forEachStore runs fn on every store the arguments name (findStores).
func forEachStore(args []string, fn func(path string) error) error {
	stores, err := findStores(args)
	if err != nil {
		return err
	}
	for _, path := range stores {
		if err := fn(path); err != nil {
			return err
		}
	}
	return nil
}

// verifyOne compares the aggregates of one store with the committed file.
func verifyOne(cmd *cobra.Command, path, docs string) error {
	st, spec, scale, err := openBuiltinStore(path, "verify")
	if err != nil {
		return err
	}
	defer st.Close()
	tmp, err := os.MkdirTemp("", "gridsched-verify-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	got, err := experiment.ExportAggregates(st, spec, tmp)
	if err != nil {
		return err
	}
	committed := filepath.Join(docs, "reproduction", scale, experiment.AggregatesDir, spec.Name+".csv")
	want, err := os.ReadFile(committed)
	if err != nil {
		return fmt.Errorf("%s: no committed aggregates of %s at the %s scale (%w)", path, spec.Name, scale, err)
	}
	have, err := os.ReadFile(got)
	if err != nil {
		return err
	}
	digest, err := st.Digest()
	if err != nil {
		return err
	}
	wl, hl := aggLines(want), aggLines(have)
	if !hasStoreLine(wl) {
		hl = dropStoreLine(hl)
	}
	for i := 0; i < max(len(wl), len(hl)); i++ {
		var w, h string
		if i < len(wl) {
			w = wl[i]
		}
		if i < len(hl) {
			h = hl[i]
		}
		if w != h {
			return fmt.Errorf("%s: the committed %s differs from what store %s (%s) gives, first at its line %d (date line aside):\n  committed: %s\n  store:     %s", path, committed, path, digest, i+1, w, h)
		}
	}
	n, err := st.Count()
	if err != nil {
		return err
	}
	fmt.Fprintf(cmd.OutOrStdout(), "%s: matches %s (%s, %d runs)\n", committed, path, digest, n)
	return nil
}

// aggLines are an aggregates file's lines without its date line.
func aggLines(b []byte) []string {
	var out []string
	for _, l := range strings.Split(string(b), "\n") {
		if !strings.HasPrefix(l, "# date: ") {
			out = append(out, l)
		}
	}
	return out
}

func hasStoreLine(ls []string) bool {
	return slices.ContainsFunc(ls, func(l string) bool { return strings.HasPrefix(l, "# store: ") })
}

func dropStoreLine(ls []string) []string {
	return slices.DeleteFunc(slices.Clone(ls), func(l string) bool { return strings.HasPrefix(l, "# store: ") })
}
