package main

import (
	"fmt"
	"io"
	"math"
	"os"

	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/gridsched/gridsched/engine"
	"github.com/gridsched/gridsched/hgrid"
	"github.com/gridsched/gridsched/output"
	"github.com/gridsched/gridsched/simulate"
	"github.com/gridsched/gridsched/unstable"
)

func newSimulateCmd() *cobra.Command {
	var cfg simulate.Config
	var out, overrun, instability, tree string
	var heterogeneity float64
	var cycle float64
	var asJSON, quiet bool
	cmd := &cobra.Command{
		Use:   "simulate",
		Short: "Simulate one workload on one platform under one policy",
		Long: `Simulate one workload on one platform under one policy and print the summary.

Without --workload, a built-in workload (2,000 jobs, offered load 0.8) runs on
the built-in platform (128 single-processor nodes). --workload takes an SWF
trace (plain or gzip) or a workload in the native CSV or JSON Lines format
(.csv, .jsonl; see 'gridsched workload convert'). With --workload, the
platform is --platform FILE (YAML), else --nodes N single-processor nodes,
else the trace header's MaxProcs single-processor nodes.

Trace records that cannot be simulated are skipped and counted by reason in
the summary: no-runtime (run time -1), no-processors (allocated and requested
processors unknown), cancelled-before-start (status 5 with run time 0; keep
them with --keep-cancelled), too-wide (more processors than the platform;
clamp them with --clamp-wide).

With --out DIR the run writes DIR/jobs.csv (Batsim column names),
DIR/summary.json, DIR/schedule.swf and DIR/series.csv.`,
		Example: `  gridsched simulate
  gridsched simulate --workload ../shared/traces/SDSC-BLUE-2000-4.2-cln.swf.gz --policy easy --out runs/blue-easy
  gridsched simulate --workload trace.swf --policy conservative --nodes 128 --overrun extend --arrival-scale 0.8
  gridsched simulate --workload trace.swf --platform unstable.yaml --instability published --node-select u --whole-nodes --overrun extend
  gridsched workload generate --model grid --param 'sites=[1,1,1,1,1,1]' --param uhi=5 --param s=3 --jobs 1000 --out grid.csv
  gridsched simulate --workload grid.csv --tree paper109 --policy grid-stat --overrun extend`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			// A flag given explicitly must mean what it says: 0 or a
			// negative number is refused, not replaced by the default.
			fl := cmd.Flags()
			for _, c := range []struct {
				name string
				bad  bool
			}{
				{"nodes", cfg.Nodes < 1}, {"jobs", cfg.BuiltinJobs < 1}, {"max-procs", cfg.Transform.MaxProcs < 1},
				{"arrival-scale", !(cfg.Transform.Scale > 0) || math.IsInf(cfg.Transform.Scale, 0)},
				{"load", !(cfg.BuiltinLoad > 0) || math.IsInf(cfg.BuiltinLoad, 0)},
				{"skip", cfg.Transform.Skip < 0}, {"first", cfg.Transform.First < 1},
				{"cycle", !(cycle > 0) || math.IsInf(cycle, 0)},
				{"heterogeneity", !(heterogeneity >= 0 && heterogeneity < 1)},
			} {
				if fl.Changed(c.name) && c.bad {
					return fmt.Errorf("--%s %s: out of range (see gridsched simulate --help)", c.name, fl.Lookup(c.name).Value)
				}
			}
			switch overrun {
			case "kill":
				cfg.Overrun = engine.OverrunKill
			case "extend":
				cfg.Overrun = engine.OverrunExtend
			default:
				return fmt.Errorf("--overrun: want kill or extend, got %q", overrun)
			}
			if instability != "" {
				cfg.Instability = &unstable.Params{Model: instability, Cycle: cycle}
			}
			if tree != "" {
				h, err := hierarchy(tree, heterogeneity)
				if err != nil {
					return fmt.Errorf("--tree: %w", err)
				}
				cfg.Hierarchy = h
				cfg.Platform = h.Tree.Platform
			}
			cfg.Series = out != ""
			stderr := cmd.ErrOrStderr()
			var bar *progressbar.ProgressBar
			if f, ok := stderr.(*os.File); ok && !quiet && term.IsTerminal(int(f.Fd())) {
				cfg.Progress = func(done, total int) {
					if bar == nil {
						bar = progressbar.NewOptions(total, progressbar.OptionSetWriter(stderr),
							progressbar.OptionSetDescription("simulating"), progressbar.OptionShowCount(),
							progressbar.OptionClearOnFinish(), progressbar.OptionThrottle(100_000_000))
					}
					bar.Set(done)
				}
			}
			res, err := simulate.Run(cfg)
			if bar != nil {
				bar.Finish()
			}
			if err != nil {
				return err
			}
			if out != "" {
				if err := res.WriteDir(out); err != nil {
					return err
				}
			}
			w := cmd.OutOrStdout()
			if asJSON {
				return output.WriteSummaryJSON(w, &res.Summary)
			}
			if err := output.WriteSummaryTable(w, &res.Summary); err != nil {
				return err
			}
			if out != "" {
				fmt.Fprintf(w, "results\t%s\n", out)
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&cfg.WorkloadPath, "workload", "", "workload file: an SWF trace (plain or gzip), or .csv / .jsonl in the native formats (default: the built-in workload)")
	f.StringVar(&cfg.Policy, "policy", "easy", "scheduling policy: fcfs, easy, easy-per-event, conservative, drrm, srrm-r, srrm-m, grid-* with --tree (see 'gridsched policies')")
	f.StringVar(&cfg.NodeSelect, "node-select", "first-fit", "node selection: first-fit, random, u or expected (u and expected need --instability)")
	f.StringVar(&instability, "instability", "", "unstable nodes (their stability and delay come from --platform): published or periods")
	f.Float64Var(&cycle, "cycle", 7200, "mean stable+unstable cycle (s) of --instability periods")
	f.StringVar(&tree, "tree", "", "hierarchical grid of seed 001: paper109, paper109-single (109 one-CPU nodes) or a tree YAML file (policies grid-*)")
	f.Float64Var(&heterogeneity, "heterogeneity", 0.5, "paper109 tree: node speeds spread 1 ± h")
	f.BoolVar(&cfg.WholeNodes, "whole-nodes", false, "give every job whole nodes (rounds sizes up to whole nodes)")
	f.IntVar(&cfg.Nodes, "nodes", 0, "platform of N single-processor nodes")
	f.StringVar(&cfg.PlatformPath, "platform", "", "platform description (YAML)")
	f.StringVar(&out, "out", "", "write jobs.csv, summary.json, schedule.swf and series.csv into this directory")
	f.Uint64Var(&cfg.Seed, "seed", 1, "run seed (random streams of workloads and policies)")
	f.StringVar(&overrun, "overrun", "kill", "job that outlives its requested time: kill (at the request) or extend (estimate grows by the request)")
	f.BoolVar(&cfg.Rules.KeepCancelled, "keep-cancelled", false, "simulate cancelled-before-start records as zero-length jobs")
	f.BoolVar(&cfg.Rules.ClampWide, "clamp-wide", false, "clamp jobs wider than the platform instead of skipping them")
	f.IntVar(&cfg.Transform.Skip, "skip", 0, "drop the first N trace records")
	f.IntVar(&cfg.Transform.First, "first", 0, "keep only the first N trace records (after --skip)")
	f.Float64Var(&cfg.Transform.Scale, "arrival-scale", 0, "multiply submit times by this factor (0.8 raises the load by 1/0.8)")
	f.IntVar(&cfg.Transform.MaxProcs, "max-procs", 0, "clamp every job to at most this many processors")
	f.IntVar(&cfg.BuiltinJobs, "jobs", 2000, "built-in workload: number of jobs")
	f.Float64Var(&cfg.BuiltinLoad, "load", 0.8, "built-in workload: offered load")
	f.BoolVar(&asJSON, "json", false, "print the summary as JSON instead of a table")
	f.BoolVar(&quiet, "quiet", false, "no progress bar")
	cmd.RegisterFlagCompletionFunc("policy", completePolicies)
	return cmd
}

var _ io.Writer = os.Stderr

// hierarchy builds a hierarchical grid (default parameters) from
// "paper109" or a tree file.
func hierarchy(tree string, h float64) (*simulate.Hierarchy, error) {
	var het *float64
	if tree == "paper109" || tree == "paper109-single" {
		het = &h
	}
	t, err := hgrid.Open(tree, het)
	if err != nil {
		return nil, err
	}
	return &simulate.Hierarchy{Tree: t, Params: hgrid.DefaultParams()}, nil
}
