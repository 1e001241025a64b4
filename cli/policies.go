package cli

import (
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/gridsched/gridsched/policy"
	"github.com/gridsched/gridsched/system"
)

func newPoliciesCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "policies [SPEC]",
		Short: "List the registered scheduling policies, the classic catalogue's axes and its aliases",
		Args:  cobra.MaximumNArgs(1),
		Long: `List every scheduling policy of every system, with its description,
grouped by system (package system's registry), then the classic catalogue:
its four axes (queue order, reservation depth, backfill order, estimate
source) with every value, and every alias with its expansion; then the node
selections and each system's parameter section (spec key, and
--model-config key).

With SPEC (an alias, or BASE:key=value,... such as
easy:order=sjf,backfill=sjbf), check it and print its expansion: the point
of the four axes it names, as --policy and a spec's policies: take it.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			out := cmd.OutOrStdout()
			if len(args) == 1 {
				s, err := policy.ParseSpec(args[0])
				if err != nil {
					return err
				}
				fmt.Fprintln(out, s.String())
				return nil
			}
			tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
			for _, g := range system.PolicyGroups() {
				fmt.Fprintf(tw, "# %s: %s\n", g.System, g.Description)
				for _, p := range g.Policies {
					fmt.Fprintf(tw, "%s\t%s\n", p.Name, p.Description)
				}
			}
			writeCatalogue(tw)
			fmt.Fprintf(tw, "# node selections (--node-select)\n")
			for _, n := range system.NodeSelectionNames() {
				fmt.Fprintf(tw, "%s\t%s\n", n, nodeSelectionDoc(n))
			}
			fmt.Fprintf(tw, "# parameter sections (spec keys; --model-config, --model-param)\n")
			for _, sys := range system.All() {
				if sys.Section != "" {
					fmt.Fprintf(tw, "%s\t%s\n", sys.Section, sys.Description)
				}
			}
			return tw.Flush()
		},
	}
}

// writeCatalogue lists the classic catalogue: the keys of a spec string,
// every value of the four axes, and every alias's expansion.
func writeCatalogue(w io.Writer) {
	fmt.Fprintf(w, "# classic catalogue: --policy BASE:key=value,... (BASE: classic or an alias; e.g. easy:order=sjf,backfill=sjbf)\n")
	for _, k := range policy.Keys {
		fmt.Fprintf(w, "%s=\t%s\n", k[0], k[1])
	}
	for _, axis := range []struct {
		key  string
		vals []string
	}{{"order", policy.Orders}, {"backfill", policy.BackfillOrders}, {"estimate", policy.Estimates}} {
		fmt.Fprintf(w, "# axis %s\n", axis.key)
		for _, v := range axis.vals {
			fmt.Fprintf(w, "%s=%s\t%s\n", axis.key, v, policy.AxisDoc[axis.key+"="+v])
		}
	}
	fmt.Fprintf(w, "# axis depth\n")
	fmt.Fprintf(w, "depth=0\tno reservation (filler)\n")
	fmt.Fprintf(w, "depth=1\tthe queue head holds a reservation (EASY)\n")
	fmt.Fprintf(w, "depth=k\tthe first k waiting jobs hold reservations, recomputed at every decision\n")
	fmt.Fprintf(w, "depth=all\tevery job holds a reservation made when it arrives (conservative; compress=yes|no)\n")
	fmt.Fprintf(w, "# aliases (expansion; the reference implementation whose schedules it gives job for job, under consult=pyss)\n")
	for _, n := range policy.AliasNames() {
		exp, _ := policy.Expansion(n)
		_, peer, _ := policy.AliasInfo(n)
		if peer != "" {
			peer = "; reference: " + peer
		}
		fmt.Fprintf(w, "%s\t%s%s\n", n, exp, peer)
	}
}
