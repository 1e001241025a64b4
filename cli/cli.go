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
	"context"
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
	policy  func() error   // registers a policy (before the commands are made)
	command *cobra.Command // added beside the built-in commands
}

// extended are the policies registered by extensions in this process (a
// second Run registers them once).
var extended = map[string]bool{}

// Policy registers a scheduling policy under name, as package policy's
// built-in ones are: simulate --policy, specs, sweeps, Slurm arrays and
// reports know it. New builds a fresh policy for each run around the
// run's node selection. A name that is already taken is an error.
func Policy(name, description string, New policy.Factory) Extension {
	return Extension{policy: func() error {
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
	return Extension{command: c}
}

// Main runs the command line on the process's arguments with the
// extensions and exits with its status (Ctrl-C says what was kept and
// exits with 130).
func Main(extra ...Extension) {
	sess := &session{}
	stop := sess.onInterrupt(os.Stderr, os.Exit)
	code := execute(sess.context(context.Background()), os.Args[1:], os.Stdout, os.Stderr, extra...)
	stop()
	os.Exit(code)
}

// Run runs the command line on args and returns its exit status (0 on
// success; the others in 'gridsched --help'), printing errors on stderr.
func Run(args []string, stdout, stderr io.Writer, extra ...Extension) int {
	return execute(context.Background(), args, stdout, stderr, extra...)
}

// execute runs one command line and returns its exit status (exit.go),
// having printed an error to stderr.
func execute(ctx context.Context, args []string, stdout, stderr io.Writer, extra ...Extension) int {
	for _, e := range extra {
		if e.policy == nil {
			continue
		}
		if err := e.policy(); err != nil {
			fmt.Fprintln(stderr, "gridsched:", err)
			return exitInternal
		}
	}
	root := newRoot()
	for _, e := range extra {
		if e.command != nil {
			classifyUsage(e.command)
			root.AddCommand(e.command)
		}
	}
	root.SetArgs(args)
	root.SetOut(stdout)
	root.SetErr(stderr)
	err := root.ExecuteContext(ctx)
	if err != nil {
		fmt.Fprintln(stderr, "gridsched:", err)
	}
	return exitStatus(err)
}

func newRoot() *cobra.Command {
	var version bool
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
writes reports. Start with 'gridsched reproduce --quick'.

` + exitStatusHelp,
		Args:          cobra.NoArgs,
		SilenceUsage:  true,
		SilenceErrors: true,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if version {
				fmt.Fprintln(cmd.OutOrStdout(), versionText())
				return nil
			}
			return cmd.Help()
		},
	}
	root.Flags().BoolVar(&version, "version", false, "print the version and code identity (as 'gridsched version')")
	// Size limits: refused beyond them with a message naming the flag.
	maxNodes, maxJobs, maxRuns := model.DefaultMaxNodes, experiment.DefaultMaxJobs, experiment.DefaultMaxRuns
	pf := root.PersistentFlags()
	pf.IntVar(&maxNodes, "max-nodes", maxNodes, "largest platform accepted (nodes)")
	pf.IntVar(&maxJobs, "max-jobs", maxJobs, "largest workload generated or simulated (jobs; also simulate --jobs and workload generate --jobs)")
	pf.IntVar(&maxRuns, "max-runs", maxRuns, "largest sweep accepted (configurations × replications; also raises the caps on configurations and replications)")
	root.PersistentPreRunE = func(cmd *cobra.Command, _ []string) error {
		for _, f := range []struct {
			name string
			v    int
		}{{"--max-nodes", maxNodes}, {"--max-jobs", maxJobs}, {"--max-runs", maxRuns}} {
			if f.v < 1 {
				return usagef("%s: must be >= 1, got %d", f.name, f.v)
			}
		}
		model.MaxNodes = maxNodes
		experiment.SetLimits(maxJobs, maxRuns)
		return nil
	}
	root.AddCommand(newVersionCmd(), newSimulateCmd(), newWorkloadCmd(), newPoliciesCmd(), newRunCmd(), newMergeCmd(), newReportCmd(), newExperimentsCmd(), newReproduceCmd(), newVerdictsCmd(), newSlurmCmd(), newServeCmd())
	classifyUsage(root)
	return root
}
