// Package cli is the gridsched command line, importable: a module of
// your own builds a gridsched binary with your policies registered, and
// every command (simulate, run, slurm, report, …) knows them.
//
//	package main
//
//	import "github.com/gridsched/gridsched/cli"
//
//	func main() {
//		cli.Main(cli.Policy("largest-first", "the widest waiting job that fits first", NewLargestFirst))
//	}
//
// cmd/gridsched is Main with no extension; docs/policies.md has the whole
// example (examples/extension).
package cli

import (
	"fmt"
	"io"
	"os"
	"slices"

	"github.com/spf13/cobra"

	"github.com/gridsched/gridsched/experiment"
	"github.com/gridsched/gridsched/model"
	"github.com/gridsched/gridsched/policy"
	_ "github.com/gridsched/gridsched/system/all" // registers every built-in system
)

// Extension adds to the command line: a policy (Policy) or a command
// (Command).
type Extension struct {
	apply func(root *cobra.Command) error
}

// extended are the policies registered by extensions in this process (a
// second Run registers them once).
var extended = map[string]bool{}

// Policy registers a scheduling policy under name, as package policy's
// built-in ones are: simulate --policy, specs, sweeps, Slurm arrays and
// reports know it. New builds a fresh policy for each run around the
// run's node selection. A name that is already taken is an error.
func Policy(name, description string, New policy.Factory) Extension {
	return Extension{apply: func(*cobra.Command) error {
		if extended[name] {
			return nil
		}
		if slices.Contains(policy.Names(), name) {
			return fmt.Errorf("cli.Policy: a policy named %q is already registered", name)
		}
		policy.Register(name, description, New)
		extended[name] = true
		return nil
	}}
}

// Command adds a command of your own beside simulate, run, ….
func Command(c *cobra.Command) Extension {
	return Extension{apply: func(root *cobra.Command) error {
		root.AddCommand(c)
		return nil
	}}
}

// Main runs the command line on the process's arguments with the
// extensions and exits with its status.
func Main(extra ...Extension) {
	os.Exit(Run(os.Args[1:], os.Stdout, os.Stderr, extra...))
}

// Run runs the command line on args and returns the exit status (0 on
// success), printing errors on stderr.
func Run(args []string, stdout, stderr io.Writer, extra ...Extension) int {
	root := newRoot()
	for _, e := range extra {
		if err := e.apply(root); err != nil {
			fmt.Fprintln(stderr, "gridsched:", err)
			return 1
		}
	}
	root.SetArgs(args)
	root.SetOut(stdout)
	root.SetErr(stderr)
	if err := root.Execute(); err != nil {
		fmt.Fprintln(stderr, "gridsched:", err)
		return 1
	}
	return 0
}

func newRoot() *cobra.Command {
	root := &cobra.Command{
		Use:   "gridsched",
		Short: "Simulate job-scheduling policies for grids, HPC clusters and elastic clouds",
		Long: `gridsched is a deterministic discrete-event simulator of job scheduling.

It replays real traces in the Standard Workload Format (SWF) or generated
workloads (Lublin–Feitelson, grid, reservation and gang models) under classic
policies (FCFS, EASY and conservative backfilling) and the published systems
it reproduces (stability-aware EASY on unstable nodes, SRRM/DRRM advance
reservations, statistical load balancing on hierarchical grids, gang scheduling
on an elastic cloud), runs parameter sweeps with confidence intervals, and
writes reports. Start with 'gridsched reproduce --quick'.`,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	// Size limits: refused beyond them with a message naming the flag.
	maxNodes, maxJobs, maxRuns := model.DefaultMaxNodes, experiment.DefaultMaxJobs, experiment.DefaultMaxRuns
	pf := root.PersistentFlags()
	pf.IntVar(&maxNodes, "max-nodes", maxNodes, "largest platform accepted (nodes)")
	pf.IntVar(&maxJobs, "max-jobs", maxJobs, "largest generated workload accepted (jobs)")
	pf.IntVar(&maxRuns, "max-runs", maxRuns, "largest sweep accepted (configurations × replications; also raises the caps on configurations and replications)")
	root.PersistentPreRunE = func(cmd *cobra.Command, _ []string) error {
		for _, f := range []struct {
			name string
			v    int
		}{{"--max-nodes", maxNodes}, {"--max-jobs", maxJobs}, {"--max-runs", maxRuns}} {
			if f.v < 1 {
				return fmt.Errorf("%s: must be >= 1, got %d", f.name, f.v)
			}
		}
		model.MaxNodes = maxNodes
		experiment.SetLimits(maxJobs, maxRuns)
		return nil
	}
	root.AddCommand(newVersionCmd(), newSimulateCmd(), newWorkloadCmd(), newPoliciesCmd(), newRunCmd(), newMergeCmd(), newReportCmd(), newExperimentsCmd(), newReproduceCmd(), newVerdictsCmd(), newSlurmCmd(), newServeCmd())
	return root
}
