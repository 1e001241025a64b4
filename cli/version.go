package cli

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/gridsched/gridsched/experiment"
	"github.com/gridsched/gridsched/internal/buildinfo"
	"github.com/gridsched/gridsched/system"
)

func newVersionCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version, the source revision when stamped, the toolchain and the code identity results record",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			fmt.Fprintln(cmd.OutOrStdout(), versionText())
			return nil
		},
	}
}

// versionText is the build's description: version, revision when
// stamped, toolchain and the code identity results record
// (internal/buildinfo); useful under go run too.
func versionText() string { return buildinfo.Version() }

// completeExperiments completes built-in experiment names.
func completeExperiments(_ *cobra.Command, _ []string, prefix string) ([]string, cobra.ShellCompDirective) {
	var out []string
	for _, n := range experiment.Builtin() {
		if strings.HasPrefix(n, prefix) {
			out = append(out, n)
		}
	}
	return out, cobra.ShellCompDirectiveNoFileComp
}

// completePolicies completes policy names (grid-* need --tree).
func completePolicies(_ *cobra.Command, _ []string, prefix string) ([]string, cobra.ShellCompDirective) {
	var out []string
	for _, n := range system.PolicyNames() {
		if strings.HasPrefix(n, prefix) {
			out = append(out, n)
		}
	}
	return out, cobra.ShellCompDirectiveNoFileComp
}
