// Command gridsched simulates job scheduling policies on clusters and
// grids. Run "gridsched --help" for the commands.
package main

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"
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

It replays real traces in the Standard Workload Format (SWF) or built-in
workloads under classic policies (FCFS, EASY and conservative backfilling)
and reports per-job records, summaries and time series.`,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.AddCommand(newSimulateCmd(), newWorkloadCmd(), newPoliciesCmd(), newRunCmd(), newMergeCmd(), newReportCmd(), newExperimentsCmd(), newReproduceCmd(), newSlurmCmd())
	return root
}
