package cli

import (
	"strings"
	"testing"
)

// TestPoliciesCatalogue: 'gridsched policies' lists the four axes with
// every value and every alias with its expansion; with a spec it prints
// the expansion, and a bad spec is an error naming its column.
func TestPoliciesCatalogue(t *testing.T) {
	out, err := run("policies")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"# axis order", "order=wfp3", "order=f4", "# axis backfill", "backfill=lookahead", "# axis estimate", "estimate=epp",
		"# axis depth", "depth=all",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("policies lacks %q", want)
		}
	}
	for _, line := range []string{
		"easy-plus-plus classic:backfill=sjbf,estimate=epp; reference: pyss easy-plus-plus",
		"sjf classic:order=sjf,backfill=none",
		"sjf-easy classic:order=sjf",
		"conservative-double classic:depth=all,estimate=double; reference: pyss double-cons",
	} {
		if !strings.Contains(out, " "+line+" ") {
			t.Errorf("policies lacks the line %q", line)
		}
	}
	for _, name := range []string{"easy-sjbf", "easy-reverse", "easy-greedy", "easy-lookahead", "easy-double", "easy-perfect-double",
		"easy-head-double", "easy-tail-double", "easy-shrinking", "easy-alpha", "easy-plus-plus", "easy-plus-plus-common",
		"easy-probabilistic", "easy-probabilistic-common", "conservative-double", "maui", "filler", "sjf", "ljf", "wfp3", "unicep",
		"f1", "f2", "f3", "f4", "sjf-easy", "ljf-easy", "wfp3-easy", "unicep-easy", "f1-easy", "f2-easy", "f3-easy", "f4-easy"} {
		if !strings.Contains(out, " "+name+" classic") {
			t.Errorf("policies lacks the alias %s with its expansion", name)
		}
	}
	out, err = run("policies", "easy-plus-plus:common=yes,consult=pyss")
	if err != nil || strings.TrimSpace(out) != "classic:backfill=sjbf,estimate=epp,consult=pyss,common=yes" {
		t.Errorf("expansion: %q, %v", out, err)
	}
	_, err = run("policies", "easy:order=sjf,backfil=sjbf")
	if err == nil || !strings.Contains(err.Error(), "column 16") || !strings.Contains(err.Error(), `unknown key "backfil"`) {
		t.Errorf("bad key: %v", err)
	}
	_, err = run("policies", "easy:order=shortest")
	if err == nil || !strings.Contains(err.Error(), "column 12") {
		t.Errorf("bad value: %v", err)
	}
	_, err = run("simulate", "--jobs", "50", "--policy", "easy:depth=all,backfill=sjbf")
	if err == nil || !strings.Contains(err.Error(), "depth=all") {
		t.Errorf("simulate with an impossible combination: %v", err)
	}
	if _, err = run("simulate", "--jobs", "200", "--policy", "easy:order=wfp3,backfill=sjbf,estimate=epp"); err != nil {
		t.Errorf("simulate with a composed policy: %v", err)
	}
}
