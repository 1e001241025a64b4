package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gridsched/gridsched/internal/testenv"
)

func run(args ...string) (string, error) {
	cmd := newRoot()
	var out, errb bytes.Buffer
	cmd.SetOut(&out)
	cmd.SetErr(&errb)
	cmd.SetArgs(args)
	err := cmd.Execute()
	// Collapse runs of spaces so tests do not depend on column widths.
	return strings.Join(strings.Fields(out.String()+errb.String()), " "), err
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
	if !strings.HasPrefix(string(csv), "job_id,submission_time,requested_number_of_resources,requested_time,success,") {
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
		`arrival scale must be a positive number`:              {"simulate", "--workload", bad, "--arrival-scale", "-2"},
	}
	for want, args := range cases {
		out, err := run(args...)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%v: err %v, want %q (output %q)", args, err, want, out)
		}
	}
	plat := filepath.Join(dir, "p.yaml")
	os.WriteFile(plat, []byte("groups:\n  - count: 4\n    pez: 2\n"), 0o644)
	if _, err := run("simulate", "--platform", plat); err == nil || !strings.Contains(err.Error(), "p.yaml") || !strings.Contains(err.Error(), "pez") || !strings.Contains(err.Error(), "[3:") {
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
