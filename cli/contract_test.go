package cli

import (
	"bufio"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gridsched/gridsched/engine"
	"github.com/gridsched/gridsched/experiment"
	"github.com/gridsched/gridsched/internal/buildinfo"
	"github.com/gridsched/gridsched/system"
)

// TestExitStatuses (issue 25): usage errors exit 2, bad input 3,
// internal failures 1, and the statuses are in --help.
func TestExitStatuses(t *testing.T) {
	dir := t.TempDir()
	spec := writeFile(t, filepath.Join(dir, "spec.yaml"), "name: st\nworkload: {model: lublin, params: {nodes: 16}, jobs: 20}\nplatform: {nodes: 16}\npolicies: [fcfs, easy]\nreplications: {count: 1}\nmetrics: [mean_wait]\n")
	bad := writeFile(t, filepath.Join(dir, "bad.yaml"), "name: st\npolicys: [fcfs]\n")
	plat := writeFile(t, filepath.Join(dir, "plat.yaml"), "groups:\n  - count: -0x4\n")
	damaged := writeFile(t, filepath.Join(dir, "dmg", experiment.StoreFile), "")
	if code, _, e := status("run", spec, "--out", filepath.Join(dir, "ok"), "--quiet"); code != 0 {
		t.Fatal(e)
	}
	b, _ := os.ReadFile(filepath.Join(dir, "ok", experiment.StoreFile))
	for i := 100; i < len(b); i += 3 {
		b[i] ^= 0x5a
	}
	os.WriteFile(damaged, b, 0o644)
	for _, c := range []struct {
		want int
		args []string
	}{
		{0, []string{"version"}},
		{0, []string{"--version"}},
		{0, []string{"--help"}},
		{exitUsage, []string{"no-such-command"}},
		{exitUsage, []string{"simulate", "--no-such-flag"}},
		{exitUsage, []string{"simulate", "--nodes", "x"}},
		{exitUsage, []string{"simulate", "--nodes", "0"}},
		{exitUsage, []string{"simulate", "--policy", ""}},
		{exitUsage, []string{"simulate", "--policy", "eazy"}},
		{exitUsage, []string{"simulate", "--estimates", "guess"}},
		{exitUsage, []string{"run"}},
		{exitUsage, []string{"run", spec, "--workers", "-1"}},
		{exitUsage, []string{"run", spec, "--workers", "0"}},
		{exitUsage, []string{"run", spec, "--shard", "3/2"}},
		{exitUsage, []string{"report", dir, "--window", "-5"}},
		{exitUsage, []string{"report", dir, "--window", "NaN"}},
		{exitUsage, []string{"reproduce", "--workers", "-1"}},
		{exitUsage, []string{"reproduce", "no-such-experiment"}},
		{exitUsage, []string{"slurm", spec, "--shards", "1", "--cpus", "0"}},
		{exitUsage, []string{"--max-nodes", "0", "simulate"}},
		{exitUsage, []string{"workload", "generate", "--model", "lublin", "--jobs", "1000000000000", "--out", filepath.Join(dir, "w.swf")}},
		{exitUsage, []string{"workload", "stats", spec, "--procs", "-3"}},
		{exitInput, []string{"simulate", "--workload", filepath.Join(dir, "missing.swf")}},
		{exitInput, []string{"simulate", "--platform", plat}},
		{exitInput, []string{"run", bad}},
		{exitInput, []string{"run", filepath.Join(dir, "missing.yaml")}},
		{exitInput, []string{"run", spec, "--out", filepath.Join(dir, "ok"), "--quiet"}}, // the store exists
		{exitInternal, []string{"report", damaged, "--out", filepath.Join(dir, "r")}},
		{exitUsage, []string{"simulate", "--policy", "external"}}, // no --scheduler
		{exitRunFailed, []string{"simulate", "--jobs", "20", "--policy", "external", "--scheduler", "no-such-scheduler-gridsched"}},
	} {
		code, _, e := status(c.args...)
		if code != c.want {
			t.Errorf("%q: exit %d, want %d (%s)", c.args, code, c.want, strings.TrimSpace(e))
		}
	}
	_, help, _ := status("--help")
	for _, want := range []string{"Exit status: 0 success; 1 internal failure", "2 usage error", "3 bad", "4 a run failed for a reason of its own", "130 interrupted"} {
		if !strings.Contains(strings.Join(strings.Fields(help), " "), want) {
			t.Errorf("--help lacks %q", want)
		}
	}
	_, v, _ := status("--version")
	if !strings.HasPrefix(v, "gridsched ") || !strings.Contains(v, "code identity "+buildinfo.Identity()) {
		t.Errorf("--version: %q", v)
	}
}

// TestRunFailureStatus: a run's own failure (system.ErrRunFailed) exits
// with 4 even when it wraps the engine's refusal of a plan (an external
// scheduler's invalid action), which alone is a bug (1).
func TestRunFailureStatus(t *testing.T) {
	invalid := fmt.Errorf("job 3: %w", engine.ErrInvalidPlan)
	if got := exitStatus(invalid); got != exitInternal {
		t.Errorf("an invalid plan: %d, want %d", got, exitInternal)
	}
	scheduler := errors.Join(invalid, system.ErrRunFailed)
	if got := exitStatus(inputError(scheduler)); got != exitRunFailed {
		t.Errorf("an external scheduler's invalid action: %d, want %d", got, exitRunFailed)
	}
}

// TestUnknownPolicyListsEveryPolicy (issue 25): simulate's message for an
// unknown policy names every registered policy, the grid-* and cloud-*
// ones included; an empty --policy is refused, not replaced by easy.
func TestUnknownPolicyListsEveryPolicy(t *testing.T) {
	for _, p := range []string{"eazy", ""} {
		_, err := run("simulate", "--policy", p)
		if err == nil {
			t.Fatalf("--policy %q accepted", p)
		}
		for _, name := range system.PolicyNames() {
			if !strings.Contains(err.Error(), name) {
				t.Errorf("--policy %q: the message lacks %s: %v", p, name, err)
			}
		}
	}
	if !strings.Contains(strings.Join(system.PolicyNames(), " "), "grid-stat") || !strings.Contains(strings.Join(system.PolicyNames(), " "), "cloud-ljfs") {
		t.Fatal("the registry lacks the grid-* or cloud-* policies")
	}
}

// TestSimulateOutNeedsForce (issue 25): simulate --out refuses a folder
// that is not empty; --force replaces the files simulate and report
// write (no older report is left beside new data) and keeps others.
func TestSimulateOutNeedsForce(t *testing.T) {
	out := filepath.Join(t.TempDir(), "o")
	if _, err := run("simulate", "--jobs", "50", "--out", out, "--quiet"); err != nil {
		t.Fatal(err)
	}
	if _, err := run("report", out); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(out, "notes.txt"), "mine\n")
	_, err := run("simulate", "--jobs", "60", "--out", out, "--quiet")
	if err == nil || exitStatus(err) != exitUsage || !strings.Contains(err.Error(), "the folder is not empty") || !strings.Contains(err.Error(), "--force") {
		t.Fatalf("non-empty --out: %v", err)
	}
	if _, err := run("simulate", "--jobs", "60", "--out", out, "--quiet", "--force"); err != nil {
		t.Fatal(err)
	}
	for _, gone := range []string{experiment.ReportFile, experiment.FiguresDir} {
		if _, err := os.Stat(filepath.Join(out, gone)); err == nil {
			t.Errorf("--force left the old %s", gone)
		}
	}
	if mustRead(t, filepath.Join(out, "notes.txt")) != "mine\n" {
		t.Error("--force removed a file simulate does not write")
	}
	sum := mustRead(t, filepath.Join(out, "summary.json"))
	if !strings.Contains(sum, `"jobs": 60`) || !strings.Contains(sum, `"code": "`+buildinfo.Identity()+`"`) {
		t.Errorf("summary.json:\n%s", sum)
	}
}

// TestSpecNameStaysUnderResults (issue 25): the default output folder of
// a spec named ../../escaped (or with spaces, quotes, a newline) is one
// folder under results/.
func TestSpecNameStaysUnderResults(t *testing.T) {
	for _, name := range []string{"../../escaped", "..", "paper figs", "a/b\\c", "new\nline", "$(x)"} {
		s := &experiment.Spec{Name: name}
		out := defaultOut(s)
		rel, err := filepath.Rel("results", out)
		if err != nil || rel == "." || strings.Contains(rel, string(filepath.Separator)) || strings.HasPrefix(rel, ".") || strings.ContainsAny(rel, " \n$()\\") {
			t.Errorf("name %q: output folder %q", name, out)
		}
	}
}

// TestInterruptSaysWhatWasKept (issue 25): Ctrl-C (SIGINT) during a
// sweep exits with status 130 and says how many runs the store keeps and
// the command that continues; that command finishes the sweep.
func TestInterruptSaysWhatWasKept(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a sweep")
	}
	dir := t.TempDir()
	spec := writeFile(t, filepath.Join(dir, "spec y.yaml"), killSpec)
	out := filepath.Join(dir, "out")
	cmd := cli(t, "run", spec, "--out", out, "--workers", "2")
	stderr, _ := cmd.StderrPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := make(chan string, 100)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	store := filepath.Join(out, experiment.StoreFile)
	for deadline := time.Now().Add(5 * time.Minute); countRuns(store) < 2; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("no run finished")
		}
	}
	cmd.Process.Signal(syscall.SIGINT)
	err := cmd.Wait()
	var msg string
	for l := range lines {
		msg += l + "\n"
	}
	ee, ok := err.(*exec.ExitError)
	if !ok || ee.ExitCode() != exitInterrupted {
		t.Fatalf("exit %v, want %d\n%s", err, exitInterrupted, msg)
	}
	m := regexp.MustCompile(`gridsched: interrupted \(interrupt\): (\d+) runs are kept in (\S+) \(\d+ finished now; runs in flight are dropped\)\. Continue with: (.*)`).FindStringSubmatch(msg)
	if m == nil || m[2] != store {
		t.Fatalf("no note on what was kept:\n%s", msg)
	}
	if n := countRuns(store); m[1] != itoa(n) {
		t.Errorf("said %s runs kept, the store has %d", m[1], n)
	}
	// The suggested command (quoted for a shell) finishes the sweep.
	resume := exec.Command("bash", "-c", strings.Replace(m[3], "gridsched", `"$GS"`, 1)+" --quiet")
	self, _ := os.Executable()
	resume.Env = append(os.Environ(), cliEnv+"=1", "GS="+self)
	if b, err := resume.CombinedOutput(); err != nil || !strings.Contains(string(b), "already in") {
		t.Fatalf("%s: %v\n%s", m[3], err, b)
	}
	db, _ := sql.Open("sqlite", "file:"+store+"?mode=ro")
	defer db.Close()
	var n int
	db.QueryRow(`SELECT count(*) FROM runs`).Scan(&n)
	if n != 96 {
		t.Errorf("%d runs after the resume, want 96", n)
	}
}

func itoa(n int) string { return strconv.Itoa(n) }
