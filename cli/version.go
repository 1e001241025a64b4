package cli

import (
	"fmt"
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"

	"github.com/gridsched/gridsched/experiment"
	"github.com/gridsched/gridsched/system"
)

func newVersionCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the module version and the source revision this binary was built from",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			fmt.Fprintln(cmd.OutOrStdout(), versionText())
			return nil
		},
	}
}

// versionText is "gridsched VERSION (revision R[, modified], TIME; goX)"
// from the build information Go embeds.
func versionText() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "gridsched (no build information)"
	}
	v := bi.Main.Version
	if v == "" {
		v = "(devel)"
	}
	var parts []string
	var rev, at, modified string
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.time":
			at = s.Value
		case "vcs.modified":
			modified = s.Value
		}
	}
	if rev != "" {
		r := "revision " + rev
		if modified == "true" {
			r += " (modified)"
		}
		parts = append(parts, r)
	} else {
		parts = append(parts, "revision unknown (built without VCS information, e.g. go run or go test)")
	}
	if at != "" {
		parts = append(parts, at)
	}
	parts = append(parts, bi.GoVersion)
	return fmt.Sprintf("gridsched %s (%s)", v, strings.Join(parts, ", "))
}

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
