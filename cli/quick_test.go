package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"

	"github.com/gridsched/gridsched/experiment"
)

// quick is the package's one `reproduce --quick`, shared by the tests
// that read it (the figures and the browser test): it is the costliest
// thing the tests do, and running it once keeps `go test ./...` inside
// its time limit on a loaded 2-core machine (issue 18, item 11).
var quick struct {
	once          sync.Once
	dir, out, res string
	err           error
}

// shrink is the tests' change to every built-in spec of the shared
// reproduction: every configuration stays (so every figure, x value,
// series, claim and paper reference of the quick reproduction is still
// there to check), while each run simulates less — a quarter of the
// jobs (at least 50, also where a grid or zip varies them), a quarter of
// the trace records (at least 300; whole traces are cut to their first
// 300), the OSC trace's first 9,000 jobs for its reservation workloads,
// and at most two replications (two still give the CI bars). It cuts
// the reproduction's CPU time about threefold (issue 18).
func shrink(s *experiment.Spec) {
	quarter := func(n int) int { return max(n/4, min(n, 50)) }
	w := &s.Workload
	if w.Jobs > 0 {
		w.Jobs = quarter(w.Jobs)
	} else if w.Model == "trace-reservations" {
		w.Jobs = 9000
	}
	for _, axis := range []map[string][]any{s.Grid, s.Zip} {
		for i, v := range axis["workload.jobs"] {
			switch n := v.(type) {
			case int:
				axis["workload.jobs"][i] = quarter(n)
			case uint64:
				axis["workload.jobs"][i] = uint64(quarter(int(n)))
			}
		}
	}
	trace := w.Trace != "" || s.Grid["workload.trace"] != nil || s.Zip["workload.trace"] != nil
	if w.First > 0 {
		w.First = max(w.First/4, min(w.First, 300))
	} else if trace && s.Grid["workload.first"] == nil && s.Zip["workload.first"] == nil {
		w.First = 300
	}
	r := &s.Replications
	if r.Adaptive() {
		r.Min, r.Max = 2, 2
	} else {
		r.Count = min(r.Count, 2)
	}
}

// quickReproduction returns the folder `reproduce --quick` wrote (run
// once, from the repository root, with shrink) and what it printed.
// Tests may add files to the folder but must not change what is there.
func quickReproduction(t *testing.T) (out, res string) {
	t.Helper()
	quick.once.Do(func() {
		if quick.dir, quick.err = os.MkdirTemp("", "gridsched-quick-"); quick.err != nil {
			return
		}
		quick.out = filepath.Join(quick.dir, "quick")
		root, _ := filepath.Abs("..")
		wd, _ := os.Getwd()
		os.Chdir(root)
		defer os.Chdir(wd)
		quick.res, quick.err = runShrunk("reproduce", "--quick", "--quiet", "--out", quick.out)
	})
	if quick.err != nil {
		t.Fatal(quick.err)
	}
	return quick.out, quick.res
}

// runShrunk is run with shrink applied to the built-in specs that
// reproduce runs (as in the shared reproduction, whose stores hold the
// shrunk specs).
func runShrunk(args ...string) (string, error) {
	testSpecHook = shrink
	defer func() { testSpecHook = nil }()
	return run(args...)
}

// cliEnv set to 1 makes the test binary run as gridsched itself (its
// arguments are the command line): tests that need a separate process
// (kills) start this binary instead of building one.
const cliEnv = "GRIDSCHED_TEST_AS_CLI"

// cli returns a command that runs gridsched with args in a separate
// process (this test binary, see cliEnv).
func cli(t *testing.T, args ...string) *exec.Cmd {
	t.Helper()
	self, e := os.Executable()
	if e != nil {
		t.Fatal(e)
	}
	cmd := exec.Command(self, args...)
	cmd.Env = append(os.Environ(), cliEnv+"=1")
	return cmd
}

func TestMain(m *testing.M) {
	if os.Getenv(cliEnv) == "1" {
		Main()
	}
	code := m.Run()
	if quick.dir != "" {
		os.RemoveAll(quick.dir)
	}
	os.Exit(code)
}
