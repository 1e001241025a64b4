package modelcheck

import (
	"strings"
	"testing"

	"github.com/gridsched/gridsched/gen"
	"github.com/gridsched/gridsched/system"
)

func run(t *testing.T, made, model gen.GridParams, seed uint64) map[string]float64 {
	t.Helper()
	g, err := gen.NewGrid(made, seed)
	if err != nil {
		t.Fatal(err)
	}
	out, err := simulate(system.LoopInput{Policy: Policy, Seed: seed, Jobs: gen.Take(g, 10000), Model: &model}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return out.Metrics
}

// TestOwnModel: jobs generated under each runtime reading pass every
// Kolmogorov test against their own parameters, and figure 7's windows
// tell the draw readings apart (exponentiated draws: no window of close
// runtimes; the printed tuple as raw runtimes: about half the windows).
func TestOwnModel(t *testing.T) {
	for _, rt := range []string{"lublin", "paper-log2"} {
		for _, d := range []string{"log", "raw"} {
			p := gen.DefaultGridParams()
			p.Runtime, p.RuntimeDraw = rt, d
			m := run(t, p, p, 5)
			for _, k := range []string{"ks_runtime", "ks_interarrival", "ks_estimate", "ks_deadline", "ks_migration"} {
				v, ok := m[k]
				if !ok || !(v <= gen.KSCritical001) {
					t.Errorf("%s/%s: %s = %v (present %v), want at most %.4f", rt, d, k, v, ok, gen.KSCritical001)
				}
			}
			close, cv := m["fig7_close"], m["fig7_runtime_cv"]
			switch {
			case d == "log" && (close > 0.01 || cv < 1):
				t.Errorf("%s/log: %.3f of the windows close, median runtime CV %.2f: exponentiated runtimes should differ widely", rt, close, cv)
			case rt == "paper-log2" && d == "raw" && (close < 0.4 || cv > 0.6):
				t.Errorf("paper-log2/raw: %.3f of the windows close, median runtime CV %.2f: want figure 7's picture", close, cv)
			}
			if m["fig7_span_range"] < 3*m["fig7_runtime_range"] {
				t.Errorf("%s/%s: span range %.0f s below 3 × the runtime range %.0f s (B ~ U[2, 6])", rt, d, m["fig7_span_range"], m["fig7_runtime_range"])
			}
		}
	}
}

// TestOtherModel: the statistics reject jobs measured against a model
// that did not make them (the tests have power).
func TestOtherModel(t *testing.T) {
	made := gen.DefaultGridParams()
	other := made
	other.Runtime = "paper-log2"
	if v := run(t, made, other, 6)["ks_runtime"]; v <= gen.KSCritical001 {
		t.Errorf("lublin runtimes against the paper-log2 model: ks_runtime %.3f, want above %.3f", v, gen.KSCritical001)
	}
	other = made
	other.RuntimeDraw = "raw"
	if v := run(t, made, other, 6)["ks_runtime"]; v <= gen.KSCritical001 {
		t.Errorf("log-draw runtimes against the raw model: ks_runtime %.3f, want above %.3f", v, gen.KSCritical001)
	}
	other = made
	other.S = 1.1
	if v := run(t, made, other, 6)["ks_interarrival"]; v <= gen.KSCritical001 {
		t.Errorf("inter-arrival times of s = 1 against s = 1.1: %.3f, want above %.3f", v, gen.KSCritical001)
	}
	other = made
	other.E2, other.D2, other.B2d = 2.2, 110, 6.5
	m := run(t, made, other, 6)
	for _, k := range []string{"ks_estimate", "ks_migration", "ks_deadline"} {
		if m[k] <= gen.KSCritical001 {
			t.Errorf("%s against a 10%% wider range: %.3f, want above %.3f", k, m[k], gen.KSCritical001)
		}
	}
}

// TestPointDistributions: a parameter range of one point has no
// statistic (absent, not 0), and jobs of no model are refused.
func TestPointDistributions(t *testing.T) {
	p := gen.DefaultGridParams()
	p.E1, p.E2 = 1, 1
	m := run(t, p, p, 7)
	if _, ok := m["ks_estimate"]; ok {
		t.Errorf("ks_estimate with e1 = e2 = 1: %v, want absent", m["ks_estimate"])
	}
	if _, ok := m["ks_deadline"]; !ok {
		t.Error("ks_deadline missing")
	}
	_, err := simulate(system.LoopInput{Policy: Policy, Seed: 1}, nil)
	if err == nil || !strings.Contains(err.Error(), "workload.model: grid") {
		t.Errorf("no model: got %v, want an error naming workload.model: grid", err)
	}
}
