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

// BuiltinSource returns the YAML of a built-in experiment.
func BuiltinSource(name string) ([]byte, error) { return catalog.ReadFile("catalog/" + name + ".yaml") }
