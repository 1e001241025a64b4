package model

import (
	"math"
	"strings"
	"testing"

	"github.com/gridsched/gridsched/internal/testenv"
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
}

// TestParsePlatformRefuses: every malformed platform is refused with the
// file, line and column of the value (issue 18, items 1-3 and 6), never
// a panic, a NaN or a silently truncated value.
func TestParsePlatformRefuses(t *testing.T) {
	for _, c := range []struct{ name, in, want string }{
		{"unknown key", "groups:\n  - count: 2\n    spead: 2\n", `osc.yaml:3:5: groups[0].spead: unknown key "spead"`},
		{"text count", "groups:\n  - count: 2\n    pes: many\n", `osc.yaml:3:10: groups[0].pes: want an integer, got text "many"`},
		{"zero count", "groups:\n  - count: 0\n", `osc.yaml:2:12: groups[0].count: 0 is out of range: want a value >= 1`},
		{"no count", "groups:\n  - pes: 2\n", `osc.yaml:2:8: groups[0]: every group needs a count >= 1`},
		{"stability", "groups:\n  - count: 2\n    stability: 1.5\n", `osc.yaml:3:16: groups[0].stability: 1.5 is out of range: want a value in [0,1]`},
		{"no groups", "name: x\n", `osc.yaml: platform has no node groups`},
		{"empty file", "", `osc.yaml: the platform file is empty`},
		{"blank file", "  \n\n", `osc.yaml: the platform file is empty`},
		{"tag on list", "groups: !x foo\n", `osc.yaml:1:9: groups: YAML tag !x is not accepted here`},
		{"str tag", "groups:\n  - count: !!str 4\n", `osc.yaml:2:12: groups[0].count: YAML tag !!str is not accepted here`},
		{"tag and nan", "groups:\n  - count: !!str 4\n    speed: .nan\n", `osc.yaml:2:12: groups[0].count: YAML tag !!str is not accepted here: write the value without a tag
osc.yaml:3:12: groups[0].speed: want a finite number, got .nan`},
		{"fraction count", "groups:\n  - count: 64.5\n", `osc.yaml:2:12: groups[0].count: want an integer, got float 64.5`},
		{"nan speed", "groups:\n  - count: 2\n    speed: .nan\n", `osc.yaml:3:12: groups[0].speed: want a finite number, got .nan`},
		{"inf delay", "groups:\n  - count: 2\n    delay: .inf\n", `osc.yaml:3:12: groups[0].delay: want a finite number, got .inf`},
		{"nan stability", "groups:\n  - count: 2\n    stability: .NaN\n", `osc.yaml:3:16: groups[0].stability: want a finite number, got .NaN`},
		{"huge pes", "groups:\n  - count: 2\n    pes: 4611686018427387904\n", `osc.yaml:3:10: groups[0].pes: 4611686018427387904 processors per node is over the limit of 1048576`},
		{"huge count", "groups:\n  - count: 2000000000\n", `osc.yaml:2:12: groups[0].count: 2000000000 nodes bring the platform over the limit of 1048576 nodes (raise it with --max-nodes)`},
		{"counts add up", "groups:\n  - count: 1000000\n  - count: 100000\n", `osc.yaml:3:12: groups[1].count: 100000 nodes bring the platform over the limit`},
		{"alias bomb", "a: &a [1,1,1,1,1,1,1,1,1,1]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a,*a]\nc: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b,*b]\nd: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c,*c]\ne: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d,*d]\n", `the document expands to more than 100000 values`},
		{"negative speed", "groups:\n  - count: 2\n    speed: -1\n", `osc.yaml:3:12: groups[0].speed: -1 is out of range: want a value >= 0.001`},
	} {
		t.Run(c.name, func(t *testing.T) {
			p, err := ParsePlatform("osc.yaml", []byte(c.in))
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err %v, want %q", err, c.want)
			}
			if p != nil {
				t.Fatalf("a platform came back with the error: %+v", p)
			}
		})
	}
}

// FuzzParsePlatform: a platform file never panics the reader; what it
// accepts has nodes with finite attributes and a positive processor
// total; what it refuses names the file (issue 18, item 7).
func FuzzParsePlatform(f *testing.F) {
	f.Add([]byte("name: osc\ngroups:\n  - count: 32\n    pes: 4\n  - count: 25\n    pes: 2\n    speed: 0.5\n"))
	f.Add([]byte("groups: !x foo\n"))
	f.Add([]byte("groups:\n  - count: 2\n    speed: .nan\n    stability: .inf\n"))
	f.Add([]byte("a: &a [1,1]\nb: [*a,*a]\n"))
	f.Add([]byte("groups:\n  - {count: 4, pes: 4611686018427387904, prefix: x}\n"))
	for _, sp := range testenv.IntegerSpellings { // every YAML integer spelling, in every numeric field
		f.Add([]byte("groups:\n  - {count: " + sp.Text + ", pes: " + sp.Text + ", stability: " + sp.Text + ", delay: " + sp.Text + "}\n"))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := ParsePlatform("fuzz.yaml", data)
		if err != nil {
			if !strings.Contains(err.Error(), "fuzz.yaml") {
				t.Fatalf("error without the file: %v", err)
			}
			return
		}
		if len(p.Nodes) == 0 || len(p.Nodes) > MaxNodes || p.TotalPEs() <= 0 {
			t.Fatalf("accepted %d nodes, %d processors", len(p.Nodes), p.TotalPEs())
		}
		for _, n := range p.Nodes {
			for _, v := range []float64{n.Speed, n.Cost, n.Stability, n.Delay, n.MIPS} {
				if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
					t.Fatalf("accepted node %+v", n)
				}
			}
			if n.PEs < 1 || n.PEs > MaxPEs || n.Speed <= 0 || n.Stability > 1 {
				t.Fatalf("accepted node %+v", n)
			}
		}
	})
}
