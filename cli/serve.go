package cli

import (
	"os"

	"github.com/spf13/cobra"

	"github.com/gridsched/gridsched/external/serve"
)

func newServeCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "serve",
		Short: "Run simulations requested on standard input (for the Python package)",
		Long: `Run simulations requested on standard input, one JSON line each, and answer
on standard output: the Python package's simulate() and its learning
environment drive gridsched this way. A request {"type":"run","config":{…}}
runs one simulation (the config holds simulate's options: workload, policy,
nodes, seed, …, and a window of the workload's jobs); with policy external
and no scheduler command, the client itself is the scheduler, over the same
lines (the decision protocol, docs/protocol.md). Every run ends with a
{"type":"result",…} line holding its summary or its error. A trace is read
once for all the runs that use it. The input's end ends the command.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return serve.New(os.Stdin, os.Stdout).Serve()
		},
	}
}
