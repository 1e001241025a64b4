package cli

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strings"

	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"golang.org/x/term"

	"github.com/gridsched/gridsched/engine"
	"github.com/gridsched/gridsched/experiment"
	"github.com/gridsched/gridsched/external"
	"github.com/gridsched/gridsched/internal/buildinfo"
	"github.com/gridsched/gridsched/output"
	"github.com/gridsched/gridsched/simulate"
	"github.com/gridsched/gridsched/system"
)

func newSimulateCmd() *cobra.Command {
	var cfg simulate.Config
	var out, overrun, modelConfig string
	var modelParams []string
	var asJSON, quiet, force bool
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
DIR/summary.json, DIR/schedule.swf and DIR/series.csv. DIR must be new or
empty; --force writes into a folder that is not, after removing the files
simulate and report write (so no older report is left beside new data).
summary.json's provenance gives the code identity ('gridsched version') and
the SHA-256 of every input file.

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
			fl := cmd.Flags()
			if err := checkSimulateFlags(fl, &cfg, overrun); err != nil {
				return usageError(err)
			}
			if overrun == "extend" {
				cfg.Overrun = engine.OverrunExtend
			}
			if out != "" {
				if err := checkOutDir(out, force); err != nil {
					return err
				}
			}
			// The systems' parameters: --model-config, then each
			// system's own flags, then --model-param.
			cfg.Sections = map[string]any{}
			if modelConfig != "" {
				secs, err := system.LoadConfig(modelConfig)
				if err != nil {
					return inputError(err)
				}
				for k, v := range secs {
					cfg.Sections[k] = v
				}
			}
			for _, sf := range sysf {
				v, err := sf.build(fl.Changed)
				if err != nil {
					return usageError(err)
				}
				if v == nil {
					continue
				}
				if _, dup := cfg.Sections[sf.sys.Section]; dup {
					return usagef("the %s section is given twice: by --model-config %s and by %s; give one", sf.sys.Section, modelConfig, sf.names)
				}
				if _, err := system.Prepare(map[string]any{sf.sys.Section: v}, nil); err != nil {
					return inputError(fmt.Errorf("%s: %w", sf.names, err))
				}
				cfg.Sections[sf.sys.Section] = v
			}
			for _, kv := range modelParams {
				if err := system.SetParam(cfg.Sections, kv); err != nil {
					return usageError(err)
				}
			}
			if _, ok := cfg.Sections["external"]; ok && fl.Changed("scheduler") && cfg.Policy != "external" {
				return fmt.Errorf("--scheduler: the scheduler decides with --policy external, not --policy %s", cfg.Policy)
			}
			var err error
			if cfg.Prepared, err = system.Prepare(cfg.Sections, nil); err != nil {
				return inputError(err)
			}
			has := func(k string) bool { _, ok := cfg.Sections[k]; return ok }
			if cfg.Policy == external.Name && !has("external") {
				return usagef("--policy external: needs --scheduler CMD, the scheduler's command line (docs/protocol.md)")
			}
			if err := system.CheckPolicy(cfg.Policy, has); err != nil {
				return usageError(fmt.Errorf("--policy: %w", err))
			}
			if err := system.CheckNodeSelectionWith(cfg.NodeSelect, has); err != nil {
				return usageError(fmt.Errorf("--node-select: %w", err))
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
			sess := sessionOf(cmd)
			sess.setNote(func() string { return "the simulation did not finish; nothing was written" })
			defer sess.setNote(nil)
			res, err := simulate.Run(cfg)
			if bar != nil {
				bar.Finish()
			}
			if err != nil {
				return inputError(err) // a run refusing its inputs' combination; an invalid plan stays internal
			}
			// The inputs were read whole by the run: hashed now, they are
			// known to be files (a directory or a missing file was refused
			// by the loader, with its message).
			if res.Summary.Provenance, err = simulateProvenance(&cfg, modelConfig); err != nil {
				return inputError(err)
			}
			if out != "" {
				sess.setNote(func() string {
					return "the simulation finished but writing " + out + " was cut short: files there may be missing; run the command again"
				})
				if force {
					if err := removeOwned(out); err != nil {
						return err
					}
				}
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
	f.StringVar(&cfg.Policy, "policy", "easy", "scheduling policy: "+strings.Join(system.PolicyNames(), ", ")+" (grid-* need --tree, external needs --scheduler; see 'gridsched policies')")
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
	f.StringVar(&out, "out", "", "write jobs.csv, summary.json, schedule.swf and series.csv into this directory (a new or empty one, unless --force)")
	f.BoolVar(&force, "force", false, "with --out: write into a folder that is not empty, first removing the files simulate and report write there")
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

// checkSimulateFlags refuses every flag value given explicitly that does
// not mean what it says (0 or a negative count, a non-finite factor, an
// empty policy): nothing falls back to a default silently.
func checkSimulateFlags(fl *pflag.FlagSet, cfg *simulate.Config, overrun string) error {
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
	if cfg.BuiltinJobs > experiment.MaxJobs {
		return fmt.Errorf("--jobs %d: over the limit of %d jobs (raise it with --max-jobs)", cfg.BuiltinJobs, experiment.MaxJobs)
	}
	if cfg.Policy == "" {
		return fmt.Errorf("--policy: name a policy (known: %s)", strings.Join(system.PolicyNames(), ", "))
	}
	switch cfg.Transform.Estimates {
	case "requested", "exact", "gridsim":
	default:
		return fmt.Errorf("--estimates: want requested, exact or gridsim, got %q", cfg.Transform.Estimates)
	}
	switch overrun {
	case "kill", "extend":
	default:
		return fmt.Errorf("--overrun: want kill or extend, got %q", overrun)
	}
	return nil
}

// ownedFiles are the names simulate and report write into an --out
// folder (the systems' own files included): --force removes these, and
// nothing else.
func ownedFiles() []string {
	names := []string{simulate.JobsFile, simulate.SummaryFile, simulate.ScheduleFile, simulate.SeriesFile, experiment.ReportFile, experiment.FiguresDir}
	for _, sys := range system.All() {
		for _, f := range sys.Files {
			names = append(names, f.Name)
		}
	}
	return names
}

// checkOutDir refuses an --out folder that holds anything, unless force.
func checkOutDir(dir string, force bool) error {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return inputError(fmt.Errorf("--out %s: %w", dir, err))
	}
	if len(entries) == 0 || force {
		return nil
	}
	var names []string
	for _, e := range entries[:min(len(entries), 5)] {
		names = append(names, e.Name())
	}
	if len(entries) > 5 {
		names = append(names, "…")
	}
	return usagef("--out %s: the folder is not empty (%s): choose a new folder, or add --force to replace the files simulate and report write there", dir, strings.Join(names, ", "))
}

// removeOwned removes the files simulate and report write in dir.
func removeOwned(dir string) error {
	for _, n := range ownedFiles() {
		if err := os.RemoveAll(filepath.Join(dir, n)); err != nil {
			return err
		}
	}
	return nil
}

// simulateProvenance is summary.json's provenance: the code identity and
// version, and the name, SHA-256 and size of every file the run reads
// (the workload, the platform, the model configuration and the files its
// sections name, such as a hierarchy's tree).
func simulateProvenance(cfg *simulate.Config, modelConfig string) (map[string]any, error) {
	inputs := map[string]any{}
	add := func(role, path string) error {
		sum, size, err := experiment.HashFile(path)
		if err != nil {
			return err
		}
		inputs[role] = map[string]any{"name": path, "sha256": sum, "size": size}
		return nil
	}
	for _, f := range []struct{ role, path string }{{"workload", cfg.WorkloadPath}, {"platform", cfg.PlatformPath}, {"model_config", modelConfig}} {
		if f.path != "" {
			if err := add(f.role, f.path); err != nil {
				return nil, err
			}
		}
	}
	for _, k := range sortedSectionKeys(cfg.Sections) {
		var files []string
		system.Prepare(map[string]any{k: system.CloneParams(cfg.Sections[k])}, func(f string) string { files = append(files, f); return f })
		sys, _ := system.BySection(k)
		for _, f := range files {
			if sys != nil && sys.MaybeFiles {
				if st, err := os.Stat(f); err != nil || st.IsDir() {
					continue // a word that names no file (an external scheduler's python3)
				}
			}
			role := k
			if _, dup := inputs[role]; dup {
				role = k + ":" + f // a second file of the section (a scheduler's script and its data)
			}
			if err := add(role, f); err != nil {
				return nil, err
			}
		}
	}
	return map[string]any{"code": buildinfo.Identity(), "version": buildinfo.Build(), "inputs": inputs}, nil
}

func sortedSectionKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sortStrings(keys)
	return keys
}
