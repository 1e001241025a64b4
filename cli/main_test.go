package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gridsched/gridsched/internal/testenv"
)

func run(args ...string) (string, error) {
	out, errOut, err := executeCmd(args...)
	// Collapse runs of spaces so tests do not depend on column widths.
	return strings.Join(strings.Fields(out+errOut), " "), err
}

// TestDefaultSimulate is the README's first command: no arguments, a
// built-in workload on the built-in platform, a summary on stdout.
func TestDefaultSimulate(t *testing.T) {
	out, err := run("simulate")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"policy easy", "2000 simulated: 2000 completed", "default-128, 128 processors", "bounded slowdown"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

func TestSimulateTraceWritesFiles(t *testing.T) {
	dir := t.TempDir()
	trace := testenv.Trace(t, "SDSC-BLUE-2000-4.2-cln.first1250.swf")
	out, err := run("simulate", "--workload", trace, "--policy", "conservative", "--out", dir)
	if err != nil {
		t.Fatal(err)
	}
	// 45 records with run −1 are skipped and said so.
	if !strings.Contains(out, "no-runtime 45") || !strings.Contains(out, "1152 processors") {
		t.Errorf("summary:\n%s", out)
	}
	for _, f := range []string{"jobs.csv", "summary.json", "schedule.swf", "series.csv"} {
		if st, err := os.Stat(filepath.Join(dir, f)); err != nil || st.Size() == 0 {
			t.Errorf("%s missing or empty: %v", f, err)
		}
	}
	csv, _ := os.ReadFile(filepath.Join(dir, "jobs.csv"))
	if !strings.HasPrefix(string(csv), "job_id,workload_name,submission_time,requested_number_of_resources,requested_time,success,") {
		t.Errorf("jobs.csv header: %.100s", csv)
	}
	// The schedule is valid SWF that the simulator itself reads back.
	out, err = run("workload", "stats", filepath.Join(dir, "schedule.swf"))
	if err != nil || !strings.Contains(out, "simulatable jobs") {
		t.Fatalf("stats of our own SWF output: %v\n%s", err, out)
	}
}

func TestBadInputErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.swf")
	os.WriteFile(bad, []byte("; MaxProcs: 4\n1 0 1 10 2 -1 -1 2 10 -1 1 1 1 -1 1 1 -1 -1\n2 5 1 x10 2 -1 -1 2 10 -1 1 1 1 -1 1 1 -1 -1\n"), 0o644)
	cases := map[string][]string{
		`bad.swf:3: field 4 (run time): "x10" is not a number`: {"simulate", "--workload", bad},
		`unknown policy "eazy"`:                                {"simulate", "--policy", "eazy"},
		`--overrun: want kill or extend, got "maybe"`:          {"simulate", "--overrun", "maybe"},
		`no such file or directory`:                            {"simulate", "--workload", filepath.Join(dir, "missing.swf")},
		`--arrival-scale -2: out of range`:                     {"simulate", "--workload", bad, "--arrival-scale", "-2"},
	}
	for want, args := range cases {
		out, err := run(args...)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%v: err %v, want %q (output %q)", args, err, want, out)
		}
	}
	plat := filepath.Join(dir, "p.yaml")
	os.WriteFile(plat, []byte("groups:\n  - count: 4\n    pez: 2\n"), 0o644)
	if _, err := run("simulate", "--platform", plat); err == nil || !strings.Contains(err.Error(), "p.yaml") || !strings.Contains(err.Error(), "pez") || !strings.Contains(err.Error(), "p.yaml:3:5:") {
		t.Errorf("platform typo: %v", err)
	}
}

func TestWorkloadStats(t *testing.T) {
	out, err := run("workload", "stats", testenv.Trace(t, "SDSC-Par-1996-3.1-cln.swf.gz"))
	if err != nil {
		t.Fatal(err)
	}
	// facts §1.3: 32,135 records, MaxProcs 400, no requested times.
	for _, want := range []string{"records 32135", "header MaxProcs", "no requested time 32135", "offered load"} {
		if !strings.Contains(out, want) {
			t.Errorf("stats lacks %q:\n%s", want, out)
		}
	}
}

// TestWorkloadStatsParseOnly: --parse-only counts every record (the same
// 32,135 as the full statistics) and fails with the file and line on a bad
// record.
func TestWorkloadStatsParseOnly(t *testing.T) {
	out, err := run("workload", "stats", "--parse-only", testenv.Trace(t, "SDSC-Par-1996-3.1-cln.swf.gz"))
	if err != nil || out != "records 32135" {
		t.Fatalf("parse-only: %v %q", err, out)
	}
	bad := filepath.Join(t.TempDir(), "bad.swf")
	if err := os.WriteFile(bad, []byte("1 0 0 10 1 -1 -1 1 10 -1 1 1 1 1 1 1 -1 -1\n2 x 0 10 1 -1 -1 1 10 -1 1 1 1 1 1 1 -1 -1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := run("workload", "stats", "--parse-only", bad); err == nil || !strings.Contains(out+err.Error(), "bad.swf:2") {
		t.Fatalf("bad record: %v %q", err, out)
	}
}

// TestGenerateConvertStats: every generator writes every format, convert
// moves between them, stats and simulate read them all.
func TestGenerateConvertStats(t *testing.T) {
	dir := t.TempDir()
	for _, m := range []string{"lublin", "grid", "reservations", "gang"} {
		for _, ext := range []string{".swf", ".csv", ".jsonl"} {
			path := filepath.Join(dir, m+ext)
			out, err := run("workload", "generate", "--model", m, "--jobs", "300", "--seed", "3", "--out", path)
			if err != nil || !strings.Contains(out, "wrote 300 jobs of model "+m) {
				t.Fatalf("generate %s%s: %v %s", m, ext, err, out)
			}
			if st, err := os.Stat(path); err != nil || st.Mode().Perm() != 0o644 {
				t.Fatalf("%s: %v %v", path, err, st.Mode())
			}
			out, err = run("workload", "stats", "--procs", "128", path)
			if err != nil || !strings.Contains(out, "simulatable jobs 300") {
				t.Fatalf("stats %s: %v %s", path, err, out)
			}
		}
		// CSV → JSONL → CSV is the identity.
		a, b, c := filepath.Join(dir, m+".csv"), filepath.Join(dir, m+"-2.jsonl"), filepath.Join(dir, m+"-3.csv")
		if _, err := run("workload", "convert", a, b); err != nil {
			t.Fatal(err)
		}
		if _, err := run("workload", "convert", b, c); err != nil {
			t.Fatal(err)
		}
		x, _ := os.ReadFile(a)
		y, _ := os.ReadFile(c)
		if !bytes.Equal(x, y) {
			t.Errorf("%s: csv → jsonl → csv changed the file", m)
		}
	}
	// A generated grid workload simulates (the native format carries it).
	out, err := run("simulate", "--workload", filepath.Join(dir, "grid.csv"), "--nodes", "128", "--policy", "conservative")
	if err != nil || !strings.Contains(out, "300 simulated") {
		t.Fatalf("simulate generated: %v %s", err, out)
	}
	// Parameters from a file and flags; errors name the parameter.
	pf := filepath.Join(dir, "p.yaml")
	os.WriteFile(pf, []byte("q: 0.25\nlambda: 2.5\n"), 0o644)
	if _, err := run("workload", "generate", "--model", "gang", "--params", pf, "--param", "mu=2", "--jobs", "10", "--out", filepath.Join(dir, "g.csv")); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(pf, []byte("q: 0.25\nlamda: 2.5\n"), 0o644)
	if _, err := run("workload", "generate", "--model", "gang", "--params", pf, "--jobs", "10", "--out", filepath.Join(dir, "g.csv")); err == nil || !strings.Contains(err.Error(), `p.yaml:2:1: unknown field "lamda"`) {
		t.Errorf("typo in params file: %v", err)
	}
	if _, err := run("workload", "generate", "--model", "grid", "--param", "e1=5", "--jobs", "10", "--out", filepath.Join(dir, "g.csv")); err == nil || !strings.Contains(err.Error(), "e1, e2") {
		t.Errorf("E1 > E2: %v", err)
	}
	bad := filepath.Join(dir, "bad.csv")
	os.WriteFile(bad, []byte("id,submit,runtime,procs\n1,0,10,2\n2,x,10,2\n"), 0o644)
	if _, err := run("workload", "stats", bad); err == nil || !strings.Contains(err.Error(), "bad.csv:3:3: column submit") {
		t.Errorf("bad csv: %v", err)
	}
}

func TestGridTables(t *testing.T) {
	dir := t.TempDir()
	out, err := run("workload", "grid-tables", "--out", dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Figure 4", "Figure 5", "Figure 6", "Figure 7", "Figure 8", "alpha=1 alpha=1.2"} {
		if !strings.Contains(out, want) {
			t.Errorf("grid-tables lacks %q", want)
		}
	}
	csv, err := os.ReadFile(filepath.Join(dir, "fig4-site-probabilities.csv"))
	if err != nil || !strings.HasPrefix(string(csv), "position,alpha=1,") || !strings.Contains(string(csv), "0,0.125,") {
		t.Errorf("fig4 csv: %v %s", err, csv)
	}
}

// TestRunMergeReportSlurmCommands drives the experiment commands end to
// end on a small spec.
func TestRunMergeReportSlurmCommands(t *testing.T) {
	dir := t.TempDir()
	spec := filepath.Join(dir, "s.yaml")
	os.WriteFile(spec, []byte(`name: cli
workload: {model: gang, params: {lambda: 1.5}, jobs: 300}
platform: {nodes: 64}
policies: [fcfs, easy]
grid: {workload.params.q: [0.25, 0.75]}
replications: {count: 3}
metrics: [mean_response, utilization]
`), 0o644)
	full := filepath.Join(dir, "full")
	out, err := run("run", spec, "--out", full, "--quiet")
	if err != nil || !strings.Contains(out, "4 configurations, 12 runs done now") || !strings.Contains(out, "report: "+full) {
		t.Fatalf("run: %v %s", err, out)
	}
	if _, err := run("run", spec, "--out", full, "--quiet"); err == nil || !strings.Contains(err.Error(), "--resume") {
		t.Errorf("second run without --resume: %v", err)
	}
	out, err = run("run", spec, "--out", full, "--quiet", "--resume")
	if err != nil || !strings.Contains(out, "0 runs done now, 12 already") {
		t.Errorf("resume of a finished sweep: %v %s", err, out)
	}
	var stores []string
	for _, sh := range []string{"1/2", "2/2"} {
		if _, err := run("run", spec, "--out", filepath.Join(dir, "sh"), "--quiet", "--shard", sh); err != nil {
			t.Fatal(err)
		}
	}
	stores = []string{filepath.Join(dir, "sh", "store-1-of-2.db"), filepath.Join(dir, "sh", "store-2-of-2.db")}
	out, err = run(append([]string{"merge", "--out", filepath.Join(dir, "merged")}, stores...)...)
	if err != nil || !strings.Contains(out, "merged 12 runs from 2 stores") {
		t.Fatalf("merge: %v %s", err, out)
	}
	a, _ := os.ReadFile(filepath.Join(full, "aggregate.csv"))
	b, _ := os.ReadFile(filepath.Join(dir, "merged", "aggregate.csv"))
	if len(a) == 0 || !bytes.Equal(a, b) {
		t.Error("merged shards differ from the single run")
	}
	if _, err := run("run", spec, "--shard", "3/2"); err == nil || !strings.Contains(err.Error(), "want I/N") {
		t.Errorf("bad shard: %v", err)
	}
	t.Setenv("SLURM_ARRAY_TASK_ID", "4")
	t.Setenv("SLURM_ARRAY_TASK_MIN", "3")
	t.Setenv("SLURM_ARRAY_TASK_COUNT", "5")
	if i, n, err := parseShard("env"); i != 1 || n != 5 || err != nil {
		t.Errorf("slurm env shard: %d %d %v", i, n, err)
	}
	// Reports of a store and of a simulation folder.
	simDir := filepath.Join(dir, "sim")
	if _, err := run("simulate", "--jobs", "300", "--out", simDir); err != nil {
		t.Fatal(err)
	}
	out, err = run("report", filepath.Join(full, "store.db"), simDir, "--out", filepath.Join(dir, "rep"))
	if err != nil || !strings.Contains(out, "report: ") {
		t.Fatalf("report: %v %s", err, out)
	}
	for _, f := range []string{"sim-gantt.svg", "sim-utilization.png", "sim-queue.svg", "sim-sizes.svg", "sim-cdf-wait.svg", "sim-wait-by-size.svg", "cli-mean_response.svg"} {
		if _, err := os.Stat(filepath.Join(dir, "rep", "figures", f)); err != nil {
			t.Errorf("figure %s: %v", f, err)
		}
	}
	// The folder `run` wrote (its store.db) is a report argument too; a
	// folder that is neither says so.
	if out, err = run("report", full, "--out", filepath.Join(dir, "rep2")); err != nil || !strings.Contains(out, "report: ") {
		t.Fatalf("report of a run folder: %v %s", err, out)
	}
	if _, err := os.Stat(filepath.Join(dir, "rep2", "figures", "cli-mean_response.svg")); err != nil {
		t.Errorf("report of a run folder: %v", err)
	}
	if _, err = run("report", filepath.Join(dir, "rep2", "figures")); err == nil || !strings.Contains(err.Error(), "neither a result store") {
		t.Errorf("report of a folder of figures: %v", err)
	}
	// The Slurm scripts (no submission here; scripts/slurm-test.sh submits for real).
	// The test binary lives in the build cache: refused without --binary.
	if _, err := run("slurm", spec, "--shards", "4", "--out", filepath.Join(dir, "sl0")); err == nil || !strings.Contains(err.Error(), "go build -o gridsched ./cmd/gridsched") {
		t.Fatalf("slurm from the build cache: %v", err)
	}
	bin := filepath.Join(dir, "gridsched")
	os.WriteFile(bin, []byte("#!/bin/sh\n"), 0o755)
	out, err = run("slurm", spec, "--shards", "4", "--out", filepath.Join(dir, "sl"), "--sbatch=--partition=long", "--binary", bin)
	if err != nil || !strings.Contains(out, "4 array tasks") {
		t.Fatalf("slurm: %v %s", err, out)
	}
	sb, _ := os.ReadFile(filepath.Join(dir, "sl", "sbatch.sh"))
	for _, want := range []string{"#SBATCH --array=0-3", "#SBATCH --partition=long", "--shard env --resume"} {
		if !strings.Contains(string(sb), want) {
			t.Errorf("sbatch.sh lacks %q:\n%s", want, sb)
		}
	}
	mg, _ := os.ReadFile(filepath.Join(dir, "sl", "merge.sh"))
	if !strings.Contains(string(mg), "shards=4\n") || !strings.Contains(string(mg), `stores=("$out"/store-*-of-"$shards".db)`) {
		t.Errorf("merge.sh:\n%s", mg)
	}
}

// TestSimulateUnstableFlags: the seed-002 options from the command line.
func TestSimulateUnstableFlags(t *testing.T) {
	dir := t.TempDir()
	plat := filepath.Join(dir, "p.yaml")
	os.WriteFile(plat, []byte("groups:\n  - {count: 4, pes: 8, stability: 0.8, delay: 2}\n  - {count: 12, pes: 8, stability: 0.2, delay: 5}\n"), 0o644)
	out, err := run("simulate", "--jobs", "400", "--platform", plat, "--instability", "published", "--node-select", "u", "--whole-nodes", "--overrun", "extend", "--json")
	if err != nil || !strings.Contains(out, `"mean_qos":`) {
		t.Fatalf("%v %s", err, out)
	}
	if _, err := run("simulate", "--node-select", "expected"); err == nil || !strings.Contains(err.Error(), "node selection expected needs the instability section") {
		t.Errorf("expected without instability: %v", err)
	}
	if _, err := run("simulate", "--instability", "sometimes"); err == nil || !strings.Contains(err.Error(), "want published or periods") {
		t.Errorf("bad instability: %v", err)
	}
}

// TestSimulateTree: a hierarchical run from the command line (seed 001),
// and the errors of a grid dispatcher without a tree and of a bad tree.
func TestSimulateTree(t *testing.T) {
	dir := t.TempDir()
	wl := filepath.Join(dir, "grid.csv")
	if _, err := run("workload", "generate", "--model", "grid", "--param", "sites=[1,1,1,1,1,1]", "--param", "uhi=5", "--param", "s=3", "--jobs", "300", "--out", wl); err != nil {
		t.Fatal(err)
	}
	out, err := run("simulate", "--workload", wl, "--tree", "paper109", "--policy", "grid-minmin", "--overrun", "extend", "--json")
	if err != nil || !strings.Contains(out, `"imbalance":`) || !strings.Contains(out, `"completed": 300`) {
		t.Fatalf("%v %s", err, out)
	}
	if _, err := run("simulate", "--workload", wl, "--nodes", "64", "--policy", "grid-stat"); err == nil || !strings.Contains(err.Error(), "grid-stat needs a hierarchy section") {
		t.Errorf("grid dispatcher without a tree: %v", err)
	}
	if _, err := run("simulate", "--workload", wl, "--tree", filepath.Join(dir, "none.yaml"), "--policy", "grid-stat"); err == nil || !strings.Contains(err.Error(), "--tree") {
		t.Errorf("missing tree file: %v", err)
	}
}
