package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/gridsched/gridsched/experiment"
)

// TestCLIRefusesBadInput: every bad input of issue 18 through the
// command line: an error with the file and position (or the flag), a
// non-zero exit (an error from Execute), no summary on stdout and no
// output folder or store left behind.
func TestCLIRefusesBadInput(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	const rec = " -1 -1 1 10 -1 1 1 1 -1 1 1 -1 -1\n"
	nanCSV := write("nan.csv", "id,submit,runtime,procs\n1,0,10,1\n2,NaN,10,1\n")
	nullJSON := write("null.jsonl", `{"id":1,"submit":0,"runtime":null,"procs":1}`+"\n")
	hexSWF := write("hex.swf", "; MaxProcs: 4\n1 0x1p4 0 10 1"+rec)
	bigSWF := write("big.swf", "; MaxProcs: 4\n1 1e17 0 10 1"+rec)
	negMax := write("neg.swf", "; MaxProcs: -64\n1 0 0 10 1"+rec)
	hugeMax := write("huge.swf", "; MaxProcs: 2000000000\n1 0 0 10 1"+rec)
	adir := filepath.Join(dir, "adir.swf")
	os.Mkdir(adir, 0o755)
	emptyPlat := write("empty.yaml", "")
	tagPlat := write("tag.yaml", "groups: !x foo\n")
	nanPlat := write("nan.yaml", "groups:\n  - count: 4\n    speed: .nan\n")
	pesPlat := write("pes.yaml", "groups:\n  - count: 4\n    pes: 4611686018427387904\n")
	fracPlat := write("frac.yaml", "groups:\n  - count: 64.5\n")
	strPlat := write("str.yaml", "groups:\n  - count: !!str 4\n")
	good := write("good.swf", "; MaxProcs: 4\n1 0 0 10 1"+rec)

	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"csv NaN", []string{"--workload", nanCSV}, `nan.csv:3:3: column submit: "NaN" is not a finite number`},
		{"jsonl null", []string{"--workload", nullJSON}, `null.jsonl:1:20: field runtime: no value`},
		{"swf hex", []string{"--workload", hexSWF}, `hex.swf:2: field 2 (submit time): "0x1p4" is not a decimal number`},
		{"swf 1e17", []string{"--workload", bigSWF}, `big.swf:2: field 2 (submit time): "1e17" is 2^53 or more`},
		{"MaxProcs -64", []string{"--workload", negMax}, `the header's MaxProcs is "-64", not a positive number`},
		{"MaxProcs 2e9", []string{"--workload", hugeMax}, `the header's MaxProcs: 2000000000 nodes is over the limit of 1048576`},
		{"directory", []string{"--workload", adir}, `adir.swf: is a directory, not a workload file`},
		{"empty platform", []string{"--platform", emptyPlat}, `empty.yaml: the platform file is empty`},
		{"platform tag", []string{"--platform", tagPlat}, `tag.yaml:1:9: groups: YAML tag !x is not accepted here`},
		{"platform nan", []string{"--platform", nanPlat}, `nan.yaml:3:12: groups[0].speed: want a finite number, got .nan`},
		{"platform pes", []string{"--platform", pesPlat}, `pes.yaml:3:10: groups[0].pes: 4611686018427387904 processors per node is over the limit`},
		{"platform fraction", []string{"--platform", fracPlat}, `frac.yaml:2:12: groups[0].count: want an integer, got float 64.5`},
		{"platform str tag", []string{"--platform", strPlat}, `str.yaml:2:12: groups[0].count: YAML tag !!str is not accepted here`},
		{"nodes 2e9", []string{"--workload", good, "--nodes", "2000000000"}, `--nodes: 2000000000 nodes is over the limit of 1048576 (raise it with --max-nodes)`},
		{"nodes 0", []string{"--nodes", "0"}, `--nodes 0: out of range`},
		{"nodes -5", []string{"--nodes", "-5"}, `--nodes -5: out of range`},
		{"jobs 0", []string{"--jobs", "0"}, `--jobs 0: out of range`},
		{"arrival-scale 0", []string{"--arrival-scale", "0"}, `--arrival-scale 0: out of range`},
		{"arrival-scale NaN", []string{"--arrival-scale", "NaN"}, `--arrival-scale NaN: out of range`},
		{"max-procs 0", []string{"--max-procs", "0"}, `--max-procs 0: out of range`},
		{"first 0", []string{"--first", "0"}, `--first 0: out of range`},
		{"load inf", []string{"--load", "+Inf"}, `--load +Inf: out of range`},
		{"max-nodes 0", []string{"--max-nodes", "0"}, `--max-nodes: must be >= 1, got 0`},
	} {
		t.Run(c.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "out")
			got, err := run(append([]string{"simulate", "--quiet", "--out", out}, c.args...)...)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err %v\nwant %q", err, c.want)
			}
			if got != "" {
				t.Errorf("output printed despite the error: %q", got)
			}
			if _, serr := os.Stat(out); serr == nil {
				t.Errorf("--out folder %s was created", out)
			}
			if strings.Contains(err.Error(), "NaN") && !strings.Contains(c.want, "NaN") {
				t.Errorf("NaN in the message: %v", err)
			}
		})
	}
}

// TestRunFailedStartLeavesNothing: a spec whose trace is nowhere fails
// before the result store exists, naming every place it looked (issue 18,
// items 4 and 13); a plain rerun then gives the same message, not "store
// exists".
func TestRunFailedStartLeavesNothing(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("GRIDSCHED_TRACES", filepath.Join(dir, "traces"))
	spec := filepath.Join(dir, "spec.yaml")
	os.WriteFile(spec, []byte("name: t\nworkload: {trace: nowhere.swf}\nplatform: {nodes: 8}\npolicies: [fcfs]\nreplications: {count: 1}\nmetrics: [mean_wait]\n"), 0o644)
	out := filepath.Join(dir, "out")
	for i := 0; i < 2; i++ {
		_, err := run("run", spec, "--out", out, "--quiet")
		if err == nil || !strings.Contains(err.Error(), `trace "nowhere.swf" not found in the spec's folder`) || !strings.Contains(err.Error(), "GRIDSCHED_TRACES=") {
			t.Fatalf("attempt %d: %v", i, err)
		}
		if _, err := os.Stat(out); err == nil {
			t.Fatalf("attempt %d left %s behind", i, out)
		}
	}
}

// TestRunRefusesSecondWriter: while one process holds a result store, a
// second run on the same folder is refused and told who holds it (issue
// 18, item 9).
func TestRunRefusesSecondWriter(t *testing.T) {
	dir := t.TempDir()
	spec := filepath.Join(dir, "spec.yaml")
	os.WriteFile(spec, []byte("name: t\nworkload: {model: lublin, params: {nodes: 32}, jobs: 20}\nplatform: {nodes: 32}\npolicies: [fcfs]\nreplications: {count: 1}\nmetrics: [mean_wait]\n"), 0o644)
	out := filepath.Join(dir, "out")
	lock, err := lockFor(filepath.Join(out, "store.db"))
	if err != nil {
		t.Fatal(err)
	}
	_, err = run("run", spec, "--out", out, "--quiet")
	lock.Unlock()
	if err == nil || !strings.Contains(err.Error(), "in use by another gridsched (pid ") {
		t.Fatalf("second writer: %v", err)
	}
	if _, err := run("run", spec, "--out", out, "--quiet", "--resume"); err != nil {
		t.Fatalf("after the holder ended: %v", err)
	}
}

func lockFor(store string) (interface{ Unlock() error }, error) { return experiment.LockStore(store) }

// TestVersionCompletionSlurmBinary: 'version' prints the module version
// and Go's; completion offers experiment and policy names; the Slurm
// scripts refuse a 'go run' binary from the build cache (issue 18, item
// 15).
func TestVersionCompletionSlurmBinary(t *testing.T) {
	out, err := run("version")
	if err != nil || !strings.HasPrefix(out, "gridsched ") || !strings.Contains(out, runtime.Version()) {
		t.Fatalf("version: %q %v", out, err)
	}
	out, _ = run("__complete", "reproduce", "lublin")
	if !strings.Contains(out, "lublin-load") {
		t.Errorf("experiment completion: %q", out)
	}
	out, _ = run("__complete", "simulate", "--policy", "cons")
	if !strings.Contains(out, "conservative") {
		t.Errorf("policy completion: %q", out)
	}
	if !inBuildCache("/root/.cache/go-build/ab/exe/gridsched") || !inBuildCache("/tmp/go-build123/b001/exe/gridsched") || inBuildCache("/usr/local/bin/gridsched") {
		t.Error("inBuildCache")
	}
}

// TestZeroJobRunHasNoMetrics: a workload whose every record is skipped
// reports no wait or slowdown rather than zeros (issue 18, item 6).
func TestZeroJobRunHasNoMetrics(t *testing.T) {
	p := filepath.Join(t.TempDir(), "none.swf")
	os.WriteFile(p, []byte("; MaxProcs: 4\n1 0 -1 -1 1 -1 -1 1 10 -1 1 1 1 -1 1 1 -1 -1\n"), 0o644)
	out, err := run("simulate", "--workload", p, "--quiet")
	if err != nil || !strings.Contains(out, "metrics none: no job ran to an end") || strings.Contains(out, "wait 0.0s") {
		t.Fatalf("%v\n%s", err, out)
	}
	// summary.json (--out) and --json: the metrics are absent, not 0
	dir := filepath.Join(t.TempDir(), "out")
	if out, err = run("simulate", "--workload", p, "--quiet", "--out", dir); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	file, err := os.ReadFile(filepath.Join(dir, "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	js, err := run("simulate", "--workload", p, "--quiet", "--json")
	if err != nil {
		t.Fatalf("%v\n%s", err, js)
	}
	for name, b := range map[string][]byte{"summary.json": file, "--json": []byte(js)} {
		var m map[string]any
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatalf("%s: %v\n%s", name, err, b)
		}
		for _, k := range []string{"wait", "response", "bounded_slowdown", "utilization", "makespan", "throughput_per_hour"} {
			if _, ok := m[k]; ok {
				t.Errorf("%s has %q: %s", name, k, b)
			}
		}
		if m["jobs"] != 0.0 {
			t.Errorf("%s: jobs %v", name, m["jobs"])
		}
	}
}
