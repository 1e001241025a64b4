package experiment

import (
	"strings"
	"testing"
)

// The classic catalogue's axes as sweep parameters: policy.KEY in grid
// or zip adds KEY=value to each configuration's policy.
const axesSpec = `name: axes
workload:
  model: lublin
  jobs: 300
platform: {nodes: 64}
policies: [easy, easy-plus-plus]
grid:
  policy.order: [fcfs, sjf, wfp3]
  policy.depth: [1, all]
replications: {count: 1}
seed: 3
metrics: [mean_wait]
`

// TestPolicyAxesSweep: each configuration runs its policy with the swept
// keys added (easy with policy.order sjf runs easy:order=sjf), giving the
// metrics of that policy named directly; a combination the catalogue
// cannot run (depth=all orders by arrival) is an error naming the
// configuration.
func TestPolicyAxesSweep(t *testing.T) {
	doc := strings.Replace(axesSpec, "policy.depth: [1, all]", "policy.depth: [0, 1]", 1)
	s := mustParse(t, doc, "")
	cs := s.Configs()
	if len(cs) != 12 {
		t.Fatalf("%d configurations, want 12", len(cs))
	}
	direct := mustParse(t, strings.Replace(strings.Replace(doc, "policies: [easy, easy-plus-plus]", `policies: ["easy-plus-plus:depth=0,order=wfp3"]`, 1), "grid:\n  policy.order: [fcfs, sjf, wfp3]\n  policy.depth: [0, 1]\n", "", 1), "")
	want, err := direct.Execute(direct.NewRun(&direct.Configs()[0], 0), NewCache())
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, c := range cs {
		rc, err := c.Resolve(s)
		if err != nil {
			t.Fatalf("%s: %v", c.ID, err)
		}
		if c.ID != "policy.depth=0,policy.order=wfp3,policy=easy-plus-plus" {
			continue
		}
		found = true
		if rc.Policy != "easy-plus-plus:depth=0,order=wfp3" {
			t.Fatalf("%s resolves to policy %q", c.ID, rc.Policy)
		}
		got, err := s.Execute(s.NewRun(&c, 0), NewCache())
		if err != nil {
			t.Fatal(err)
		}
		if got["mean_wait"] != want["mean_wait"] {
			t.Errorf("%s: mean wait %v; easy-plus-plus:depth=0,order=wfp3 named directly: %v", c.ID, got["mean_wait"], want["mean_wait"])
		}
	}
	if !found {
		t.Fatal("configuration policy.depth=0,policy.order=wfp3,policy=easy-plus-plus not expanded")
	}
	if _, err := Parse("spec.yaml", []byte(axesSpec), ""); err == nil ||
		!strings.Contains(err.Error(), `configuration policy.depth=all,policy.order=sjf,policy=easy: policy "easy:depth=all,order=sjf"`) ||
		!strings.Contains(err.Error(), "order must be fcfs") {
		t.Errorf("depth=all with order=sjf: %v", err)
	}
}

// TestPolicyAxesErrors: an unknown key and a value outside its axis are
// errors at their line and column; a policy outside the catalogue cannot
// take the keys.
func TestPolicyAxesErrors(t *testing.T) {
	for doc, want := range map[string]string{
		strings.Replace(axesSpec, "policy.order:", "policy.ordr:", 1):    `spec.yaml:8:16: grid.policy.ordr: unknown parameter "policy.ordr" (vary policy, policy.* (the classic catalogue's keys: policy.order, policy.depth`,
		strings.Replace(axesSpec, "sjf, wfp3]", "sjf, wfp4]", 1):         `spec.yaml:8:29: grid.policy.order[2]: order "wfp4": want one of fcfs`,
		strings.Replace(axesSpec, "[1, all]", "[1, most]", 1):            `spec.yaml:9:21: grid.policy.depth[1]: depth "most": want 0, 1, a number of reservations, or all`,
		strings.Replace(axesSpec, "[easy, easy-plus-plus]", "[drrm]", 1): `policy "drrm" is not a policy of the classic catalogue`,
		// A catalogue point in policies: the value's column in the
		// point and the allowed values, not only "unknown policy".
		strings.Replace(axesSpec, "[easy, easy-plus-plus]", `[easy, "easy:order=wfp4"]`, 1): `spec.yaml:6:18: policies[1]: policy "easy:order=wfp4", column 12: order "wfp4": want one of fcfs`,
	} {
		_, err := Parse("spec.yaml", []byte(doc), "")
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("want %q, got %v", want, err)
		}
	}
}
