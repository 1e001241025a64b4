package system

import (
	"errors"
	"fmt"
	"os"
	"reflect"
	"strings"
	"unicode"

	"github.com/gridsched/gridsched/internal/yamlx"
)

// Sections in YAML: a spec or a model-config file has one top-level key
// per system section. Go has no struct with fields chosen at run time, so
// the YAML shape of such a document is built with reflect: the exported
// YAML fields of a base struct plus one pointer field per registered
// section, of the type the system's NewParams returns. The schema check
// and strict decoding (with positions in errors) work on that shape.

// sectionField names the shape's field of a section key.
func sectionField(key string) string {
	var b strings.Builder
	b.WriteString("Section_")
	for _, r := range key {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	return b.String()
}

// Shape is struct type base's exported YAML fields plus one pointer
// field per registered section (base may be an empty struct).
func Shape(base reflect.Type) reflect.Type {
	var fields []reflect.StructField
	for i := 0; i < base.NumField(); i++ {
		f := base.Field(i)
		if !f.IsExported() || f.Tag.Get("yaml") == "-" {
			continue
		}
		fields = append(fields, f)
	}
	for _, s := range All() {
		if s.Section == "" {
			continue
		}
		fields = append(fields, reflect.StructField{
			Name: sectionField(s.Section),
			Type: reflect.TypeOf(s.NewParams()),
			Tag:  reflect.StructTag(`yaml:"` + s.Section + `" json:"` + s.Section + `,omitempty"`),
		})
	}
	return reflect.StructOf(fields)
}

// FromShape copies a shape value (or a pointer to one) into dst (a
// pointer to the base struct; nil: none) and returns its sections.
func FromShape(src reflect.Value, dst any) map[string]any {
	src = reflect.Indirect(src)
	var d reflect.Value
	if dst != nil {
		d = reflect.ValueOf(dst).Elem()
	}
	var secs map[string]any
	for i := 0; i < src.NumField(); i++ {
		f := src.Type().Field(i)
		if strings.HasPrefix(f.Name, "Section_") {
			if v := src.Field(i); !v.IsNil() {
				if secs == nil {
					secs = map[string]any{}
				}
				secs[strings.Split(f.Tag.Get("yaml"), ",")[0]] = v.Interface()
			}
			continue
		}
		if d.IsValid() {
			d.FieldByName(f.Name).Set(src.Field(i))
		}
	}
	return secs
}

// ToShape fills a new shape value (a pointer) from src (a pointer to the
// base struct) and its sections.
func ToShape(shape reflect.Type, src any, secs map[string]any) reflect.Value {
	v := reflect.New(shape)
	s := reflect.ValueOf(src).Elem()
	for i := 0; i < shape.NumField(); i++ {
		f := shape.Field(i)
		if strings.HasPrefix(f.Name, "Section_") {
			key := strings.Split(f.Tag.Get("yaml"), ",")[0]
			if x, ok := secs[key]; ok && x != nil {
				v.Elem().Field(i).Set(reflect.ValueOf(x))
			}
			continue
		}
		v.Elem().Field(i).Set(s.FieldByName(f.Name))
	}
	return v
}

// ParseConfig reads a model-config document: top-level keys are system
// sections (e.g. "cloud:", "hierarchy:"), each decoded strictly into its
// system's parameters (keys left out keep the values NewParams gives).
// Every unknown key and wrong type is reported with name:line:column.
func ParseConfig(name string, data []byte) (map[string]any, error) {
	shape := Shape(reflect.TypeOf(struct{}{}))
	sc := yamlx.Check(name, data, reflect.New(shape).Interface())
	if len(sc.Issues) > 0 {
		return nil, errors.Join(sc.Issues...)
	}
	v := reflect.New(shape)
	if err := yamlx.DecodeStrict(name, data, v.Interface()); err != nil {
		return nil, err
	}
	secs := FromShape(v, nil)
	// Each section's own checks, at the offending key's line and column.
	var errs []error
	for _, k := range sortedKeys(secs) {
		if _, err := Prepare(map[string]any{k: CloneParams(secs[k])}, nil); err != nil {
			errs = append(errs, sc.Locate(k, errors.New(strings.TrimPrefix(err.Error(), k+": "))))
		}
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return secs, nil
}

// LoadConfig is ParseConfig on a file.
func LoadConfig(path string) (map[string]any, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return ParseConfig(path, data)
}

// SetParam applies "section.key=value" (a YAML value) to sections,
// starting a missing section from its system's NewParams.
func SetParam(sections map[string]any, kv string) error {
	k, val, ok := strings.Cut(kv, "=")
	head, rest, dotted := strings.Cut(k, ".")
	if !ok || !dotted || rest == "" {
		return fmt.Errorf("--model-param %q: want section.key=value (sections: %s)", kv, strings.Join(Sections(), ", "))
	}
	s, found := BySection(head)
	if !found {
		return fmt.Errorf("--model-param %q: no system has a section %q (sections: %s)", kv, head, strings.Join(Sections(), ", "))
	}
	source := "--model-param " + kv
	doc := yamlx.PathDoc(rest, val)
	if sc := yamlx.Check(source, doc, s.NewParams()); len(sc.Issues) > 0 {
		return errors.Join(sc.Issues...)
	}
	sec, ok := sections[head]
	if !ok {
		sec = s.NewParams()
		sections[head] = sec
	}
	return yamlx.DecodeStrict(source, doc, sec)
}
