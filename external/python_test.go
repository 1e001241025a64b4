package external_test

import (
	"bytes"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/gridsched/gridsched/engine"
	"github.com/gridsched/gridsched/external"
	"github.com/gridsched/gridsched/internal/testenv"
	"github.com/gridsched/gridsched/output"
	"github.com/gridsched/gridsched/policytest"
	"github.com/gridsched/gridsched/simulate"
)

var pythonExe = sync.OnceValue(func() string {
	// The interpreter itself: a version manager's python3 is often a
	// script that costs more to start than the interpreter.
	out, err := exec.Command("python3", "-c", "import sys; print(sys.executable)").Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
})

// python returns the command of a Python example, skipping the test
// where there is no python3 (CI has one).
func python(t *testing.T, example string) string {
	t.Helper()
	exe := pythonExe()
	if exe == "" {
		t.Skip("no python3 on PATH")
	}
	return strconv.Quote(exe) + " " + filepath.Join("..", "python", "examples", example)
}

func jobsCSV(t *testing.T, cfg simulate.Config) []byte {
	t.Helper()
	r, err := simulate.Run(cfg)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := output.WriteJobsOf(&b, r.Engine.Jobs(), r.Summary.Workload); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestPythonSameAsBuiltin: the Python FCFS and EASY examples, run over
// the protocol, give schedules identical job for job (start, end and
// processors of every job: jobs.csv byte for byte) to the built-in fcfs
// and easy, on the Lublin fixture and on all 54,034 jobs of SDSC-SP2.
func TestPythonSameAsBuiltin(t *testing.T) {
	for _, trace := range []string{"lublin_256.swf", "SDSC-SP2-1998-4.2-cln.swf.gz"} {
		for _, pol := range []string{"fcfs", "easy"} {
			t.Run(trace+"/"+pol, func(t *testing.T) {
				cmd := python(t, pol+".py")
				path := testenv.Trace(t, trace)
				want := jobsCSV(t, simulate.Config{WorkloadPath: path, Policy: pol})
				got := jobsCSV(t, simulate.Config{WorkloadPath: path, Policy: external.Name,
					Sections: map[string]any{"external": &external.Params{Command: cmd}}})
				if !bytes.Equal(got, want) {
					wl, gl := bytes.Split(want, []byte("\n")), bytes.Split(got, []byte("\n"))
					for i := range wl {
						if i >= len(gl) || !bytes.Equal(wl[i], gl[i]) {
							t.Fatalf("jobs.csv differs at line %d:\nbuilt-in: %s\npython:   %s", i+1, wl[i], gl[min(i, len(gl)-1)])
						}
					}
					t.Fatal("jobs.csv differs in length")
				}
				if n := bytes.Count(want, []byte("\n")) - 1; trace == "SDSC-SP2-1998-4.2-cln.swf.gz" && n != 54034 {
					t.Fatalf("SDSC-SP2 has %d jobs, want 54034", n)
				}
			})
		}
	}
	noChildren(t)
}

// TestPythonExamplesKeepInvariants: the three Python examples pass the
// harness every built-in policy passes, on its fixtures (a Python process
// per run: the random cases are the built-in policies' part).
func TestPythonExamplesKeepInvariants(t *testing.T) {
	for _, ex := range []string{"fcfs.py", "easy.py", "sjf_backfill.py"} {
		t.Run(ex, func(t *testing.T) {
			cmd := python(t, ex)
			policytest.Check(t, func() engine.Policy { return newPolicy(t, cmd, external.Options{}) }, policytest.Options{Random: -1})
		})
	}
	noChildren(t)
}
