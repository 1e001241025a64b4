package cli

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/gridsched/gridsched/distsum"
	"github.com/gridsched/gridsched/system"
	"github.com/gridsched/gridsched/workload"
)

func newWorkloadCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "workload", Short: "Inspect workloads"}
	var pes int
	var asJSON, parseOnly bool
	stats := &cobra.Command{
		Use:     "stats PATH",
		Short:   "Describe a trace: jobs, span, header, sizes, runtimes, offered load and anomalies",
		Example: `  gridsched workload stats ../shared/traces/SDSC-Par-1996-3.1-cln.swf.gz`,
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if cmd.Flags().Changed("procs") && pes < 1 {
				return usagef("--procs %d: want at least 1", pes)
			}
			if parseOnly {
				n, err := workload.ParseOnly(args[0])
				if err != nil {
					return inputError(err)
				}
				fmt.Fprintf(cmd.OutOrStdout(), "records\t%d\n", n)
				return nil
			}
			w, err := workload.Load(args[0], workload.Rules{}, workload.Transform{})
			if err != nil {
				return inputError(err)
			}
			s := w.Describe(pes)
			out := cmd.OutOrStdout()
			if asJSON {
				enc := json.NewEncoder(out)
				enc.SetIndent("", "  ")
				return enc.Encode(struct {
					workload.Stats
					Header map[string]string `json:"header"`
				}{s, headerMap(w)})
			}
			tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
			fmt.Fprintf(tw, "file\t%s\n", s.Name)
			for _, f := range w.Header {
				if f.Key != "" && !strings.EqualFold(f.Key, "Note") && !strings.EqualFold(f.Key, "Partition") && !strings.EqualFold(f.Key, "Queue") {
					fmt.Fprintf(tw, "header %s\t%s\n", f.Key, f.Value)
				}
			}
			fmt.Fprintf(tw, "records\t%d\n", s.Records)
			fmt.Fprintf(tw, "simulatable jobs\t%d\n", s.Jobs)
			fmt.Fprintf(tw, "span\t%.1f days (submits %g to %g s)\n", s.SpanDays, s.FirstSubmit, s.LastSubmit)
			row := func(name string, x distsum.Summary) {
				fmt.Fprintf(tw, "%s\tmin %g  median %g  mean %.1f  p95 %g  max %g\n", name, x.Min, x.Median, x.Mean, x.P95, x.Max)
			}
			row("processors", s.Processors)
			fmt.Fprintf(tw, "serial fraction\t%.3f\n", s.SerialFrac)
			fmt.Fprintf(tw, "power-of-two fraction\t%.3f of parallel jobs\n", s.Pow2Frac)
			row("runtime (s)", s.Runtime)
			row("inter-arrival (s)", s.InterArrival)
			fmt.Fprintf(tw, "offered load\t%.3f on %d processors\n", s.OfferedLoad, s.Platform)
			fmt.Fprintf(tw, "anomalies\t\n")
			keys := make([]string, 0, len(s.Skipped))
			for k := range s.Skipped {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				fmt.Fprintf(tw, "  skipped: %s\t%d\n", k, s.Skipped[k])
			}
			fmt.Fprintf(tw, "  unsorted submit steps\t%d\n", s.UnsortedSteps)
			fmt.Fprintf(tw, "  no requested time\t%d\n", s.NoEstimate)
			fmt.Fprintf(tw, "  run longer than requested\t%d\n", s.OverEstimate)
			fmt.Fprintf(tw, "  zero runtime\t%d\n", s.ZeroRuntime)
			return tw.Flush()
		},
	}
	stats.Flags().IntVar(&pes, "procs", 0, "platform size for the offered load (default: header MaxProcs)")
	stats.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	stats.Flags().BoolVar(&parseOnly, "parse-only", false, "only read and parse every record and print their count (the yardstick of BENCHMARKS.md)")
	cmd.AddCommand(stats, newGenerateCmd(), newConvertCmd(), newModelsCmd(), newGridTablesCmd())
	return cmd
}

func headerMap(w *workload.Workload) map[string]string {
	m := map[string]string{}
	for _, f := range w.Header {
		if _, ok := m[f.Key]; !ok && f.Key != "" {
			m[f.Key] = f.Value
		}
	}
	return m
}

// nodeSelectionDoc describes a node selection.
func nodeSelectionDoc(name string) string {
	if name == "first-fit" {
		return "the lowest-numbered idle processors (default)"
	}
	for _, sys := range system.All() {
		for _, p := range sys.NodeSelections {
			if p.Name == name {
				return p.Description
			}
		}
	}
	return ""
}
