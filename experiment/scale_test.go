package experiment

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

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

// A seed doc's summary is the paper-scale table's; an experiment of the
// seed whose paper-scale aggregates are not committed keeps its quick
// verdicts there, after the paper-scale ones, marked and outside the
// tally. Here seed 000's OSC λ replay is taken out of a copy of the
// paper-scale aggregates.
func TestSummaryKeepsQuickOnlyExperiments(t *testing.T) {
	docs := t.TempDir()
	copyTree(t, filepath.Join("..", "docs"), docs)
	if err := os.Remove(filepath.Join(docs, "reproduction", "paper", AggregatesDir, "reservations-osc-lambda.csv")); err != nil {
		t.Fatal(err)
	}
	files, err := Regenerate(docs)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(files[filepath.Join(docs, "reservations.md")])
	if !strings.Contains(doc, "*Not yet run at the paper scale: reservations-osc-lambda. Their ") || !strings.Contains(doc, "](reproduction/quick/reproduction-seed000.md)") {
		t.Fatalf("the summary does not name the experiment left at the quick scale:\n%.1500s", doc)
	}
	spec, err := LoadBuiltin("reservations-osc-lambda", "quick")
	if err != nil {
		t.Fatal(err)
	}
	marked := strings.Count(doc, " (quick scale) |")
	if marked != len(spec.Claims) {
		t.Errorf("%d rows marked (quick scale), want the %d claims of reservations-osc-lambda", marked, len(spec.Claims))
	}
	// The tally counts the paper-scale claims only.
	m := regexp.MustCompile(`Claims \((\d+)\)`).FindStringSubmatch(doc)
	full, _ := Regenerate(filepath.Join("..", "docs"))
	mf := regexp.MustCompile(`Claims \((\d+)\)`).FindStringSubmatch(string(full[filepath.Join("..", "docs", "reservations.md")]))
	if m == nil || mf == nil {
		t.Fatal("no tally")
	}
	n, _ := strconv.Atoi(m[1])
	nf, _ := strconv.Atoi(mf[1])
	if n != nf-len(spec.Claims) {
		t.Errorf("tally of %d claims without the λ replay, %d with it: want %d fewer", n, nf, len(spec.Claims))
	}
}

func copyTree(t *testing.T, from, to string) {
	t.Helper()
	err := filepath.WalkDir(from, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, p)
		dst := filepath.Join(to, rel)
		if d.IsDir() {
			return os.MkdirAll(dst, 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(dst, b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}
