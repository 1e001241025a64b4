package cli

import (
	"github.com/gridsched/gridsched/internal/atomicfile"

	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"text/template"

	"github.com/spf13/cobra"

	"github.com/gridsched/gridsched/experiment"
)

func sortStrings(s []string) { sort.Strings(s) }

var sbatchTemplate = template.Must(template.New("sbatch").Parse(`#!/bin/bash
# Slurm array job written by 'gridsched slurm': {{.Shards}} shards of experiment {{.Name}}.
# Each array task runs one deterministic shard into {{.Out}}/store-I-of-{{.Shards}}.db;
# {{.MergeScript}} (submitted to run after every task succeeded) merges them.
#SBATCH --job-name=gridsched-{{.Name}}
#SBATCH --array=0-{{.Last}}
#SBATCH --cpus-per-task={{.CPUs}}
#SBATCH --output={{.Out}}/slurm-%A_%a.log
{{range .Extra}}#SBATCH {{.}}
{{end}}set -euo pipefail
cd {{.Workdir}}
export GRIDSCHED_TRACES={{.Traces}}
exec {{.Binary}} run {{.Spec}}{{if .Label}} --label {{.Label}}{{end}} --out {{.Out}} --shard env --resume --quiet --workers {{.CPUs}}
`))

var mergeTemplate = template.Must(template.New("merge").Parse(`#!/bin/bash
# Merge step written by 'gridsched slurm' for experiment {{.Name}}.
#SBATCH --job-name=gridsched-{{.Name}}-merge
#SBATCH --output={{.Out}}/slurm-merge-%j.log
set -euo pipefail
cd {{.Workdir}}
rm -rf {{.Out}}/merged
exec {{.Binary}} merge --out {{.Out}}/merged{{range .Stores}} {{.}}{{end}}
`))

type slurmJob struct {
	Name, Spec, Label, Out, Workdir, Traces, Binary, MergeScript string
	Shards, Last, CPUs                                           int
	Stores, Extra                                                []string
}

func newSlurmCmd() *cobra.Command {
	var label, out, binary string
	var shards, cpus int
	var submit bool
	var extra []string
	cmd := &cobra.Command{
		Use:   "slurm SPEC.yaml --shards N",
		Short: "Write (and with --submit, submit) a Slurm array job for an experiment, plus its merge step",
		Long: `Write OUT/sbatch.sh, an array job of N tasks each running one shard of the
experiment ('gridsched run SPEC --shard env'), and OUT/merge.sh, which merges the
shard stores and writes the exports and the report. With --submit both are
submitted with sbatch, the merge depending on the success of every array task
(--dependency=afterok). The paths in the scripts are absolute: run this on the
cluster's shared file system.`,
		Example: `  gridsched slurm experiment.yaml --shards 16 --label paper --submit
  sbatch results/NAME/sbatch.sh   # or submit by hand`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			s, err := experiment.Load(args[0], label)
			if err != nil {
				return err
			}
			if shards < 1 {
				return fmt.Errorf("--shards: must be >= 1, got %d", shards)
			}
			if out == "" {
				out = defaultOut(s)
			}
			abs := func(p string) string { a, _ := filepath.Abs(p); return a }
			if binary == "" {
				if binary, err = os.Executable(); err != nil {
					return err
				}
				if inBuildCache(binary) {
					return fmt.Errorf("this gridsched runs from the Go build cache (%s, 'go run'), which the cluster's tasks cannot rely on: build a binary with 'go build -o gridsched ./cmd/gridsched' and run it, or pass --binary PATH", binary)
				}
			}
			wd, _ := os.Getwd()
			j := slurmJob{
				Name: s.Name, Spec: abs(args[0]), Label: label, Out: abs(out), Workdir: wd,
				Traces: abs(experiment.TracesDir()), Binary: abs(binary), Shards: shards, Last: shards - 1,
				CPUs: cpus, Extra: extra, MergeScript: filepath.Join(abs(out), "merge.sh"),
			}
			for i := 1; i <= shards; i++ {
				j.Stores = append(j.Stores, filepath.Join(j.Out, fmt.Sprintf("store-%d-of-%d.db", i, shards)))
			}
			if err := os.MkdirAll(j.Out, 0o755); err != nil {
				return err
			}
			sb := filepath.Join(j.Out, "sbatch.sh")
			for path, t := range map[string]*template.Template{sb: sbatchTemplate, j.MergeScript: mergeTemplate} {
				var b strings.Builder
				if err := t.Execute(&b, j); err != nil {
					return err
				}
				if err := atomicfile.WriteFile(path, []byte(b.String()), 0o755); err != nil {
					return err
				}
			}
			fmt.Fprintf(cmd.OutOrStdout(), "wrote %s (%d array tasks) and %s\n", sb, shards, j.MergeScript)
			if !submit {
				return nil
			}
			outb, err := exec.Command("sbatch", "--parsable", sb).CombinedOutput()
			if err != nil {
				return fmt.Errorf("sbatch %s: %v: %s", sb, err, outb)
			}
			id := strings.TrimSpace(strings.Split(string(outb), ";")[0])
			outm, err := exec.Command("sbatch", "--parsable", "--dependency=afterok:"+id, j.MergeScript).CombinedOutput()
			if err != nil {
				return fmt.Errorf("sbatch %s: %v: %s", j.MergeScript, err, outm)
			}
			fmt.Fprintf(cmd.OutOrStdout(), "submitted array job %s and merge job %s; the report will be %s\n", id, strings.TrimSpace(string(outm)), filepath.Join(j.Out, "merged", experiment.ReportFile))
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&label, "label", "", "apply a label of the spec")
	f.StringVar(&out, "out", "", "output folder (default results/NAME[-LABEL])")
	f.IntVar(&shards, "shards", 0, "number of array tasks")
	f.IntVar(&cpus, "cpus", 1, "CPUs per array task (simulations at once)")
	f.StringVar(&binary, "binary", "", "gridsched binary the tasks run (default: this one)")
	f.StringArrayVar(&extra, "sbatch", nil, "extra #SBATCH option for the array job, e.g. --sbatch=--partition=long (repeatable)")
	f.BoolVar(&submit, "submit", false, "submit with sbatch")
	return cmd
}

// inBuildCache reports whether path is a temporary binary of 'go run'
// (the go-build folders of the build cache or of the temporary folder).
func inBuildCache(path string) bool {
	if strings.Contains(filepath.ToSlash(path), "/go-build") {
		return true
	}
	if c := os.Getenv("GOCACHE"); c != "" && strings.HasPrefix(path, c) {
		return true
	}
	return false
}
