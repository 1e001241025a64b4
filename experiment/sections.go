package experiment

import (
	"encoding/json"
	"reflect"
	"strings"
	"sync"

	"github.com/gridsched/gridsched/system"
)

// A spec's systems sections (instability, hierarchy, cloud, …) are not
// fields of Spec: each registered system declares its section and the
// type of its parameters (package system), and the YAML and JSON shape of
// a spec is Spec's own fields plus one field per section, built when the
// first spec is read. The schema check, strict decoding (with positions
// in errors) and the stored JSON all work on that shape, so a new system
// needs no change here.

var (
	shapeOnce sync.Once
	specShape reflect.Type
	rcShape   reflect.Type
)

func shapes() {
	shapeOnce.Do(func() {
		specShape = system.Shape(reflect.TypeOf(Spec{}))
		rcShape = system.Shape(reflect.TypeOf(RunConfig{}))
	})
}

// newShape returns a pointer to an empty value of shape.
func newShape(shape reflect.Type) reflect.Value { return reflect.New(shape) }

func fromShape(src reflect.Value, dst any) map[string]any { return system.FromShape(src, dst) }

func toShape(shape reflect.Type, src any, secs map[string]any) reflect.Value {
	return system.ToShape(shape, src, secs)
}

// specJSON is Spec without its methods (the JSON of the shape's own
// fields).
type specJSON Spec

// MarshalJSON writes the spec with its sections (what a store keeps).
func (s Spec) MarshalJSON() ([]byte, error) {
	shapes()
	c := specJSON(s)
	return json.Marshal(toShape(specShape, (*Spec)(&c), s.Sections).Interface())
}

// UnmarshalJSON reads a spec a store kept.
func (s *Spec) UnmarshalJSON(b []byte) error {
	shapes()
	v := reflect.New(specShape)
	if err := json.Unmarshal(b, v.Interface()); err != nil {
		return err
	}
	var c specJSON
	secs := fromShape(v, (*Spec)(&c))
	*s = Spec(c)
	s.Sections = secs
	return nil
}

// section returns the system that owns a dotted parameter key
// (section.field…) and the rest of the key.
func section(key string) (*system.System, string, bool) {
	head, rest, ok := strings.Cut(key, ".")
	if !ok {
		return nil, "", false
	}
	s, found := system.BySection(head)
	return s, rest, found
}

// cloneSections copies every section value (sweeps change parameters
// per configuration on a copy).
func cloneSections(secs map[string]any) map[string]any {
	if secs == nil {
		return nil
	}
	out := make(map[string]any, len(secs))
	for k, v := range secs {
		out[k] = system.CloneParams(v)
	}
	return out
}
