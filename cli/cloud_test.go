package cli

import (
	"encoding/csv"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestSimulateCloudByHand: the elastic cloud of seed 003 through the one
// run pipeline (issue 13). Three gang jobs, boot exactly 0.1 h, no
// migration, no demand control, no lease on load, AFCFS (§2.2, §3.1,
// §3.2), worked out by hand (times in the model's hours):
//
//	0    job 1 (2 tasks) arrives; no VM: lease 2 (VM 0, 1), ready at 0.1   §3.1 (1)
//	0.1  VMs ready: job 1 dispatched to VM 0, 1 and started; ends at 1.1
//	0.5  job 2 (2 tasks) arrives: dispatched to VM 0, 1 (queued behind 1);
//	     job 3 (3 tasks) arrives: 2 VMs leased, lease 1 (VM 2), ready 0.6
//	0.6  VM 2 ready: job 3 dispatched to VM 2, 0, 1 (shortest queues first)
//	1.1  job 1 ends: job 2 starts (its VMs 0, 1 are idle); ends at 1.6
//	1.6  job 2 ends: job 3 starts on VM 0-2; ends at 3.6
//	3.6  job 3 ends: every VM is idle with an empty queue and goes  §3.2
func TestSimulateCloudByHand(t *testing.T) {
	dir := t.TempDir()
	wl := filepath.Join(dir, "gang.swf")
	os.WriteFile(wl, []byte("; hand-made gang workload (SWF seconds)\n"+
		"1 0 -1 3600 2 -1 -1 2 3600 -1 1 1 1 1 1 1 -1 -1\n"+
		"2 1800 -1 1800 2 -1 -1 2 1800 -1 1 1 1 1 1 1 -1 -1\n"+
		"3 1800 -1 7200 3 -1 -1 3 7200 -1 1 1 1 1 1 1 -1 -1\n"), 0o644)
	conf := filepath.Join(dir, "cloud.yaml")
	os.WriteFile(conf, []byte("cloud: {boot_min: 0.1, boot_max: 0.1, migration: none, xfactor: 0, alf: 0}\n"), 0o644)
	out := filepath.Join(dir, "out")
	text, err := run("simulate", "--policy", "cloud-afcfs", "--workload", wl, "--model-config", conf, "--out", out)
	if err != nil {
		t.Fatalf("%v\n%s", err, text)
	}
	for _, want := range []string{"policy cloud-afcfs", "3 simulated: 3 completed", "makespan 3.600h"} {
		if !strings.Contains(text, want) {
			t.Errorf("summary lacks %q:\n%s", want, text)
		}
	}
	jobs := readTable(t, filepath.Join(out, "jobs.csv"))
	wantJobs := map[string][4]string{ // start, end, VMs, migrated
		"1": {"0.1", "1.1", "0-1", "0"},
		"2": {"1.1", "1.6", "0-1", "0"},
		"3": {"1.6", "3.6", "0-2", "0"},
	}
	for _, r := range jobs {
		w, ok := wantJobs[r["job_id"]]
		if !ok {
			t.Fatalf("unexpected job %v", r)
		}
		delete(wantJobs, r["job_id"])
		near(t, "job "+r["job_id"]+" start", r["starting_time"], w[0])
		near(t, "job "+r["job_id"]+" end", r["finish_time"], w[1])
		if r["allocated_resources"] != w[2] || r["migrated"] != w[3] || r["final_state"] != "COMPLETED_SUCCESSFULLY" {
			t.Errorf("job %s: %v", r["job_id"], r)
		}
	}
	if len(wantJobs) > 0 {
		t.Errorf("jobs missing: %v", wantJobs)
	}
	vms := readTable(t, filepath.Join(out, "vms.csv"))
	wantVMs := [][5]string{ // lease, ready, release, busy, cost
		{"0", "0.1", "3.6", "3.5", "3.6"},
		{"0", "0.1", "3.6", "3.5", "3.6"},
		{"0.5", "0.6", "3.6", "2", "3.1"},
	}
	if len(vms) != len(wantVMs) {
		t.Fatalf("%d VMs, want %d: %v", len(vms), len(wantVMs), vms)
	}
	for i, w := range wantVMs {
		for k, col := range []string{"lease_time", "ready_time", "release_time", "busy_time", "cost"} {
			near(t, "VM "+vms[i]["vm_id"]+" "+col, vms[i][col], w[k])
		}
	}
	// The series ends with the pool empty and every lease paid.
	series := readTable(t, filepath.Join(out, "cloud_series.csv"))
	last := series[len(series)-1]
	near(t, "last series time", last["time"], "3.6")
	near(t, "final lease time", last["lease_time"], "10.3")
	if last["leased_vms"] != "0" {
		t.Errorf("VMs still leased at the end: %v", last)
	}
	for _, f := range []string{"summary.json", "series.csv"} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Error(err)
		}
	}
	// The same run renders as a report with the cloud's own figures.
	rep := filepath.Join(dir, "rep")
	if _, err := run("report", out, "--out", rep); err != nil {
		t.Fatal(err)
	}
	html, _ := os.ReadFile(filepath.Join(rep, "report.html"))
	for _, want := range []string{"VMs over time", "Cumulative lease time and cost", "Queues over time", "Gantt"} {
		if !strings.Contains(string(html), want) {
			t.Errorf("report lacks %q", want)
		}
	}
}

func readTable(t *testing.T, path string) []map[string]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	var out []map[string]string
	for _, r := range recs[1:] {
		m := map[string]string{}
		for i, h := range recs[0] {
			m[h] = r[i]
		}
		out = append(out, m)
	}
	return out
}

func near(t *testing.T, what, got, want string) {
	t.Helper()
	g, err1 := strconv.ParseFloat(got, 64)
	w, _ := strconv.ParseFloat(want, 64)
	if err1 != nil || math.Abs(g-w) > 1e-9 {
		t.Errorf("%s: got %q, want %s", what, got, want)
	}
}

// TestModelConfigErrors: --model-config and --model-param are decoded
// strictly: an unknown key, a wrong type, an unknown section and a bad
// value are refused with the file, line and column (or the flag).
func TestModelConfigErrors(t *testing.T) {
	dir := t.TempDir()
	n := 0
	conf := func(body string) string {
		n++
		p := filepath.Join(dir, fmt.Sprintf("c%d.yaml", n))
		os.WriteFile(p, []byte(body), 0o644)
		return p
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--model-config", conf("cloud:\n  xfactr: 3\n")}, "c1.yaml:2:3"},
		{[]string{"--model-config", conf("cloud:\n  max_vms: many\n")}, "want an integer"},
		{[]string{"--model-config", conf("clouds: {}\n")}, `unknown key "clouds"`},
		{[]string{"--model-config", conf("cloud: {migration: worst}\n")}, `want none, first-fit or best-fit`},
		{[]string{"--model-param", "cloud.nope=1"}, "--model-param cloud.nope=1"},
		{[]string{"--model-param", "weather.rain=1"}, `no system has a section "weather"`},
		{[]string{"--model-param", "cloud.max_vms=-1"}, "out of range"},
	} {
		args := append([]string{"simulate", "--policy", "cloud-afcfs", "--jobs", "10"}, c.args...)
		if _, err := run(args...); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: want an error with %q, got %v", c.args, c.want, err)
		}
	}
}

// TestPoliciesListsEverySystem: 'gridsched policies' lists every policy
// of every registered system with its description, and the sections.
func TestPoliciesListsEverySystem(t *testing.T) {
	out, err := run("policies")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"easy EASY backfilling", "conservative conservative backfilling",
		"drrm dynamic advance reservations", "srrm-m-running srrm-m with the plainer predictor",
		"grid-stat hierarchical grid", "grid-aco hierarchical grid",
		"easy-single EASY as seed 002", "cloud-afcfs elastic cloud", "cloud-ljfs elastic cloud",
		"u nodes by observed performance", "cloud gang scheduling on an elastic cloud", "hierarchy hierarchical grid",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("policies lacks %q:\n%s", want, out)
		}
	}
}
