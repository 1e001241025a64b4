package experiment

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDuplicatesAreSpecErrors (issue 25): a grid value, a zip tuple or a
// policy given twice (1.0 and 1 are one value) is a spec error at the
// second occurrence's line and column, naming the first; so under a
// label. (Once, [1.0, 1.0] printed "8 runs done now" and stored 4.)
func TestDuplicatesAreSpecErrors(t *testing.T) {
	base := dropKey(dropKey(small, "policies:"), "grid:")
	for _, c := range []struct{ name, edit, label, want string }{
		{"grid value", "policies: [fcfs]\ngrid:\n  workload.params.arrival_scale: [1.0, 0.9, 1]\n", "",
			"spec.yaml:12:45: grid.workload.params.arrival_scale[2]: 1 is given twice (first at grid.workload.params.arrival_scale[0], line 12 column 35)"},
		{"policy", "policies: [easy, fcfs, easy]\n", "", "spec.yaml:10:24: policies[2]: policy easy is given twice (first at policies[0], line 10 column 12)"},
		{"grid policy", "grid:\n  policy: [easy, easy]\n", "", "spec.yaml:11:18: grid.policy[1]: easy is given twice (first at grid.policy[0], line 11 column 12)"},
		{"zip tuple", "policies: [fcfs]\nzip:\n  workload.params.arrival_scale: [0.8, 0.9, 0.8]\n  platform.nodes: [32, 32, 32]\n", "",
			`zip.platform.nodes[2]: the zip tuple platform.nodes=32,workload.params.arrival_scale=0.8 is given twice (first at zip.platform.nodes[0]`},
		{"label grid", "policies: [fcfs]\nlabels:\n  quick:\n    grid:\n      platform.nodes: [8, 16, 8]\n", "quick",
			"spec.yaml:14:31: labels.quick.grid.platform.nodes[2]: 8 is given twice (first at labels.quick.grid.platform.nodes[0], line 14 column 24)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse("spec.yaml", []byte(base+c.edit), c.label)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err %v\nwant %q\nspec:\n%s", err, c.want, base+c.edit)
			}
		})
	}
	// A zip whose tuples differ is accepted though a column repeats.
	if _, err := Parse("spec.yaml", []byte(base+"policies: [fcfs]\nzip:\n  workload.params.arrival_scale: [0.8, 0.9]\n  platform.nodes: [32, 32]\n"), ""); err != nil {
		t.Fatal(err)
	}
}

// TestRunKeyIsCanonical (issue 25): a run is keyed by its canonical
// configuration (parameters sorted by key, values in canonical JSON),
// not by the display name: 1 and 1.0 are one value, the text "1" is
// another; a sweep stores exactly the runs it says it ran.
func TestRunKeyIsCanonical(t *testing.T) {
	c1 := Config{Params: []Param{{"workload.params.arrival_scale", 1.0}, {"policy", "easy"}}}
	c2 := Config{Params: []Param{{"policy", "easy"}, {"workload.params.arrival_scale", uint64(1)}}}
	c3 := Config{Params: []Param{{"policy", "easy"}, {"workload.params.arrival_scale", "1"}}}
	s := &Spec{}
	k1, k2, k3 := s.NewRun(&c1, 2).Key, s.NewRun(&c2, 2).Key, s.NewRun(&c3, 2).Key
	if k1 != `policy="easy",workload.params.arrival_scale=1#2` || k1 != k2 || k3 == k1 {
		t.Fatalf("keys %q %q %q", k1, k2, k3)
	}
	sp := mustParse(t, small, "")
	path := filepath.Join(t.TempDir(), StoreFile)
	st, err := OpenStore(path, sp, false)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	sum, err := Sweep(sp, st, Options{Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	n, _ := st.Count()
	if sum.Ran != 12 || n != sum.Ran {
		t.Fatalf("ran %d, stored %d (want 12)", sum.Ran, n)
	}
	// A run stored twice is an error, never a silent no-op.
	cs := sp.Configs()
	if err := st.Insert(sp.NewRun(&cs[0], 0), map[string]float64{"mean_wait": 1}); err == nil || !strings.Contains(err.Error(), "is already in") {
		t.Fatalf("second insert of a run: %v", err)
	}
	if n2, _ := st.Count(); n2 != n {
		t.Fatalf("%d runs after the refused insert, want %d", n2, n)
	}
}

// TestInputsHashEveryFile (issue 25): Inputs lists every file the runs
// read — the trace, the platform file, a tree file a section names and
// files a grid varies — each with the SHA-256 and size of its content.
func TestInputsHashEveryFile(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(text), 0o644)
		return p
	}
	rec := " 0 10 1 -1 -1 1 10 -1 1 1 1 -1 1 1 -1 -1\n"
	write("a.swf", "; MaxProcs: 4\n1 0"+rec)
	write("b.swf", "; MaxProcs: 4\n1 5"+rec)
	write("p.yaml", "groups:\n  - count: 4\n")
	write("tree.yaml", "domains:\n  - name: a\n    nodes: [{count: 4}]\n")
	spec := write("spec.yaml", "name: in\nworkload: {trace: a.swf}\nplatform: {file: p.yaml}\npolicies: [grid-stat]\nhierarchy: {tree: tree.yaml}\ngrid:\n  workload.trace: [a.swf, b.swf]\nreplications: {count: 1}\nmetrics: [mean_wait]\n")
	s, err := Load(spec, "")
	if err != nil {
		t.Fatal(err)
	}
	ins, err := s.Inputs()
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, in := range ins {
		b, _ := os.ReadFile(filepath.Join(dir, in.Name))
		sum := sha256.Sum256(b)
		if in.SHA256 != hex.EncodeToString(sum[:]) || in.Size != int64(len(b)) {
			t.Errorf("%s: hash %s size %d", in.Describe(), in.SHA256, in.Size)
		}
		got = append(got, in.Describe())
	}
	if strings.Join(got, ", ") != "hierarchy tree.yaml, platform p.yaml, trace a.swf, trace b.swf" {
		t.Errorf("inputs: %s", strings.Join(got, ", "))
	}
}
