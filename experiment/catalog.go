package experiment

import (
	"embed"
	"fmt"
	"io/fs"
	"sort"
	"strings"
)

//go:embed catalog/*.yaml
var catalog embed.FS

// Builtin lists the built-in experiments (by name).
func Builtin() []string {
	entries, _ := fs.ReadDir(catalog, "catalog")
	var names []string
	for _, e := range entries {
		names = append(names, strings.TrimSuffix(e.Name(), ".yaml"))
	}
	sort.Strings(names)
	return names
}

// LoadBuiltin loads a built-in experiment with label (may be empty).
// Trace names are looked up in TracesDir.
func LoadBuiltin(name, label string) (*Spec, error) {
	data, err := catalog.ReadFile("catalog/" + name + ".yaml")
	if err != nil {
		return nil, fmt.Errorf("no built-in experiment %q (built in: %s)", name, strings.Join(Builtin(), ", "))
	}
	s, err := Parse("builtin:"+name+".yaml", data, label)
	if err != nil {
		return nil, err
	}
	s.Dir = ""
	return s, nil
}

// ScaleLabel is the scale a store of a built-in experiment ran at: its
// label, or "paper" for the default scale of an experiment that has no
// paper label (its unlabelled sweep is the published scale, which
// reproduce runs). Aggregates record this scale.
func ScaleLabel(name, label string) string {
	if label != "" {
		return label
	}
	if s, err := LoadBuiltin(name, ""); err == nil {
		if _, ok := s.Labels["paper"]; !ok {
			return "paper"
		}
	}
	return label
}

// LoadBuiltinScale is LoadBuiltin at a scale that ScaleLabel gave:
// "paper" of an experiment without a paper label is its unlabelled spec.
func LoadBuiltinScale(name, scale string) (*Spec, error) {
	if scale == "paper" {
		s, err := LoadBuiltin(name, "")
		if err != nil {
			return nil, err
		}
		if _, ok := s.Labels["paper"]; !ok {
			return s, nil
		}
	}
	return LoadBuiltin(name, scale)
}

// BuiltinSource returns the YAML of a built-in experiment.
func BuiltinSource(name string) ([]byte, error) { return catalog.ReadFile("catalog/" + name + ".yaml") }
