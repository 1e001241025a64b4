package model

import (
	"strings"
	"testing"
)

func TestParsePlatform(t *testing.T) {
	p, err := ParsePlatform("osc.yaml", []byte(`name: osc
groups:
  - count: 32
    pes: 4
  - count: 25
    pes: 2
    speed: 0.5
    capability: 3
`))
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Nodes) != 57 || p.TotalPEs() != 178 || p.Nodes[40].Speed != 0.5 || p.Nodes[40].Capability != 3 || p.Nodes[0].Speed != 1 {
		t.Fatalf("%d nodes, %d PEs, %+v", len(p.Nodes), p.TotalPEs(), p.Nodes[40])
	}
	bad := map[string]string{
		"groups:\n  - count: 2\n    spead: 2\n":       `osc.yaml: [3:5] unknown field "spead"`,
		"groups:\n  - count: 2\n    pes: many\n":      `osc.yaml: [3:10]`,
		"groups:\n  - count: 0\n":                     `groups[0].count: must be a positive integer, got 0`,
		"groups:\n  - count: 2\n    stability: 1.5\n": `groups[0].stability: 1.5 is outside [0, 1]`,
		"name: x\n": `no node groups`,
	}
	for in, want := range bad {
		_, err := ParsePlatform("osc.yaml", []byte(in))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: err %v, want %q", in, err, want)
		}
	}
}
