package experiment

import "testing"

// A store at the default scale of a built-in experiment without a paper
// label is its paper scale (reproduce runs the unlabelled sweep); one
// with a paper label keeps its own label.
func TestScaleLabel(t *testing.T) {
	cases := []struct{ name, label, want string }{
		{"easy-unstable-estimates", "", "paper"}, // no paper label: the default is the paper scale
		{"easy-unstable-fig89", "", ""},          // has a paper label: the default is not it
		{"easy-unstable-estimates", "quick", "quick"},
		{"easy-unstable-fig89", "paper", "paper"},
		{"no-such-experiment", "", ""},
	}
	for _, c := range cases {
		if got := ScaleLabel(c.name, c.label); got != c.want {
			t.Errorf("ScaleLabel(%q, %q) = %q, want %q", c.name, c.label, got, c.want)
		}
	}
	s, err := LoadBuiltinScale("easy-unstable-estimates", "paper")
	if err != nil {
		t.Fatal(err)
	}
	u, err := LoadBuiltin("easy-unstable-estimates", "")
	if err != nil {
		t.Fatal(err)
	}
	if s.Hash() != u.Hash() || s.Label != "" {
		t.Errorf("the paper scale of an experiment without a paper label must be its unlabelled spec (hash %s, label %q; want %s, \"\")", s.Hash(), s.Label, u.Hash())
	}
	p, err := LoadBuiltinScale("easy-unstable-fig89", "paper")
	if err != nil {
		t.Fatal(err)
	}
	if p.Label != "paper" {
		t.Errorf("an experiment with a paper label loads it: label %q", p.Label)
	}
}
