package experiment

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gridsched/gridsched/internal/testenv"
)

// TestPaperScaleEstimate estimates the CPU time of `gridsched reproduce`
// at paper scale, experiment by experiment (issue 19, target 6), from a
// stated sample of each experiment's runs: replication 0 of its
// configurations, taken evenly spread over them, until the sample has
// used GRIDSCHED_ESTIMATE_BUDGET seconds of CPU (default 20) or every
// configuration has one run. Estimated CPU = mean CPU per sampled run ×
// runs at paper scale (an adaptive spec: its maximum replications, and
// its minimum). It runs only with GRIDSCHED_ESTIMATE=1 (or a
// comma-separated list of experiments) and prints one tab-separated line
// per experiment (GRIDSCHED_ESTIMATE_VERBOSE=1: a line per sampled run
// too); BENCHMARKS.md has the table.
func TestPaperScaleEstimate(t *testing.T) {
	sel := os.Getenv("GRIDSCHED_ESTIMATE")
	if sel == "" {
		t.Skip("set GRIDSCHED_ESTIMATE=1 (or NAME,NAME) to estimate the paper-scale reproduction")
	}
	budget := 20.0
	if b, err := strconv.ParseFloat(os.Getenv("GRIDSCHED_ESTIMATE_BUDGET"), 64); err == nil && b > 0 {
		budget = b
	}
	names := Builtin()
	if sel != "1" {
		names = strings.Split(sel, ",")
	}
	fmt.Println("experiment\tconfigs\truns\tsampled\tcpu_per_run_s\tcpu_est_s\tcpu_est_min_s")
	for _, name := range names {
		s, err := LoadBuiltin(name, "")
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := s.Labels["paper"]; ok {
			if s, err = LoadBuiltin(name, "paper"); err != nil {
				t.Fatal(err)
			}
		}
		if err := s.CheckFiles(); err != nil {
			t.Skip(err)
		}
		cfgs := s.Configs()
		runs, runsMin := len(cfgs)*s.Replications.Count, len(cfgs)*s.Replications.Count
		if s.Replications.Adaptive() {
			runs, runsMin = len(cfgs)*s.Replications.Max, len(cfgs)*s.Replications.Min
		}
		// Evenly spread: every stride-th configuration, then the next
		// offset, so a partial sample covers the whole grid.
		var order []int
		stride := max(1, len(cfgs)/8)
		for off := 0; off < stride; off++ {
			for i := off; i < len(cfgs); i += stride {
				order = append(order, i)
			}
		}
		cache := NewCache()
		var used time.Duration
		n := 0
		for _, c := range order {
			c0 := testenv.CPUTime()
			if _, err := s.Execute(s.NewRun(&cfgs[c], 0), cache); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			took := testenv.CPUTime() - c0
			used += took
			n++
			if os.Getenv("GRIDSCHED_ESTIMATE_VERBOSE") != "" {
				fmt.Printf("#\t%s\t%d\t%s\t%.3f\n", name, c, cfgs[c].ID, took.Seconds())
			}
			if used.Seconds() >= budget {
				break
			}
		}
		per := used.Seconds() / float64(n)
		fmt.Printf("%s\t%d\t%d\t%d\t%.4f\t%.0f\t%.0f\n", name, len(cfgs), runs, n, per, per*float64(runs), per*float64(runsMin))
	}
}
