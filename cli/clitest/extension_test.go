package clitest

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestExtensionModule builds examples/extension, the out-of-tree module
// of docs/policies.md (a gridsched with its own policy), runs its tests
// (policytest on its policy) and uses the policy from the command line
// and from a spec.
func TestExtensionModule(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a module")
	}
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go toolchain on PATH")
	}
	src, _ := filepath.Abs(filepath.Join("..", "..", "examples", "extension"))
	bin := filepath.Join(t.TempDir(), "mygridsched")
	env := append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=readonly")
	for _, args := range [][]string{{"test", "./..."}, {"build", "-o", bin, "."}} {
		c := exec.Command(gobin, args...)
		c.Dir, c.Env = src, env
		if out, err := c.CombinedOutput(); err != nil {
			t.Fatalf("go %s in %s: %v\n%s", strings.Join(args, " "), src, err, out)
		}
	}
	out, err := exec.Command(bin, "simulate", "--policy", "largest-first", "--jobs", "300", "--json").CombinedOutput()
	if err != nil || !bytes.Contains(out, []byte(`"policy": "largest-first"`)) || !bytes.Contains(out, []byte(`"completed": 300`)) {
		t.Fatalf("simulate --policy largest-first: %v\n%s", err, out)
	}
	// --policy's help names it; the code identity is the executable's
	// (the module's own code is in no embedded source).
	out, err = exec.Command(bin, "simulate", "--help").CombinedOutput()
	if err != nil || !bytes.Contains(out, []byte("largest-first")) {
		t.Errorf("simulate --help does not name largest-first: %v\n%s", err, out)
	}
	out, err = exec.Command(bin, "version").CombinedOutput()
	if err != nil || !bytes.Contains(out, []byte("code identity exe:")) {
		t.Errorf("version: want the executable's hash as code identity: %v\n%s", err, out)
	}
	dir := t.TempDir()
	spec := filepath.Join(dir, "spec.yaml")
	os.WriteFile(spec, []byte(`name: mine
workload: {model: lublin, params: {nodes: 32}, jobs: 200}
platform: {nodes: 32}
policies: [largest-first, easy]
replications: {count: 2}
seed: 2
metrics: [mean_wait]
`), 0o644)
	out, err = exec.Command(bin, "run", spec, "--out", filepath.Join(dir, "out"), "--quiet").CombinedOutput()
	if err != nil || !bytes.Contains(out, []byte("4 runs done now")) {
		t.Fatalf("run with largest-first: %v\n%s", err, out)
	}
	csv, _ := os.ReadFile(filepath.Join(dir, "out", "runs.csv"))
	if !bytes.Contains(csv, []byte("policy=largest-first")) {
		t.Errorf("runs.csv has no largest-first runs:\n%s", csv)
	}
}
