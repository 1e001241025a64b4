package cli

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"text/template"

	"github.com/spf13/cobra"

	"github.com/gridsched/gridsched/experiment"
	"github.com/gridsched/gridsched/internal/atomicfile"
)

func sortStrings(s []string) { sort.Strings(s) }

// The generated scripts never interpolate a user's string into shell
// code: every path, label and name is assigned once, in single quotes
// (shellQuote), to a variable used as "$var"; names in #SBATCH lines and
// comments are safeName's; numbers are numbers. A directive holds a path
// only when the path has no character sbatch or bash would read
// otherwise (directiveSafe); else --submit passes it to sbatch as an
// argument.
var sbatchTemplate = template.Must(template.New("sbatch").Funcs(template.FuncMap{"q": shellQuote}).Parse(`#!/bin/bash
# Slurm array job written by 'gridsched slurm': {{.Shards}} shards of experiment {{.Safe}}.
# Each array task runs one deterministic shard into OUT/store-I-of-{{.Shards}}.db;
# merge.sh (submitted to run after every task succeeded) merges them.
#SBATCH --job-name=gridsched-{{.Safe}}
#SBATCH --array=0-{{.Last}}
#SBATCH --cpus-per-task={{.CPUs}}
{{if .LogDirective}}#SBATCH --output={{.Out}}/slurm-%A_%a.log
{{end}}{{range .Extra}}#SBATCH {{.}}
{{end}}set -euo pipefail
bin={{q .Binary}}
spec={{q .Spec}}
out={{q .Out}}
workdir={{q .Workdir}}
export GRIDSCHED_TRACES={{q .Traces}}
cd -- "$workdir"
{{if .Label}}label={{q .Label}}
exec "$bin" run --label "$label" --out "$out" --shard env --resume --quiet --workers {{.CPUs}} -- "$spec"
{{else}}exec "$bin" run --out "$out" --shard env --resume --quiet --workers {{.CPUs}} -- "$spec"
{{end}}`))

var mergeTemplate = template.Must(template.New("merge").Funcs(template.FuncMap{"q": shellQuote}).Parse(`#!/bin/bash
# Merge step written by 'gridsched slurm' for experiment {{.Safe}}.
#SBATCH --job-name=gridsched-{{.Safe}}-merge
{{if .LogDirective}}#SBATCH --output={{.Out}}/slurm-merge-%j.log
{{end}}set -euo pipefail
bin={{q .Binary}}
out={{q .Out}}
workdir={{q .Workdir}}
shards={{.Shards}}
cd -- "$workdir"
stores=("$out"/store-*-of-"$shards".db)
if [ ! -e "${stores[0]}" ] || [ "${#stores[@]}" -ne "$shards" ]; then
	echo "merge.sh: want $shards shard stores in $out, found $(ls -- "$out" | grep -c -- "-of-$shards.db" || true)" >&2
	exit 1
fi
rm -rf -- "$out/merged"
exec "$bin" merge --out "$out/merged" -- "${stores[@]}"
`))

type slurmJob struct {
	Safe, Spec, Label, Out, Workdir, Traces, Binary string
	Shards, Last, CPUs                              int
	Extra                                           []string
	LogDirective                                    bool
}

// MaxShards is the most array tasks 'gridsched slurm' writes.
const MaxShards = 100_000

// directiveSafe: a path an #SBATCH line may hold as it is.
func directiveSafe(p string) bool {
	return p != "" && strings.Trim(p, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./+,:@=") == ""
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
cluster's shared file system. Every path and label is quoted for the shell
(never run as code); names in job names are reduced to letters, digits and
. _ - +. N is at most the number of runs (configurations for an adaptive sweep)
and at most 100,000.`,
		Example: `  gridsched slurm experiment.yaml --shards 16 --label paper --submit
  sbatch results/NAME/sbatch.sh   # or submit by hand`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if shards < 1 || shards > MaxShards {
				return usagef("--shards %d: want 1 to %d array tasks", shards, MaxShards)
			}
			if cpus < 1 || cpus > 4096 {
				return usagef("--cpus %d: want 1 to 4096 CPUs per task", cpus)
			}
			for _, e := range extra {
				if !strings.HasPrefix(e, "-") || strings.ContainsFunc(e, func(r rune) bool { return r < ' ' || r == 0x7f }) {
					return usagef("--sbatch %q: want one sbatch option (starting with -, no control characters)", e)
				}
			}
			s, err := experiment.Load(args[0], label)
			if err != nil {
				return inputError(err)
			}
			if n := slurmUnits(s); shards > n {
				return usagef("--shards %d: the sweep has %d %s to share out; use at most %d array tasks", shards, n, map[bool]string{true: "configurations (an adaptive sweep shards whole configurations)", false: "runs"}[s.Replications.Adaptive()], n)
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
					return usagef("this gridsched runs from the Go build cache (%s, 'go run'), which the cluster's tasks cannot rely on: build a binary with 'go build -o gridsched ./cmd/gridsched' and run it, or pass --binary PATH", binary)
				}
			}
			wd, err := os.Getwd()
			if err != nil {
				return err
			}
			j := slurmJob{
				Safe: safeName(s.Name), Spec: abs(args[0]), Label: label, Out: abs(out), Workdir: wd,
				Traces: abs(experiment.TracesDir()), Binary: abs(binary), Shards: shards, Last: shards - 1,
				CPUs: cpus, Extra: extra,
			}
			j.LogDirective = directiveSafe(j.Out)
			if err := os.MkdirAll(j.Out, 0o755); err != nil {
				return err
			}
			sb, merge := filepath.Join(j.Out, "sbatch.sh"), filepath.Join(j.Out, "merge.sh")
			for path, t := range map[string]*template.Template{sb: sbatchTemplate, merge: mergeTemplate} {
				var b strings.Builder
				if err := t.Execute(&b, j); err != nil {
					return err
				}
				if err := atomicfile.WriteFile(path, []byte(b.String()), 0o755); err != nil {
					return err
				}
			}
			fmt.Fprintf(cmd.OutOrStdout(), "wrote %s (%d array tasks) and %s\n", sb, shards, merge)
			if !submit {
				return nil
			}
			var logs, mergeLogs []string
			if !j.LogDirective { // the log paths go to sbatch as arguments, never through a script
				logs = []string{"--output=" + filepath.Join(j.Out, "slurm-%A_%a.log")}
				mergeLogs = []string{"--output=" + filepath.Join(j.Out, "slurm-merge-%j.log")}
			}
			outb, err := exec.Command("sbatch", append(append([]string{"--parsable"}, logs...), sb)...).CombinedOutput()
			if err != nil {
				return fmt.Errorf("sbatch %s: %v: %s", sb, err, outb)
			}
			id := strings.TrimSpace(strings.Split(string(outb), ";")[0])
			if _, err := strconv.ParseUint(id, 10, 64); err != nil {
				return fmt.Errorf("sbatch %s: unexpected answer %q (want a job id)", sb, outb)
			}
			outm, err := exec.Command("sbatch", append(append([]string{"--parsable", "--dependency=afterok:" + id}, mergeLogs...), merge)...).CombinedOutput()
			if err != nil {
				return fmt.Errorf("sbatch %s: %v: %s", merge, err, outm)
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

// slurmUnits is what a sweep's shards share out: its runs, or for an
// adaptive sweep (sharded by whole configurations) its configurations.
func slurmUnits(s *experiment.Spec) int {
	n, _ := s.ConfigCount()
	if s.Replications.Adaptive() {
		return n
	}
	return n * s.Replications.Count
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
