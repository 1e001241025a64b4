package clitest

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/gridsched/gridsched/cli"
)

// run runs the command line in this process: its output (standard output
// and error, blanks collapsed) and an error with its standard error when
// it fails.
func run(args ...string) (string, error) {
	text, _, err := runStatus(args...)
	return text, err
}

// runStatus is run with the exit status.
func runStatus(args ...string) (string, int, error) {
	var out, errb bytes.Buffer
	code := cli.Run(args, &out, &errb)
	text := strings.Join(strings.Fields(out.String()+errb.String()), " ")
	if code != 0 {
		return text, code, errors.New(errb.String())
	}
	return text, 0, nil
}

func needPython(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("no python3 on PATH")
	}
}

// TestSimulateExternalScheduler: the exact command line runs the
// Python EASY over the protocol, with the built-in easy's results; the
// command is split as a shell would split it and never run by one.
func TestSimulateExternalScheduler(t *testing.T) {
	needPython(t)
	t.Chdir(filepath.Join("..", "..")) // the repository's root: the command names python/examples/easy.py
	want, err := run("simulate", "--policy", "easy", "--jobs", "400", "--json")
	if err != nil {
		t.Fatal(err)
	}
	got, err := run("simulate", "--policy", "external", "--scheduler", "python3 python/examples/easy.py", "--jobs", "400", "--json")
	if err != nil {
		t.Fatal(err)
	}
	// The same summary but for the policy's name and the provenance,
	// which names the scheduler's script (hashed: a resume notices an
	// edit) and not python3.
	var g, w map[string]any
	if err := json.Unmarshal([]byte(got), &g); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatal(err)
	}
	ins, _ := g["provenance"].(map[string]any)["inputs"].(map[string]any)
	script, _ := ins["external"].(map[string]any)
	if len(ins) != 1 || script["name"] != "python/examples/easy.py" || len(script["sha256"].(string)) != 64 {
		t.Errorf("provenance inputs %v: want python/examples/easy.py with its SHA-256 only", ins)
	}
	for _, m := range []map[string]any{g, w} {
		delete(m, "policy")
		delete(m, "provenance")
	}
	if !reflect.DeepEqual(g, w) {
		t.Errorf("external EASY:\n%s\nbuilt-in easy:\n%s", got, want)
	}
	dir := t.TempDir()
	marker := filepath.Join(dir, "PWNED")
	// Shell syntax is only words: easy.py gets ";", "touch", … as arguments.
	if _, err := run("simulate", "--policy", "external", "--scheduler", "python3 python/examples/easy.py ; touch "+marker+" $(touch "+marker+")", "--jobs", "50"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("the scheduler command ran through a shell")
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--policy", "external"}, "--policy external: needs --scheduler CMD"},
		{[]string{"--policy", "easy", "--scheduler", "python3 x.py"}, "--scheduler: the scheduler decides with --policy external, not --policy easy"},
		{[]string{"--oracle"}, "--oracle: needs --scheduler"},
		{[]string{"--policy", "external", "--scheduler", "python3 'unclosed"}, "unclosed single quote"},
		{[]string{"--policy", "external", "--scheduler", "python3 x.py", "--scheduler-timeout", "0"}, "--scheduler-timeout: want a positive number of seconds"},
	} {
		_, err := run(append([]string{"simulate", "--jobs", "10"}, c.args...)...)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: want an error with %q, got %v", c.args, c.want, err)
		}
	}
}

// TestRunSpecWithExternalScheduler: a spec with the external policy runs
// as a sweep; a scheduler that crashes leaves its runs failed and the
// others stored, and --resume retries the failed runs.
func TestRunSpecWithExternalScheduler(t *testing.T) {
	needPython(t)
	dir := t.TempDir()
	root, _ := filepath.Abs(filepath.Join("..", ".."))
	flag := filepath.Join(dir, "fixed")
	// A scheduler next to the spec: EASY, but it crashes until "fixed" exists.
	sched := `import os, runpy, sys
if not os.path.exists(` + "'" + flag + "'" + `):
    sys.exit("not fixed yet")
sys.argv = ["easy.py"]
runpy.run_path(` + "'" + filepath.Join(root, "python", "examples", "easy.py") + "'" + `, run_name="__main__")
`
	os.WriteFile(filepath.Join(dir, "sched.py"), []byte(sched), 0o644)
	spec := `name: external-cli
workload: {model: lublin, params: {nodes: 32}, jobs: 150}
platform: {nodes: 32}
policies: [external, easy]
external: {command: python3 sched.py}
replications: {count: 2}
seed: 4
metrics: [mean_wait]
`
	path := filepath.Join(dir, "spec.yaml")
	os.WriteFile(path, []byte(spec), 0o644)
	out := filepath.Join(dir, "out")
	msg, code, err := runStatus("run", path, "--out", out, "--quiet")
	if err == nil || !strings.Contains(msg+err.Error(), "2 runs failed") || !strings.Contains(err.Error(), "not fixed yet") {
		t.Fatalf("want 2 failed runs, got %v\n%s", err, msg)
	}
	if code != 4 {
		t.Errorf("exit status %d, want 4 (a run failed for a reason of its own)", code)
	}
	// simulate with that scheduler: its error, the same status.
	if smsg, code, err := runStatus("simulate", "--policy", "external", "--scheduler", "python3 "+filepath.Join(dir, "sched.py"), "--jobs", "20"); err == nil || code != 4 || !strings.Contains(err.Error(), "not fixed yet") {
		t.Errorf("simulate with a crashing scheduler: status %d, %v\n%s", code, err, smsg)
	}
	if !strings.Contains(msg, "2 runs done now") {
		t.Errorf("the easy runs were not done: %s", msg)
	}
	os.WriteFile(flag, nil, 0o644)
	msg, err = run("run", path, "--out", out, "--quiet", "--resume")
	if err != nil {
		t.Fatalf("resume: %v\n%s", err, msg)
	}
	if !strings.Contains(msg, "2 runs done now, 2 already in") {
		t.Errorf("resume did not retry exactly the failed runs: %s", msg)
	}
	csv, err := os.ReadFile(filepath.Join(out, "runs.csv"))
	if err != nil {
		t.Fatal(err)
	}
	// Same replication seed, same jobs: the Python EASY's mean wait is the built-in's.
	lines := strings.Split(strings.TrimSpace(string(csv)), "\n")
	if len(lines) != 5 {
		t.Fatalf("runs.csv has %d rows:\n%s", len(lines)-1, csv)
	}
	wait := func(l string) string { f := strings.Split(l, ","); return f[5] }
	if wait(lines[1]) != wait(lines[3]) || wait(lines[2]) != wait(lines[4]) {
		t.Errorf("external and easy differ:\n%s", csv)
	}
}
