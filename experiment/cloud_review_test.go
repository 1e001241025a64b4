package experiment

import (
	"fmt"
	"math"
	"strings"
	"testing"
)

// TestCloudReviewQuickExperiments (issue 17, the review's open checks):
// the seed-003 experiments added for it run at quick scale and show what
// docs/cloud.md says of them.
func TestCloudReviewQuickExperiments(t *testing.T) {
	// cloud-gang-overhead: release condition 3 (§3.2, "沒有正處于計劃遷移激活態
	// 的任務") is only in force while a migrated job waits for its start,
	// so with overhead 0 switching it off (release_hold none) changes
	// nothing, run for run; with an overhead of 0.1 h it changes the
	// leases (§2.3's "next tick").
	type cell struct {
		pol, lambda, overhead string
		rep                   int
	}
	byHold := map[string]map[cell]map[string]float64{}
	for _, r := range quickRows(t, "cloud-gang-overhead") {
		h := r.Params["cloud.release_hold"]
		if byHold[h] == nil {
			byHold[h] = map[cell]map[string]float64{}
		}
		byHold[h][cell{r.Params["policy"], r.Params["workload.params.lambda"], r.Params["cloud.overhead"], r.Rep}] = r.Metrics
	}
	differs := false
	for c, m := range byHold["migrating"] {
		n := byHold["none"][c]
		if n == nil {
			t.Fatalf("overhead: no release_hold none run for %+v", c)
		}
		same := m["lease_time"] == n["lease_time"] && m["mean_response"] == n["mean_response"] && m["vms_leased"] == n["vms_leased"]
		if c.overhead == "0" && !same {
			t.Errorf("overhead 0, %+v: condition 3 changed the run: lease %g vs %g", c, m["lease_time"], n["lease_time"])
		}
		if c.overhead != "0" && !same {
			differs = true
		}
	}
	if !differs {
		t.Error("overhead > 0: release condition 3 never changed a run (weak case)")
	}

	// cloud-gang-literal: billing by started hour (cost) is at least the
	// lease time and a whole number of VM-hours.
	for _, r := range quickRows(t, "cloud-gang-literal") {
		c, l := r.Metrics["cost"], r.Metrics["lease_time"]
		if c < l || c != math.Trunc(c) {
			t.Errorf("literal %s: cost %g for lease time %g", r.ConfigID, c, l)
		}
		if r.Params["policy"] == "cloud-ljfs" && r.Params["cloud.migration"] != "first-fit" {
			t.Errorf("literal %s: LJFS runs with %s (a duplicate of first-fit)", r.ConfigID, r.Params["cloud.migration"])
		}
	}
	// Under LJFS best-fit picks the job first-fit picks (§2.3: the
	// largest fitting job is first in LJFS's order), so the runs are
	// identical: cloud-gang-literal and -billed run LJFS with first-fit
	// only and pair AFCFS best-fit with it. cloud-gang-cpe still runs both
	// (its pairing simulates the base with the same migration rule): its
	// LJFS runs must agree in every metric of their own.
	lit := map[string]map[string]float64{}
	pairs := 0
	for _, r := range quickRows(t, "cloud-gang-cpe") {
		if r.Params["policy"] != "cloud-ljfs" {
			continue
		}
		k := r.Params["cloud.xfactor"] + " " + r.Params["workload.params.lambda"] + " " + fmt.Sprint(r.Rep)
		o, ok := lit[k]
		if !ok {
			lit[k] = r.Metrics
			continue
		}
		pairs++
		for name, v := range r.Metrics {
			if strings.HasPrefix(name, "cpe") {
				continue // against a different AFCFS base
			}
			if o[name] != v {
				t.Errorf("cpe %s: LJFS %s %g, the other migration rule %g", k, name, v, o[name])
			}
		}
	}
	if pairs == 0 {
		t.Error("cpe: no LJFS first-fit/best-fit pair")
	}

	// cloud-gang-alfoff: without leasing on load only condition (1)
	// leases (§3.1), so the pool never passes the largest job, 32 VMs.
	for _, r := range quickRows(t, "cloud-gang-alfoff") {
		if r.Metrics["max_vms"] != 32 {
			t.Errorf("alf off %s: %g VMs at most", r.ConfigID, r.Metrics["max_vms"])
		}
	}
}

// TestCloudALFQuickExperiments (issue 17, session-5 review, findings 1–2):
// cloud-gang-alf and cloud-gang-monitor-lambda at quick scale.
func TestCloudALFQuickExperiments(t *testing.T) {
	type cell struct {
		pol, lambda, xfactor string
		rep                  int
	}
	key := func(r Row) cell {
		return cell{r.Params["policy"], r.Params["workload.params.lambda"], r.Params["cloud.xfactor"], r.Rep}
	}
	byALF := map[string]map[cell]map[string]float64{}
	for _, r := range quickRows(t, "cloud-gang-alf") {
		a := r.Params["cloud.alf"]
		if byALF[a] == nil {
			byALF[a] = map[cell]map[string]float64{}
		}
		byALF[a][key(r)] = r.Metrics
	}
	if len(byALF["1"]) == 0 || len(byALF["4"]) == 0 {
		t.Fatalf("cloud-gang-alf quick: ALF values %v", byALF)
	}
	// §3.1 condition (2): a higher load threshold leases on load later, so
	// fewer VMs are leased over the run and jobs wait longer in VM queues.
	for c, one := range byALF["1"] {
		four := byALF["4"][c]
		if four == nil {
			t.Fatalf("alf: no ALF 4 run for %+v", c)
		}
		if !(four["vms_leased"] < one["vms_leased"]) || !(four["mean_wait"] > one["mean_wait"]) {
			t.Errorf("alf %+v: ALF 4 leased %g VMs (ALF 1: %g), mean wait %g h (ALF 1: %g)",
				c, four["vms_leased"], one["vms_leased"], four["mean_wait"], one["mean_wait"])
		}
	}
	// ALF 1 is the figure experiments' setting, on the same seeds (common
	// random numbers): its runs are cloud-gang-q50's first-fit runs.
	same := 0
	for _, r := range quickRows(t, "cloud-gang-q50") {
		if r.Params["cloud.migration"] != "first-fit" {
			continue
		}
		m := byALF["1"][key(r)]
		if m == nil {
			continue
		}
		for name, v := range r.Metrics {
			if m[name] != v {
				t.Errorf("alf 1 %+v: %s %g, cloud-gang-q50's run %g", key(r), name, m[name], v)
			}
		}
		same++
	}
	if same == 0 {
		t.Error("alf: no run in common with cloud-gang-q50")
	}
	// cloud-gang-monitor-lambda: the task reading with limit 2 binds (§2.3:
	// a job migrates only if fewer than 2 of its tasks must move), where
	// the default (job reading, limit 5) is close to no monitor: fewer
	// migrations on the same jobs in every run.
	n := 0
	for _, r := range quickRows(t, "cloud-gang-monitor-lambda") {
		d := byALF["1"][key(r)]
		if d == nil {
			continue
		}
		n++
		if !(r.Metrics["migrations"] < d["migrations"]) {
			t.Errorf("monitor tasks 2 %+v: %g migrations, the default monitor %g", key(r), r.Metrics["migrations"], d["migrations"])
		}
	}
	if n == 0 {
		t.Error("monitor-lambda: no run in common with cloud-gang-alf")
	}
}
