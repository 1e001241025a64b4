package cli

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestRunTellsPlanAndEstimate (issue 18, item 2): before the first run,
// `run` says how many configurations, replications and runs the sweep
// has; once the sample of runs spread over the sweep has finished, it
// estimates the time the rest will take (stderr, like the progress).
func TestRunTellsPlanAndEstimate(t *testing.T) {
	dir := t.TempDir()
	spec := filepath.Join(dir, "small.yaml")
	os.WriteFile(spec, []byte(`name: small
workload:
  model: lublin
  params: {nodes: 32}
  jobs: 150
platform: {nodes: 32}
policies: [fcfs, easy]
grid:
  workload.params.arrival_scale: [0.8, 1.2]
replications: {count: 3}
seed: 4
metrics: [mean_wait]
`), 0o644)
	out, err := run("run", spec, "--out", filepath.Join(dir, "out"), "--workers", "1")
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	head := "small: 4 configurations × 3 replications = 12 runs"
	plan := "small: 0 already in the store, 12 to run"
	est := regexp.MustCompile(`small: 8 sample runs spread over the sweep took [0-9.]+s each \(1 at once; [0-9.]+s so far\): about [0-9.]+s more for the [34] runs left`)
	if !strings.Contains(out, head) || !strings.Contains(out, plan) || !est.MatchString(out) {
		t.Fatalf("no size %q, plan %q or estimate %v in:\n%s", head, plan, est, out)
	}
	if strings.Index(out, head) > strings.Index(out, plan) || strings.Index(out, plan) > strings.Index(out, "runs done (") {
		t.Errorf("the size and plan do not come first:\n%s", out)
	}
	out, err = run("run", spec, "--out", filepath.Join(dir, "out"), "--resume", "--quiet")
	if err != nil || strings.Contains(out, "configurations ×") || strings.Contains(out, "sample runs") {
		t.Errorf("--quiet: %v\n%s", err, out)
	}
	// reproduce: the total over the experiments it runs, first.
	line, err := reproducePlan([]string{"lublin-load", "easy-unstable-fig6"}, "quick")
	if err != nil || !regexp.MustCompile(`^reproduce \(quick\): 2 experiments, [1-9][0-9]* configurations, [1-9][0-9]*( to [0-9]+)? runs`).MatchString(line) {
		t.Errorf("reproduce plan: %q %v", line, err)
	}
	for d, want := range map[time.Duration]string{400 * time.Millisecond: "0.4s", 25 * time.Second: "25s", 250 * time.Second: "4m10s", 3*time.Hour + 5*time.Minute: "3h05m"} {
		if got := humanDuration(d); got != want {
			t.Errorf("humanDuration(%v) = %q, want %q", d, got, want)
		}
	}
}
