// Command gridsched simulates job scheduling policies on clusters and
// grids. Run "gridsched --help" for the commands.
package main

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/gridsched/gridsched/experiment"
	"github.com/gridsched/gridsched/model"
	_ "github.com/gridsched/gridsched/system/all" // registers every built-in system
)

func main() {
	sess := &session{}
	stop := sess.onInterrupt(os.Stderr, os.Exit)
	code := execute(sess.context(context.Background()), os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// execute runs one command line and returns its exit status (exit.go),
// having printed an error to stderr.
func execute(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	root := newRoot()
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
	root.AddCommand(newVersionCmd(), newSimulateCmd(), newWorkloadCmd(), newPoliciesCmd(), newRunCmd(), newMergeCmd(), newReportCmd(), newExperimentsCmd(), newReproduceCmd(), newVerdictsCmd(), newSlurmCmd())
	classifyUsage(root)
	return root
}
