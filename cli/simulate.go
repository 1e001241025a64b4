package cli

import (
	"fmt"
	"io"
	"math"
	"os"
	"strings"

	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"golang.org/x/term"

	"github.com/gridsched/gridsched/engine"
	"github.com/gridsched/gridsched/output"
	"github.com/gridsched/gridsched/simulate"
	"github.com/gridsched/gridsched/system"
)

func newSimulateCmd() *cobra.Command {
	var cfg simulate.Config
	var out, overrun, modelConfig string
	var modelParams []string
	var asJSON, quiet bool
	type sysFlags struct {
		sys   *system.System
		build func(func(string) bool) (any, error)
		names string // its flags, for messages
	}
	var sysf []sysFlags
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
DIR/summary.json, DIR/schedule.swf and DIR/series.csv.

Every system's policies run here ('gridsched policies' lists them with the
parameter sections). A system's parameters come from its own flags (--tree,
--instability, …), from --model-config FILE (a YAML file of sections, e.g.
"cloud: {max_vms: 96, xfactor: 20}") or from --model-param section.key=value.
The elastic cloud of seed 003 (cloud-afcfs, cloud-ljfs) runs its own event
loop on a gang workload; its times are in hours, and --out writes jobs.csv,
summary.json, series.csv, vms.csv and cloud_series.csv.

--policy external --scheduler CMD leaves the decisions to another program,
in any language, that speaks the decision protocol on its standard input and
output (docs/protocol.md): CMD is split into words as a shell would, never
run through one. The Python package's examples are schedulers of this kind.`,
		Example: `  gridsched simulate
  gridsched simulate --workload ../shared/traces/SDSC-BLUE-2000-4.2-cln.swf.gz --policy easy --out runs/blue-easy
  gridsched simulate --workload trace.swf --policy conservative --nodes 128 --overrun extend --arrival-scale 0.8
  gridsched simulate --workload trace.swf --platform unstable.yaml --instability published --node-select u --whole-nodes --overrun extend
  gridsched workload generate --model grid --param 'sites=[1,1,1,1,1,1]' --param uhi=5 --param s=3 --jobs 1000 --out grid.csv
  gridsched simulate --workload grid.csv --tree paper109 --policy grid-stat --overrun extend
  gridsched workload generate --model gang --param lambda=2.5 --jobs 10000 --out gang.swf
  gridsched simulate --workload gang.swf --policy cloud-ljfs --model-param cloud.max_vms=96 --out runs/cloud
  gridsched simulate --workload trace.swf --policy external --scheduler "python3 python/examples/easy.py"`,
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
			// The systems' parameters: --model-config, then each
			// system's own flags, then --model-param.
			cfg.Sections = map[string]any{}
			if modelConfig != "" {
				secs, err := system.LoadConfig(modelConfig)
				if err != nil {
					return err
				}
				for k, v := range secs {
					cfg.Sections[k] = v
				}
			}
			for _, sf := range sysf {
				v, err := sf.build(fl.Changed)
				if err != nil {
					return err
				}
				if v == nil {
					continue
				}
				if _, dup := cfg.Sections[sf.sys.Section]; dup {
					return fmt.Errorf("the %s section is given twice: by --model-config %s and by %s; give one", sf.sys.Section, modelConfig, sf.names)
				}
				if _, err := system.Prepare(map[string]any{sf.sys.Section: v}, nil); err != nil {
					return fmt.Errorf("%s: %w", sf.names, err)
				}
				cfg.Sections[sf.sys.Section] = v
			}
			for _, kv := range modelParams {
				if err := system.SetParam(cfg.Sections, kv); err != nil {
					return err
				}
			}
			if _, ok := cfg.Sections["external"]; ok && fl.Changed("scheduler") && cfg.Policy != "external" {
				return fmt.Errorf("--scheduler: the scheduler decides with --policy external, not --policy %s", cfg.Policy)
			}
			var err error
			if cfg.Prepared, err = system.Prepare(cfg.Sections, nil); err != nil {
				return err
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
	f.StringVar(&cfg.Policy, "policy", "easy", "scheduling policy: fcfs, easy, easy-per-event, conservative, drrm, srrm-r, srrm-m, grid-* with --tree, cloud-afcfs, cloud-ljfs, external with --scheduler (see 'gridsched policies')")
	f.StringVar(&cfg.NodeSelect, "node-select", "first-fit", "node selection: "+strings.Join(system.NodeSelectionNames(), ", ")+" (u and expected need --instability)")
	for _, sys := range system.All() {
		if sys.Flags != nil {
			before := map[string]bool{}
			f.VisitAll(func(fl *pflag.Flag) { before[fl.Name] = true })
			build := sys.Flags(f)
			var names []string
			f.VisitAll(func(fl *pflag.Flag) {
				if !before[fl.Name] {
					names = append(names, "--"+fl.Name)
				}
			})
			sysf = append(sysf, sysFlags{sys, build, strings.Join(names, ", ")})
		}
	}
	f.StringVar(&modelConfig, "model-config", "", "YAML file of the systems' parameter sections (cloud:, hierarchy:, instability:, failure:; see 'gridsched policies')")
	f.StringArrayVar(&modelParams, "model-param", nil, "set one system parameter, section.key=value (YAML value; repeatable), e.g. cloud.max_vms=96")
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
	f.StringVar(&cfg.Transform.Estimates, "estimates", "requested", "runtime estimates: requested (the trace's requested times), exact (each job's run time) or gridsim (GridSim's reader: a job runs for its requested time where given, and that is its estimate)")
	f.IntVar(&cfg.BuiltinJobs, "jobs", 2000, "built-in workload: number of jobs")
	f.Float64Var(&cfg.BuiltinLoad, "load", 0.8, "built-in workload: offered load")
	f.BoolVar(&asJSON, "json", false, "print the summary as JSON instead of a table")
	f.BoolVar(&quiet, "quiet", false, "no progress bar")
	cmd.RegisterFlagCompletionFunc("policy", completePolicies)
	return cmd
}

var _ io.Writer = os.Stderr
