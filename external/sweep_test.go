package external_test

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gridsched/gridsched/experiment"
	"github.com/gridsched/gridsched/system"
)

// TestSweepRecordsFailedRunsAndResumeRetries: in a sweep, a run whose
// scheduler crashes is recorded as failed with the reason, every other
// run is done and stored, and the resumed sweep retries the failed runs
// only (here they succeed: the scheduler crashes only while a file is
// missing).
func TestSweepRecordsFailedRunsAndResumeRetries(t *testing.T) {
	dir := t.TempDir()
	flag := filepath.Join(dir, "fixed")
	good, bad := helperCommand(), helperCommand("unless="+flag, "crash=3")
	spec := `name: external-sweep
workload: {model: lublin, params: {nodes: 32}, jobs: 150}
platform: {nodes: 32}
policies: [external, fcfs]
external: {command: 'unused'}
grid:
  external.command: ['` + good + `', '` + bad + `']
replications: {count: 2}
seed: 1
metrics: [mean_wait]
`
	path := filepath.Join(dir, "spec.yaml")
	os.WriteFile(path, []byte(spec), 0o644)
	s, err := experiment.Load(path, "")
	if err != nil {
		t.Fatal(err)
	}
	store := filepath.Join(dir, experiment.StoreFile)
	st, err := experiment.OpenStore(store, s, false)
	if err != nil {
		t.Fatal(err)
	}
	sum, err := experiment.Sweep(s, st, experiment.Options{Workers: 2})
	var fe *experiment.FailedRunsError
	if !errors.As(err, &fe) || !errors.Is(err, system.ErrRunFailed) {
		t.Fatalf("want the failed runs reported, got %v", err)
	}
	if sum.Ran != 6 || sum.Failed != 2 {
		t.Errorf("ran %d, failed %d; want 6 and 2", sum.Ran, sum.Failed)
	}
	if !strings.Contains(err.Error(), "2 runs failed") || !strings.Contains(err.Error(), "crashing on purpose") {
		t.Errorf("the error does not say what failed:\n%v", err)
	}
	fails, err := st.Failures()
	if err != nil || len(fails) != 2 {
		t.Fatalf("stored failures: %v, %v", fails, err)
	}
	for _, f := range fails {
		if !strings.Contains(f.Error, "exited with status 3") {
			t.Errorf("run %s failed for %q", f.Key, f.Error)
		}
	}
	done, _ := st.Done()
	if len(done) != 6 {
		t.Errorf("%d runs stored, want 6", len(done))
	}
	st.Close()
	noChildren(t)

	// Fixed: resuming retries exactly the failed runs.
	os.WriteFile(flag, nil, 0o644)
	st, err = experiment.OpenStore(store, s, true)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	sum, err = experiment.Sweep(s, st, experiment.Options{Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Ran != 2 || sum.AlreadyDone != 6 || sum.Failed != 0 {
		t.Errorf("resumed: ran %d, already done %d, failed %d; want 2, 6, 0", sum.Ran, sum.AlreadyDone, sum.Failed)
	}
	if fails, _ := st.Failures(); len(fails) != 0 {
		t.Errorf("failures left after the retry: %v", fails)
	}
	rows, _ := st.Rows()
	if len(rows) != 8 {
		t.Errorf("%d runs stored, want 8", len(rows))
	}
	noChildren(t)
}

// TestSchedulerDiesWithGridsched: a gridsched killed with SIGKILL in the
// middle of a run leaves no scheduler running (Linux: the kernel kills
// the scheduler when its parent dies).
func TestSchedulerDiesWithGridsched(t *testing.T) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("needs /proc")
	}
	dir := t.TempDir()
	pidfile := filepath.Join(dir, "scheduler.pid")
	// The test binary as a "gridsched" that runs one external run whose
	// scheduler never answers.
	cmd := exec.Command(os.Args[0], "-test.run=^TestRunForKill$")
	cmd.Env = append(os.Environ(), "GRIDSCHED_TEST_KILL_PIDFILE="+pidfile)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var pid int
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if b, err := os.ReadFile(pidfile); err == nil && len(b) > 0 {
			pid, _ = strconv.Atoi(string(b))
			break
		}
	}
	if pid == 0 {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatal("the scheduler never started")
	}
	cmd.Process.Kill()
	cmd.Wait()
	for deadline := time.Now().Add(5 * time.Second); alive(pid) && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
	}
	if alive(pid) {
		syscall.Kill(pid, syscall.SIGKILL)
		t.Fatalf("the scheduler (pid %d) outlived the gridsched that started it", pid)
	}
}

// TestRunForKill is the "gridsched" of TestSchedulerDiesWithGridsched
// (it does nothing unless that test starts it).
func TestRunForKill(t *testing.T) {
	pidfile := os.Getenv("GRIDSCHED_TEST_KILL_PIDFILE")
	if pidfile == "" {
		t.Skip("started by TestSchedulerDiesWithGridsched only")
	}
	p, jobs := testCase(t, 50)
	runExternal(p, jobs, helperCommand("sleepfile="+pidfile, "sleep=2"))
}

// TestSchedulerScriptIsAnInput: a file the scheduler's command names next
// to the spec is one of the experiment's inputs (hashed: a resume after
// an edit is refused like one after a trace changed); the interpreter
// and the other words are no files and no error.
func TestSchedulerScriptIsAnInput(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "sched.py")
	os.WriteFile(script, []byte("print('v1')\n"), 0o644)
	spec := `name: external-input
workload: {model: lublin, params: {nodes: 32}, jobs: 50}
platform: {nodes: 32}
policies: [external]
external: {command: 'python3 sched.py --verbose'}
replications: {count: 1}
seed: 1
metrics: [mean_wait]
`
	path := filepath.Join(dir, "spec.yaml")
	os.WriteFile(path, []byte(spec), 0o644)
	s, err := experiment.Load(path, "")
	if err != nil {
		t.Fatal(err)
	}
	if err := s.CheckFiles(); err != nil {
		t.Fatalf("CheckFiles: %v", err)
	}
	before, err := s.Inputs()
	if err != nil {
		t.Fatal(err)
	}
	if len(before) != 1 || before[0].Role != "external" || before[0].Name != "sched.py" || before[0].Path != script || len(before[0].SHA256) != 64 {
		t.Fatalf("inputs %+v: want sched.py only", before)
	}
	os.WriteFile(script, []byte("print('v2')\n"), 0o644)
	after, err := s.Inputs()
	if err != nil {
		t.Fatal(err)
	}
	if after[0].SHA256 == before[0].SHA256 {
		t.Error("an edited script keeps its hash")
	}
}
