package experiment

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// cartesian is the expansion as Configs built it before issue 18 made it
// lazy: the whole list, axis by axis.
func cartesian(s *Spec) []Config {
	configs := []Config{{}}
	for _, d := range s.dimensions() {
		var next []Config
		for _, c := range configs {
			for _, vals := range d.values {
				n := Config{Params: append([]Param(nil), c.Params...)}
				for k, key := range d.keys {
					n.Params = append(n.Params, Param{Key: key, Value: vals[k]})
				}
				next = append(next, n)
			}
		}
		configs = next
	}
	for i := range configs {
		configs[i].Index = i
		parts := make([]string, len(configs[i].Params))
		for k, p := range configs[i].Params {
			parts[k] = p.Key + "=" + FormatValue(p.Value)
		}
		configs[i].ID = strings.Join(parts, ",")
		if configs[i].ID == "" {
			configs[i].ID = "default"
		}
		configs[i].Canon = configs[i].Canonical()
	}
	return configs
}

// TestConfigSeqIsTheExpansion (issue 18, item 2): the lazy expansion
// (configuration i decoded from i) gives every built-in experiment's
// configurations, at every label, exactly as the list-building expansion
// did: same order, indices, ids and values; and a spec without grid, zip
// or policies has the one "default" configuration.
func TestConfigSeqIsTheExpansion(t *testing.T) {
	checked := 0
	for _, name := range Builtin() {
		base, err := LoadBuiltin(name, "")
		if err != nil {
			t.Fatal(err)
		}
		labels := []string{""}
		for l := range base.Labels {
			labels = append(labels, l)
		}
		for _, l := range labels {
			s, err := LoadBuiltin(name, l)
			if err != nil {
				t.Fatal(err)
			}
			want := cartesian(s)
			if n, _ := s.ConfigCount(); n != len(want) {
				t.Errorf("%s/%s: ConfigCount %d, expansion %d", name, l, n, len(want))
			}
			if diff := cmp.Diff(want, s.Configs()); diff != "" {
				t.Errorf("%s/%s: (-list +lazy)\n%s", name, l, diff)
			}
			checked++
		}
	}
	if checked < 40 {
		t.Errorf("only %d specs checked", checked)
	}
	s := &Spec{}
	if got := s.Configs(); len(got) != 1 || got[0].ID != "default" {
		t.Errorf("no axes: %+v", got)
	}
	s = &Spec{Policies: []string{"fcfs"}, Grid: map[string][]any{"platform.nodes": {}}}
	if got := s.Configs(); len(got) != 0 {
		t.Errorf("an empty axis: %d configurations", len(got))
	}
}

// TestLargeGridIsNotMaterialised: the 10^5-configuration grid the limit
// allows is iterated one configuration at a time: stopping after three
// makes three, and configuration 99,999 is reached by the iteration with
// the values mixed-radix decoding gives.
func TestLargeGridIsNotMaterialised(t *testing.T) {
	s := &Spec{Policies: []string{"fcfs"}, Grid: map[string][]any{}}
	for _, k := range []string{"a", "b", "c", "d", "e"} {
		for v := range 10 {
			s.Grid["workload.params."+k] = append(s.Grid["workload.params."+k], v)
		}
	}
	if n, ok := s.ConfigCount(); !ok || n != 100_000 {
		t.Fatalf("count %d %v", n, ok)
	}
	made := 0
	for c := range s.ConfigSeq() {
		made++
		if made == 3 {
			if c.ID != "workload.params.a=0,workload.params.b=0,workload.params.c=0,workload.params.d=0,workload.params.e=2,policy=fcfs" {
				t.Errorf("third configuration %s", c.ID)
			}
			break
		}
	}
	if made != 3 {
		t.Errorf("made %d", made)
	}
	last := Config{}
	for c := range s.ConfigSeq() {
		last = c
	}
	if last.Index != 99_999 || last.ID != "workload.params.a=9,workload.params.b=9,workload.params.c=9,workload.params.d=9,workload.params.e=9,policy=fcfs" {
		t.Errorf("last configuration %d %s", last.Index, last.ID)
	}
}
