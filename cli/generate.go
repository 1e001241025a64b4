package cli

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/gridsched/gridsched/experiment"
	"github.com/gridsched/gridsched/gen"
	"github.com/gridsched/gridsched/internal/atomicfile"
	"github.com/gridsched/gridsched/model"
	"github.com/gridsched/gridsched/swf"
	"github.com/gridsched/gridsched/workload"
)

func newGenerateCmd() *cobra.Command {
	var name, out, paramsFile string
	var params []string
	var n int
	var seed uint64
	cmd := &cobra.Command{
		Use:   "generate --model NAME --jobs N --seed S --out FILE[.swf|.csv|.jsonl]",
		Short: "Generate a synthetic workload from a model",
		Long: `Generate a synthetic workload and write it as SWF (.swf, what SWF can hold) or in
the native formats (.csv, .jsonl: every field, including deadlines, sites,
migration costs, reservation windows and levels).

Parameters start at the model's defaults (see 'gridsched workload models'),
then come from --params FILE.yaml (decoded strictly: an unknown key is an error
with its line), then from each --param key=value (nested: --param
typeless.serial_prob=0.3; lists: --param 'sites=[1,2,4]').`,
		Example: `  gridsched workload generate --model lublin --param nodes=256 --jobs 10000 --seed 1 --out lublin.swf
  gridsched workload generate --model grid --param alpha=2 --param s=4 --jobs 1000 --out grid.csv
  gridsched workload generate --model reservations --param lambda=6 --jobs 200 --out res.jsonl
  gridsched workload generate --model gang --param q=0.25 --param lambda=2.25 --jobs 100000 --out gang.swf
  gridsched workload generate --model trace-reservations --param trace=OSC-Clust-2000-3.1-cln.swf.gz --param lambda=300 --out osc-res.csv`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if out == "" {
				return usagef("--out: the output file is required")
			}
			if n < 0 || cmd.Flags().Changed("jobs") && n == 0 {
				return usagef("--jobs: must be >= 1, got %d", n)
			}
			if n > experiment.MaxJobs {
				return usagef("--jobs %d: over the limit of %d jobs (raise it with --max-jobs)", n, experiment.MaxJobs)
			}
			m, err := gen.Lookup(name)
			if err != nil {
				return usageError(fmt.Errorf("--model: %w", err))
			}
			var doc []byte
			source := "parameters"
			if paramsFile != "" {
				if doc, err = os.ReadFile(paramsFile); err != nil {
					return inputError(err)
				}
				source = paramsFile
			}
			p, err := m.Params(source, doc, params)
			if err != nil {
				return inputError(err)
			}
			g, err := m.New(p, seed)
			if err != nil {
				return inputError(m.Locate(source, doc, err))
			}
			if n == 0 {
				// finite models stop by themselves, within the same limit
				n = experiment.MaxJobs
				if name != "trace-reservations" {
					return usagef("--jobs: say how many jobs to generate")
				}
			}
			h := swf.Header{
				{Key: "Version", Value: "2.2"},
				{Key: "Computer", Value: "gridsched workload generator"},
				{Key: "Information", Value: fmt.Sprintf("model %s, seed %d", name, seed)},
			}
			if cmd.Flags().Changed("jobs") {
				h = append(h, swf.HeaderField{Key: "MaxJobs", Value: strconv.Itoa(n)}, swf.HeaderField{Key: "MaxRecords", Value: strconv.Itoa(n)})
			}
			if sz, ok := g.(gen.Sizer); ok {
				size := strconv.Itoa(sz.Nodes())
				h = append(h, swf.HeaderField{Key: "MaxNodes", Value: size}, swf.HeaderField{Key: "MaxProcs", Value: size})
			}
			// Streamed into a temporary file and renamed into place: a
			// failed or killed run leaves no part of a workload.
			count := 0
			err = atomicfile.Write(out, 0o644, func(f io.Writer) error {
				w := workload.NewWriter(f, workload.FormatOf(out), h)
				if err := gen.Stream(g, n, func(j *model.Job) error { count++; return w.Write(j) }); err != nil {
					return err
				}
				return w.Flush()
			})
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "wrote %d jobs of model %s (seed %d) to %s\n", count, name, seed, out)
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&name, "model", "", "workload model (see 'gridsched workload models')")
	f.IntVar(&n, "jobs", 0, "number of jobs")
	f.Uint64Var(&seed, "seed", 1, "random seed")
	f.StringVar(&out, "out", "", "output file: .swf, .csv or .jsonl")
	f.StringVar(&paramsFile, "params", "", "model parameters (YAML)")
	f.StringArrayVar(&params, "param", nil, "one model parameter, key=value (repeatable)")
	return cmd
}

func newConvertCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "convert IN OUT",
		Short: "Convert a workload between SWF (.swf, .swf.gz), CSV (.csv) and JSON Lines (.jsonl)",
		Long: `Convert a workload file. Formats follow the file names. Converting to SWF keeps
what SWF can hold: the submission site goes to the partition field (site k is
partition k+1) and the job type to the queue field; deadlines, migration costs,
reservation windows and levels are dropped. Records that cannot be simulated are
kept as they are (nothing is filtered).`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			w, err := workload.Load(args[0], workload.Rules{KeepCancelled: true}, workload.Transform{})
			if err != nil {
				return inputError(err)
			}
			if err := workload.WriteFile(args[1], w.Jobs, w.Header); err != nil {
				return err
			}
			msg := fmt.Sprintf("wrote %d jobs to %s", len(w.Jobs), args[1])
			if k := w.SkippedTotal(); k > 0 {
				msg += fmt.Sprintf(" (%d records that cannot be simulated were left out: %v)", k, w.Skipped)
			}
			fmt.Fprintln(cmd.OutOrStdout(), msg)
			return nil
		},
	}
}

func newModelsCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "models",
		Short: "List the workload models and their default parameters",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			tw := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 0, 2, ' ', 0)
			for _, n := range gen.Names() {
				m, _ := gen.Lookup(n)
				fmt.Fprintf(tw, "%s\t%s\n", n, m.Description)
				y, err := m.DefaultsYAML()
				if err != nil {
					return err
				}
				fmt.Fprintf(tw, "\tdefaults: %s\n", y)
			}
			return tw.Flush()
		},
	}
}

func newGridTablesCmd() *cobra.Command {
	var seed uint64
	var out string
	cmd := &cobra.Command{
		Use:   "grid-tables",
		Short: "Reproduce the application section of seed 004 (figures 4–8) as data tables",
		Long: `Print the data behind figures 4–8 of "Workload modeling of computational grids"
(seed 004, §3): site probabilities for α over 8 sites, the effect of the stretch
factor s on inter-arrival times, estimate factors for several [E1, E2], arrival,
earliest completion and deadline of consecutive jobs with B ~ U[2, 6], and pure
migration costs for three [D1, D2]. With --out DIR each table is also written
as DIR/NAME.csv.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			tables, err := gen.GridTables(seed)
			if err != nil {
				return err
			}
			w := cmd.OutOrStdout()
			for _, t := range tables {
				fmt.Fprintf(w, "# %s\n", t.Title)
				tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
				for _, c := range t.Columns {
					fmt.Fprintf(tw, "%s\t", c)
				}
				fmt.Fprintln(tw)
				for _, r := range t.Rows {
					for _, v := range r {
						if v == float64(int64(v)) {
							fmt.Fprintf(tw, "%d\t", int64(v))
						} else {
							fmt.Fprintf(tw, "%s\t", strconv.FormatFloat(v, 'f', 4, 64))
						}
					}
					fmt.Fprintln(tw)
				}
				tw.Flush()
				fmt.Fprintln(w)
				if out != "" {
					if err := writeTableCSV(out, t); err != nil {
						return err
					}
				}
			}
			return nil
		},
	}
	cmd.Flags().Uint64Var(&seed, "seed", 1, "random seed")
	cmd.Flags().StringVar(&out, "out", "", "also write each table as CSV into this directory")
	return cmd
}

func writeTableCSV(dir string, t gen.Table) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	var b []byte
	for i, c := range t.Columns {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, c...)
	}
	b = append(b, '\n')
	for _, r := range t.Rows {
		for i, v := range r {
			if i > 0 {
				b = append(b, ',')
			}
			b = strconv.AppendFloat(b, v, 'g', -1, 64)
		}
		b = append(b, '\n')
	}
	return atomicfile.WriteFile(filepath.Join(dir, t.Name+".csv"), b, 0o644)
}
