// Command gridsched simulates job scheduling policies on clusters and
// grids. Run "gridsched --help" for the commands.
package main

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/gridsched/gridsched/experiment"
	"github.com/gridsched/gridsched/model"
	_ "github.com/gridsched/gridsched/system/all" // registers every built-in system
)

func main() {
	if err := newRoot().Execute(); err != nil {
		fmt.Fprintln(os.Stderr, "gridsched:", err)
		os.Exit(1)
	}
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
	root.AddCommand(newVersionCmd(), newSimulateCmd(), newWorkloadCmd(), newPoliciesCmd(), newRunCmd(), newMergeCmd(), newReportCmd(), newExperimentsCmd(), newReproduceCmd(), newVerdictsCmd(), newSlurmCmd())
	return root
}
